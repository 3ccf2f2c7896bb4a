/**
 * pi 1.6.0's mcp.json switches through the built binary: `"enabled": false` keeps an
 * entry without starting its server, and a project entry without command/url/type
 * changes only enabled/exposure/toolExposure of the user's entry of that name (its
 * env stays); the override's exposure applies.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { bodyText, offeredTools, readEvents, stdioServer, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
const userFile = join(home.agentDir, "mcp.json");
afterAll(() => fixture.cleanup());
beforeEach(() => server.clearScript());

let count = 0;
function freshProject(projectServers?: Record<string, unknown>): string {
  const cwd = join(home.home, `p${++count}`);
  mkdirSync(cwd, { recursive: true });
  if (projectServers) writeMcpJson(join(cwd, ".xcsh", "mcp.json"), projectServers);
  return cwd;
}

const run = (args: string[], cwd: string) =>
  runXcsh(["-p", "--model", "fake/m", "--no-session", "--trust-project", ...args], { env: home.env, cwd, timeoutMs: 20_000 });

describe('"enabled": false', () => {
  test("keeps the entry but never starts the server; mcp list shows it disabled", async () => {
    const cwd = freshProject();
    const events = join(cwd, "off.log");
    writeMcpJson(userFile, { off: { ...stdioServer(events), enabled: false }, on: stdioServer(join(cwd, "on.log")) });
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const result = await run(["hi"], cwd);
    expect(result.exitCode).toBe(0);
    const tools = offeredTools(server.requests.at(-1)!);
    expect(tools).toContain("mcp__on__echo");
    expect(tools.some((name) => name.startsWith("mcp__off__"))).toBe(false);
    expect(readEvents(events)).toEqual([]);
    const listed = await runXcsh(["mcp", "list"], { env: home.env, cwd });
    expect(listed.stdout).toMatch(/off: .*\[user, disabled\]/);
  }, 30_000);
});

describe("a project entry without command or url", () => {
  test('{"enabled": false} turns off the user\'s server of that name in that project only', async () => {
    const events = join(home.home, "shared.log");
    writeMcpJson(userFile, { shared: stdioServer(events) });
    const off = freshProject({ shared: { enabled: false } });
    server.enqueue({ content: [{ type: "text", text: "a" }] });
    const result = await run(["hi"], off);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).not.toContain("needs");
    expect(offeredTools(server.requests.at(-1)!).some((name) => name.startsWith("mcp__shared__"))).toBe(false);
    expect(readEvents(events)).toEqual([]);
    // Elsewhere the user's server still runs.
    server.enqueue({ content: [{ type: "text", text: "b" }] });
    expect((await run(["hi"], freshProject())).exitCode).toBe(0);
    expect(offeredTools(server.requests.at(-1)!)).toContain("mcp__shared__echo");
  }, 30_000);

  test("switching on and setting exposure keeps the user's env; the override's exposure applies", async () => {
    writeMcpJson(userFile, { keep: { ...stdioServer(join(home.home, "keep.log"), { SECRET_WORD: "from-the-user-file" }), disabled: true, exposure: "hidden" } });
    const cwd = freshProject({ keep: { enabled: true, exposure: "deferred", toolExposure: { "get*": "direct" } } });
    server.enqueue(
      { content: [{ type: "toolCall", id: "c1", name: "mcp__keep__getenv", arguments: { name: "SECRET_WORD" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const result = await run(["what is the word"], cwd);
    expect(result.exitCode).toBe(0);
    expect(bodyText(server.requests.at(-1)!)).toContain("SECRET_WORD=from-the-user-file");
    // getenv is direct by the override's pattern; the rest are deferred, not declared.
    expect(offeredTools(server.requests.at(-1)!).filter((name) => name.startsWith("mcp__keep__"))).toEqual(["mcp__keep__getenv"]);
    expect(result.stderr).not.toContain("accepts but does not apply");
  }, 30_000);

  test("a bad exposure value is an error naming the field; the other servers still start", async () => {
    const cwd = freshProject();
    writeMcpJson(userFile, { bad: { ...stdioServer(join(cwd, "bad.log")), exposure: "everywhere" }, good: stdioServer(join(cwd, "good.log")) });
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const result = await run(["hi"], cwd);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('MCP server "bad"');
    expect(result.stderr).toContain("exposure");
    expect(offeredTools(server.requests.at(-1)!)).toContain("mcp__good__echo");
    expect(readEvents(join(cwd, "bad.log"))).toEqual([]);
  }, 30_000);
});
