/**
 * pi 1.6.0's tool selection through the built binary: `--tools +name,-name` changes the
 * default selection, `*` patterns in --tools and --exclude-tools, MCP tools kept by an
 * allowlist unless an entry starts with `mcp__`, and settings' defaultTools with
 * `+`/`-` entries (user's, then a project's on top).
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { stdioServer, writeMcpJson } from "../mcp/support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
afterAll(() => fixture.cleanup());
beforeEach(() => {
  server.clearScript();
  home.writeSettings({});
  writeMcpJson(join(home.agentDir, "mcp.json"), {});
});

let count = 0;
function freshProject(): string {
  const cwd = join(home.home, `p${++count}`);
  mkdirSync(cwd, { recursive: true });
  return cwd;
}

/** The tool names the model was offered by one -p run (which must succeed without a word on stderr). */
async function offered(args: string[], cwd = freshProject()): Promise<string[]> {
  server.enqueue({ content: [{ type: "text", text: "ok" }] });
  const before = server.requests.length;
  const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", ...args, "hi"], { env: home.env, cwd, timeoutMs: 20_000 });
  expect(result.stderr).toBe("");
  expect(result.exitCode).toBe(0);
  return (server.requests[before]!.body.tools ?? []).map((tool: any) => tool.function.name).sort();
}

describe("--tools +name,-name", () => {
  test("adds to and removes from the default tools", async () => {
    expect(await offered(["--tools", "+grep,-write"])).toEqual(["bash", "edit", "grep", "read"]);
    expect(await offered(["-t", "-bash"])).toEqual(["edit", "read", "write"]);
  });

  test("changes settings' defaultTools rather than the built-in defaults", async () => {
    home.writeSettings({ defaultTools: ["read", "ls"] });
    expect(await offered(["--tools", "+find,-ls"])).toEqual(["find", "read"]);
  });

  test("mixing plain names with +/- entries, or a pattern in a +/- entry, is a usage error", async () => {
    const mixed = await runXcsh(["-p", "--model", "fake/m", "--tools", "read,+grep", "hi"], { env: home.env, cwd: freshProject() });
    expect(mixed.exitCode).toBe(2);
    expect(mixed.stderr).toContain("plain names and +name/-name entries cannot be mixed");
    const pattern = await runXcsh(["-p", "--model", "fake/m", "--tools", "+gr*", "hi"], { env: home.env, cwd: freshProject() });
    expect(pattern.exitCode).toBe(2);
    expect(pattern.stderr).toContain("+name/-name entries take exact names");
  });
});

describe("--tools +name of a tool xcsh lacks", () => {
  test("+powershell (pi 1.6.0's, not xcsh's) is a warning; the other changes apply", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "--tools", "+powershell,+grep", "hi"], { env: home.env, cwd: freshProject() });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('--tools: no tool is named "powershell"');
    expect((server.requests.at(-1)!.body.tools ?? []).map((tool: any) => tool.function.name).sort()).toEqual(["bash", "edit", "grep", "read", "write"]);
  });

  test("+codemode, as pi 1.6.0's docs enable it, adds the codemode tool to the defaults", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "--tools", "+codemode", "hi"], { env: home.env, cwd: freshProject() });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).not.toContain("no tool is named");
    expect((server.requests.at(-1)!.body.tools ?? []).map((tool: any) => tool.function.name).sort()).toEqual(["bash", "codemode", "edit", "read", "write"]);
  });
});

describe("patterns", () => {
  test("* in --tools and --exclude-tools matches any characters", async () => {
    expect(await offered(["--tools", "re*,*it*"])).toEqual(["edit", "read", "write"]);
    expect(await offered(["--exclude-tools", "*e*"])).toEqual(["bash"]);
  });
});

describe("MCP tools and --tools", () => {
  test("an allowlist keeps MCP tools unless an entry starts with mcp__; --exclude-tools takes them off", async () => {
    const events = join(home.home, "mcp-events.log");
    writeMcpJson(join(home.agentDir, "mcp.json"), { t: stdioServer(events) });
    const kept = await offered(["--tools", "read"]);
    expect(kept).toContain("read");
    expect(kept).toContain("mcp__t__echo");
    expect(kept).not.toContain("bash");
    expect(await offered(["--tools", "read,mcp__t__ec*"])).toEqual(["mcp__t__echo", "read"]);
    expect(await offered(["--tools", "read", "--exclude-tools", "mcp__*"])).toEqual(["read"]);
  }, 60_000);
});

describe("settings defaultTools with +/- entries", () => {
  test('["+grep"] keeps the default tools and adds grep (it used to leave the model with none)', async () => {
    home.writeSettings({ defaultTools: ["+grep"] });
    expect(await offered([])).toEqual(["bash", "edit", "grep", "read", "write"]);
  });

  test("plain names form the selection, then +/- apply in order", async () => {
    home.writeSettings({ defaultTools: ["read", "bash", "-bash", "+powershell", "+ls"] });
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "hi"], { env: home.env, cwd: freshProject() });
    // xcsh has no powershell tool: said once, the other entries apply.
    expect(result.stderr).toContain('xcsh has no built-in tool "powershell"');
    expect(result.exitCode).toBe(0);
    expect((server.requests.at(-1)!.body.tools ?? []).map((tool: any) => tool.function.name).sort()).toEqual(["ls", "read"]);
  });

  test("a project list of only +/- entries changes the user's list; a plain name replaces it", async () => {
    home.writeSettings({ defaultTools: ["read", "+grep"] });
    const changing = freshProject();
    mkdirSync(join(changing, ".xcsh"));
    writeFileSync(join(changing, ".xcsh", "settings.json"), JSON.stringify({ defaultTools: ["-read", "+find"] }));
    expect(await offered([], changing)).toEqual(["find", "grep"]);
    const replacing = freshProject();
    mkdirSync(join(replacing, ".xcsh"));
    writeFileSync(join(replacing, ".xcsh", "settings.json"), JSON.stringify({ defaultTools: ["ls"] }));
    expect(await offered([], replacing)).toEqual(["ls"]);
  });
});
