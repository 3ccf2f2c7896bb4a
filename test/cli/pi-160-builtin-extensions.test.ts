/**
 * pi 1.6.0's built-in extensions by name through the built binary: `-e builtin:mcp`
 * (on even with --no-extensions), settings' `extensions` entries `-builtin:mcp` /
 * `+builtin:mcp` (project over user), and the built-ins xcsh does not have
 * (`builtin:codemode`, a tool in xcsh): a warning, not a failure. An unknown name is a usage error.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { offeredTools, readEvents, stdioServer, writeMcpJson } from "../mcp/support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
afterAll(() => fixture.cleanup());

let count = 0;
let events = "";
let cwd = "";
beforeEach(() => {
  server.clearScript();
  home.writeSettings({});
  cwd = join(home.home, `p${++count}`);
  mkdirSync(cwd, { recursive: true });
  events = join(cwd, "events.log");
  writeMcpJson(join(home.agentDir, "mcp.json"), { t: stdioServer(events) });
});

/** One -p run; whether the MCP server's tools reached the model. */
async function mcpRan(args: string[]): Promise<{ ran: boolean; stderr: string }> {
  rmSync(events, { force: true });
  server.enqueue({ content: [{ type: "text", text: "ok" }] });
  const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", ...args, "hi"], { env: home.env, cwd, timeoutMs: 20_000 });
  expect(result.exitCode).toBe(0);
  const ran = offeredTools(server.requests.at(-1)!).includes("mcp__t__echo");
  expect(readEvents(events).length > 0).toBe(ran);
  return { ran, stderr: result.stderr };
}

describe("builtin:mcp", () => {
  test("--no-extensions turns the built-in MCP support off; -e builtin:mcp keeps it", async () => {
    expect((await mcpRan([])).ran).toBe(true);
    expect((await mcpRan(["-ne"])).ran).toBe(false);
    expect((await mcpRan(["-ne", "-e", "builtin:mcp"])).ran).toBe(true);
  }, 60_000);

  test('settings "-builtin:mcp" turns it off (no discovery error); a trusted project\'s "+builtin:mcp" back on', async () => {
    home.writeSettings({ extensions: ["-builtin:mcp", "-builtin:codemode"] });
    const off = await mcpRan([]);
    expect(off.ran).toBe(false);
    expect(off.stderr).toBe("");
    expect((await mcpRan(["--extension", "builtin:mcp"])).ran).toBe(true);
    mkdirSync(join(cwd, ".xcsh"));
    writeFileSync(join(cwd, ".xcsh", "settings.json"), JSON.stringify({ extensions: ["+builtin:mcp"] }));
    expect((await mcpRan(["--trust-project"])).ran).toBe(true);
  }, 60_000);
});

describe("other built-ins", () => {
  test("-e builtin:codemode is a warning that says how to add the codemode tool; an unknown name is a usage error", async () => {
    const lacking = await mcpRan(["-e", "builtin:codemode"]);
    expect(lacking.stderr).toContain("-e builtin:codemode: in xcsh codemode is a tool, not an extension: add it with --tools +codemode");
    const unknown = await runXcsh(["-p", "--model", "fake/m", "-e", "builtin:teleport", "hi"], { env: home.env, cwd });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('no built-in extension is named "teleport"');
    expect(unknown.stderr).toContain("builtin:mcp");
  }, 30_000);
});
