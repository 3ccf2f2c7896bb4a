/**
 * Prompting over RPC: the event stream of a run with a tool, images, steering
 * and follow-ups (commands and prompt streamingBehavior) with queue_update,
 * interrupt modes, abort while streaming and while a tool runs,
 * abort_and_prompt, and what happens when stdin closes.
 *
 * To hold a run "in progress" without timing guesses, the scripted model calls
 * the bash tool with a command that waits until the test creates a file.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRpcFixture, duplicateResponseIds, textOf, type Frame, type RpcFixture, type RpcProcess } from "../../support/rpc-harness.ts";

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture({ models: [{ id: "fake-model", input: ["text", "image"] }] });
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

let gateCount = 0;
/** A bash command that blocks until `release()` is called, so the run stays in its tool call. */
function gate(): { command: string; release: () => void } {
  const file = join(fixture.cwd, `release-${++gateCount}`);
  return {
    command: `until [ -e ${file} ]; do sleep 0.02; done; echo released`,
    release: () => writeFileSync(file, ""),
  };
}

/** Texts of the user messages the model received in one request. */
function userTexts(requestIndex: number): string[] {
  return fixture.server.requests[requestIndex].body.messages
    .filter((message: { role: string }) => message.role === "user")
    .map((message: { content: unknown }) => textOf(message));
}

