/**
 * Compaction that cannot overflow, through the built binary: a session far
 * larger than the model's window is summarized in several requests that each
 * fit (the fake server refuses any request over the window, as a provider
 * does), a 20 MB tool result reaches the summary request cut with a marker,
 * and the session goes on afterwards — after a manual compact and after a
 * prompt that overflowed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { measureRequest } from "../support/fake-llm/limits.ts";
import type { FakeResponse, RecordedRequest } from "../support/fake-llm/server.ts";
import { createRpcFixture, textOf, type RpcFixture, type RpcProcess } from "../support/rpc-harness.ts";
import { fileContent, writeSession } from "./compaction/big-session.ts";

const CONTEXT_WINDOW = 8000;
const MAX_TOKENS = 2048;

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture({ models: [{ id: "fake-model", contextWindow: CONTEXT_WINDOW, maxTokens: MAX_TOKENS }] });
  fixture.server.limits = { contextWindow: CONTEXT_WINDOW };
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const isSummaryRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("handover note");
/** The note on the beginning of a split turn is a summary request of its own, beside the history's. */
const isTurnPrefixRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("beginning of a turn");
const historySummaries = (from: number) => fixture.server.requests.slice(from).filter((request) => isSummaryRequest(request) && !isTurnPrefixRequest(request));

/** History summary requests are answered "SUMMARY-1", "SUMMARY-2", …; chat requests with `chat` in order. */
function script(...chat: FakeResponse[]): void {
  let summaries = 0;
  const queue = [...chat];
  const step = (request: RecordedRequest): FakeResponse =>
    isTurnPrefixRequest(request)
      ? { content: [{ type: "text", text: "PREFIX-NOTE: reading a file." }] }
      : isSummaryRequest(request)
        ? { content: [{ type: "text", text: `SUMMARY-${++summaries}: the user asked about files.` }] }
        : (queue.shift() ?? { content: [{ type: "text", text: "unscripted" }] });
  fixture.server.enqueue(...Array.from({ length: 200 }, () => step));
}

/** Every request from `from` on was within the window, none refused. */
function expectAllFit(from: number): void {
  const requests = fixture.server.requests.slice(from);
  for (const request of requests) {
    expect(request.refused).toBeUndefined();
    expect(measureRequest(request.body).inputTokens + (request.body.max_tokens ?? 0)).toBeLessThanOrEqual(CONTEXT_WINDOW);
  }
}

function compactionEntries(file: string): any[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.type === "compaction");
}

async function askAndExpectAnswer(rpc: RpcProcess, question: string, answer: string): Promise<RecordedRequest> {
  const from = rpc.mark();
  const requestIndex = fixture.server.requests.length;
  expect((await rpc.request({ type: "prompt", message: question })).success).toBe(true);
  const answered = await rpc.waitFor(
    (frame) => frame.type === "message_end" && frame.message.role === "assistant" && frame.message.stopReason === "stop",
    8_000,
    "the answer",
    from,
  );
  expect(textOf(answered.message)).toBe(answer);
  await rpc.waitForEvent("agent_settled", () => true, 8_000, from);
  return fixture.server.requests.slice(requestIndex).findLast((request) => !isSummaryRequest(request))!;
}

describe("a session larger than the model's window", () => {
  test("a manual compact summarizes it in several requests that each fit, carrying the summary forward; the session continues", async () => {
    const file = writeSession(fixture.cwd, "big", 30, fileContent);
    const rpc = fixture.start(["--model", "fake/fake-model", "--session", file]);
    script({ content: [{ type: "text", text: "continuing after compaction" }] });
    const from = fixture.server.requests.length;

    const response = await rpc.request({ type: "compact" });
    expect(response).toMatchObject({ command: "compact", success: true });

    const summaries = historySummaries(from);
    expect(summaries.length).toBeGreaterThanOrEqual(3);
    expectAllFit(from);
    // Each part updates the summary of the parts before it, in the conversation's order.
    summaries.forEach((request, index) => {
      const body = JSON.stringify(request.body);
      if (index > 0) expect(body).toContain(`SUMMARY-${index}:`);
    });
    expect(JSON.stringify(summaries[0].body)).toContain("question 1:");
    expect(JSON.stringify(summaries.at(-1)!.body)).not.toContain("question 1:");
    // One compaction entry, pi's shape, holding the last part's summary.
    const last = `SUMMARY-${summaries.length}:`;
    expect(response.data.summary).toStartWith(last);
    const entries = compactionEntries(file);
    expect(entries).toHaveLength(1);
    expect(entries[0].summary).toStartWith(last);
    expect(typeof entries[0].firstKeptEntryId).toBe("string");

    const chat = await askAndExpectAnswer(rpc, "what next?", "continuing after compaction");
    expect(JSON.stringify(chat.body.messages)).toContain(last);
    expectAllFit(from);
    expect(await rpc.close()).toBe(0);
  });

  test("a prompt that overflows the window is compacted in parts and retried, and the answer arrives", async () => {
    const file = writeSession(fixture.cwd, "overflowing", 30, fileContent);
    const rpc = fixture.start(["--model", "fake/fake-model", "--session", file]);
    script({ content: [{ type: "text", text: "answered after the overflow" }] });
    const from = fixture.server.requests.length;

    const chat = await askAndExpectAnswer(rpc, "and now?", "answered after the overflow");
    const requests = fixture.server.requests.slice(from);
    // The first attempt was refused as too long; the summaries and the retry fit.
    expect(requests[0].refused).toContain("maximum context length");
    expect(historySummaries(from).length).toBeGreaterThanOrEqual(3);
    expectAllFit(from + 1);
    const end = rpc.ofType("compaction_end").at(-1)!;
    expect(end).toMatchObject({ reason: "overflow", aborted: false, willRetry: true });
    expect(JSON.stringify(chat.body.messages)).toContain("and now?");
    expect(compactionEntries(file)).toHaveLength(1);
    expect(await rpc.close()).toBe(0);
  });
});

describe("an oversized tool result", () => {
  test("a 20 MB tool result reaches the summary request cut, with a marker saying how much was left out", async () => {
    const huge = `build log start\n${"0123456789abcdef".repeat(1_250_000)}`;
    const file = writeSession(fixture.cwd, "huge", 4, (turn) => (turn === 1 ? huge : fileContent(turn)));
    const rpc = fixture.start(["--model", "fake/fake-model", "--session", file]);
    script();
    const from = fixture.server.requests.length;

    const response = await rpc.request({ type: "compact" });
    expect(response.success).toBe(true);
    const first = JSON.stringify(historySummaries(from)[0].body);
    expect(first).toContain("build log start");
    expect(first).toContain("[… 19.1 MB of tool output omitted …]");
    expect(first.length).toBeLessThan(CONTEXT_WINDOW * 4);
    expectAllFit(from);
    expect(compactionEntries(file)).toHaveLength(1);
    expect(await rpc.close()).toBe(0);
  });
});
