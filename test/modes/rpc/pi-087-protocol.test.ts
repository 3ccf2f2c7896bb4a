/**
 * What pi 0.87.1 added to the RPC protocol, frame by frame through the built binary:
 * the commands clear_queue, get_available_thinking_levels, get_entries and get_tree;
 * the events bash_execution_update, session_info_changed, thinking_level_changed,
 * entry_appended and agent_end.willRetry; agent_settled once per chain; pi's wire form
 * (--rpc-wire pi) and the start-up flags hosts pass to pi.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createExtensionFixture, withExtensions, type ExtensionFixture } from "../../support/extensions.ts";
import { runXcsh } from "../../support/cli.ts";
import { duplicateResponseIds, textOf, type Frame, type RpcProcess } from "../../support/rpc-harness.ts";

let fixture: ExtensionFixture;

beforeAll(() => {
  fixture = createExtensionFixture({
    models: ["fake-model", { id: "thinker", reasoning: true, thinkingLevelMap: { xhigh: "xhigh" } }, { id: "reasoner", reasoning: true }],
    settings: { retry: { enabled: true, maxRetries: 2, baseDelayMs: 10 } },
  });
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

async function finish(rpc: RpcProcess): Promise<void> {
  expect(await rpc.close()).toBe(0);
  expect(duplicateResponseIds(rpc.frames)).toEqual([]);
  expect(rpc.ofType("__unparseable_stdout__")).toEqual([]);
}

/** Frame types from `from` on, message streaming left out. */
const typesFrom = (rpc: RpcProcess, from: number) => rpc.frames.slice(from).map((frame) => frame.type).filter((type) => type !== "message_update");
const indexOfResponse = (rpc: RpcProcess, id: string) => rpc.frames.findIndex((frame) => frame.type === "response" && frame.id === id);

describe("get_available_thinking_levels", () => {
  test("a model without reasoning has only off; a reasoning model its supported levels", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    expect((await rpc.request({ type: "get_available_thinking_levels" })).data).toEqual({ levels: ["off"] });
    await rpc.request({ type: "set_model", provider: "fake", modelId: "thinker" });
    expect((await rpc.request({ type: "get_available_thinking_levels" })).data).toEqual({ levels: ["off", "minimal", "low", "medium", "high", "xhigh"] });
    await rpc.request({ type: "set_model", provider: "fake", modelId: "reasoner" });
    expect((await rpc.request({ type: "get_available_thinking_levels" })).data).toEqual({ levels: ["off", "minimal", "low", "medium", "high"] });
    await finish(rpc);
  });
});

describe("clear_queue", () => {
  test("takes the queued messages out undelivered, reported by one queue_update before the response", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    fixture.server.enqueue({ content: [{ type: "text", text: "slow answer" }], delayMs: 800 });
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "go" });
    await rpc.request({ type: "steer", message: "steer one" });
    await rpc.request({ type: "follow_up", message: "follow one" });
    await rpc.request({ type: "follow_up", message: "follow two" });
    const mark = rpc.mark();
    const cleared = await rpc.request({ id: "clear", type: "clear_queue" });
    expect(cleared.data).toEqual({ steering: ["steer one"], followUp: ["follow one", "follow two"] });
    const between = rpc.frames.slice(mark, indexOfResponse(rpc, "clear"));
    expect(between.filter((frame) => frame.type === "queue_update")).toEqual([{ type: "queue_update", steering: [], followUp: [] }]);
    await rpc.waitForEvent("agent_settled", () => true, 10_000, mark);
    // Nothing that was cleared reached the model.
    expect(fixture.server.requests.length - before).toBe(1);
    expect((await rpc.request({ type: "get_state" })).data.pendingMessageCount).toBe(0);

    // Idle with nothing queued: empty lists, still reported.
    const idleMark = rpc.mark();
    expect((await rpc.request({ id: "again", type: "clear_queue" })).data).toEqual({ steering: [], followUp: [] });
    expect(rpc.ofType("queue_update", idleMark)).toEqual([{ type: "queue_update", steering: [], followUp: [] }]);
    await finish(rpc);
  });
});

