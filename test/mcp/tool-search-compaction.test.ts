/**
 * Tools tool_search loaded stay declared after a compaction summarizes its result
 * away: in the same process and after the session is resumed. Through the built
 * binary in RPC mode, with the repo's MCP test server (deferred exposure) and the
 * fake model.
 */
import { afterAll, beforeEach, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { startRpc } from "../support/rpc-harness.ts";
import { offeredTools, stdioServer, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
afterAll(() => fixture.cleanup());
beforeEach(() => server.clearScript());

const LOADED_NOTICE = "now declared";

test("a compaction that summarizes the tool_search result away keeps the loaded tool declared, also after a resume", async () => {
  const cwd = join(home.home, "compacted");
  mkdirSync(cwd, { recursive: true });
  const file = join(cwd, "mcp.json");
  const { exposure: _direct, ...entry } = stdioServer(join(home.home, "compacted.log"));
  writeMcpJson(file, { t: { ...entry, exposure: "deferred" } });
  const args = ["--model", "fake/m", "--no-mcp", "--mcp-config", file];
  const rpc = startRpc({ env: home.env, cwd, args });
  const prompt = async (message: string) => {
    const from = rpc.mark();
    await rpc.request({ type: "prompt", message });
    await rpc.waitForEvent("agent_end", undefined, 20_000, from);
  };

  server.enqueue(
    { content: [{ type: "toolCall", id: "s1", name: "tool_search", arguments: { query: "echo the text back", limit: 1 } }] },
    { content: [{ type: "text", text: "found it" }] },
  );
  await prompt("find the echo tool");
  expect(offeredTools(server.requests.at(-1)!)).toContain("mcp__t__echo");
  server.enqueue({ content: [{ type: "text", text: "more words ".repeat(400) }] });
  await prompt("tell me a long story");

  server.enqueue({ content: [{ type: "text", text: "## Goal\nA summary of the story." }] });
  const compacted = await rpc.request({ type: "compact", keepRecentTokens: 100 }, 20_000);
  expect(compacted.success).toBe(true);

  server.enqueue({ content: [{ type: "text", text: "still here" }] });
  await prompt("use the echo tool");
  const after = server.requests.at(-1)!;
  // The result that loaded it is gone from the context, yet the tool is declared.
  expect(JSON.stringify(after.body.messages)).not.toContain(LOADED_NOTICE);
  expect(JSON.stringify(after.body.messages)).toContain("A summary of the story.");
  expect(offeredTools(after)).toContain("mcp__t__echo");
  expect(await rpc.close()).toBe(0);

  // A resumed session reads it from the branch, compacted entries included.
  server.enqueue({ content: [{ type: "text", text: "resumed" }] });
  const resumed = await runXcsh(["-p", ...args, "--continue", "again"], { env: home.env, cwd, timeoutMs: 25_000 });
  expect(resumed.exitCode).toBe(0);
  const request = server.requests.at(-1)!;
  expect(JSON.stringify(request.body.messages)).not.toContain(LOADED_NOTICE);
  expect(offeredTools(request)).toContain("mcp__t__echo");
}, 60_000);
