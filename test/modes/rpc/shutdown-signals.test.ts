/**
 * How an RPC process ends and what pi 1.6.0 added to its answers, over raw JSONL with
 * real signals. As pi 1.6.0 (observed by running it): SIGTERM and SIGHUP start an
 * orderly shutdown — the run in progress is aborted, no further frame is written,
 * extensions' session_shutdown work completes — and exit 143 and 129; a second signal
 * exits at once; stdin EOF with SIGTERM is one shutdown; an extension's ctx.shutdown()
 * while idle ends the process without waiting for another command. Prompt, steer and
 * follow_up responses carry data.disposition; agent_settled carries aborted;
 * tool_execution_end carries durationMs.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createExtensionFixture, notices, type ExtensionFixture } from "../../support/extensions.ts";
import { FAKE_MODEL, type RpcProcess } from "../../support/rpc-harness.ts";

// session_shutdown does async work: a file, SHUTDOWN_DELAY_MS (default 200) after it began.
const EXTENSION = `
import { writeFileSync } from "node:fs";
export default function (pi) {
  pi.on("session_shutdown", async (event) => {
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.SHUTDOWN_DELAY_MS ?? 200)));
    writeFileSync(process.env.SHUTDOWN_MARK, JSON.stringify(event));
  });
  pi.on("tool_execution_end", (event, ctx) => ctx.ui.notify("tool took " + typeof event.durationMs));
  pi.on("input", (event) => (event.text === "swallow" ? { action: "handled" } : { action: "continue" }));
  pi.registerCommand("noop", { description: "does nothing", handler: async () => {} });
  pi.registerCommand("bye", { description: "asks to shut down at once", handler: async (_args, ctx) => ctx.shutdown() });
  pi.registerCommand("bye-later", {
    description: "asks to shut down from a timer, once the command is long done",
    handler: async (_args, ctx) => { setTimeout(() => ctx.shutdown(), 300); },
  });
}
`;

let fixture: ExtensionFixture;
let mark: string;

beforeEach(() => {
  fixture = createExtensionFixture();
  fixture.writeUserExtension("shutdown-test.ts", EXTENSION);
  mark = join(fixture.home.home, "shutdown-mark.json");
  fixture.home.env.SHUTDOWN_MARK = mark;
});

afterEach(async () => {
  await fixture.cleanup();
});

/** An RPC process that has answered once: extensions loaded, signal handlers in place. */
async function ready(): Promise<RpcProcess> {
  const rpc = fixture.start(["--model", FAKE_MODEL]);
  expect((await rpc.request({ id: "ready", type: "get_state" })).success).toBe(true);
  return rpc;
}

const shutdownEvent = () => JSON.parse(readFileSync(mark, "utf8"));

describe("signals end an RPC process in order", () => {
  test("SIGTERM while idle: session_shutdown's async work finishes, exit 143", async () => {
    const rpc = await ready();
    rpc.proc.kill("SIGTERM");
    expect(await rpc.exitWithin(10_000)).toBe(143);
    expect(shutdownEvent()).toEqual({ type: "session_shutdown", reason: "quit" });
  });

  test("SIGTERM while streaming: the run is aborted, no frame follows the signal, session_shutdown finishes, exit 143", async () => {
    const rpc = await ready();
    fixture.server.enqueue({ content: [{ type: "text", text: "never sent" }], delayMs: 20_000 });
    rpc.send({ id: "p", type: "prompt", message: "go" });
    await rpc.waitForEvent("message_start", (frame) => frame.message.role === "assistant");
    const framesAtSignal = rpc.frames.length;
    const began = performance.now();
    rpc.proc.kill("SIGTERM");
    expect(await rpc.exitWithin(10_000)).toBe(143);
    // Not the 20 s the reply would take: the run was stopped.
    expect(performance.now() - began).toBeLessThan(5_000);
    expect(rpc.frames.slice(framesAtSignal)).toEqual([]);
    expect(shutdownEvent().reason).toBe("quit");
  });

  test("a second SIGTERM exits at once, without waiting for session_shutdown", async () => {
    fixture.home.env.SHUTDOWN_DELAY_MS = "5000";
    const rpc = await ready();
    const began = performance.now();
    rpc.proc.kill("SIGTERM");
    await Bun.sleep(200);
    rpc.proc.kill("SIGTERM");
    expect(await rpc.exitWithin(10_000)).toBe(143);
    expect(performance.now() - began).toBeLessThan(3_000);
    expect(existsSync(mark)).toBe(false);
  });

  test("a prompt sent after SIGTERM, while session_shutdown runs, is not acted on", async () => {
    fixture.home.env.SHUTDOWN_DELAY_MS = "500";
    const rpc = await ready();
    fixture.server.enqueue({ content: [{ type: "text", text: "never asked for" }], delayMs: 20_000 });
    rpc.proc.kill("SIGTERM");
    await Bun.sleep(100);
    rpc.send({ id: "late", type: "prompt", message: "one more thing" });
    expect(await rpc.exitWithin(10_000)).toBe(143);
    expect(fixture.server.requests).toHaveLength(0);
    expect(shutdownEvent().reason).toBe("quit");
  });

  test("SIGHUP takes the same orderly path, exit 129", async () => {
    const rpc = await ready();
    rpc.proc.kill("SIGHUP");
    expect(await rpc.exitWithin(10_000)).toBe(129);
    expect(shutdownEvent().reason).toBe("quit");
  });

  test("stdin EOF and SIGTERM together are one shutdown: session_shutdown finishes, exit 143", async () => {
    const rpc = await ready();
    rpc.proc.stdin.end();
    rpc.proc.kill("SIGTERM");
    expect(await rpc.exitWithin(10_000)).toBe(143);
    expect(shutdownEvent().reason).toBe("quit");
  });

  test("ctx.shutdown() while idle ends the process without another command, exit 0", async () => {
    const rpc = await ready();
    const response = await rpc.request({ id: "bye", type: "prompt", message: "/bye-later" });
    expect(response.data).toEqual({ disposition: "handled" });
    // Nothing more is sent and stdin stays open: the request alone ends the process.
    expect(await rpc.exitWithin(10_000)).toBe(0);
    expect(shutdownEvent().reason).toBe("quit");
  });

  test("ctx.shutdown() during a run waits for the run to settle, then ends the process, exit 0", async () => {
    const rpc = await ready();
    fixture.server.enqueue({ content: [{ type: "text", text: "finished anyway" }], delayMs: 1_000 });
    expect((await rpc.request({ id: "p", type: "prompt", message: "go" })).data).toEqual({ disposition: "started" });
    expect((await rpc.request({ id: "bye", type: "prompt", message: "/bye" })).data).toEqual({ disposition: "handled" });
    expect(await rpc.exitWithin(10_000)).toBe(0);
    expect(rpc.ofType("agent_settled")).toEqual([{ type: "agent_settled", aborted: false }]);
    expect(rpc.ofType("message_end").at(-1)?.message.content).toEqual([{ type: "text", text: "finished anyway" }]);
    expect(shutdownEvent().reason).toBe("quit");
  });
});

