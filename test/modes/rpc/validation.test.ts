/**
 * Every command is checked against its schema before it does anything: a wrong field
 * gets one response with the request's id and an error naming the field, changes
 * nothing, and leaves the session working. And a command answered `success:true` does
 * what it said, even when prompts, aborts and abort_and_prompt arrive back to back.
 *
 * The model answers each request from its last user message (see `reply`), so a test
 * can tell which prompt reached it; a message containing "stall" gets a reply that
 * stops mid-stream and only an abort ends.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMMAND_TYPES, commandSchema } from "../../../src/modes/rpc/rpc-schemas.ts";
import type { RpcCommandType } from "../../../src/modes/rpc/rpc-types.ts";
import { createRpcFixture, duplicateResponseIds, FAKE_MODEL, startRpc, textOf, type Frame, type RpcFixture, type RpcProcess } from "../../support/rpc-harness.ts";
import type { RecordedRequest, ScriptStep } from "../../support/fake-llm/script.ts";

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture({ models: [{ id: "fake-model", input: ["text", "image"] }] });
});
afterAll(() => fixture.cleanup());

// A real 1×1 PNG (an undecodable one would be left out of the prompt with a line saying so).
const IMAGE = { type: "image", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", mimeType: "image/png" };

function lastUserText(request: RecordedRequest): string {
  const users = request.body.messages.filter((message: { role: string }) => message.role === "user");
  return textOf(users.at(-1) ?? { content: "" });
}

/** Answers "answer: <last user text>", or stalls when that text contains "stall". */
const reply: ScriptStep = (request) => {
  const text = lastUserText(request);
  return text.includes("stall")
    ? { content: [{ type: "text", text: "a stalled answer that never ends" }], chunkSize: 4, stallAfterEvents: 3 }
    : { content: [{ type: "text", text: `answer: ${text}` }] };
};

function start(args?: string[]): RpcProcess {
  fixture.server.clearScript();
  fixture.server.enqueue(...Array.from({ length: 20 }, () => reply));
  return fixture.start(args);
}

/** An extension whose `input` handler takes a while: the gap between accepting a prompt and its run beginning. */
function withSlowInput(): string[] {
  const dir = join(fixture.home.home, "ext");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "slow-input.ts");
  writeFileSync(path, `export default function (pi) {\n  pi.on("input", async () => { await new Promise((resolve) => setTimeout(resolve, 150)); });\n}\n`);
  return ["-e", path, "--model", FAKE_MODEL];
}

/** Sends frames in one write, as a fast host would, and resolves with their responses by id. */
async function sendAtOnce(rpc: RpcProcess, frames: Frame[]): Promise<Map<string, Frame>> {
  rpc.write(frames.map((frame) => JSON.stringify(frame) + "\n").join(""));
  const responses = await Promise.all(frames.map((frame) => rpc.waitForResponse(frame.id)));
  return new Map(responses.map((response) => [response.id!, response]));
}

/** After everything: a prompt still runs to its answer, and get_state describes an idle, healthy session. */
async function expectHealthy(rpc: RpcProcess): Promise<void> {
  const from = rpc.mark();
  expect(await rpc.request({ type: "prompt", message: "still there?" })).toMatchObject({ success: true });
  const end = await rpc.waitForEvent("agent_end", () => true, 5_000, from);
  expect(textOf(end.messages.at(-1))).toBe("answer: still there?");
  const state = (await rpc.request({ type: "get_state" })).data;
  expect(state).toMatchObject({ isStreaming: false, isCompacting: false, pendingMessageCount: 0 });
  expect(state.messageCount % 2).toBe(0);
  expect(rpc.stderr).not.toContain("prompt failed");
  expect(await rpc.close()).toBe(0);
  expect(duplicateResponseIds(rpc.frames)).toEqual([]);
}

