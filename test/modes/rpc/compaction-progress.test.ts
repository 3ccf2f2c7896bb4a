/**
 * Compaction always makes progress, with the default settings (reserve 16384,
 * keep 20000) on a model whose window is far smaller than them: a short
 * conversation can be compacted by hand, a context overflow is compacted and
 * retried once, and a short answer does not set off a compaction.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { FakeResponse, RecordedRequest } from "../../support/fake-llm/server.ts";
import { createRpcFixture, duplicateResponseIds, textOf, type RpcFixture, type RpcProcess } from "../../support/rpc-harness.ts";

const CONTEXT_WINDOW = 8000;
const SUMMARY = "SUMMARY: the user asked questions and got answers.";
const OVERFLOW: FakeResponse = {
  type: "error",
  status: 400,
  message: `This model's maximum context length is ${CONTEXT_WINDOW} tokens. Please reduce the length of the messages.`,
};

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture({
    models: [{ id: "fake-model", contextWindow: CONTEXT_WINDOW, maxTokens: 2048 }],
    settings: { retry: { baseDelayMs: 10 } },
  });
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const isSummaryRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("handover note");
const chatRequestsSince = (index: number) => fixture.server.requests.slice(index).filter((request) => !isSummaryRequest(request));
const summaryRequestsSince = (index: number) => fixture.server.requests.slice(index).filter(isSummaryRequest);

/** Answers summary requests with SUMMARY and chat requests with `chat`, in order. */
function script(...chat: FakeResponse[]): void {
  const queue = [...chat];
  const step = (request: RecordedRequest): FakeResponse =>
    isSummaryRequest(request) ? { content: [{ type: "text", text: SUMMARY }] } : (queue.shift() ?? { content: [{ type: "text", text: "unscripted" }] });
  fixture.server.enqueue(...Array.from({ length: chat.length + 4 }, () => step));
}

const reply = (text: string, input = 100): FakeResponse => ({ content: [{ type: "text", text }], usage: { input, output: 10 } });

async function ask(rpc: RpcProcess, question: string, answer: FakeResponse): Promise<void> {
  script(answer);
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: question })).success).toBe(true);
  await rpc.waitForEvent("agent_end", () => true, 5_000, from);
  fixture.server.clearScript();
}

async function finish(rpc: RpcProcess): Promise<void> {
  expect(await rpc.close()).toBe(0);
  expect(duplicateResponseIds(rpc.frames)).toEqual([]);
}

function sessionEntries(file: string): any[] {
  return readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
}

describe("a short conversation", () => {
  test("a manual compact of a two-exchange conversation succeeds with a summary, keeping the latest exchange", async () => {
    const rpc = fixture.start();
    await ask(rpc, "first question", reply("first answer"));
    await ask(rpc, "second question", reply("second answer"));
    script();
    const requestsBefore = fixture.server.requests.length;
    const from = rpc.mark();

    const response = await rpc.request({ type: "compact" });
    expect(response).toMatchObject({ command: "compact", success: true });
    expect(response.data.summary).toContain(SUMMARY);
    expect(response.data.tokensBefore).toBeGreaterThan(0);
    expect(response.data.estimatedTokensAfter).toBeGreaterThan(0);
    const end = await rpc.waitForEvent("compaction_end", () => true, 5_000, from);
    expect(end).toMatchObject({ reason: "manual", aborted: false, willRetry: false });
    expect(end.result).toEqual(response.data);

    // The first exchange was summarized; the second is kept verbatim.
    const summarized = JSON.stringify(summaryRequestsSince(requestsBefore).map((request) => request.body));
    expect(summarized).toContain("first question");
    expect(summarized).not.toContain("second question");
    const { sessionFile } = (await rpc.request({ type: "get_state" })).data;
    const entries = sessionEntries(sessionFile);
    const compaction = entries.find((entry) => entry.type === "compaction");
    const kept = entries.find((entry) => entry.id === compaction.firstKeptEntryId);
    expect(kept.message.role).toBe("user");
    expect(textOf(kept.message)).toBe("second question");

    const nextRequest = fixture.server.requests.length;
    await ask(rpc, "third question", reply("third answer"));
    const sent = JSON.stringify(fixture.server.requests[nextRequest].body.messages);
    expect(sent).toContain(SUMMARY);
    expect(sent).toContain("second answer");
    expect(sent).not.toContain("first answer");
    await finish(rpc);
  });

  test("a manual compact of a session with no messages still has nothing to compact", async () => {
    const rpc = fixture.start();
    const response = await rpc.request({ type: "compact" });
    expect(response.success).toBe(false);
    expect(response.error).toContain("Nothing to compact");
    await finish(rpc);
  });
});

