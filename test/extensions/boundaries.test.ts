/**
 * pi 0.87.1's settlement events through the built binary: agent_before_settle
 * (the last moment to add entries or ask for one more request), actionable
 * turn_end, and agent_settled — where they fall among the RPC frames, what
 * their handlers may do, and what reaches the model and the session file.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";
import { textOf, type RpcProcess } from "../support/rpc-harness.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const reply = (text: string) => ({ content: [{ type: "text" as const, text }] });

/** Index of the first frame matching, from `from` on; -1 when none. */
function frameIndex(rpc: RpcProcess, predicate: (frame: any) => boolean, from = 0): number {
  const index = rpc.frames.slice(from).findIndex(predicate);
  return index === -1 ? -1 : index + from;
}
const noticeAt = (rpc: RpcProcess, prefix: string) => frameIndex(rpc, (frame) => frame.method === "notify" && frame.message.startsWith(prefix));
const eventAt = (rpc: RpcProcess, type: string, from = 0) => frameIndex(rpc, (frame) => frame.type === type, from);

async function sessionEntries(rpc: RpcProcess): Promise<any[]> {
  const file = (await rpc.request({ type: "get_state" })).data.sessionFile;
  return readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
}

/** Prompts and waits until the run has settled. */
async function promptAndSettle(rpc: RpcProcess, message: string): Promise<number> {
  const from = rpc.mark();
  await rpc.request({ type: "prompt", message });
  await rpc.waitForEvent("agent_settled", undefined, 10_000, from);
  return from;
}