/** One wrong field per command type that has fields, and the words its error must contain. */
const WRONG: Record<string, [Frame, string]> = {
  prompt: [{ message: 42 }, '"message" must be a string (got 42)'],
  steer: [{ message: ["go"] }, '"message" must be a string'],
  follow_up: [{}, '"message" is required and must be a string'],
  abort_and_prompt: [{ message: null }, '"message" must be a string (got null)'],
  new_session: [{ parentSession: 7 }, '"parentSession" must be a string'],
  set_model: [{ provider: "fake", modelId: { id: "fake-model" } }, '"modelId" must be a string'],
  set_thinking_level: [{ level: "huge" }, '"level" must be one of: "off", "minimal", "low", "medium", "high", "xhigh", "max" (got "huge")'],
  set_steering_mode: [{ mode: 1 }, '"mode" must be "all" or "one-at-a-time"'],
  set_follow_up_mode: [{ mode: "each" }, '"mode" must be "all" or "one-at-a-time"'],
  set_interrupt_mode: [{ mode: true }, '"mode" must be "immediate" or "wait"'],
  compact: [{ reserveTokens: "lots" }, '"reserveTokens" must be a number >= 0'],
  set_auto_compaction: [{ enabled: "no" }, '"enabled" must be true or false (got "no")'],
  set_auto_retry: [{ enabled: 0 }, '"enabled" must be true or false'],
  bash: [{ command: ["echo", "hi"] }, '"command" must be a string'],
  export_html: [{ outputPath: false }, '"outputPath" must be a string'],
  switch_session: [{ sessionPath: 1 }, '"sessionPath" must be a string'],
  fork: [{ entryId: 12 }, '"entryId" must be a string'],
  get_entries: [{ since: 5 }, '"since" must be an entry id (a string) (got 5)'],
  branch: [{}, '"entryId" is required and must be a string'],
  set_session_name: [{ name: 3 }, '"name" must be a string'],
  set_todos: [{ phases: [{ name: "Plan", tasks: ["fine", { content: 5 }] }] }, '"phases[0].tasks[1].content" must be a non-empty string (got 5)'],
  set_host_tools: [{ tools: [{ name: "lookup", description: "Look up", parameters: "none" }] }, '"tools[0].parameters" must be a JSON Schema object'],
};

const hasFields = (type: RpcCommandType) => Object.keys(commandSchema(type).properties).length > 1;

describe("a command with a wrong field", () => {
  test("every command type: one response with its id, an error naming the field, and nothing changed", async () => {
    const withFields = COMMAND_TYPES.filter(hasFields);
    expect(Object.keys(WRONG).sort()).toEqual(withFields.sort());

    const rpc = start();
    expect((await rpc.request({ type: "set_session_name", name: "before" })).success).toBe(true);
    const before = (await rpc.request({ type: "get_state" })).data;
    const frames = Object.entries(WRONG).map(([type, [fields]]) => ({ ...fields, type, id: `bad-${type}` }));
    const responses = await sendAtOnce(rpc, frames);
    for (const [type, [, error]] of Object.entries(WRONG)) {
      const response = responses.get(`bad-${type}`)!;
      expect(response).toMatchObject({ type: "response", command: type, success: false });
      expect(response.error).toContain(error);
    }
    // One response each, and no command acted: no run, no bash, the same state.
    expect(rpc.responses.filter((response) => String(response.id).startsWith("bad-"))).toHaveLength(frames.length);
    expect(rpc.ofType("agent_start")).toHaveLength(0);
    expect((await rpc.request({ type: "get_messages" })).data.messages).toEqual([]);
    expect((await rpc.request({ type: "get_state" })).data).toEqual(before);
    await expectHealthy(rpc);
  });

  test("several wrong fields are named together; a missing one says it is required", async () => {
    const rpc = start();
    const response = await rpc.request({ type: "compact", customInstructions: 5, reserveTokens: -1, keepRecentTokens: "x" });
    expect(response.error).toBe(
      '"customInstructions" must be a string (got 5); "reserveTokens" must be a number >= 0 (got -1); "keepRecentTokens" must be a number >= 0 (got "x")',
    );
    expect((await rpc.request({ type: "set_model" })).error).toBe('"provider" is required and must be a string; "modelId" is required and must be a string');
    await expectHealthy(rpc);
  });

  test("fields a host adds are allowed, on commands with and without fields", async () => {
    const rpc = start();
    const extra = { hostTag: { anything: [1, 2] } };
    const plain = COMMAND_TYPES.filter((type) => !hasFields(type) && type !== "clone" && type !== "cycle_model");
    const responses = await sendAtOnce(
      rpc,
      plain.map((type) => ({ ...extra, type, id: `extra-${type}` })),
    );
    for (const type of plain) expect(responses.get(`extra-${type}`)).toMatchObject({ command: type, success: true });
    expect(await rpc.request({ type: "set_auto_retry", enabled: true, ...extra })).toMatchObject({ success: true });
    const from = rpc.mark();
    expect(await rpc.request({ type: "prompt", message: "tagged", ...extra })).toMatchObject({ success: true });
    expect(textOf((await rpc.waitForEvent("agent_end", () => true, 5_000, from)).messages.at(-1))).toBe("answer: tagged");
    await expectHealthy(rpc);
  });
});

