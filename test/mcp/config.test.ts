/**
 * MCP configuration as a user meets it: `xcsh mcp list|get|add|remove` edit and show
 * the files; `--mcp-config` adds a file for one run and `--no-mcp` leaves the usual
 * files out; `${VAR:-default}` is expanded; `"disabled": true` hides a server; a broken
 * file or entry is reported by name while the other servers still start.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { bodyText, offeredTools, stdioServer, TEST_SERVER, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
const userFile = join(home.agentDir, "mcp.json");
afterAll(() => fixture.cleanup());
beforeEach(() => server.clearScript());

let count = 0;
function freshProject(): string {
  const cwd = join(home.home, `p${++count}`);
  mkdirSync(cwd, { recursive: true });
  return cwd;
}

const mcp = (args: string[], cwd: string) => runXcsh(["mcp", ...args], { env: home.env, cwd });
const run = (args: string[], cwd: string) => runXcsh(["-p", "--model", "fake/m", "--no-session", ...args], { env: home.env, cwd, timeoutMs: 20_000 });

describe("xcsh mcp", () => {
  test("add, list, get and remove edit the user's and (with -l) the project's file", async () => {
    writeMcpJson(userFile, {});
    const cwd = freshProject();
    const added = await mcp(["add", "-e", "TOKEN=${MY_TOKEN:-none}", "files", process.execPath, TEST_SERVER, "--flag-for-the-server"], cwd);
    expect(added.exitCode).toBe(0);
    expect(added.stdout).toContain(`Added MCP server "files" to ${userFile}`);
    expect(JSON.parse(readFileSync(userFile, "utf8")).mcpServers.files).toEqual({
      command: process.execPath,
      args: [TEST_SERVER, "--flag-for-the-server"],
      env: { TOKEN: "${MY_TOKEN:-none}" },
    });
    const remote = await mcp(["add", "-l", "-H", "Authorization: Bearer ${API_TOKEN}", "docs", "https://mcp.example.com/mcp"], cwd);
    expect(remote.exitCode).toBe(0);
    const projectFile = join(cwd, ".xcsh", "mcp.json");
    expect(JSON.parse(readFileSync(projectFile, "utf8")).mcpServers.docs).toEqual({ type: "http", url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${API_TOKEN}" } });

    const listed = await mcp(["list"], cwd);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toContain(`files: ${process.execPath} ${TEST_SERVER} --flag-for-the-server  [user] ${userFile}`);
    expect(listed.stdout).toContain(`docs: https://mcp.example.com/mcp (http)  [project] ${projectFile}`);
    const local = await mcp(["list", "-l"], cwd);
    expect(local.stdout).not.toContain("files:");

    const got = await mcp(["get", "docs"], cwd);
    expect(got.stdout).toContain(`docs (project, ${projectFile})`);
    expect(got.stdout).toContain('"url": "https://mcp.example.com/mcp"');


    const wrongScope = await mcp(["remove", "docs"], cwd);
    expect(wrongScope.exitCode).toBe(1);
    expect(wrongScope.stderr).toContain(`It is declared in ${projectFile}`);
    expect((await mcp(["remove", "-l", "docs"], cwd)).exitCode).toBe(0);
    expect((await mcp(["remove", "files"], cwd)).stdout).toContain('Removed MCP server "files"');
    expect(JSON.parse(readFileSync(userFile, "utf8")).mcpServers).toEqual({});
    expect((await mcp(["list"], cwd)).stdout).toContain("No MCP servers configured");
  }, 30_000);

  test("usage mistakes exit 2 with the usage; a broken file is never overwritten", async () => {
    const cwd = freshProject();
    const unknown = await mcp(["frobnicate"], cwd);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('Unknown mcp command "frobnicate"');
    expect(unknown.stderr).toContain("xcsh mcp add");
    expect((await mcp(["add", "lonely"], cwd)).exitCode).toBe(2);
    expect((await mcp(["add", "-e", "NOEQUALS", "x", "cmd"], cwd)).stderr).toContain("--env takes KEY=VALUE");
    writeFileSync(userFile, '{"mcpServers": {');
    const broken = await mcp(["add", "x", "cmd"], cwd);
    expect(broken.exitCode).toBe(1);
    expect(broken.stderr).toContain("invalid JSON");
    expect(readFileSync(userFile, "utf8")).toBe('{"mcpServers": {');
  }, 30_000);
});

describe("configuration at run time", () => {
  test("${VAR:-default} is expanded from the environment, and an entry's bad field is reported by name", async () => {
    const cwd = freshProject();
    writeMcpJson(userFile, {
      t: { ...stdioServer(join(cwd, "events.log")), env: { MCP_NAME: "${XCSH_TEST_SERVER_NAME:-fallback}" } },
      wrong: { command: "x", args: "not-a-list" },
    });
    server.enqueue({ content: [{ type: "toolCall", id: "c1", name: "mcp__t__echo", arguments: { text: "x" } }] }, { content: [{ type: "text", text: "ok" }] });
    const result = await run(["hi"], cwd);
    expect(result.exitCode).toBe(0);
    expect(bodyText(server.requests.at(-1)!)).toContain("fallback echo: x");
    expect(result.stderr).toContain(`MCP server "wrong" (${userFile}): args: expected an array`);
  }, 30_000);

  test("a local server gets no provider credential from xcsh's environment, unless its env passes one", async () => {
    const cwd = freshProject();
    writeMcpJson(userFile, { t: { ...stdioServer(join(cwd, "events.log")), env: { PASSED: "${ANTHROPIC_API_KEY}" } } });
    server.enqueue(
      {
        content: [
          { type: "toolCall", id: "a", name: "mcp__t__getenv", arguments: { name: "ANTHROPIC_API_KEY" } },
          { type: "toolCall", id: "b", name: "mcp__t__getenv", arguments: { name: "PASSED" } },
        ],
      },
      { content: [{ type: "text", text: "ok" }] },
    );
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "hi"], { env: { ...home.env, ANTHROPIC_API_KEY: "sk-test-secret" }, cwd, timeoutMs: 20_000 });
    expect(result.exitCode).toBe(0);
    const sent = bodyText(server.requests.at(-1)!);
    expect(sent).toContain("ANTHROPIC_API_KEY=(unset)");
    expect(sent).toContain("PASSED=sk-test-secret");
  }, 30_000);

  test("--mcp-config adds a file for the run, --no-mcp leaves the user's out, and disabled hides a server", async () => {
    const cwd = freshProject();
    writeMcpJson(userFile, { user: stdioServer(join(cwd, "u.log")), gone: stdioServer(join(cwd, "g.log")) });
    const extra = join(cwd, "extra.json");
    writeMcpJson(extra, { extra: stdioServer(join(cwd, "e.log")), gone: { disabled: true } });
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
    expect((await run(["--mcp-config", "extra.json", "hi"], cwd)).exitCode).toBe(0);
    const both = offeredTools(server.requests.at(-1)!);
    expect(both).toContain("mcp__user__echo");
    expect(both).toContain("mcp__extra__echo");
    expect(both.some((name) => name.startsWith("mcp__gone__"))).toBe(false);
    expect((await run(["--no-mcp", "--mcp-config", extra, "hi"], cwd)).exitCode).toBe(0);
    const only = offeredTools(server.requests.at(-1)!).filter((name) => name.startsWith("mcp__"));
    expect(only.every((name) => name.startsWith("mcp__extra__"))).toBe(true);
    expect(only.length).toBeGreaterThan(0);
  }, 30_000);

  test("a broken file is reported with where it breaks, and the servers of other files still start", async () => {
    const cwd = freshProject();
    writeFileSync(userFile, '{\n  "mcpServers": {\n    "a": { "command": }\n  }\n}\n');
    const extra = join(cwd, "extra.json");
    writeMcpJson(extra, { fine: stdioServer(join(cwd, "f.log")) });
    server.enqueue({ content: [{ type: "text", text: "a" }] });
    const result = await run(["--mcp-config", extra, "--mcp-config", "missing.json", "hi"], cwd);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(`${userFile}: invalid JSON at line 3`);
    expect(result.stderr).toContain("--mcp-config missing.json: no such file");
    expect(offeredTools(server.requests.at(-1)!)).toContain("mcp__fine__echo");
  }, 30_000);

  test("--mcp-config needs a path", async () => {
    const result = await runXcsh(["--mcp-config"], { env: home.env, cwd: freshProject() });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("Option --mcp-config needs a path");
  });
});