describe("get_entries and get_tree", () => {
  test("entries in append order without the header; since is a cursor; an unknown cursor fails", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model"]);
    fixture.server.enqueue({ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] });
    await rpc.request({ type: "prompt", message: "first" });
    await rpc.waitForEvent("agent_settled");
    const all = (await rpc.request({ type: "get_entries" })).data;
    // As pi writes them: the session opens with the model and thinking level in use.
    expect(all.entries.map((entry: Frame) => entry.type)).toEqual(["model_change", "thinking_level_change", "message", "message"]);
    expect(all.entries.every((entry: Frame) => typeof entry.id === "string" && "parentId" in entry && typeof entry.timestamp === "string")).toBe(true);
    expect(all.leafId).toBe(all.entries[3].id);
    const cursor = all.leafId;

    const mark = rpc.mark();
    await rpc.request({ type: "prompt", message: "second" });
    await rpc.waitForEvent("agent_settled", () => true, 5_000, mark);
    await rpc.request({ type: "set_session_name", name: "cursor test" });
    const newer = (await rpc.request({ type: "get_entries", since: cursor })).data;
    expect(newer.entries.map((entry: Frame) => entry.type)).toEqual(["message", "message", "session_info"]);
    expect(newer.entries.map((entry: Frame) => entry.message?.role ?? entry.name)).toEqual(["user", "assistant", "cursor test"]);
    expect(newer.entries[0].parentId).toBe(cursor);
    expect(newer.leafId).toBe(newer.entries[2].id);
    expect((await rpc.request({ type: "get_entries", since: newer.leafId })).data).toEqual({ entries: [], leafId: newer.leafId });

    const unknown = await rpc.request({ type: "get_entries", since: "nope" });
    expect(unknown).toMatchObject({ success: false, error: "Entry not found: nope" });
    const wrongType = await rpc.request({ type: "get_entries", since: 5 });
    expect(wrongType.success).toBe(false);
    expect(wrongType.error).toContain('"since"');

    const tree = (await rpc.request({ type: "get_tree" })).data;
    expect(tree.leafId).toBe(newer.leafId);
    expect(tree.tree).toHaveLength(1);
    const ids: string[] = [];
    const walk = (node: Frame) => {
      expect(Object.keys(node).sort()).toEqual(["children", "entry"]);
      ids.push(node.entry.id);
      node.children.forEach(walk);
    };
    walk(tree.tree[0]);
    expect(ids).toEqual([...all.entries, ...newer.entries].map((entry: Frame) => entry.id));
    await finish(rpc);
  });

  test("an empty session has no entries and a null leaf", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    expect((await rpc.request({ type: "get_entries" })).data).toEqual({ entries: [], leafId: null });
    expect((await rpc.request({ type: "get_tree" })).data).toEqual({ tree: [], leafId: null });
    await finish(rpc);
  });
});

describe("agent_end.willRetry and agent_settled", () => {
  test("a retried run: willRetry true then false, one agent_settled after the last agent_end", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    fixture.server.enqueue({ type: "error", status: 529, message: "Overloaded" }, { content: [{ type: "text", text: "second try" }] });
    const mark = rpc.mark();
    await rpc.request({ type: "prompt", message: "try" });
    await rpc.waitForEvent("agent_settled", () => true, 5_000, mark);
    await Bun.sleep(100);
    expect(rpc.ofType("agent_end", mark).map((frame) => frame.willRetry)).toEqual([true, false]);
    const types = typesFrom(rpc, mark);
    expect(types.filter((type) => type === "agent_settled")).toHaveLength(1);
    expect(types.lastIndexOf("agent_end")).toBeLessThan(types.indexOf("agent_settled"));
    expect(types.indexOf("auto_retry_end")).toBeLessThan(types.indexOf("agent_settled"));
    await finish(rpc);
  });

  test("retries running out: willRetry is false on the last failure", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    const failure = { type: "error" as const, status: 500, message: "boom" };
    fixture.server.enqueue(failure, failure, failure);
    const mark = rpc.mark();
    await rpc.request({ type: "prompt", message: "try" });
    await rpc.waitForEvent("agent_settled", () => true, 5_000, mark);
    await Bun.sleep(100);
    expect(rpc.ofType("agent_end", mark).map((frame) => frame.willRetry)).toEqual([true, true, false]);
    expect(rpc.ofType("agent_settled", mark)).toHaveLength(1);
    await finish(rpc);
  });

  test("a follow-up chain: agent_settled once, after the answer to the follow-up", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    fixture.server.enqueue({ content: [{ type: "text", text: "first" }], delayMs: 400 }, { content: [{ type: "text", text: "followed" }] });
    const mark = rpc.mark();
    await rpc.request({ type: "prompt", message: "start" });
    await rpc.request({ type: "follow_up", message: "and then" });
    await rpc.waitForEvent("agent_settled", () => true, 5_000, mark);
    await Bun.sleep(100);
    const types = typesFrom(rpc, mark);
    expect(types.filter((type) => type === "agent_settled")).toHaveLength(1);
    expect(types.at(-1)).toBe("agent_settled");
    const answers = rpc.frames.slice(mark).filter((frame) => frame.type === "message_end" && frame.message.role === "assistant");
    expect(answers.map((frame) => textOf(frame.message))).toEqual(["first", "followed"]);
    expect(rpc.ofType("agent_end", mark).every((frame) => frame.willRetry === false)).toBe(true);
    await finish(rpc);
  });
});