describe("start-up", () => {
  const traced = () => startRpc({ env: { ...fixture.home.env, XCSH_TRACE_LOAD: "1" }, cwd: fixture.cwd, args: ["--model", FAKE_MODEL] });

  test("valid commands and a built-in tool call are checked without loading typebox", async () => {
    fixture.server.clearScript();
    writeFileSync(join(fixture.cwd, "notes.txt"), "a note\n");
    fixture.server.enqueue({ content: [{ type: "toolCall", name: "read", arguments: { path: "notes.txt", limit: 5 } }] }, reply);
    const rpc = traced();
    expect(await rpc.request({ type: "get_state" })).toMatchObject({ success: true });
    const from = rpc.mark();
    expect(await rpc.request({ type: "prompt", message: "hi", images: [IMAGE] })).toMatchObject({ success: true });
    const end = await rpc.waitForEvent("agent_end", () => true, 5_000, from);
    const result = end.messages.find((message: Frame) => message.role === "toolResult");
    expect(result).toMatchObject({ isError: false, content: [{ type: "text", text: expect.stringContaining("a note") }] });
    expect(await rpc.request({ type: "set_thinking_level", level: "high" })).toMatchObject({ success: true });
    expect(await rpc.close()).toBe(0);
    expect(rpc.stderr).not.toContain("loaded typebox");
  });

  test("the first command that does not fit loads typebox, which words the error", async () => {
    const rpc = traced();
    const bad = await rpc.request({ type: "set_thinking_level", level: "extreme" });
    expect(bad).toMatchObject({ success: false, error: expect.stringContaining(`"level" must be one of:`) });
    expect(await rpc.close()).toBe(0);
    expect(rpc.stderr).toContain("loaded typebox");
  });
});

describe("images", () => {
  const BAD_IMAGES: [unknown, string][] = [
    [{ length: 1 }, `"images" must be an array of images ({type:"image", data, mimeType}) (got {"length":1})`],
    ["iVBORw0KGgo=", `"images" must be an array of images`],
    [[null], `"images[0]" must be an image ({type:"image", data, mimeType}) (got null)`],
    [[IMAGE, "iVBORw0KGgo="], `"images[1]" must be an image`],
    [[{ ...IMAGE, type: "img" }], `"images[0].type" must be "image" (got "img")`],
    [[{ type: "image", data: IMAGE.data }], `"images[0].mimeType" is required and must be an image MIME type`],
    [[{ ...IMAGE, data: 1234 }], `"images[0].data" must be base64 text, without a "data:" prefix (got 1234)`],
    [[{ ...IMAGE, data: `data:image/png;base64,${IMAGE.data}` }], `"images[0].data" must be base64 text`],
    [[{ ...IMAGE, data: "" }], `"images[0].data" must be base64 text`],
    // Cut short: every character is base64, but the length is not a multiple of 4.
    [[{ ...IMAGE, data: IMAGE.data.slice(0, -1) }], `"images[0].data" must be base64 text`],
    [[{ ...IMAGE, mimeType: "text/plain" }], `"images[0].mimeType" must be an image MIME type such as "image/png" (got "text/plain")`],
  ];

  test("prompt, steer, follow_up and abort_and_prompt refuse anything but an array of images; later prompts work", async () => {
    const rpc = start();
    const frames = ["prompt", "steer", "follow_up", "abort_and_prompt"].flatMap((type) =>
      BAD_IMAGES.map(([images], index) => ({ type, message: "look", images, id: `${type}-${index}` })),
    );
    const responses = await sendAtOnce(rpc, frames);
    for (const frame of frames) {
      const response = responses.get(frame.id)!;
      expect(response).toMatchObject({ command: frame.type, success: false });
      expect(response.error).toContain(BAD_IMAGES[Number(frame.id.split("-").at(-1))][1]);
    }
    expect(rpc.ofType("agent_start")).toHaveLength(0);
    expect((await rpc.request({ type: "get_state" })).data).toMatchObject({ messageCount: 0, pendingMessageCount: 0 });

    // A good image still goes through, and the session keeps working after it.
    const from = rpc.mark();
    expect(await rpc.request({ type: "prompt", message: "what is this?", images: [IMAGE] })).toMatchObject({ success: true });
    const end = await rpc.waitForEvent("agent_end", () => true, 5_000, from);
    expect(end.messages[0].content).toEqual([{ type: "text", text: "what is this?" }, IMAGE]);
    await expectHealthy(rpc);
  });
});

