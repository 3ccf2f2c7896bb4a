/**
 * get_messages on a big session is written in pieces (#25), and the frame is
 * byte for byte the one a single JSON.stringify gives: every message, in order,
 * line separators escaped, one LF at the end. A response that becomes ready
 * while the big one is still being written follows it whole, never inside it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRpcFixture, FAKE_MODEL, type RpcFixture } from "../../support/rpc-harness.ts";

const CYCLES = 500;
let fixture: RpcFixture;
let sessionFile: string;
const messages: Record<string, unknown>[] = [];

const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

beforeAll(() => {
  fixture = createRpcFixture();
  sessionFile = join(fixture.cwd, "big-session.jsonl");
  const started = Date.parse("2026-02-01T00:00:00.000Z");
  const lines = [JSON.stringify({ type: "session", version: 3, id: "0b16b16b-0000-4000-8000-000000000000", timestamp: new Date(started).toISOString(), cwd: fixture.cwd })];
  let parentId: string | null = null;
  const add = (message: Record<string, unknown>) => {
    const id = (messages.length + 1).toString(16).padStart(8, "0");
    const at = started + messages.length * 1000;
    const withTime = { ...message, timestamp: at };
    messages.push(withTime);
    lines.push(JSON.stringify({ type: "message", id, parentId, timestamp: new Date(at).toISOString(), message: withTime }));
    parentId = id;
  };
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    // U+2028 must go out escaped; other non-ASCII text as it is.
    add({ role: "user", content: `step ${cycle}: 名前 \u2028 line\u2029 🚀 "quoted" \\ back` });
    add({ role: "assistant", content: [{ type: "text", text: `looking ${cycle}` }, { type: "toolCall", id: `call_${cycle}`, name: "bash", arguments: { command: `ls ${cycle}` } }], api: "openai-completions", provider: "fake", model: "fake-model", usage, stopReason: "toolUse" });
    add({ role: "toolResult", toolCallId: `call_${cycle}`, toolName: "bash", content: [{ type: "text", text: `${cycle} `.repeat(5_000) }], isError: false });
    add({ role: "assistant", content: [{ type: "text", text: `done ${cycle} ✓` }], api: "openai-completions", provider: "fake", model: "fake-model", usage, stopReason: "stop" });
  }
  writeFileSync(sessionFile, `${lines.join("\n")}\n`);
});
afterAll(() => fixture.cleanup());

describe("get_messages of a big session", () => {
  test("the streamed frame is byte-identical to the whole frame serialized at once, and the next response follows it whole", async () => {
    const rpc = fixture.start(["--model", FAKE_MODEL, "--session", sessionFile]);
    // Both sent at once: get_state is answered while get_messages is still being written.
    rpc.send({ id: "all", type: "get_messages" });
    rpc.send({ id: "state", type: "get_state" });
    const state = await rpc.waitForResponse("state", 20_000);
    expect(state.success).toBe(true);

    const expected = JSON.stringify({ id: "all", type: "response", command: "get_messages", success: true, data: { messages } })
      .replace(/\u2028/g, "\\u2028")
      .replace(/\u2029/g, "\\u2029");
    const index = rpc.rawLines.findIndex((line) => line.startsWith('{"id":"all"'));
    expect(index).toBeGreaterThanOrEqual(0);
    const raw = rpc.rawLines[index];
    expect(raw.length).toBeGreaterThan(9 * 1024 * 1024);
    expect(raw === expected).toBe(true);
    expect(raw.includes("\u2028")).toBe(false);
    // The get_state answer came after the big frame, as a line of its own.
    expect(rpc.rawLines.findIndex((line) => line.startsWith('{"id":"state"'))).toBeGreaterThan(index);
    rpc.proc.stdin.end();
    expect(await rpc.proc.exited).toBe(0);
  });

  test("get_entries since an entry streams the rest, and an empty session answers an empty list", async () => {
    const rpc = fixture.start(["--model", FAKE_MODEL, "--session", sessionFile]);
    const since = (CYCLES * 4 - 3).toString(16).padStart(8, "0");
    const entries = await rpc.request({ type: "get_entries", since }, 20_000);
    expect(entries.success).toBe(true);
    expect(entries.data.entries.map((entry: { message: unknown }) => entry.message)).toEqual(messages.slice(-3));
    rpc.proc.stdin.end();
    await rpc.proc.exited;

    const empty = fixture.start(["--model", FAKE_MODEL, "--no-session"]);
    const answer = await empty.request({ id: "none", type: "get_messages" });
    expect(empty.rawLines.find((line) => line.startsWith('{"id":"none"'))).toBe('{"id":"none","type":"response","command":"get_messages","success":true,"data":{"messages":[]}}');
    expect(answer.data.messages).toEqual([]);
    empty.proc.stdin.end();
    await empty.proc.exited;
  });
});
