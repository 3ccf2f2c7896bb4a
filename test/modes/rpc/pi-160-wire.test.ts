/**
 * Where xcsh's RPC frames and session files followed pi 1.6.0 after driving both side by
 * side on the same inputs (issue #33): the session file opens with the model and thinking
 * level, messages carry how long they took, bash's tool_execution_end has pi's structured
 * result (and the transcript does not keep it), and an extension command's response comes
 * after its handler has run, and a compaction reports its usage. Raw JSONL against the built binary and the fake LLM server.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createExtensionFixture, withExtensions, type ExtensionFixture } from "../../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture({ models: [{ id: "fake-model", reasoning: true }] });
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const WAIT = 20_000;
const callBash = (command: string, id: string) => ({ content: [{ type: "toolCall" as const, id, name: "bash", arguments: { command } }] });
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

function entriesOf(file: string): any[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

describe("session files and messages as pi 1.6.0 writes them", () => {
  test("a new session file opens with the model and thinking level in use; a resumed session gets no second pair", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--thinking", "high"]);
    fixture.server.enqueue(text("one"));
    await rpc.request({ type: "prompt", message: "first" });
    await rpc.waitForEvent("agent_settled", () => true, WAIT);
    const file = (await rpc.request({ type: "get_state" })).data.sessionFile as string;
    expect(await rpc.close(WAIT)).toBe(0);

    const entries = entriesOf(file);
    expect(entries.map((entry) => entry.type)).toEqual(["session", "model_change", "thinking_level_change", "message", "message"]);
    expect(entries[1]).toMatchObject({ provider: "fake", modelId: "fake-model", parentId: null });
    expect(entries[2]).toMatchObject({ thinkingLevel: "high", parentId: entries[1].id });
    // The conversation hangs below them in the tree.
    expect(entries[3]).toMatchObject({ parentId: entries[2].id, message: { role: "user" } });

    const resumed = fixture.start(["--model", "fake/fake-model", "--session", file]);
    fixture.server.enqueue(text("two"));
    await resumed.request({ type: "prompt", message: "second" });
    await resumed.waitForEvent("agent_settled", () => true, WAIT);
    const after = entriesOf(file).map((entry) => entry.type);
    expect(after.filter((type) => type === "model_change")).toHaveLength(1);
    expect(after.filter((type) => type === "thinking_level_change")).toHaveLength(1);
    expect(after).toHaveLength(7);

    // A new session in the same process opens the same way, with the level now in use.
    await resumed.request({ type: "set_thinking_level", level: "low" });
    await resumed.request({ type: "new_session" });
    const mark = resumed.mark();
    fixture.server.enqueue(text("three"));
    await resumed.request({ type: "prompt", message: "third" });
    await resumed.waitForEvent("agent_settled", () => true, WAIT, mark);
    const fresh = (await resumed.request({ type: "get_state" })).data.sessionFile as string;
    expect(fresh).not.toBe(file);
    const freshEntries = entriesOf(fresh);
    expect(freshEntries.map((entry) => entry.type).slice(0, 3)).toEqual(["session", "model_change", "thinking_level_change"]);
    expect(freshEntries[2].thinkingLevel).toBe("low");
    expect(await resumed.close(WAIT)).toBe(0);
  });

  test("assistant and tool result messages carry durationMs; bash's result has pi 1.6.0's structuredContent, also for a non-zero exit, and the transcript keeps only the text", async () => {
    const rpc = fixture.start();
    fixture.server.enqueue(
      { content: [callBash("sleep 0.2; echo hi", "ok").content[0]!, callBash("printf 'partial'; exit 3", "fails").content[0]!] },
      text("done"),
    );
    await rpc.request({ type: "prompt", message: "run them" });
    await rpc.waitForEvent("agent_settled", () => true, WAIT);

    const ends = rpc.ofType("tool_execution_end");
    const ok = ends.find((frame) => frame.toolCallId === "ok")!;
    const fails = ends.find((frame) => frame.toolCallId === "fails")!;
    expect(ok.isError).toBe(false);
    expect(ok.result.structuredContent).toMatchObject({ output: "hi\n", truncated: false, exit_code: 0 });
    expect(ok.result.structuredContent.wall_time_seconds).toBeGreaterThanOrEqual(0.1);
    expect(ok.result.structuredContent.full_output_path).toBeUndefined();
    expect(fails.isError).toBe(true);
    expect(fails.result.structuredContent).toMatchObject({ output: "partial", truncated: false, exit_code: 3 });
    expect(fails.result.content[0].text).toBe("partial\n\nCommand exited with code 3");

    const messages = (await rpc.request({ type: "get_messages" })).data.messages as any[];
    const results = messages.filter((message) => message.role === "toolResult");
    expect(results.map((message) => message.toolCallId)).toEqual(["ok", "fails"]);
    for (const result of results) {
      expect(result.structuredContent).toBeUndefined();
      expect(typeof result.durationMs).toBe("number");
    }
    expect(results[0].durationMs).toBeGreaterThanOrEqual(150);
    const assistants = messages.filter((message) => message.role === "assistant");
    expect(assistants).toHaveLength(2);
    for (const assistant of assistants) expect(typeof assistant.durationMs).toBe("number");
    // message_end carries it too, and the session file keeps it.
    const file = (await rpc.request({ type: "get_state" })).data.sessionFile as string;
    const stored = entriesOf(file).filter((entry) => entry.type === "message" && entry.message.role !== "user");
    expect(stored.every((entry) => typeof entry.message.durationMs === "number")).toBe(true);
    expect(await rpc.close(WAIT)).toBe(0);
  });

  test("a slow model's answer records roughly how long it took", async () => {
    const rpc = fixture.start();
    fixture.server.enqueue({ ...text("late"), delayMs: 400 });
    await rpc.request({ type: "prompt", message: "wait for it" });
    const end = await rpc.waitForEvent("message_end", (frame) => frame.message.role === "assistant", WAIT);
    expect(end.message.durationMs).toBeGreaterThanOrEqual(350);
    await rpc.waitForEvent("agent_settled", () => true, WAIT);
    expect(await rpc.close(WAIT)).toBe(0);
  });
});

describe("compaction", () => {
  test("the compact response, compaction_end and the compaction entry report what the summary cost, and session stats count it", async () => {
    const rpc = fixture.start();
    fixture.server.enqueue({ ...text("first answer"), usage: { input: 100, output: 20 } }, { ...text("second answer"), usage: { input: 200, output: 30 } });
    await rpc.request({ type: "prompt", message: "one" });
    await rpc.waitForEvent("agent_settled", () => true, WAIT);
    const mark = rpc.mark();
    await rpc.request({ type: "prompt", message: "two" });
    await rpc.waitForEvent("agent_settled", () => true, WAIT, mark);
    const before = (await rpc.request({ type: "get_session_stats" })).data.tokens;

    fixture.server.enqueue({ ...text("SUMMARY"), usage: { input: 40, output: 7 } });
    const compacted = await rpc.request({ type: "compact" }, WAIT);
    expect(compacted.success).toBe(true);
    expect(compacted.data.usage).toMatchObject({ input: 40, output: 7, totalTokens: 47 });
    const end = rpc.ofType("compaction_end").at(-1)!;
    expect(end.result.usage).toMatchObject({ input: 40, output: 7 });

    const after = (await rpc.request({ type: "get_session_stats" })).data.tokens;
    expect(after.input - before.input).toBe(40);
    expect(after.output - before.output).toBe(7);
    const file = (await rpc.request({ type: "get_state" })).data.sessionFile as string;
    const entry = entriesOf(file).find((each) => each.type === "compaction");
    expect(entry.usage).toMatchObject({ input: 40, output: 7 });
    expect(await rpc.close(WAIT)).toBe(0);
  });
});

describe("extension commands over RPC", () => {
  const SLOW_COMMAND = `
export default function (pi) {
  pi.registerCommand("slow", {
    description: "takes a while",
    handler: async (args, ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      pi.setSessionName("renamed by " + args);
      ctx.ui.notify("slow ran");
    },
  });
}
`;

  test("the response to an extension command comes once its handler is done, so what it changed is there to read", async () => {
    const ext = fixture.writeExtension("slow-command.ts", SLOW_COMMAND);
    const rpc = fixture.start(withExtensions(ext));
    const response = await rpc.request({ type: "prompt", message: "/slow me" }, WAIT);
    expect(response).toMatchObject({ success: true, data: { disposition: "handled" } });
    const responseIndex = rpc.frames.indexOf(response);
    const notice = rpc.frames.findIndex((frame) => frame.type === "extension_ui_request" && frame.message === "slow ran");
    expect(notice).toBeGreaterThanOrEqual(0);
    expect(notice).toBeLessThan(responseIndex);
    expect((await rpc.request({ type: "get_state" })).data.sessionName).toBe("renamed by me");
    expect(rpc.ofType("agent_start")).toHaveLength(0);
    expect(await rpc.close(WAIT)).toBe(0);
  });
});
