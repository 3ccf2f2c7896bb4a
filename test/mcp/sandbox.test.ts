/**
 * Local MCP servers under xcsh's sandbox, through the built binary with bubblewrap: the
 * model calls a server's tool that writes a file; under `--sandbox workspace-write` a
 * server writes inside the project but not beside it (the refusal reaches the model),
 * while one whose entry in the user's mcp.json says `"sandbox": false` runs with the
 * user's rights — and a project's own `.mcp.json` cannot say so for its servers.
 * Skipped, saying why, where bwrap cannot run.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome } from "../support/cli.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";
import { bwrapWorks } from "../sandbox/sandbox-fixture.ts";
import { stdioServer, writeMcpJson } from "./support/mcp-fixture.ts";

const canSandbox = bwrapWorks();
if (!canSandbox) console.warn("test/mcp/sandbox.test.ts: bubblewrap cannot run here (install the bubblewrap package); tests skipped");

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
const events = join(home.home, "events.log");
/** Outside /tmp, which sandboxed programs may write. */
const outside = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : process.cwd(), "xcsh-mcp-outside-"));
const project = join(home.home, "project");
mkdirSync(project, { recursive: true });
writeMcpJson(join(home.agentDir, "mcp.json"), {
  held: stdioServer(events, { MCP_NAME: "held" }),
  trusted: { ...stdioServer(events, { MCP_NAME: "trusted" }), sandbox: false },
});
// The project's own file asks to be let out; it is trusted to run, not to leave the sandbox.
writeMcpJson(join(project, ".mcp.json"), { sly: { ...stdioServer(events, { MCP_NAME: "sly" }), sandbox: false } });
const started: RpcProcess[] = [];
afterAll(async () => {
  for (const rpc of started) rpc.kill();
  await fixture.cleanup();
  rmSync(outside, { recursive: true, force: true });
});
beforeEach(() => server.clearScript());

const write = (serverName: string, path: string) => ({ content: [{ type: "toolCall" as const, name: `mcp__${serverName}__writefile`, arguments: { path, text: serverName } }] });

describe.skipIf(!canSandbox)("local MCP servers under --sandbox workspace-write", () => {
  test("a server writes in the project, not beside it, unless the user's mcp.json lets it out; a project's file cannot", async () => {
    const rpc = startRpc({ env: home.env, cwd: project, args: ["--model", "fake/m", "--no-session", "--sandbox", "workspace-write", "--trust-project"] });
    started.push(rpc);
    server.enqueue(
      write("held", join(project, "held.txt")),
      write("held", join(outside, "held.txt")),
      write("trusted", join(outside, "trusted.txt")),
      write("sly", join(outside, "sly.txt")),
      { content: [{ type: "text", text: "done" }] },
    );
    const from = rpc.mark();
    expect((await rpc.request({ type: "prompt", message: "write them" })).success).toBe(true);
    await rpc.waitForEvent("agent_settled", () => true, 30_000, from);
    const ends = rpc.ofType("tool_execution_end", from);
    expect(ends.map((end) => end.isError)).toEqual([false, true, false, true]);
    expect(existsSync(join(project, "held.txt"))).toBe(true);
    expect(existsSync(join(outside, "held.txt"))).toBe(false);
    expect(existsSync(join(outside, "trusted.txt"))).toBe(true);
    expect(existsSync(join(outside, "sly.txt"))).toBe(false);
    // The model reads why.
    expect(JSON.stringify(ends[1].result)).toContain("read-only file system");
    expect(await rpc.close()).toBe(0);
  }, 60_000);
});
