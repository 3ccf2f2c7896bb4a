/**
 * OAuth for a remote MCP server, through the binary: before signing in, the server is
 * reported once with the command to run while the model still answers; `xcsh mcp login`
 * registers a client, prints the authorization address (the test plays the browser and
 * follows it back to xcsh's callback) and keeps the tokens in auth.json, 0600; a model
 * run then calls the server's tool with the stored token; once the access token has
 * expired, the stored refresh token gets a new one without a new sign-in (also when two
 * runs refresh at once); a refused refresh token means a new sign-in is needed.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { startRpc } from "../support/rpc-harness.ts";
import { bodyText, writeMcpJson } from "./support/mcp-fixture.ts";
import { startOAuthServers } from "./support/oauth-servers.ts";

ensureBinary();
const fixture = await makeFakeModelHome([{ id: "m" }]);
const { home, server } = fixture;
const oauth = await startOAuthServers();
afterAll(async () => {
  await oauth.close();
  await fixture.cleanup();
});
beforeEach(() => server.clearScript());

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

const callbackPort = freePort();
const env = { ...home.env, XCSH_TEST_OAUTH_CALLBACK_PORT: String(callbackPort) };
const run = (args: string[]) => runXcsh(["-p", "--model", "fake/m", "--no-session", ...args], { env, cwd: home.home, timeoutMs: 20_000 });
const authFile = join(home.agentDir, "auth.json");
const storedSignIn = () => JSON.parse(readFileSync(authFile, "utf8"))[`mcp:${oauth.mcpUrl}`];

/** `xcsh mcp login <name>`, with the test following the printed address as a browser would. */
async function login(name: string): Promise<{ exitCode: number; stdout: string; stderr: string; browser: string }> {
  const proc = Bun.spawn([ensureBinary(), "mcp", "login", name], { env, cwd: home.home, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  const stderr = new Response(proc.stderr).text();
  let stdout = "";
  let browser = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout) {
    stdout += decoder.decode(chunk);
    const address = /^\s+(http\S+\/authorize\?\S+)$/m.exec(stdout)?.[1];
    if (address && !browser) browser = await (await fetch(address)).text();
  }
  const exitCode = await proc.exited;
  clearTimeout(timer);
  return { exitCode, stdout, stderr: await stderr, browser };
}

describe("OAuth for remote MCP servers", () => {
  test("a server that wants a sign-in is reported once with `xcsh mcp login`, and the model still answers", async () => {
    writeMcpJson(join(home.agentDir, "mcp.json"), { srv: { url: oauth.mcpUrl, exposure: "direct" }, old: { type: "sse", url: `${oauth.mcp.url}/sse`, exposure: "direct" } });
    server.enqueue({ content: [{ type: "text", text: "fine without it" }] });
    const result = await run(["hi"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("fine without it\n");
    const reports = result.stderr.split("\n").filter((line) => line.includes('MCP server "srv"'));
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain("xcsh mcp login srv");
    // Over SSE too.
    expect(result.stderr.split("\n").filter((line) => line.includes('MCP server "old"') && line.includes("xcsh mcp login old"))).toHaveLength(1);
    // Without a person to sign in, nothing is registered at the authorization server.
    expect(oauth.registrations).toBe(0);
  }, 30_000);

  test("in RPC mode the server wanting a sign-in is one notice frame, and the prompt still runs", async () => {
    server.enqueue({ content: [{ type: "text", text: "rpc fine" }] });
    const rpc = startRpc({ env, cwd: home.home, args: ["--model", "fake/m", "--no-session"] });
    try {
      const from = rpc.mark();
      expect((await rpc.request({ type: "prompt", message: "hi" })).success).toBe(true);
      await rpc.waitForEvent("agent_end", () => true, 20_000, from);
      const notices = rpc.ofType("notice").filter((frame) => String(frame.message).includes('MCP server "srv"'));
      expect(notices).toHaveLength(1);
      expect(notices[0]!.message).toContain("xcsh mcp login srv");
      expect(oauth.registrations).toBe(0);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.kill();
    }
  }, 30_000);

  test("`xcsh mcp login` completes the flow and keeps the tokens in auth.json (0600)", async () => {
    const result = await login("srv");
    expect(result.stderr).not.toContain("xcsh mcp:");
    expect(result.exitCode).toBe(0);
    expect(result.browser).toContain("You can close this tab");
    expect(result.stdout).toContain('Signed in to MCP server "srv"');
    expect(oauth.registrations).toBe(1);
    expect(oauth.codeGrants).toBe(1);
    expect(statSync(authFile).mode & 0o777).toBe(0o600);
    const stored = storedSignIn();
    expect(stored.type).toBe("oauth");
    expect(stored.access).toStartWith("at-");
    expect(stored.refresh).toStartWith("rt-");
    const list = await runXcsh(["mcp", "list"], { env, cwd: home.home });
    expect(list.stdout).toMatch(/^srv: .*\[user, signed in\]/m);
    // A server's sign-in is not a provider's credential.
    const status = await runXcsh(["auth", "status"], { env, cwd: home.home });
    expect(status.stdout).not.toContain("mcp:");
  }, 30_000);

  test("a model run then calls the server's tool with the stored token", async () => {
    server.enqueue({ content: [{ type: "toolCall", id: "c1", name: "mcp__srv__echo", arguments: { text: "signed in" } }] }, { content: [{ type: "text", text: "done" }] });
    const result = await run(["hi"]);
    expect(result.stderr).not.toContain('MCP server "srv"');
    expect(result.exitCode).toBe(0);
    expect(bodyText(server.requests.at(-1)!)).toContain("locked echo: signed in");
    expect(oauth.acceptedTokens).toContain(storedSignIn().access);
  }, 30_000);

  test("over SSE as well: a sign-in of its own (its own URL), then its tool works", async () => {
    const result = await login("old");
    expect(result.exitCode).toBe(0);
    server.enqueue({ content: [{ type: "toolCall", id: "c1", name: "mcp__old__echo", arguments: { text: "over sse" } }] }, { content: [{ type: "text", text: "done" }] });
    const from = server.requests.length;
    const ran = await run(["hi"]);
    expect(ran.stderr).not.toContain('MCP server "old"');
    expect(server.requests.slice(from).map(bodyText).join("\n")).toContain("locked echo: over sse");
  }, 30_000);

  test("an expired access token is refreshed with the stored refresh token, no new sign-in", async () => {
    const before = storedSignIn();
    const counts = { refreshes: oauth.refreshes, codeGrants: oauth.codeGrants };
    oauth.expireAccessTokens();
    server.enqueue({ content: [{ type: "toolCall", id: "c1", name: "mcp__srv__echo", arguments: { text: "refreshed" } }] }, { content: [{ type: "text", text: "done" }] });
    const result = await run(["hi"]);
    expect(result.stderr).not.toContain('MCP server "srv"');
    expect(bodyText(server.requests.at(-1)!)).toContain("locked echo: refreshed");
    // Each signed-in server (srv, and old over SSE) refreshed once; nobody signed in again.
    expect(oauth.refreshes - counts.refreshes).toBe(2);
    expect(oauth.codeGrants).toBe(counts.codeGrants);
    const after = storedSignIn();
    expect(after.access).not.toBe(before.access);
    expect(after.refresh).not.toBe(before.refresh);
    expect(oauth.acceptedTokens.at(-1)).toBe(after.access);
  }, 30_000);

  test("two runs refreshing the same expired token at once both work, and the sign-in stays", async () => {
    oauth.expireAccessTokens();
    const script = (text: string) => [
      { content: [{ type: "toolCall" as const, id: "c1", name: "mcp__srv__echo", arguments: { text } }] },
      { content: [{ type: "text" as const, text: "done" }] },
    ];
    server.enqueue(...script("one"), ...script("two"));
    const from = server.requests.length;
    // Slow refreshes, so that both runs refresh the same token: the second one's is refused (rotated).
    oauth.refreshDelayMs = 1500;
    const results = await Promise.all([run(["first"]), run(["second"])]);
    oauth.refreshDelayMs = 0;
    for (const result of results) expect(result.stderr).not.toContain('MCP server "srv"');
    const toolResults = server.requests.slice(from).flatMap((request: any) => request.body.messages.filter((message: any) => message.role === "tool").map((message: any) => JSON.stringify(message.content)));
    // Which run got which scripted reply depends on timing; both calls went through a connected srv.
    expect(new Set(toolResults.filter((text) => text.includes("locked echo:")))).toEqual(new Set(['"locked echo: one"', '"locked echo: two"']));
    expect(storedSignIn().access).toStartWith("at-");
  }, 30_000);

  test("a sign-in that runs out mid-session: the call is an error saying how to sign in again, reported once", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "c1", name: "mcp__srv__echo", arguments: { text: "first" } }] },
      { content: [{ type: "text", text: "one" }] },
      { content: [{ type: "toolCall", id: "c2", name: "mcp__srv__echo", arguments: { text: "second" } }] },
      { content: [{ type: "text", text: "two" }] },
    );
    const rpc = startRpc({ env, cwd: home.home, args: ["--model", "fake/m", "--no-session"] });
    try {
      let from = rpc.mark();
      expect((await rpc.request({ type: "prompt", message: "first" })).success).toBe(true);
      await rpc.waitForEvent("agent_end", () => true, 20_000, from);
      expect(rpc.ofType("tool_execution_end").at(-1)!.isError).toBe(false);
      oauth.expireAccessTokens();
      oauth.revokeRefreshTokens();
      from = rpc.mark();
      expect((await rpc.request({ type: "prompt", message: "second" })).success).toBe(true);
      await rpc.waitForEvent("agent_end", () => true, 20_000, from);
      const end = rpc.ofType("tool_execution_end").at(-1)!;
      expect(end.isError).toBe(true);
      expect(JSON.stringify(end.result)).toContain("xcsh mcp login srv");
      const notices = rpc.ofType("notice").filter((frame) => String(frame.message).includes('MCP server "srv"'));
      expect(notices).toHaveLength(1);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.kill();
    }
  }, 40_000);

  test("a refresh token the server refuses: the server is reported as needing a sign-in, the others go on", async () => {
    oauth.expireAccessTokens();
    oauth.revokeRefreshTokens();
    server.enqueue({ content: [{ type: "text", text: "without srv" }] });
    const result = await run(["hi"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("without srv\n");
    const reports = result.stderr.split("\n").filter((line) => line.includes('MCP server "srv"'));
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain("xcsh mcp login srv");
  }, 30_000);

  test("login names what is wrong: an unknown server, a local one", async () => {
    writeMcpJson(join(home.agentDir, "mcp.json"), { srv: { url: oauth.mcpUrl, exposure: "direct" }, local: { command: "true", exposure: "direct" } });
    const unknown = await runXcsh(["mcp", "login", "nope"], { env, cwd: home.home });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain('no MCP server "nope"');
    const local = await runXcsh(["mcp", "login", "local"], { env, cwd: home.home });
    expect(local.exitCode).toBe(1);
    expect(local.stderr).toContain("only remote (http/sse) servers sign in");
    const usage = await runXcsh(["mcp", "login"], { env, cwd: home.home });
    expect(usage.exitCode).toBe(2);
    // A server that publishes no OAuth metadata (here: nothing listens) is named with the URL.
    const project = join(home.home, "proj");
    writeMcpJson(join(project, ".mcp.json"), { p: { url: "http://127.0.0.1:9/x/${SECRET_FOR_TEST}" } });
    const untrusted = await runXcsh(["mcp", "login", "p"], { env: { ...env, SECRET_FOR_TEST: "hunter2" }, cwd: project });
    expect(untrusted.exitCode).toBe(1);
    expect(untrusted.stderr).toContain("no OAuth authorization server found for http://127.0.0.1:9/x/");
    // An untrusted project's URL does not get the environment's values.
    expect(untrusted.stderr).toContain("${SECRET_FOR_TEST}");
    expect(untrusted.stderr).not.toContain("hunter2");
  }, 30_000);
});