describe("bash_execution_update", () => {
  test("every chunk of output, with the command's id, before the response; all of it even when the result is truncated", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    const expected = Array.from({ length: 20_000 }, (_, i) => `${i + 1}\n`).join("");
    const result = await rpc.request({ id: "long", type: "bash", command: "seq 1 20000" }, 10_000);
    expect(result.data.truncated).toBe(true);
    expect(result.data.output.length).toBeLessThan(expected.length);
    const updates = rpc.ofType("bash_execution_update");
    expect(updates.every((update) => update.id === "long" && Object.keys(update).sort().join() === "delta,id,type")).toBe(true);
    expect(updates.map((update) => update.delta).join("")).toBe(expected);
    const lastUpdate = rpc.frames.findLastIndex((frame) => frame.type === "bash_execution_update");
    expect(lastUpdate).toBeLessThan(indexOfResponse(rpc, "long"));

    // A numeric id is echoed as it is; without an id the updates have none.
    let mark = rpc.mark();
    rpc.send({ id: 7, type: "bash", command: "echo seven" });
    await rpc.waitFor((frame) => frame.type === "response" && frame.id === 7);
    expect(rpc.ofType("bash_execution_update", mark)).toEqual([{ type: "bash_execution_update", id: 7, delta: "seven\n" }]);
    mark = rpc.mark();
    rpc.send({ type: "bash", command: "echo anonymous" });
    await rpc.waitFor((frame) => frame.type === "response" && frame.command === "bash", 5_000, "the bash response", mark);
    expect(rpc.ofType("bash_execution_update", mark)).toEqual([{ type: "bash_execution_update", delta: "anonymous\n" }]);
    await finish(rpc);
  });

  test("excludeFromContext keeps the output out of the next prompt; a wrong type is refused", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    await rpc.request({ type: "bash", command: "echo hidden-output", excludeFromContext: true });
    await rpc.request({ type: "bash", command: "echo shown-output" });
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "what ran?" });
    await rpc.waitForEvent("agent_settled");
    const sent = JSON.stringify(fixture.server.requests[before].body.messages);
    expect(sent).toContain("shown-output");
    expect(sent).not.toContain("hidden-output");
    const bad = await rpc.request({ type: "bash", command: "echo", excludeFromContext: "yes" });
    expect(bad.success).toBe(false);
    expect(bad.error).toContain('"excludeFromContext"');
    await finish(rpc);
  });
});

describe("session_info_changed and thinking_level_changed", () => {
  test("set_session_name reports the trimmed name; a refused name reports nothing", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    const mark = rpc.mark();
    await rpc.request({ id: "name", type: "set_session_name", name: "  my work  " });
    expect(rpc.ofType("session_info_changed", mark)).toEqual([{ type: "session_info_changed", name: "my work" }]);
    expect(rpc.frames.findIndex((frame) => frame.type === "session_info_changed")).toBeLessThan(indexOfResponse(rpc, "name"));
    const refused = await rpc.request({ type: "set_session_name", name: "   " });
    expect(refused.success).toBe(false);
    expect(rpc.ofType("session_info_changed", mark)).toHaveLength(1);
    await finish(rpc);
  });

  test("reported when the effective level changes: set, cycle, max, and a model switch that clamps it", async () => {
    const rpc = fixture.start(["--model", "fake/thinker", "--no-session"]);
    const levels = (from: number) => rpc.ofType("thinking_level_changed", from).map((frame) => frame.level);
    let mark = rpc.mark();
    await rpc.request({ type: "set_thinking_level", level: "high" });
    await rpc.request({ type: "set_thinking_level", level: "high" }); // unchanged: no event
    await rpc.request({ type: "cycle_thinking_level" });
    await rpc.request({ type: "set_thinking_level", level: "low" });
    // pi 0.87.1's "max": the model's highest level, here xhigh.
    await rpc.request({ type: "set_thinking_level", level: "max" });
    expect(levels(mark)).toEqual(["high", "xhigh", "low", "xhigh"]);
    expect((await rpc.request({ type: "get_state" })).data.thinkingLevel).toBe("xhigh");

    mark = rpc.mark();
    // reasoner has no xhigh: clamped to high; fake-model has no reasoning: off.
    await rpc.request({ type: "set_model", provider: "fake", modelId: "reasoner" });
    await rpc.request({ type: "set_model", provider: "fake", modelId: "fake-model" });
    await rpc.request({ type: "set_thinking_level", level: "max" }); // off stays off: no event
    expect(levels(mark)).toEqual(["high", "off"]);
    const bad = await rpc.request({ type: "set_thinking_level", level: "maximum" });
    expect(bad.error).toContain('"max"');
    await finish(rpc);
  });
});