describe("context overflow in a small window", () => {
  test("is compacted and the prompt retried once; the run ends with the answer", async () => {
    const rpc = fixture.start();
    await ask(rpc, "first question", reply("first answer"));
    await ask(rpc, "second question", reply("second answer"));
    script(OVERFLOW, reply("third answer"));
    const requestsBefore = fixture.server.requests.length;
    const from = rpc.mark();
    expect((await rpc.request({ type: "prompt", message: "third question" })).success).toBe(true);

    const end = await rpc.waitForEvent("compaction_end", () => true, 5_000, from);
    expect(end).toMatchObject({ reason: "overflow", aborted: false, willRetry: true });
    expect(end.result.summary).toContain(SUMMARY);
    expect(typeof end.result.estimatedTokensAfter).toBe("number");
    const answered = await rpc.waitFor(
      (frame) => frame.type === "message_end" && frame.message.role === "assistant" && frame.message.stopReason === "stop",
      5_000,
      "the retried answer",
      from,
    );
    expect(textOf(answered.message)).toBe("third answer");
    await rpc.waitForEvent("agent_end", () => true, 5_000, rpc.frames.indexOf(answered));

    const chat = chatRequestsSince(requestsBefore);
    expect(chat).toHaveLength(2);
    const retried = JSON.stringify(chat[1].body.messages);
    expect(retried).toContain(SUMMARY);
    expect(retried).toContain("third question");
    expect(retried).not.toContain("first answer");
    expect((await rpc.request({ type: "get_last_assistant_text" })).data.text).toBe("third answer");
    await finish(rpc);
  });

  test("on the very first prompt, the prompt itself is summarized and retried", async () => {
    const rpc = fixture.start();
    script(OVERFLOW, reply("answer to the long request"));
    const requestsBefore = fixture.server.requests.length;
    const from = rpc.mark();
    await rpc.request({ type: "prompt", message: `please review this: ${"lorem ipsum ".repeat(200)}` });

    const end = await rpc.waitForEvent("compaction_end", () => true, 5_000, from);
    expect(end).toMatchObject({ reason: "overflow", aborted: false, willRetry: true });
    expect(JSON.stringify(summaryRequestsSince(requestsBefore)[0].body)).toContain("please review this");
    const answered = await rpc.waitFor(
      (frame) => frame.type === "message_end" && frame.message.role === "assistant" && frame.message.stopReason === "stop",
      5_000,
      "the retried answer",
      from,
    );
    expect(textOf(answered.message)).toBe("answer to the long request");
    const chat = chatRequestsSince(requestsBefore);
    expect(chat).toHaveLength(2);
    expect(JSON.stringify(chat[1].body.messages)).toContain(SUMMARY);
    await finish(rpc);
  });

  test("a retry that overflows again ends the run with the error; there is no second compaction", async () => {
    const rpc = fixture.start();
    await ask(rpc, "first question", reply("first answer"));
    script(OVERFLOW, OVERFLOW, reply("never asked for"));
    const requestsBefore = fixture.server.requests.length;
    const from = rpc.mark();
    await rpc.request({ type: "prompt", message: "second question" });

    const compacted = await rpc.waitForEvent("compaction_end", (frame) => frame.willRetry === true, 5_000, from);
    const failed = await rpc.waitFor(
      (frame) => frame.type === "message_end" && frame.message.role === "assistant" && frame.message.stopReason === "error",
      5_000,
      "the failed retry",
      rpc.frames.indexOf(compacted),
    );
    expect(failed.message.errorMessage).toContain("maximum context length");
    await finish(rpc);
    expect(rpc.ofType("compaction_start", from)).toHaveLength(1);
    expect(chatRequestsSince(requestsBefore)).toHaveLength(2);
  });
});

describe("threshold in a small window", () => {
  test("a one-line answer does not set off a compaction; one that leaves less than a quarter of the window free does", async () => {
    const rpc = fixture.start();
    await ask(rpc, "hello", reply("hi", 1_500));
    await ask(rpc, "and again", reply("hi again", 5_900));
    expect(rpc.ofType("compaction_start")).toHaveLength(0);

    script(reply("a long answer", 6_100));
    const from = rpc.mark();
    await rpc.request({ type: "prompt", message: "tell me more" });
    const end = await rpc.waitForEvent("compaction_end", () => true, 5_000, from);
    expect(end).toMatchObject({ reason: "threshold", aborted: false, willRetry: false });
    expect(end.result.summary).toContain(SUMMARY);
    // An estimate of what is left, not the usage the kept answer reported before compaction.
    expect(end.result.estimatedTokensAfter).toBeLessThan(1_000);
    await finish(rpc);
    expect(rpc.ofType("compaction_start")).toHaveLength(1);
  });
});
