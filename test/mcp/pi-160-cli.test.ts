/**
 * pi 1.6.0's `mcp` shell commands through the built binary: `xcsh mcp list` connects to
 * each server a run would start and exits 1 when one is down (`--json` for scripts,
 * `--no-connect` to only list), and `xcsh mcp add` takes pi's options (`--url`,
 * `--header K=V`, `--bearer-token-env-var`, `--oauth-…`, `--exposure`, `--description`)
 * and replaces an entry of the same name, as pi does.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeTestHome, runXcsh } from "../support/cli.ts";
import { readEvents, stdioServer, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const home = makeTestHome();
afterAll(() => home.cleanup());
const userFile = join(home.agentDir, "mcp.json");
let count = 0;
function freshProject(): string {
  const cwd = join(home.home, `p${++count}`);
  mkdirSync(cwd, { recursive: true });
  return cwd;
}
const mcp = (args: string[], cwd: string) => runXcsh(["mcp", ...args], { env: home.env, cwd, timeoutMs: 30_000 });

describe("xcsh mcp list", () => {
  test("connects to each server: tools of the one that runs, the error of the one that does not, exit 1", async () => {
    const cwd = freshProject();
    const events = join(cwd, "good.log");
    writeMcpJson(userFile, { good: stdioServer(events), down: { command: join(cwd, "no-such-program") }, off: { command: "x", enabled: false } });
    const listed = await mcp(["list"], cwd);
    expect(listed.exitCode).toBe(1);
    expect(listed.stdout).toMatch(/good: .*\[user\]/);
    expect(listed.stdout).toMatch(/connected: \d+ tools \(echo, picture/);
    expect(listed.stdout).toMatch(/down: .*\n  failed: /);
    expect(listed.stdout).toMatch(/off: x  \[user, disabled\]/);
    // The server was started for the check, and stopped again.
    expect(readEvents(events).some((line) => line.startsWith("start "))).toBe(true);

    const json = await mcp(["list", "--json"], cwd);
    expect(json.exitCode).toBe(1);
    const parsed = JSON.parse(json.stdout);
    const byName = Object.fromEntries(parsed.servers.map((server: any) => [server.name, server]));
    expect(byName.good).toMatchObject({ scope: "global", enabled: true, state: "connected" });
    expect(byName.good.tools).toContain("echo");
    expect(byName.down.state).toBe("failed");
    expect(typeof byName.down.error).toBe("string");
    expect(byName.off).toMatchObject({ enabled: false, state: "disabled", tools: [] });
  }, 60_000);

  test("all servers up: exit 0; --no-connect only lists and starts nothing", async () => {
    const cwd = freshProject();
    const events = join(cwd, "e.log");
    writeMcpJson(userFile, { good: stdioServer(events) });
    expect((await mcp(["list"], cwd)).exitCode).toBe(0);
    const before = readEvents(events).length;
    const offline = await mcp(["list", "--no-connect"], cwd);
    expect(offline.exitCode).toBe(0);
    expect(offline.stdout).not.toContain("connected:");
    expect(readEvents(events).length).toBe(before);
  }, 60_000);

  test("an untrusted project's server is not started by the check", async () => {
    const cwd = freshProject();
    const events = join(cwd, "proj.log");
    writeMcpJson(userFile, {});
    writeMcpJson(join(cwd, ".mcp.json"), { proj: stdioServer(events) });
    const listed = await mcp(["list"], cwd);
    expect(listed.stdout).toContain("not started: the project is not trusted");
    expect(readEvents(events)).toEqual([]);
  }, 30_000);
});

describe("xcsh mcp add", () => {
  test("pi 1.6.0's options write the entry pi writes", async () => {
    writeMcpJson(userFile, {});
    const cwd = freshProject();
    const added = await mcp(
      ["add", "docs", "--url", "https://mcp.example.com/mcp", "--header", "X-Team=core", "--bearer-token-env-var", "DOCS_TOKEN", "--oauth-client-id", "cid", "--oauth-callback-port", "8765", "--exposure", "direct", "--description", "The docs"],
      cwd,
    );
    expect(added.exitCode).toBe(0);
    expect(JSON.parse(readFileSync(userFile, "utf8")).mcpServers.docs).toEqual({
      type: "http",
      url: "https://mcp.example.com/mcp",
      headers: { "X-Team": "core", Authorization: "Bearer ${DOCS_TOKEN}" },
      oauth: { clientId: "cid", callbackPort: 8765 },
      exposure: "direct",
      description: "The docs",
    });
  });

  test("adding a name again replaces the entry and says what it was", async () => {
    writeMcpJson(userFile, {});
    const cwd = freshProject();
    expect((await mcp(["add", "a", "--", "echo", "hi"], cwd)).exitCode).toBe(0);
    const again = await mcp(["add", "a", "--", "echo", "bye"], cwd);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('Replaced MCP server "a"');
    expect(again.stdout).toContain("it was: echo hi");
    expect(JSON.parse(readFileSync(userFile, "utf8")).mcpServers.a).toEqual({ command: "echo", args: ["bye"] });
  });

  test("--help says what --exposure, --description and the OAuth client options do", async () => {
    const help = await mcp(["--help"], freshProject());
    const text = help.stdout + help.stderr;
    expect(text).toMatch(/--exposure <mode> +How its tools reach the model: codemode \(default\), deferred, direct, hidden/);
    expect(text).toMatch(/--description <text> +What the server offers/);
    expect(text).toContain("A client registered by hand at the server's authorization server");
    expect(text).not.toContain("not applied by xcsh yet");
  });

  test("a bad --exposure, or --oauth-… on a local server, is a usage error", async () => {
    const cwd = freshProject();
    const exposure = await mcp(["add", "x", "--exposure", "everywhere", "--", "echo"], cwd);
    expect(exposure.exitCode).toBe(2);
    expect(exposure.stderr).toContain("--exposure is one of");
    expect((await mcp(["add", "x", "--oauth-client-id", "c", "--", "echo"], cwd)).exitCode).toBe(2);
  });
});