describe("extensions' entries and names", () => {
  test("pi.appendEntry is reported as entry_appended; pi.setSessionName as session_info_changed; labels show in get_tree", async () => {
    const path = fixture.writeExtension(
      "marker.ts",
      `export default function (pi) {
        pi.registerCommand("mark", {
          description: "mark the session",
          handler: async (args, ctx) => {
            pi.appendEntry("marker", { note: args });
            pi.setSessionName("named by extension");
            pi.setLabel(ctx.sessionManager.getEntries()[0].id, "first");
          },
        });
      }`,
    );
    const rpc = fixture.start([...withExtensions(path), "--no-session"]);
    fixture.server.enqueue({ content: [{ type: "text", text: "hi" }] });
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_settled");
    const mark = rpc.mark();
    await rpc.request({ type: "prompt", message: "/mark the spot" });
    const appended = await rpc.waitForEvent("entry_appended", () => true, 5_000, mark);
    expect(appended.entry).toMatchObject({ type: "custom", customType: "marker", data: { note: "the spot" } });
    expect(typeof appended.entry.id).toBe("string");
    const named = await rpc.waitForEvent("session_info_changed", () => true, 5_000, mark);
    expect(named).toEqual({ type: "session_info_changed", name: "named by extension" });
    const types = rpc.frames.slice(mark).map((frame) => frame.type);
    expect(types.indexOf("entry_appended")).toBeLessThan(types.indexOf("session_info_changed"));

    const entries = (await rpc.request({ type: "get_entries" })).data.entries;
    expect(entries.find((entry: Frame) => entry.type === "custom").id).toBe(appended.entry.id);
    const root = (await rpc.request({ type: "get_tree" })).data.tree[0];
    expect(root.label).toBe("first");
    expect(typeof root.labelTimestamp).toBe("string");
    await finish(rpc);
  });
});

describe("pi 0.87.1's wire form", () => {
  const toolThenText = () =>
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_a", name: "bash", arguments: { command: "echo hi" } }] },
      { content: [{ type: "text", text: "all done" }] },
    );

  test("--rpc-wire pi: message_update is {type, usage, assistantMessageEvent}; toolcall_start names the call", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session", "--rpc-wire", "pi"]);
    toolThenText();
    await rpc.request({ type: "prompt", message: "run" });
    await rpc.waitForEvent("agent_settled");
    const updates = rpc.ofType("message_update");
    expect(updates.length).toBeGreaterThan(0);
    for (const update of updates) {
      expect(Object.keys(update)).toEqual(["type", "usage", "assistantMessageEvent"]);
      expect(typeof update.usage.totalTokens).toBe("number");
      expect(update.assistantMessageEvent.partial).toBeUndefined();
    }
    const start = updates.find((update) => update.assistantMessageEvent.type === "toolcall_start")!;
    expect(start.assistantMessageEvent).toEqual({ type: "toolcall_start", contentIndex: 0, id: "call_a", toolName: "bash" });
    const text = updates.filter((update) => update.assistantMessageEvent.type === "text_delta").map((update) => update.assistantMessageEvent.delta);
    expect(text.join("")).toBe("all done");
    // Everything but message_update is left whole.
    expect(rpc.ofType("turn_end")[0].message.role).toBe("assistant");
    expect(rpc.ofType("agent_end")[0].messages.length).toBe(4);
    await finish(rpc);
  });

  test("--mode json --rpc-wire pi writes the same form: the header, then delta-only updates, agent_end, agent_settled", async () => {
    toolThenText();
    const result = await runXcsh(["--mode", "json", "--no-session", "--model", "fake/fake-model", "--rpc-wire", "pi", "run it"], { env: fixture.home.env, cwd: fixture.cwd });
    expect(result.exitCode).toBe(0);
    const frames = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(frames[0].type).toBe("session");
    const updates = frames.filter((frame) => frame.type === "message_update");
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.every((update) => Object.keys(update).join() === "type,usage,assistantMessageEvent")).toBe(true);
    // xcsh ends a json run with its result envelope (docs/headless.md).
    expect(frames.map((frame) => frame.type).slice(-3)).toEqual(["agent_end", "agent_settled", "result"]);
  });

  test("--rpc-lean's toolcall_start names the call too; --rpc-lean cannot be combined with another form", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session", "--rpc-lean"]);
    toolThenText();
    await rpc.request({ type: "prompt", message: "run" });
    await rpc.waitForEvent("agent_settled");
    const start = rpc.ofType("message_update").find((update) => update.assistantMessageEvent.type === "toolcall_start")!;
    expect(start).toEqual({ type: "message_update", assistantMessageEvent: { type: "toolcall_start", contentIndex: 0, id: "call_a", toolName: "bash" } });
    await finish(rpc);

    const clash = fixture.start(["--model", "fake/fake-model", "--rpc-lean", "--rpc-wire", "pi"]);
    expect(await clash.close()).toBe(2);
    expect(clash.stderr).toContain("--rpc-wire");
    expect(clash.frames).toEqual([]);
  });
});