describe("agent_before_settle and agent_settled", () => {
  test("before_settle follows the last agent_end with the boundary state; agent_settled comes once, with the session idle, extensions first", async () => {
    const ext = fixture.writeExtension(
      "observe.ts",
      `export default function (pi) {
  pi.on("agent_end", (e, ctx) => ctx.ui.notify("agent_end"));
  pi.on("agent_before_settle", (e, ctx) => ctx.ui.notify("before_settle " + JSON.stringify({
    outcome: e.outcome, entries: e.entries, continue: e.continue, idle: ctx.isIdle(),
    roles: e.context.contextMessages.map((m) => m.role), llm: e.context.llmMessages.map((m) => m.role),
    entryTypes: e.context.contextEntries.map((x) => x.sourceEntry.type + ":" + x.messages.length),
    pending: e.context.pendingMessages.length, canContinue: e.context.canContinue })));
  pi.on("agent_settled", (e, ctx) => ctx.ui.notify("settled " + JSON.stringify({ keys: Object.keys(e), idle: ctx.isIdle() })));
}`,
    );
    fixture.server.enqueue({ content: [{ type: "toolCall", name: "ls", arguments: {} }] }, reply("done"));
    const rpc = fixture.start(withExtensions(ext));
    await promptAndSettle(rpc, "look around");
    const before = JSON.parse(notices(rpc).find((n) => n.startsWith("before_settle"))!.slice("before_settle ".length));
    expect(before).toEqual({
      outcome: "completed",
      entries: [],
      continue: false,
      idle: false,
      roles: ["user", "assistant", "toolResult", "assistant"],
      llm: ["user", "assistant", "toolResult", "assistant"],
      // The session opens with the model and thinking level (as pi 1.6.0 writes them): entries with no messages.
      entryTypes: ["model_change:0", "thinking_level_change:0", "message:1", "message:1", "message:1", "message:1"],
      pending: 0,
      canContinue: false,
    });
    expect(notices(rpc).filter((n) => n.startsWith("settled"))).toEqual(['settled {"keys":["type","aborted"],"idle":true}']);
    // Extensions hear each moment before the host's frame for it.
    const order = [noticeAt(rpc, "agent_end"), eventAt(rpc, "agent_end"), noticeAt(rpc, "before_settle"), noticeAt(rpc, "settled"), eventAt(rpc, "agent_settled")];
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(rpc.ofType("agent_settled")).toHaveLength(1);
    expect(await rpc.close()).toBe(0);
  });

  test("continue with a custom_message makes exactly one more request, then agent_settled once; the drafts are in the session file and chain to the next handler", async () => {
    const ext = fixture.writeExtension(
      "nudge.ts",
      `let settles = 0;
export default function (pi) {
  pi.on("agent_before_settle", (e) => {
    if (++settles > 1) return;
    return { entries: [...e.entries, { type: "custom", customType: "mark", data: { n: 1 } },
      { type: "custom_message", customType: "nudge", content: "Please also check the tests.", display: false }], continue: true };
  });
  pi.on("agent_before_settle", (e, ctx) => ctx.ui.notify("second sees " + JSON.stringify({
    entries: e.entries.map((d) => d.type + ":" + d.customType), continue: e.continue,
    last: e.context.contextMessages.at(-1).role, canContinue: e.context.canContinue })));
}`,
    );
    fixture.server.enqueue(reply("first answer"), reply("second answer"));
    const rpc = fixture.start(withExtensions(ext));
    const requestsBefore = fixture.server.requests.length;
    const from = await promptAndSettle(rpc, "do the thing");
    expect(fixture.server.requests.length - requestsBefore).toBe(2);
    const second = fixture.server.requests.at(-1)!.body.messages;
    expect(textOf(second.at(-1))).toBe("Please also check the tests.");
    expect(notices(rpc).filter((n) => n.startsWith("second sees"))).toEqual([
      'second sees {"entries":["custom:mark","custom_message:nudge"],"continue":true,"last":"custom","canContinue":true}',
      'second sees {"entries":[],"continue":false,"last":"assistant","canContinue":false}',
    ]);
    // One more agent loop, and the run settles once, after it.
    expect(rpc.ofType("agent_start", from)).toHaveLength(2);
    expect(rpc.ofType("agent_settled", from)).toHaveLength(1);
    expect(eventAt(rpc, "agent_settled", from)).toBeGreaterThan(rpc.frames.findLastIndex((frame) => frame.type === "agent_end"));
    expect(rpc.ofType("entry_appended", from).map((frame) => frame.entry.type)).toEqual(["custom", "custom_message"]);
    const entries = await sessionEntries(rpc);
    const types = entries.map((entry) => entry.type + (entry.customType ? ":" + entry.customType : ""));
    expect(types.slice(-4)).toEqual(["message", "custom:mark", "custom_message:nudge", "message"]);
    expect(entries.find((entry) => entry.type === "custom")).toMatchObject({ customType: "mark", data: { n: 1 } });
    expect(entries.find((entry) => entry.type === "custom_message")).toMatchObject({ content: "Please also check the tests.", display: false });
    expect(await rpc.close()).toBe(0);
  });

  test("continue with nothing to answer, a malformed draft and a wrong-typed continue are errors naming the problem; the run settles after one request", async () => {
    const ext = fixture.writeExtension(
      "bad.ts",
      `export default function (pi) {
  pi.on("agent_before_settle", () => ({ entries: [{ type: "custom_message", content: "no type" }] }));
  pi.on("agent_before_settle", () => ({ entries: [{ type: "nonsense" }] }));
  pi.on("agent_before_settle", () => ({ continue: "yes" }));
  pi.on("agent_before_settle", () => ({ continue: true }));
}`,
    );
    fixture.server.enqueue(reply("only answer"));
    const rpc = fixture.start(withExtensions(ext));
    const requestsBefore = fixture.server.requests.length;
    const from = await promptAndSettle(rpc, "hello");
    expect(fixture.server.requests.length - requestsBefore).toBe(1);
    const errors = rpc.ofType("extension_error", from).map((frame) => [frame.extensionPath === ext ? "ext" : frame.extensionPath, frame.event, frame.error]);
    expect(errors).toEqual([
      ["ext", "agent_before_settle", 'Invalid boundary entries: entries[0] (custom_message) needs a non-empty string "customType"'],
      ["ext", "agent_before_settle", 'Invalid boundary entries: entries[0] has type "nonsense"; allowed: "custom", "custom_message", "context_edit", "compaction"'],
      ["ext", "agent_before_settle", '"continue" must be true or false, not string'],
      ["<boundary>", "agent_before_settle", expect.stringContaining("the context ends with the model's reply")],
    ]);
    expect(rpc.ofType("entry_appended", from)).toHaveLength(0);
    expect(rpc.ofType("agent_settled", from)).toHaveLength(1);
    expect(await rpc.close()).toBe(0);
  });

  test("context_edit and compaction drafts: the preview and the next request follow them; a bad target is refused", async () => {
    const ext = fixture.writeExtension(
      "edit.ts",
      `let settles = 0;
export default function (pi) {
  pi.on("agent_before_settle", (e) => {
    if (++settles > 2) return;
    const user = e.context.contextEntries.find((x) => x.sourceEntry.type === "message" && x.sourceEntry.message.role === "user");
    if (settles === 1) return { entries: [
      { type: "context_edit", targetId: user.sourceEntry.id, replacement: { content: "EDITED QUESTION" } },
      { type: "custom_message", customType: "go", content: "go on", display: false }], continue: true };
    return { entries: [
      { type: "compaction", summary: "SUMMARY BY EXTENSION", firstKeptEntryId: null },
      { type: "custom_message", customType: "go", content: "after compaction", display: false }], continue: true };
  });
  pi.on("agent_before_settle", (e, ctx) => ctx.ui.notify("preview " + JSON.stringify(e.context.contextMessages.map((m) => m.role + ":" + (typeof m.content === "string" ? m.content : m.summary ?? "…")))));
  pi.on("agent_before_settle", () => ({ entries: [{ type: "context_edit", targetId: "no-such-entry", replacement: null }] }));
}`,
    );
    fixture.server.enqueue(reply("first"), reply("second"), reply("third"));
    const rpc = fixture.start(withExtensions(ext));
    const from = await promptAndSettle(rpc, "original question");
    const [, afterEdit, afterCompaction] = fixture.server.requests.slice(-3).map((request) => request.body.messages.filter((m: any) => m.role !== "system").map(textOf));
    expect(afterEdit).toEqual(["EDITED QUESTION", "first", "go on"]);
    expect(afterCompaction[0]).toContain("SUMMARY BY EXTENSION");
    expect(afterCompaction.slice(1)).toEqual(["after compaction"]);
    expect(notices(rpc)[0]).toBe('preview ["user:EDITED QUESTION","assistant:…","custom:go on"]');
    expect(notices(rpc)[1]).toBe('preview ["compactionSummary:SUMMARY BY EXTENSION","custom:after compaction"]');
    const errors = rpc.ofType("extension_error", from).map((frame) => frame.error);
    expect(errors).toHaveLength(3);
    for (const error of errors) expect(error).toStartWith("Invalid boundary entries: entries[0] (context_edit): entry no-such-entry not found");
    const entries = await sessionEntries(rpc);
    expect(entries.filter((entry) => entry.type === "context_edit")).toHaveLength(1);
    expect(entries.find((entry) => entry.type === "compaction")).toMatchObject({ summary: "SUMMARY BY EXTENSION", firstKeptEntryId: null, fromHook: true });
    expect(await rpc.close()).toBe(0);
  });

  test("a handler that always continues is stopped after 50 extra requests, with a warning", async () => {
    const ext = fixture.writeExtension(
      "loop.ts",
      `export default function (pi) {
  pi.on("agent_before_settle", (e) => ({ entries: [{ type: "custom_message", customType: "again", content: "again", display: false }], continue: true }));
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const requestsBefore = fixture.server.requests.length;
    const from = await promptAndSettle(rpc, "go");
    expect(fixture.server.requests.length - requestsBefore).toBe(51);
    expect(rpc.ofType("extension_error", from).map((frame) => frame.error)).toEqual([
      "agent_before_settle asked for more than 50 extra requests in one run; the run settles now",
    ]);
    expect(rpc.ofType("agent_settled", from)).toHaveLength(1);
    // The count is per run: the next prompt may continue as often again.
    const requestsThen = fixture.server.requests.length;
    const next = await promptAndSettle(rpc, "again");
    expect(fixture.server.requests.length - requestsThen).toBe(51);
    expect(rpc.ofType("extension_error", next)).toHaveLength(1);
    expect(await rpc.close()).toBe(0);
  });

  test("an aborted run settles without agent_before_settle; outcome error reaches it after a failed request", async () => {
    const ext = fixture.writeExtension(
      "outcome.ts",
      `export default function (pi) {
  pi.on("agent_before_settle", (e, ctx) => ctx.ui.notify("before_settle " + e.outcome));
  pi.on("agent_settled", (e, ctx) => ctx.ui.notify("settled"));
}`,
    );
    const rpc = fixture.start([...withExtensions(ext)]);
    fixture.server.enqueue({ content: [{ type: "text", text: "slow ".repeat(50) }], chunkSize: 5, chunkDelayMs: 100 });
    await rpc.request({ type: "prompt", message: "take your time" });
    await rpc.waitForEvent("message_update");
    await rpc.request({ type: "abort" });
    await rpc.waitForEvent("agent_settled");
    expect(notices(rpc)).toEqual(["settled"]);
    fixture.server.enqueue({ type: "error", status: 400, message: "bad request" });
    await promptAndSettle(rpc, "fail please");
    expect(notices(rpc)).toEqual(["settled", "before_settle error", "settled"]);
    expect(await rpc.close()).toBe(0);
  });
});

describe("agent_settled handlers may start new work", () => {
  test("sendUserMessage from agent_settled runs after the agent_settled frame, as its own run, without deadlock", async () => {
    const ext = fixture.writeExtension(
      "chain.ts",
      `let settled = 0;
export default function (pi) {
  pi.on("agent_settled", (e, ctx) => {
    settled++;
    ctx.ui.notify("settled " + settled + " idle=" + ctx.isIdle());
    if (settled === 1) { pi.sendUserMessage("second prompt"); pi.sendUserMessage("third prompt"); }
  });
}`,
    );
    fixture.server.enqueue(reply("one"), reply("two"), reply("three"));
    const rpc = fixture.start(withExtensions(ext));
    const from = rpc.mark();
    await rpc.request({ type: "prompt", message: "first prompt" });
    await rpc.waitFor((frame) => frame.method === "notify" && frame.message.startsWith("settled 3"), 10_000);
    expect(notices(rpc)).toEqual(["settled 1 idle=true", "settled 2 idle=true", "settled 3 idle=true"]);
    const starts = rpc.frames.flatMap((frame, index) => (frame.type === "agent_start" ? [index] : []));
    const settles = rpc.frames.flatMap((frame, index) => (frame.type === "agent_settled" ? [index] : []));
    expect(starts).toHaveLength(3);
    expect(settles).toHaveLength(3);
    // Each run starts only after the previous one's agent_settled frame.
    expect(starts[1]).toBeGreaterThan(settles[0]);
    expect(starts[2]).toBeGreaterThan(settles[1]);
    const prompts = fixture.server.requests.slice(-3).map((request) => textOf(request.body.messages.at(-1)));
    expect(prompts).toEqual(["first prompt", "second prompt", "third prompt"]);
    expect(rpc.ofType("extension_error", from)).toHaveLength(0);
    expect((await rpc.request({ type: "get_state" })).data.isStreaming).toBe(false);
    expect(await rpc.close()).toBe(0);
  });
});

describe("actionable turn_end", () => {
  test("turn_end carries the boundary state and the entry ids of the turn's messages, before its frame", async () => {
    const ext = fixture.writeExtension(
      "turns.ts",
      `export default function (pi) {
  pi.on("turn_end", (e, ctx) => ctx.ui.notify("turn_end " + JSON.stringify({ turnIndex: e.turnIndex, messageEntryId: e.messageEntryId,
    toolResultEntryIds: e.toolResultEntryIds, outcome: e.outcome, entries: e.entries, continue: e.continue,
    canContinue: e.context.canContinue, last: e.context.contextMessages.at(-1).role })));
}`,
    );
    fixture.server.enqueue({ content: [{ type: "toolCall", name: "ls", arguments: {} }] }, reply("listed"));
    const rpc = fixture.start(withExtensions(ext));
    await promptAndSettle(rpc, "list");
    const seen = notices(rpc).map((n) => JSON.parse(n.slice("turn_end ".length)));
    const entries = await sessionEntries(rpc);
    const idOf = (role: string, nth = 0) => entries.filter((entry) => entry.type === "message" && entry.message.role === role)[nth].id;
    expect(seen).toEqual([
      { turnIndex: 0, messageEntryId: idOf("assistant"), toolResultEntryIds: [idOf("toolResult")], outcome: "completed", entries: [], continue: false, canContinue: true, last: "toolResult" },
      { turnIndex: 1, messageEntryId: idOf("assistant", 1), toolResultEntryIds: [], outcome: "completed", entries: [], continue: false, canContinue: false, last: "assistant" },
    ]);
    const firstTurnEnd = eventAt(rpc, "turn_end");
    expect(noticeAt(rpc, "turn_end")).toBeLessThan(firstTurnEnd);
    expect(await rpc.close()).toBe(0);
  });

  test("continue at a turn without tool calls makes one more request in the same loop; without a message to answer it is refused", async () => {
    const ext = fixture.writeExtension(
      "turn-continue.ts",
      `let turns = 0;
export default function (pi) {
  pi.on("turn_end", (e) => {
    turns++;
    if (turns === 1) return { entries: [{ type: "custom_message", customType: "more", content: "One more thing.", display: true }], continue: true };
    if (turns === 2) return { continue: true };
  });
}`,
    );
    fixture.server.enqueue(reply("first"), reply("second"));
    const rpc = fixture.start(withExtensions(ext));
    const requestsBefore = fixture.server.requests.length;
    const from = await promptAndSettle(rpc, "start");
    expect(fixture.server.requests.length - requestsBefore).toBe(2);
    expect(textOf(fixture.server.requests.at(-1)!.body.messages.at(-1))).toBe("One more thing.");
    expect(rpc.ofType("agent_start", from)).toHaveLength(1);
    expect(rpc.ofType("turn_end", from)).toHaveLength(2);
    // The entry is appended before the turn_end frame that closes the turn.
    expect(eventAt(rpc, "entry_appended", from)).toBeLessThan(eventAt(rpc, "turn_end", from));
    expect(rpc.ofType("extension_error", from).map((frame) => [frame.event, frame.error])).toEqual([
      ["turn_end", expect.stringContaining("the context ends with the model's reply")],
    ]);
    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    expect(messages.map((message: any) => message.role)).toEqual(["user", "assistant", "custom", "assistant"]);
    expect(await rpc.close()).toBe(0);
  });
});
