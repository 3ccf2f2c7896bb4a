/**
 * Automatic retry over RPC: a transient provider failure (529) is retried
 * after a backoff with auto_retry_start/auto_retry_end events; retries give up
 * after maxRetries; set_auto_retry false turns them off; abort_retry cancels
 * a wait in progress. A retried attempt's failed reply stays in the session file with a
 * context_edit that leaves it out of the context (as pi 1.6.0 writes it), so a resumed
 * session does not send it.
 */
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createRpcFixture, duplicateResponseIds, FAKE_MODEL, textOf, type Frame, type RpcFixture, type RpcProcess } from "../../support/rpc-harness.ts";

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture({ settings: { retry: { baseDelayMs: 10 } } });
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const overloaded = { type: "error" as const, status: 529, message: "Overloaded" };
const assistantEnd = (frame: Frame) => frame.type === "message_end" && frame.message.role === "assistant";

async function finish(rpc: RpcProcess): Promise<void> {
  expect(await rpc.close()).toBe(0);
  expect(duplicateResponseIds(rpc.frames)).toEqual([]);
}

describe("auto retry", () => {
  test("a 529 is retried after the backoff and the run succeeds", async () => {
    const rpc = fixture.start();
    fixture.server.enqueue(overloaded, { content: [{ type: "text", text: "answer after retry" }] });
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "please" });

    const start = await rpc.waitForEvent("auto_retry_start");
    expect(start).toMatchObject({ type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 10 });
    expect(start.errorMessage).toContain("529");
    const end = await rpc.waitForEvent("auto_retry_end");
    expect(end).toEqual({ type: "auto_retry_end", success: true, attempt: 1 });
    const agentEnd = await rpc.waitFor((frame) => frame.type === "agent_end" && frame.messages.some((message: Frame) => message.stopReason === "stop"));
    expect(textOf(agentEnd.messages.at(-1))).toBe("answer after retry");

    expect(fixture.server.requests.length - before).toBe(2);
    // The failed reply is not kept in the context: the retry sends the same conversation.
    expect(fixture.server.requests[before + 1].body.messages).toEqual(fixture.server.requests[before].body.messages);
    const types = rpc.frames.map((frame) => frame.type);
    expect(types.indexOf("auto_retry_start")).toBeLessThan(types.indexOf("auto_retry_end"));
    expect((await rpc.request({ type: "get_last_assistant_text" })).data.text).toBe("answer after retry");
    expect((await rpc.request({ type: "get_messages" })).data.messages.map((message: Frame) => message.role)).toEqual(["user", "assistant"]);
    await finish(rpc);
  });

  test("after maxRetries failures the retry ends with success false and the final error", async () => {
    const rpc = fixture.start();
    fixture.server.enqueue(overloaded, overloaded, overloaded, overloaded);
    await rpc.request({ type: "prompt", message: "please" });
    const end = await rpc.waitForEvent("auto_retry_end");
    expect(end).toMatchObject({ success: false, attempt: 3 });
    expect(end.finalError).toContain("529");
    expect(rpc.ofType("auto_retry_start").map((frame) => [frame.attempt, frame.delayMs])).toEqual([
      [1, 10],
      [2, 20],
      [3, 40],
    ]);
    await rpc.waitFor((frame) => assistantEnd(frame) && frame.message.stopReason === "error");
    expect(fixture.server.pending()).toBe(0);
    await finish(rpc);
  });

  test("set_auto_retry false reports the error without retrying", async () => {
    const rpc = fixture.start();
    expect((await rpc.request({ type: "set_auto_retry", enabled: false })).success).toBe(true);
    fixture.server.enqueue(overloaded, { content: [{ type: "text", text: "not requested" }] });
    await rpc.request({ type: "prompt", message: "please" });
    const failed = await rpc.waitFor(assistantEnd);
    expect(failed.message.stopReason).toBe("error");
    expect(failed.message.errorMessage).toContain("529");
    await finish(rpc);
    expect(rpc.ofType("auto_retry_start")).toHaveLength(0);
    expect(fixture.server.pending()).toBe(1);
  });

  test("abort_retry cancels a long backoff wait", async () => {
    const slow = createRpcFixture({ settings: { retry: { baseDelayMs: 60_000 } } });
    try {
      const rpc = slow.start();
      slow.server.enqueue(overloaded, { content: [{ type: "text", text: "not requested" }] });
      await rpc.request({ type: "prompt", message: "please" });
      const start = await rpc.waitForEvent("auto_retry_start");
      expect(start.delayMs).toBe(60_000);
      expect((await rpc.request({ type: "get_state" })).data.isStreaming).toBe(true);

      const started = Date.now();
      expect(await rpc.request({ type: "abort_retry" })).toMatchObject({ command: "abort_retry", success: true });
      const end = await rpc.waitForEvent("auto_retry_end");
      expect(end).toMatchObject({ success: false, attempt: 1 });
      expect(Date.now() - started).toBeLessThan(2_000);
      // isStreaming covers the retry wait; it ends with it.
      expect((await rpc.request({ type: "get_state" })).data.isStreaming).toBe(false);
      expect(slow.server.requests).toHaveLength(1);
      await finish(rpc);
    } finally {
      await slow.cleanup();
    }
  });

  test("a resumed session keeps the failed attempts in its file and out of the next request", async () => {
    const rateLimited = { type: "error" as const, status: 429, message: "rate limited" };
    const rpc = fixture.start();
    fixture.server.enqueue(rateLimited, rateLimited, rateLimited, rateLimited);
    await rpc.request({ type: "prompt", message: "first question" });
    expect(await rpc.waitForEvent("auto_retry_end")).toMatchObject({ success: false, attempt: 3 });
    await rpc.waitFor((frame) => frame.type === "agent_end" && frame.willRetry === false);
    const sessionFile: string = (await rpc.request({ type: "get_state" })).data.sessionFile;
    await finish(rpc);

    const entries = readFileSync(sessionFile, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Frame);
    const replies = entries.filter((entry) => entry.type === "message" && entry.message.role === "assistant");
    expect(replies.map((entry) => entry.message.stopReason)).toEqual(["error", "error", "error", "error"]);
    // Each retried attempt (not the last, which ended the run) is left out by a context edit.
    const edits = entries.filter((entry) => entry.type === "context_edit");
    expect(edits.map((edit) => [edit.targetId, edit.replacement])).toEqual(replies.slice(0, 3).map((entry) => [entry.id, null]));
    // The host saw each edit as it was appended.
    expect(rpc.ofType("entry_appended").map((frame) => frame.entry.id)).toEqual(edits.map((edit) => edit.id));

    const resumed = fixture.start(["--model", FAKE_MODEL, "--session", sessionFile]);
    const messages = (await resumed.request({ type: "get_messages" })).data.messages as Frame[];
    expect(messages.map((message) => [message.role, message.stopReason])).toEqual([
      ["user", undefined],
      ["assistant", "error"],
    ]);
    fixture.server.enqueue({ content: [{ type: "text", text: "second answer" }] });
    const before = fixture.server.requests.length;
    await resumed.request({ type: "prompt", message: "second question" });
    await resumed.waitFor((frame) => frame.type === "agent_end");
    const sent = fixture.server.requests[before].body.messages as Frame[];
    expect(sent.filter((message) => message.role !== "system").map((message) => [message.role, message.content])).toEqual([
      ["user", "first question"],
      ["user", "second question"],
    ]);
    await finish(resumed);
  });
});