/** Pids of running processes whose command line contains `needle`. */
function processesMatching(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const zombie = stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z";
      if (!zombie && cmdline.includes(needle)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting until ${what}`);
    await Bun.sleep(10);
  }
}

async function finish(rpc: RpcProcess): Promise<void> {
  expect(await rpc.close()).toBe(0);
  expect(duplicateResponseIds(rpc.frames)).toEqual([]);
}

const assistantEnd = (frame: Frame) => frame.type === "message_end" && frame.message.role === "assistant";

describe("a run", () => {
  test("emits the full event sequence of seed 000 for a reply with a tool call", async () => {
    const rpc = fixture.start();
    fixture.server.enqueue(
      { content: [{ type: "text", text: "Let me check." }, { type: "toolCall", id: "call_echo", name: "bash", arguments: { command: "echo tool-output-1" } }] },
      { content: [{ type: "text", text: "The tool said tool-output-1." }] },
    );
    const response = await rpc.request({ type: "prompt", message: "run echo", id: "run-1" });
    // Seed 000's response, plus pi 1.6.0's disposition (a host of the seeds ignores the extra field).
    expect(response).toEqual({ id: "run-1", type: "response", command: "prompt", success: true, data: { disposition: "started" } });
    const end = await rpc.waitForEvent("agent_end");
    await rpc.waitForEvent("agent_settled");

    const events = rpc.frames.filter((frame) => frame.type !== "response");
    const types = events.map((frame) => frame.type);
    // The response precedes the run's first event.
    expect(rpc.frames.indexOf(response)).toBeLessThan(rpc.frames.findIndex((frame) => frame.type === "agent_start"));
    const collapsed = types.filter((type, index) => type !== "message_update" || types[index - 1] !== "message_update");
    const withoutTool = (list: string[]) => list.filter((type) => !type.startsWith("tool_execution_update"));
    expect(withoutTool(collapsed)).toEqual([
      "agent_start",
      "turn_start",
      "message_start", // user
      "message_end",
      "message_start", // assistant with the tool call
      "message_update",
      "message_end",
      "tool_execution_start",
      "tool_execution_end",
      "message_start", // tool result
      "message_end",
      "turn_end",
      "turn_start",
      "message_start",
      "message_update",
      "message_end",
      "turn_end",
      "agent_end",
      "agent_settled", // pi 0.87.1: nothing continues automatically after this
    ]);

    const deltas = rpc.ofType("message_update").map((frame) => frame.assistantMessageEvent.type);
    for (const type of ["text_start", "text_delta", "text_end", "toolcall_start", "toolcall_delta", "toolcall_end"]) expect(deltas).toContain(type);
    const update = rpc.ofType("message_update").find((frame) => frame.assistantMessageEvent.type === "text_delta")!;
    expect(update.message.role).toBe("assistant");
    expect(typeof update.assistantMessageEvent.delta).toBe("string");
    expect(update.assistantMessageEvent.partial).toBeDefined();
    const toolcallEnd = rpc.ofType("message_update").find((frame) => frame.assistantMessageEvent.type === "toolcall_end")!;
    expect(toolcallEnd.assistantMessageEvent.toolCall).toMatchObject({ type: "toolCall", id: "call_echo", name: "bash", arguments: { command: "echo tool-output-1" } });

    expect(rpc.ofType("tool_execution_start")[0]).toEqual({ type: "tool_execution_start", toolCallId: "call_echo", toolName: "bash", args: { command: "echo tool-output-1" } });
    const toolUpdate = rpc.ofType("tool_execution_update")[0];
    expect(toolUpdate).toMatchObject({ toolCallId: "call_echo", toolName: "bash", args: { command: "echo tool-output-1" } });
    expect(toolUpdate.partialResult.content[0].text).toContain("tool-output-1");
    const toolEnd = rpc.ofType("tool_execution_end")[0];
    expect(toolEnd).toMatchObject({ toolCallId: "call_echo", toolName: "bash", isError: false });
    expect(toolEnd.result.content[0].text).toContain("tool-output-1");

    const turnEnds = rpc.ofType("turn_end");
    expect(turnEnds[0].message.stopReason).toBe("toolUse");
    expect(turnEnds[0].toolResults).toHaveLength(1);
    expect(turnEnds[0].toolResults[0]).toMatchObject({ role: "toolResult", toolCallId: "call_echo", toolName: "bash", isError: false });
    expect(turnEnds[1].toolResults).toEqual([]);

    expect(end.messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(textOf(end.messages[3])).toBe("The tool said tool-output-1.");
    expect(end.messages[3]).toMatchObject({ stopReason: "stop", provider: "fake", model: "fake-model", api: "openai-completions" });
    expect(end.messages[3].usage).toMatchObject({ input: 10, output: 5 });
    // Events carry no id; only responses do.
    expect(events.some((frame) => "id" in frame)).toBe(false);
    await finish(rpc);
  });

  test("a prompt with images sends them to the model", async () => {
    const rpc = fixture.start();
    // A real 1×1 PNG: one that cannot be decoded is left out with a line saying so.
    const data = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
    const before = fixture.server.requests.length;
    const response = await rpc.request({ type: "prompt", message: "What's in this image?", images: [{ type: "image", data, mimeType: "image/png" }] });
    expect(response.success).toBe(true);
    const end = await rpc.waitForEvent("agent_end");
    expect(end.messages[0].content).toEqual([
      { type: "text", text: "What's in this image?" },
      { type: "image", data, mimeType: "image/png" },
    ]);
    const sent = JSON.stringify(fixture.server.requests[before].body.messages);
    expect(sent).toContain(`data:image/png;base64,${data}`);
    expect(sent).toContain("What's in this image?");
    await finish(rpc);
  });

  test("a prompt without a message, or with an unknown streamingBehavior, is refused", async () => {
    const rpc = fixture.start();
    const missing = await rpc.request({ type: "prompt" });
    expect(missing).toMatchObject({ command: "prompt", success: false });
    expect(missing.error).toContain("message");
    const badBehavior = await rpc.request({ type: "prompt", message: "hi", streamingBehavior: "later" });
    expect(badBehavior.success).toBe(false);
    expect(badBehavior.error).toContain("streamingBehavior");
    expect((await rpc.request({ type: "steer" })).success).toBe(false);
    expect((await rpc.request({ type: "follow_up", message: 42 })).success).toBe(false);
    expect(await finish(rpc)).toBeUndefined();
    expect(rpc.ofType("agent_start")).toHaveLength(0);
  });

  test("a provider error ends the run with an error message and the next prompt works", async () => {
    const rpc = fixture.start();
    fixture.server.enqueue({ type: "error", status: 401, message: "invalid api key" });
    expect((await rpc.request({ type: "prompt", message: "hi" })).success).toBe(true);
    const failed = await rpc.waitFor(assistantEnd);
    expect(failed.message.stopReason).toBe("error");
    expect(failed.message.errorMessage).toContain("invalid api key");
    await rpc.waitForEvent("agent_end");

    fixture.server.enqueue({ content: [{ type: "text", text: "recovered" }] });
    const from = rpc.mark();
    await rpc.request({ type: "prompt", message: "again" });
    await rpc.waitForEvent("agent_end", () => true, 5_000, from);
    expect((await rpc.request({ type: "get_last_assistant_text" })).data.text).toBe("recovered");
    await finish(rpc);
  });
});

describe("steering and follow-ups", () => {
  test("while streaming: a prompt needs streamingBehavior; steer and followUp queue, show in queue_update, and reach the model in order", async () => {
    const rpc = fixture.start();
    expect((await rpc.request({ type: "set_steering_mode", mode: "all" })).success).toBe(true);
    const { command, release } = gate();
    fixture.server.enqueue(
      { content: [{ type: "toolCall", name: "bash", arguments: { command } }] },
      { content: [{ type: "text", text: "steered answer" }] },
      { content: [{ type: "text", text: "first follow-up answer" }] },
      { content: [{ type: "text", text: "second follow-up answer" }] },
    );
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "start working" });
    await rpc.waitForEvent("tool_execution_start");

    const refused = await rpc.request({ type: "prompt", message: "no behavior" });
    expect(refused).toMatchObject({ command: "prompt", success: false });
    expect(refused.error).toContain("streamingBehavior");

    expect((await rpc.request({ type: "prompt", message: "steer via prompt", streamingBehavior: "steer" })).success).toBe(true);
    expect((await rpc.request({ type: "steer", message: "steer via command" })).success).toBe(true);
    expect((await rpc.request({ type: "follow_up", message: "follow via command" })).success).toBe(true);
    expect((await rpc.request({ type: "prompt", message: "follow via prompt", streamingBehavior: "followUp" })).success).toBe(true);

    const queued = await rpc.waitForEvent("queue_update", (frame) => frame.followUp.length === 2);
    expect(queued).toEqual({
      type: "queue_update",
      steering: ["steer via prompt", "steer via command"],
      followUp: ["follow via command", "follow via prompt"],
    });
    const state = (await rpc.request({ type: "get_state" })).data;
    expect(state).toMatchObject({ isStreaming: true, pendingMessageCount: 4, queuedMessageCount: 4 });

    release();
    const end = await rpc.waitForEvent("agent_end", () => true, 10_000);
    // One run: the queued messages were delivered inside it.
    expect(rpc.ofType("agent_start")).toHaveLength(1);
    expect(fixture.server.requests.length - before).toBe(4);
    // "all": both steering messages arrive together, after the tool result, before the next call.
    expect(userTexts(before + 1)).toEqual(["start working", "steer via prompt", "steer via command"]);
    const toolResultIndex = fixture.server.requests[before + 1].body.messages.findIndex((message: { role: string }) => message.role === "tool");
    const steerIndex = fixture.server.requests[before + 1].body.messages.findIndex((message: { content: unknown }) => textOf(message) === "steer via prompt");
    expect(toolResultIndex).toBeGreaterThan(-1);
    expect(steerIndex).toBeGreaterThan(toolResultIndex);
    // Follow-ups only when the agent would stop, and one at a time (the default follow-up mode).
    expect(userTexts(before + 2).slice(-1)).toEqual(["follow via command"]);
    expect(userTexts(before + 3).slice(-1)).toEqual(["follow via prompt"]);
    expect(textOf(end.messages.at(-1))).toBe("second follow-up answer");

    const last = rpc.ofType("queue_update").at(-1)!;
    expect(last).toEqual({ type: "queue_update", steering: [], followUp: [] });
    expect((await rpc.request({ type: "get_state" })).data).toMatchObject({ isStreaming: false, pendingMessageCount: 0 });
    await finish(rpc);
  });

  test("one-at-a-time steering delivers one message per turn", async () => {
    const rpc = fixture.start();
    const { command, release } = gate();
    fixture.server.enqueue(
      { content: [{ type: "toolCall", name: "bash", arguments: { command } }] },
      { content: [{ type: "text", text: "after first steer" }] },
      { content: [{ type: "text", text: "after second steer" }] },
    );
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "go" });
    await rpc.waitForEvent("tool_execution_start");
    await rpc.request({ type: "steer", message: "steer one" });
    await rpc.request({ type: "steer", message: "steer two" });
    release();
    await rpc.waitForEvent("agent_end", () => true, 10_000);
    expect(userTexts(before + 1).slice(1)).toEqual(["steer one"]);
    expect(userTexts(before + 2).slice(1)).toEqual(["steer one", "steer two"]);
    const updates = rpc.ofType("queue_update").map((frame) => frame.steering);
    expect(updates).toEqual([["steer one"], ["steer one", "steer two"], ["steer two"], []]);
    await finish(rpc);
  });

  test("interrupt mode immediate: steering stops the running tool instead of waiting for it", async () => {
    const rpc = fixture.start();
    expect((await rpc.request({ type: "set_interrupt_mode", mode: "immediate" })).success).toBe(true);
    const { command } = gate();
    fixture.server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command } }] }, { content: [{ type: "text", text: "changed course" }] });
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "long task" });
    await rpc.waitForEvent("tool_execution_start");
    await rpc.request({ type: "steer", message: "stop that, do this" });
    // The gate is never released: only the interruption can end the tool.
    const toolEnd = await rpc.waitForEvent("tool_execution_end");
    expect(toolEnd.isError).toBe(true);
    await rpc.waitForEvent("agent_end");
    expect(userTexts(before + 1).at(-1)).toBe("stop that, do this");
    await finish(rpc);
  });
});

describe("abort", () => {
  test("abort while the model streams ends the run as aborted; the next prompt works", async () => {
    const rpc = fixture.start();
    fixture.server.enqueue({ content: [{ type: "text", text: "this answer never ends because the server stalls" }], chunkSize: 4, stallAfterEvents: 3 });
    await rpc.request({ type: "prompt", message: "talk forever" });
    await rpc.waitForEvent("message_update", (frame) => frame.assistantMessageEvent.type === "text_delta");
    expect((await rpc.request({ type: "get_state" })).data.isStreaming).toBe(true);

    expect(await rpc.request({ type: "abort", id: "abort-1" })).toEqual({ id: "abort-1", type: "response", command: "abort", success: true });
    const aborted = await rpc.waitFor(assistantEnd);
    expect(aborted.message.stopReason).toBe("aborted");
    const end = await rpc.waitForEvent("agent_end");
    expect(end.messages.at(-1).stopReason).toBe("aborted");
    expect((await rpc.request({ type: "get_state" })).data.isStreaming).toBe(false);
    await waitUntil(() => fixture.server.openStreams() === 0, "the stalled stream is closed");

    fixture.server.enqueue({ content: [{ type: "text", text: "fresh answer" }] });
    const from = rpc.mark();
    expect((await rpc.request({ type: "prompt", message: "try again" })).success).toBe(true);
    const second = await rpc.waitForEvent("agent_end", () => true, 5_000, from);
    expect(textOf(second.messages.at(-1))).toBe("fresh answer");
    await finish(rpc);
  });

  test("abort while the bash tool runs kills the command promptly", async () => {
    const rpc = fixture.start();
    const marker = `sleep 30.${process.pid}${Date.now() % 1000}`;
    fixture.server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: marker } }] });
    await rpc.request({ type: "prompt", message: "sleep a while" });
    await rpc.waitForEvent("tool_execution_start");
    await waitUntil(() => processesMatching(marker).length > 0, "the sleep is running");

    const started = Date.now();
    await rpc.request({ type: "abort" });
    const toolEnd = await rpc.waitForEvent("tool_execution_end");
    expect(toolEnd.isError).toBe(true);
    await rpc.waitForEvent("agent_end");
    expect(Date.now() - started).toBeLessThan(3_000);
    await waitUntil(() => processesMatching(marker).length === 0, "the sleep is gone", 3_000);
    await finish(rpc);
  });

  test("abort_and_prompt replaces the running answer with a new prompt", async () => {
    const rpc = fixture.start();
    fixture.server.enqueue(
      { content: [{ type: "text", text: "a long, stalled answer" }], chunkSize: 4, stallAfterEvents: 3 },
      { content: [{ type: "text", text: "the new answer" }] },
    );
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "original request" });
    await rpc.waitForEvent("message_update", (frame) => frame.assistantMessageEvent.type === "text_delta");

    const response = await rpc.request({ type: "abort_and_prompt", message: "different request" });
    expect(response).toMatchObject({ command: "abort_and_prompt", success: true });
    const second = await rpc.waitFor((frame) => assistantEnd(frame) && frame.message.stopReason === "stop");
    expect(textOf(second.message)).toBe("the new answer");
    const ends = rpc.ofType("agent_end");
    await rpc.waitFor((frame) => frame.type === "agent_end" && frame !== ends[0]);
    expect(rpc.ofType("message_end").filter((frame) => frame.message.stopReason === "aborted")).toHaveLength(1);
    expect(userTexts(before + 1)).toEqual(["original request", "different request"]);

    expect((await rpc.request({ type: "abort_and_prompt" })).success).toBe(false);
    await finish(rpc);
  });

  test("abort and abort_and_prompt work when nothing runs", async () => {
    const rpc = fixture.start();
    expect((await rpc.request({ type: "abort" })).success).toBe(true);
    fixture.server.enqueue({ content: [{ type: "text", text: "idle answer" }] });
    expect((await rpc.request({ type: "abort_and_prompt", message: "from idle" })).success).toBe(true);
    const end = await rpc.waitForEvent("agent_end");
    expect(textOf(end.messages.at(-1))).toBe("idle answer");
    await finish(rpc);
  });
});

describe("end of input", () => {
  test("closing stdin with nothing running exits 0 promptly", async () => {
    const rpc = fixture.start();
    await rpc.request({ type: "get_state" });
    const started = Date.now();
    expect(await rpc.close(3_000)).toBe(0);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test("closing stdin right after a prompt lets the run finish, then exits 0", async () => {
    const rpc = fixture.start();
    fixture.server.enqueue({ content: [{ type: "text", text: "finished after EOF" }], chunkSize: 3, chunkDelayMs: 20 });
    rpc.send({ type: "prompt", message: "answer slowly", id: "last" });
    const code = await rpc.close(10_000);
    expect(code).toBe(0);
    expect(rpc.responses.find((frame) => frame.id === "last")?.success).toBe(true);
    const end = rpc.ofType("agent_end")[0];
    expect(end).toBeDefined();
    expect(textOf(end.messages.at(-1))).toBe("finished after EOF");
    // agent_settled, right after agent_end, is the last frame written.
    expect(rpc.frames.slice(-2).map((frame) => frame.type)).toEqual(["agent_end", "agent_settled"]);
  });
});
