/**
 * A compaction whose summary request fails for a passing reason (a 503) is retried with
 * the `retry.*` settings, as pi 1.6.0 does, and a host sees pi's events for it:
 * `summarization_retry_scheduled`, `summarization_retry_attempt_start`,
 * `summarization_retry_finished`. A refusal that will not change (a 401) fails at once,
 * without them. Driven through the built binary in RPC mode against the fake LLM.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createRpcFixture, type RpcFixture, type RpcProcess } from "../support/rpc-harness.ts";
import { send, withPane } from "../modes/interactive/fixture.ts";

let fixture: RpcFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

/**
 * A session with three answered prompts, ready to compact. The prompts are long and the
 * answers short, so the cut falls on the last prompt: one summary request, no split turn.
 */
async function conversation(settings: Record<string, unknown>): Promise<RpcProcess> {
  fixture = createRpcFixture({ settings });
  const rpc = fixture.start();
  for (const word of ["one", "two", "three"]) {
    fixture.server.enqueue({ content: [{ type: "text", text: "noted" }] });
    const mark = rpc.mark();
    await rpc.request({ type: "prompt", message: `${word} `.repeat(400) });
    await rpc.waitForEvent("agent_end", undefined, undefined, mark);
  }
  return rpc;
}

const retryFrames = (rpc: RpcProcess) => rpc.frames.filter((frame) => String(frame.type).startsWith("summarization_retry_"));

describe("retrying a compaction's summary request", () => {
  test("a 503 is retried after the backoff and the compaction succeeds; the host sees pi's three events in order", async () => {
    const rpc = await conversation({ retry: { baseDelayMs: 50 } });
    const before = fixture!.server.requests.length;
    fixture!.server.enqueue({ type: "error", status: 503, message: "overloaded" }, { content: [{ type: "text", text: "SUMMARY after one retry" }] });
    const response = await rpc.request({ type: "compact", keepRecentTokens: 100 });
    expect(response.success).toBe(true);
    expect(response.data.summary).toStartWith("SUMMARY after one retry");
    expect(fixture!.server.requests.length - before).toBe(2);

    const frames = retryFrames(rpc);
    expect(frames.map((frame) => frame.type)).toEqual(["summarization_retry_scheduled", "summarization_retry_attempt_start", "summarization_retry_finished"]);
    expect(frames[0]).toMatchObject({ attempt: 1, maxAttempts: 3, delayMs: 50 });
    expect(frames[0]!.errorMessage).toContain("overloaded");
    expect(frames[1]).toEqual({ type: "summarization_retry_attempt_start", source: "compaction", reason: "manual" });
    // The events come before the compaction ends.
    const end = rpc.frames.findIndex((frame) => frame.type === "compaction_end");
    expect(rpc.frames.indexOf(frames[2]!)).toBeLessThan(end);
    expect(await rpc.close()).toBe(0);
  }, 60_000);

  test("retries stop at retry.maxRetries: the compaction fails with the provider's message after the last one", async () => {
    const rpc = await conversation({ retry: { baseDelayMs: 10, maxRetries: 1 } });
    fixture!.server.enqueue({ type: "error", status: 503, message: "overloaded" }, { type: "error", status: 503, message: "still overloaded" });
    const response = await rpc.request({ type: "compact", keepRecentTokens: 100 });
    expect(response.success).toBe(false);
    expect(response.error).toContain("still overloaded");
    expect(retryFrames(rpc).map((frame) => frame.type)).toEqual(["summarization_retry_scheduled", "summarization_retry_attempt_start", "summarization_retry_finished"]);
    expect(await rpc.close()).toBe(0);
  }, 60_000);

  test("abort during the wait ends the compaction at once, as aborted, and the retrying is reported finished", async () => {
    const rpc = await conversation({ retry: { baseDelayMs: 20_000 } });
    fixture!.server.enqueue({ type: "error", status: 503, message: "overloaded" });
    const started = Date.now();
    const compacting = rpc.request({ type: "compact", keepRecentTokens: 100 });
    await rpc.waitForEvent("summarization_retry_scheduled", undefined, 10_000);
    await rpc.request({ type: "abort" });
    const response = await compacting;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(response.success).toBe(false);
    expect(response.error).toContain("aborted");
    expect(retryFrames(rpc).map((frame) => frame.type)).toEqual(["summarization_retry_scheduled", "summarization_retry_finished"]);
    expect(rpc.frames.find((frame) => frame.type === "compaction_end")).toMatchObject({ aborted: true, result: null });
    expect(await rpc.close()).toBe(0);
  }, 60_000);

  test("a refused key (401) is not retried, and retry.enabled false retries nothing", async () => {
    const rpc = await conversation({ retry: { baseDelayMs: 10 } });
    fixture!.server.enqueue({ type: "error", status: 401, message: "invalid api key" });
    const refused = await rpc.request({ type: "compact", keepRecentTokens: 100 });
    expect(refused.success).toBe(false);
    expect(retryFrames(rpc)).toEqual([]);
    expect(await rpc.close()).toBe(0);
    await fixture!.cleanup();

    const off = await conversation({ retry: { enabled: false } });
    fixture!.server.enqueue({ type: "error", status: 503, message: "overloaded" });
    const failed = await off.request({ type: "compact", keepRecentTokens: 100 });
    expect(failed.success).toBe(false);
    expect(failed.error).toContain("overloaded");
    expect(retryFrames(off)).toEqual([]);
    expect(await off.close()).toBe(0);
  }, 60_000);

  test("the terminal says the summary request is retried while it waits, and the notice goes once it succeeds", async () => {
    await withPane(
      async ({ fake, pane }) => {
        for (const word of ["one", "two"]) {
          fake.server.enqueue({ content: [{ type: "text", text: `noted ${word}` }] });
          send(pane, `${word} `.repeat(200));
          await pane.waitFor(`noted ${word}`, 30_000);
        }
        fake.server.enqueue({ type: "error", status: 503, message: "overloaded" }, { content: [{ type: "text", text: "SUMMARY-AFTER-RETRY" }] });
        send(pane, "/compact");
        await pane.waitFor(/↻ Summary request failed; retrying in 1\.5 s \(attempt 1 of 3\)/, 30_000);
        const done = await pane.waitFor(/✻ Compacted \d+/, 30_000);
        expect(done).not.toContain("Summary request failed");
      },
      { before: (fake) => fake.home.writeSettings({ retry: { baseDelayMs: 1500 }, compaction: { keepRecentTokens: 10 } }) },
    );
  }, 90_000);
});
