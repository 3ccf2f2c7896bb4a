/**
 * Over ACP, each call a codemode script makes is a tool call of its own (so the
 * editor can be asked for permission for it), announced with `_meta.parentToolCallId`
 * naming the script's call, and completed before the script's call is. session/load
 * replays them the same way, from the `nestedCalls` the script's result keeps.
 */
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../support/cli.ts";
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

test("session/load replays a script's calls after it, each naming the script's call as its parent", async () => {
  writeFileSync(join(fixture.cwd, "first.txt"), "one\n");
  writeFileSync(join(fixture.cwd, "second.txt"), "two\n");
  const code = 'await tools.read({ path: "first.txt" });\nawait tools.read({ path: "missing.txt" }).catch(() => "gone");\nreturn "read";';
  fixture.fake.server.enqueue(
    { content: [{ type: "toolCall", id: "cm2", name: "codemode", arguments: { code } }] },
    { content: [{ type: "text", text: "Scripted." }] },
  );
  const printed = await runXcsh(["-p", "script two reads", "--model", "fake/m", "--tools", "codemode,read"], { env: fixture.env, cwd: fixture.cwd });
  expect(printed.exitCode).toBe(0);

  const client = fixture.spawn({ args: ["--tools", "codemode,read"] });
  await client.initialize();
  const listed = await client.agent.request("session/list", { cwd: fixture.cwd });
  const stored = listed.sessions.find((session) => session.title?.includes("script two reads"));
  expect(stored).toBeDefined();
  await client.agent.request("session/load", { sessionId: stored!.sessionId, cwd: fixture.cwd, mcpServers: [] });
  const calls = client.ofKind(stored!.sessionId, "tool_call");
  expect(calls.map((call) => call.toolCallId)).toEqual(["cm2", "cm2/1", "cm2/2"]);
  expect(calls[0]!._meta).toBeUndefined();
  expect(calls[1]).toMatchObject({ kind: "read", title: "Read first.txt", status: "completed", _meta: { parentToolCallId: "cm2" } });
  expect(calls[2]).toMatchObject({ kind: "read", status: "failed", _meta: { parentToolCallId: "cm2" } });
  await client.close();
}, 60_000);
