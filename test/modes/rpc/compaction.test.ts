/**
 * Context compaction over RPC: the `compact` command and its data, the
 * compaction_start/end events (manual, threshold, overflow, aborted), the
 * auto_compaction_* events of automatic runs, and set_auto_compaction.
 * The fake model's context window is small so a scripted usage fills it.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { RecordedRequest } from "../../support/fake-llm/server.ts";
import { createRpcFixture, duplicateResponseIds, textOf, type RpcFixture, type RpcProcess } from "../../support/rpc-harness.ts";

const CONTEXT_WINDOW = 10_000;
const SUMMARY = "SUMMARY: the user asked two questions and got two answers.";

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture({
    models: [{ id: "fake-model", contextWindow: CONTEXT_WINDOW }],
    settings: { compaction: { reserveTokens: 2_000, keepRecentTokens: 10 }, retry: { baseDelayMs: 10 } },
  });
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const isSummaryRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("handover note");
const summaryRequests = () => fixture.server.requests.filter(isSummaryRequest);

/** Script steps for the summarization calls of one compaction (one, or two for a split turn). */
function scriptSummaries(): void {
  const step = (request: RecordedRequest) =>
    isSummaryRequest(request) ? { content: [{ type: "text" as const, text: SUMMARY }] } : { content: [{ type: "text" as const, text: "not a summary request" }] };
  fixture.server.enqueue(step, step);
}

async function ask(rpc: RpcProcess, question: string, reply: { text: string; input?: number }): Promise<void> {
  fixture.server.enqueue({ content: [{ type: "text", text: reply.text }], usage: { input: reply.input ?? 100, output: 10 } });
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: question })).success).toBe(true);
  await rpc.waitForEvent("agent_end", () => true, 5_000, from);
}

async function finish(rpc: RpcProcess): Promise<void> {
  expect(await rpc.close()).toBe(0);
  expect(duplicateResponseIds(rpc.frames)).toEqual([]);
}