describe("flags hosts pass to pi", () => {
  test("pi's resource, theme and process flags start RPC mode with only frames on stdout", async () => {
    const rpc = fixture.start([
      "--model", "fake/fake-model", "--no-session",
      "--no-themes", "--theme", "./some-theme.json", "--use-theme", "dark",
      "-ns", "-np", "-nc", "-ne", "--offline", "--verbose", "--no-approve",
    ]);
    const state = await rpc.request({ type: "get_state" });
    expect(state.data.model.id).toBe("fake-model");
    fixture.server.enqueue({ content: [{ type: "text", text: "flags ok" }] });
    await rpc.request({ type: "prompt", message: "hi" });
    await rpc.waitForEvent("agent_settled");
    await finish(rpc);
    expect(rpc.rawLines.filter((line) => line !== "").every((line) => line.startsWith("{"))).toBe(true);
  });

  test("-nc leaves AGENTS.md out of the system prompt, as --no-context-files does", async () => {
    await Bun.write(`${fixture.cwd}/AGENTS.md`, "PROJECT-RULES-MARKER");
    try {
      fixture.server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
      for (const [flags, expected] of [[[], true], [["-nc"], false]] as const) {
        const rpc = fixture.start(["--model", "fake/fake-model", "--no-session", ...flags]);
        const before = fixture.server.requests.length;
        await rpc.request({ type: "prompt", message: "hi" });
        await rpc.waitForEvent("agent_settled");
        expect(JSON.stringify(fixture.server.requests[before].body.messages).includes("PROJECT-RULES-MARKER")).toBe(expected);
        await finish(rpc);
      }
    } finally {
      await Bun.file(`${fixture.cwd}/AGENTS.md`).delete();
    }
  });

  test("--thinking max starts at the model's highest level", async () => {
    for (const [model, level] of [["thinker", "xhigh"], ["reasoner", "high"]]) {
      const rpc = fixture.start(["--model", `fake/${model}`, "--no-session", "--thinking", "max"]);
      expect((await rpc.request({ type: "get_state" })).data.thinkingLevel).toBe(level);
      await finish(rpc);
    }
  });

  test("--session-id opens the project's session with that id, creating it the first time", async () => {
    const first = fixture.start(["--model", "fake/fake-model", "--session-id", "host.chosen_id-1"]);
    fixture.server.enqueue({ content: [{ type: "text", text: "remembered" }] });
    await first.request({ type: "prompt", message: "remember me" });
    await first.waitForEvent("agent_settled");
    const state = (await first.request({ type: "get_state" })).data;
    expect(state.sessionId).toBe("host.chosen_id-1");
    expect(await Bun.file(state.sessionFile).exists()).toBe(true);
    await finish(first);

    const again = fixture.start(["--model", "fake/fake-model", "--session-id", "host.chosen_id-1"]);
    const reopened = (await again.request({ type: "get_state" })).data;
    expect(reopened.sessionFile).toBe(state.sessionFile);
    expect((await again.request({ type: "get_messages" })).data.messages.map((message: { content: unknown }) => textOf(message))).toEqual(["remember me", "remembered"]);
    await finish(again);

    for (const args of [["--session-id", "-bad"], ["--session-id", "bad/id"], ["--session-id", "ok", "--continue"]]) {
      const refused = fixture.start(["--model", "fake/fake-model", ...args]);
      expect(await refused.close()).toBe(2);
      expect(refused.stderr).toContain("--session-id");
    }
  });

  test("a theme flag without its value is a usage error", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--theme"]);
    expect(await rpc.close()).toBe(2);
    expect(rpc.stderr).toContain("--theme needs a value");
  });
});