describe("pi 1.6.0's additions to responses and events", () => {
  test("disposition of prompt, steer and follow_up; agent_settled.aborted after abort", async () => {
    const rpc = await ready();
    fixture.server.enqueue({ content: [{ type: "text", text: "slow" }], delayMs: 20_000 });
    const started = await rpc.request({ id: "p1", type: "prompt", message: "go" });
    expect(started.data).toEqual({ disposition: "started" });
    // The response comes before the run it started.
    expect(rpc.frames.findIndex((frame) => frame.id === "p1")).toBeLessThan(rpc.frames.findIndex((frame) => frame.type === "agent_start"));
    const dispositions: Record<string, unknown> = {};
    for (const command of [
      { id: "s1", type: "steer", message: "steer me" },
      { id: "f1", type: "follow_up", message: "then this" },
      { id: "p2", type: "prompt", message: "queued prompt", streamingBehavior: "followUp" },
      { id: "s2", type: "steer", message: "swallow" },
      { id: "f2", type: "follow_up", message: "swallow" },
      { id: "p3", type: "prompt", message: "/noop" },
    ]) {
      dispositions[command.id] = (await rpc.request(command)).data;
    }
    expect(dispositions).toEqual({
      s1: { disposition: "queued" },
      f1: { disposition: "queued" },
      p2: { disposition: "queued" },
      s2: { disposition: "handled" },
      f2: { disposition: "handled" },
      p3: { disposition: "handled" },
    });
    expect((await rpc.request({ id: "c", type: "clear_queue" })).data).toEqual({ steering: ["steer me"], followUp: ["then this", "queued prompt"] });
    expect((await rpc.request({ id: "a", type: "abort" })).success).toBe(true);
    expect(rpc.ofType("agent_settled")).toEqual([{ type: "agent_settled", aborted: true }]);

    // Idle: an input handler that consumes the prompt means no run starts.
    const before = rpc.mark();
    expect((await rpc.request({ id: "p4", type: "prompt", message: "swallow" })).data).toEqual({ disposition: "handled" });
    await Bun.sleep(300);
    expect(rpc.ofType("agent_start", before)).toEqual([]);
    expect(await rpc.close()).toBe(0);
  });

  test("a run that finishes settles with aborted false; tool_execution_end carries durationMs", async () => {
    const rpc = await ready();
    fixture.server.enqueue(
      { content: [{ type: "toolCall", name: "bash", arguments: { command: "sleep 0.2; echo hi" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    rpc.send({ id: "p", type: "prompt", message: "run it" });
    expect(await rpc.waitForEvent("agent_settled", () => true, 15_000)).toEqual({ type: "agent_settled", aborted: false });
    const [end] = rpc.ofType("tool_execution_end");
    expect(end.isError).toBe(false);
    expect(end.durationMs).toBeGreaterThanOrEqual(150);
    expect(end.durationMs).toBeLessThan(10_000);
    // Extensions' tool_execution_end carries it too.
    expect(notices(rpc)).toContain("tool took number");
    // A call refused before it ran has no duration.
    fixture.server.enqueue({ content: [{ type: "toolCall", name: "no_such_tool", arguments: {} }] }, { content: [{ type: "text", text: "ok" }] });
    const before = rpc.mark();
    rpc.send({ id: "p2", type: "prompt", message: "again" });
    await rpc.waitForEvent("agent_settled", () => true, 15_000, before);
    const [refused] = rpc.ofType("tool_execution_end", before);
    expect(refused.isError).toBe(true);
    expect("durationMs" in refused).toBe(false);
    expect(await rpc.close()).toBe(0);
  });
});