describe("compact command", () => {
  test("summarizes the history with the custom instructions and returns the seed's data", async () => {
    const rpc = fixture.start();
    await ask(rpc, "first question", { text: "first answer" });
    await ask(rpc, "second question", { text: "second answer" });
    const messagesBefore = (await rpc.request({ type: "get_state" })).data.messageCount;
    const summariesBefore = summaryRequests().length;
    scriptSummaries();
    const from = rpc.mark();

    const response = await rpc.request({ type: "compact", customInstructions: "Focus on the questions asked" });
    expect(response).toMatchObject({ command: "compact", success: true });
    const data = response.data;
    expect(data.summary).toContain(SUMMARY);
    expect(typeof data.firstKeptEntryId).toBe("string");
    expect(data.tokensBefore).toBeGreaterThan(0);
    expect(typeof data.estimatedTokensAfter).toBe("number");
    expect(typeof data.details).toBe("object");

    const summaryCalls = summaryRequests().slice(summariesBefore);
    expect(summaryCalls.length).toBeGreaterThan(0);
    expect(JSON.stringify(summaryCalls[0].body)).toContain("Focus on the questions asked");
    expect(JSON.stringify(summaryCalls[0].body)).toContain("first question");

    const start = await rpc.waitForEvent("compaction_start", () => true, 5_000, from);
    expect(start).toEqual({ type: "compaction_start", reason: "manual" });
    const end = await rpc.waitForEvent("compaction_end", () => true, 5_000, from);
    expect(end).toMatchObject({ reason: "manual", aborted: false, willRetry: false });
    expect(end.result).toMatchObject({ summary: data.summary, firstKeptEntryId: data.firstKeptEntryId, tokensBefore: data.tokensBefore });
    // A manual compaction is not an automatic one.
    expect(rpc.ofType("auto_compaction_start", from)).toHaveLength(0);

    const state = (await rpc.request({ type: "get_state" })).data;
    expect(state.isCompacting).toBe(false);
    expect(state.messageCount).toBeLessThan(messagesBefore + 1);
    const entries = readFileSync(state.sessionFile, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(entries.some((entry) => entry.type === "compaction" && entry.summary === data.summary)).toBe(true);

    // The model continues from the summary.
    fixture.server.clearScript();
    const requestIndex = fixture.server.requests.length;
    await ask(rpc, "third question", { text: "third answer" });
    expect(JSON.stringify(fixture.server.requests[requestIndex].body.messages)).toContain(SUMMARY);
    await finish(rpc);
  });

  test("compaction_end carries estimatedTokensAfter like the compact response (seed 000)", async () => {
    const rpc = fixture.start();
    await ask(rpc, "first question", { text: "first answer" });
    await ask(rpc, "second question", { text: "second answer" });
    scriptSummaries();
    const from = rpc.mark();
    const response = await rpc.request({ type: "compact" });
    expect(response.success).toBe(true);
    const end = await rpc.waitForEvent("compaction_end", () => true, 5_000, from);
    expect(end.result.estimatedTokensAfter).toBe(response.data.estimatedTokensAfter);
    await finish(rpc);
  });

  test("fails when there is nothing to compact, reporting it in the events too", async () => {
    const rpc = fixture.start();
    const response = await rpc.request({ type: "compact" });
    expect(response).toMatchObject({ command: "compact", success: false });
    expect(response.error).toContain("Nothing to compact");
    const end = await rpc.waitForEvent("compaction_end");
    expect(end).toMatchObject({ reason: "manual", result: null, aborted: false, willRetry: false });
    expect(end.errorMessage).toContain("Nothing to compact");
    expect((await rpc.request({ type: "get_state" })).data.isCompacting).toBe(false);
    await finish(rpc);
  });

  test("abort stops a compaction in progress", async () => {
    const rpc = fixture.start();
    await ask(rpc, "first question", { text: "first answer" });
    await ask(rpc, "second question", { text: "second answer" });
    const stalled = { content: [{ type: "text" as const, text: "never finished" }], stallAfterEvents: 1 };
    fixture.server.enqueue(stalled, stalled);
    const from = rpc.mark();
    const compacting = rpc.request({ type: "compact" });
    await rpc.waitForEvent("compaction_start", () => true, 5_000, from);
    expect((await rpc.request({ type: "get_state" })).data.isCompacting).toBe(true);

    expect((await rpc.request({ type: "abort" })).success).toBe(true);
    const response = await compacting;
    expect(response.success).toBe(false);
    const end = await rpc.waitForEvent("compaction_end", () => true, 5_000, from);
    expect(end).toMatchObject({ reason: "manual", result: null, aborted: true });
    const state = (await rpc.request({ type: "get_state" })).data;
    expect(state.isCompacting).toBe(false);
    expect(state.messageCount).toBe(4);
    await finish(rpc);
  });
});

describe("automatic compaction", () => {
  test("a reply that fills the context window triggers a threshold compaction after agent_end", async () => {
    const rpc = fixture.start();
    await ask(rpc, "first question", { text: "first answer" });
    const from = rpc.mark();
    fixture.server.enqueue({ content: [{ type: "text", text: "big answer" }], usage: { input: 9_000, output: 10 } });
    scriptSummaries();
    await rpc.request({ type: "prompt", message: "second question" });

    const autoEnd = await rpc.waitForEvent("auto_compaction_end", () => true, 5_000, from);
    expect(autoEnd).toMatchObject({ aborted: false, willRetry: false });
    expect(autoEnd.result.summary).toContain(SUMMARY);
    const types = rpc.frames.slice(from).map((frame) => frame.type);
    const order = ["agent_end", "compaction_start", "auto_compaction_start", "compaction_end", "auto_compaction_end"].map((type) => types.indexOf(type));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(rpc.ofType("compaction_start", from)[0]).toEqual({ type: "compaction_start", reason: "threshold" });
    expect(rpc.ofType("auto_compaction_start", from)[0]).toEqual({ type: "auto_compaction_start", reason: "threshold" });
    expect(rpc.ofType("compaction_end", from)[0]).toMatchObject({ reason: "threshold", aborted: false, willRetry: false });
    await finish(rpc);
  });

  test("set_auto_compaction false leaves a full context alone", async () => {
    const rpc = fixture.start();
    expect((await rpc.request({ type: "set_auto_compaction", enabled: false })).success).toBe(true);
    await ask(rpc, "first question", { text: "first answer" });
    await ask(rpc, "second question", { text: "big answer", input: 9_000 });
    // close() waits for everything in progress, including a compaction, before the process exits.
    await finish(rpc);
    expect(rpc.ofType("compaction_start")).toHaveLength(0);
    expect(rpc.ofType("auto_compaction_start")).toHaveLength(0);
  });

  test("a context overflow error compacts and retries the prompt (willRetry)", async () => {
    const rpc = fixture.start();
    // Long enough that the history before the failed prompt is more than keepRecentTokens.
    await ask(rpc, `first question ${"with details ".repeat(40)}`, { text: `first answer ${"and more ".repeat(40)}` });
    const from = rpc.mark();
    fixture.server.enqueue({ type: "error", status: 400, message: `This model's maximum context length is ${CONTEXT_WINDOW} tokens. Please reduce the length of the messages.` });
    scriptSummaries();
    const requestsBefore = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "second question" });

    const end = await rpc.waitForEvent("compaction_end", () => true, 5_000, from);
    expect(end).toMatchObject({ reason: "overflow", aborted: false, willRetry: true });
    expect(rpc.ofType("auto_compaction_start", from)[0]).toEqual({ type: "auto_compaction_start", reason: "overflow" });
    // The summaries used the scripted steps; what remains is answered by the default reply.
    const finalEnd = await rpc.waitFor(
      (frame) => frame.type === "message_end" && frame.message.role === "assistant" && frame.message.stopReason === "stop",
      5_000,
      "the retried answer",
      from,
    );
    expect(textOf(finalEnd.message).length).toBeGreaterThan(0);
    const retried = fixture.server.requests.slice(requestsBefore).filter((request) => !isSummaryRequest(request));
    expect(retried.length).toBe(2);
    expect(JSON.stringify(retried[1].body.messages)).toContain(SUMMARY);
    expect(JSON.stringify(retried[1].body.messages)).toContain("second question");
    await finish(rpc);
  });
});
