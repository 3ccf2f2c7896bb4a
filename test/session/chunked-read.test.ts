/**
 * A session is read a chunk (1 MiB) at a time (#25). What crosses a chunk's edge
 * must come out as if the file were read whole: a 2.5 MB line of multi-byte text,
 * a BOM before the header, and a torn last line beyond the first megabyte, which
 * is cut off at its exact byte offset (and kept in `.torn`) before the next entry
 * is appended.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRpcFixture, FAKE_MODEL, textOf, type RpcFixture } from "../support/rpc-harness.ts";

let fixture: RpcFixture;
beforeAll(() => {
  fixture = createRpcFixture();
});
afterAll(() => fixture.cleanup());

test("a session with a BOM, a 2.5 MB multi-byte line and a torn tail past 1 MiB loads whole and appends after its last complete entry", async () => {
  const file = join(fixture.cwd, "chunked.jsonl");
  // 3-byte and 4-byte characters, so chunk edges fall inside characters.
  const bigText = `start ${"名前🚀é".repeat(250_000)} end`;
  const at = Date.parse("2026-04-01T00:00:00.000Z");
  const header = JSON.stringify({ type: "session", version: 3, id: "c0ffee00-0000-4000-8000-000000000000", timestamp: new Date(at).toISOString(), cwd: fixture.cwd });
  const first = JSON.stringify({ type: "message", id: "00000001", parentId: null, timestamp: new Date(at).toISOString(), message: { role: "user", content: bigText, timestamp: at } });
  const second = JSON.stringify({
    type: "message",
    id: "00000002",
    parentId: "00000001",
    timestamp: new Date(at + 1000).toISOString(),
    message: { role: "assistant", content: [{ type: "text", text: "read it" }], api: "openai-completions", provider: "fake", model: "fake-model", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: at + 1000 },
  });
  const torn = '{"type":"message","id":"00000003","parentId":"00000002","message":{"role":"user","content":"cut sh';
  const complete = `\uFEFF${header}\n${first}\n${second}\n`;
  writeFileSync(file, complete + torn);
  expect(Buffer.byteLength(complete)).toBeGreaterThan(2 * 1024 * 1024);

  const rpc = fixture.start(["--model", FAKE_MODEL, "--session", file]);
  const messages = await rpc.request({ type: "get_messages" }, 20_000);
  expect(messages.data.messages).toHaveLength(2);
  expect(messages.data.messages[0].content === bigText).toBe(true);
  expect(textOf(messages.data.messages[1])).toBe("read it");
  const notices = rpc.events.filter((frame) => frame.type === "notice").map((frame) => frame.message as string);
  expect(notices.some((message) => message.includes("line 4 is incomplete"))).toBe(true);

  fixture.server.enqueue({ content: [{ type: "text", text: "next answer" }] });
  expect((await rpc.request({ type: "prompt", message: "go on" })).success).toBe(true);
  await rpc.waitFor((frame) => frame.type === "agent_end", 20_000);
  rpc.proc.stdin.end();
  expect(await rpc.proc.exited).toBe(0);

  // The torn line went to .torn; the file is the complete part, byte for byte, then the new entries.
  expect(readFileSync(`${file}.torn`, "utf8")).toBe(`${torn}\n`);
  const after = readFileSync(file);
  expect(after.subarray(0, Buffer.byteLength(complete)).equals(Buffer.from(complete))).toBe(true);
  const appended = after.subarray(Buffer.byteLength(complete)).toString("utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line));
  expect(appended.map((entry) => entry.message?.role)).toEqual(["user", "assistant"]);
  expect(appended[0].parentId).toBe("00000002");
});