describe("prompts sent back to back", () => {
  const assistantTexts = (rpc: RpcProcess) => rpc.ofType("message_end").filter((frame) => frame.message.role === "assistant").map((frame) => textOf(frame.message));

  test("abort_and_prompt then prompt at once: the prompt is refused as the agent is working, and one run starts", async () => {
    const rpc = start();
    const responses = await sendAtOnce(rpc, [
      { type: "abort_and_prompt", message: "first", id: "replace" },
      { type: "prompt", message: "second", id: "next" },
    ]);
    expect(responses.get("replace")).toMatchObject({ success: true });
    expect(responses.get("next")).toMatchObject({ success: false, error: expect.stringContaining("already working") });
    await rpc.waitForEvent("agent_end");
    expect(rpc.ofType("agent_start")).toHaveLength(1);
    expect(assistantTexts(rpc)).toEqual(["answer: first"]);
    await expectHealthy(rpc);
  });

  test("abort_and_prompt then a follow-up prompt at once: both are accepted and both reach the model", async () => {
    const rpc = start();
    const responses = await sendAtOnce(rpc, [
      { type: "abort_and_prompt", message: "first", id: "replace" },
      { type: "prompt", message: "then this", streamingBehavior: "followUp", id: "follow" },
    ]);
    expect(responses.get("replace")).toMatchObject({ success: true });
    expect(responses.get("follow")).toMatchObject({ success: true });
    await rpc.waitFor((frame) => frame.type === "agent_end" && textOf(frame.messages.at(-1)) === "answer: then this");
    expect(assistantTexts(rpc)).toEqual(["answer: first", "answer: then this"]);
    await expectHealthy(rpc);
  });

  test("two prompts at once: the second is refused, not accepted and lost", async () => {
    const rpc = start();
    const responses = await sendAtOnce(rpc, [
      { type: "prompt", message: "one", id: "p1" },
      { type: "prompt", message: "two", id: "p2" },
    ]);
    expect(responses.get("p1")).toMatchObject({ success: true });
    expect(responses.get("p2")).toMatchObject({ success: false, error: expect.stringContaining("already working") });
    await rpc.waitForEvent("agent_end");
    expect(assistantTexts(rpc)).toEqual(["answer: one"]);
    await expectHealthy(rpc);
  });

  test("a prompt then abort_and_prompt at once: the new prompt replaces whatever the first one started", async () => {
    const rpc = start();
    const responses = await sendAtOnce(rpc, [
      { type: "prompt", message: "stall here", id: "p1" },
      { type: "abort_and_prompt", message: "instead", id: "replace" },
    ]);
    expect(responses.get("replace")).toMatchObject({ success: true });
    await rpc.waitFor((frame) => frame.type === "agent_end" && textOf(frame.messages.at(-1)) === "answer: instead");
    // The first prompt either ran and was aborted, or was refused because the replacement came first.
    const first = responses.get("p1")!;
    const aborted = rpc.ofType("message_end").filter((frame) => frame.message.stopReason === "aborted");
    expect(aborted).toHaveLength(first.success ? 1 : 0);
    await expectHealthy(rpc);
  });

  test("a prompt then abort at once: the run the prompt started is stopped", async () => {
    const rpc = start();
    const responses = await sendAtOnce(rpc, [
      { type: "prompt", message: "stall please", id: "p1" },
      { type: "abort", id: "stop" },
    ]);
    expect(responses.get("stop")).toMatchObject({ success: true });
    if (responses.get("p1")!.success) {
      const end = await rpc.waitForEvent("agent_end");
      expect(end.messages.at(-1).stopReason).toBe("aborted");
    }
    await expectHealthy(rpc);
  });

  test("while an extension checks the input: a second prompt is refused, and an abort stops the first prompt's run", async () => {
    const rpc = start(withSlowInput());
    const both = await sendAtOnce(rpc, [
      { type: "prompt", message: "one", id: "p1" },
      { type: "prompt", message: "two", id: "p2" },
    ]);
    expect(both.get("p1")).toMatchObject({ success: true });
    expect(both.get("p2")).toMatchObject({ success: false, error: expect.stringContaining("already working") });
    await rpc.waitForEvent("agent_end");
    expect(assistantTexts(rpc)).toEqual(["answer: one"]);

    const from = rpc.mark();
    const stopped = await sendAtOnce(rpc, [
      { type: "prompt", message: "stall again", id: "p3" },
      { type: "abort", id: "stop" },
    ]);
    expect(stopped.get("p3")).toMatchObject({ success: true });
    expect(stopped.get("stop")).toMatchObject({ success: true });
    const end = await rpc.waitForEvent("agent_end", () => true, 5_000, from);
    expect(end.messages.at(-1).stopReason).toBe("aborted");
    await expectHealthy(rpc);
  });
});
