/**
 * Over ACP, each call a codemode script makes is a tool call of its own (so the
 * editor can be asked for permission for it), announced with `_meta.parentToolCallId`
 * naming the script's call, and completed before the script's call is.
 */
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAcpFixture, type AcpFixture } from "../modes/acp/support/acp-harness.ts";

const fixture: AcpFixture = await createAcpFixture();
afterAll(() => fixture.cleanup());

test("a script's nested read is an ACP tool call naming the script's call as its parent", async () => {
  writeFileSync(join(fixture.cwd, "notes.txt"), "nested-secret\n");
  const client = fixture.spawn({ args: ["--tools", "codemode,read"] });
  const { sessionId } = await client.start(fixture.cwd);
  fixture.fake.server.enqueue(
    { content: [{ type: "toolCall", id: "cm1", name: "codemode", arguments: { code: 'return await tools.read({ path: "notes.txt" });' } }] },
    { content: [{ type: "text", text: "Read it." }] },
  );
  expect((await client.prompt(sessionId, "read through a script")).stopReason).toBe("end_turn");
  const calls = client.ofKind(sessionId, "tool_call");
  const script = calls.find((update) => update.toolCallId === "cm1");
  const nested = calls.find((update) => update.toolCallId === "cm1/1");
  expect(script?._meta).toBeUndefined();
  expect(nested).toMatchObject({ kind: "read", title: "Read notes.txt", _meta: { parentToolCallId: "cm1" } });
  const updates = client.ofKind(sessionId, "tool_call_update");
  const nestedEnd = updates.findIndex((update) => update.toolCallId === "cm1/1" && update.status === "completed");
  const scriptEnd = updates.findIndex((update) => update.toolCallId === "cm1" && update.status === "completed");
  expect(nestedEnd).toBeGreaterThan(-1);
  expect(scriptEnd).toBeGreaterThan(nestedEnd);
  expect(JSON.stringify(updates[nestedEnd]?.content)).toContain("nested-secret");
  await client.close();
}, 60_000);
