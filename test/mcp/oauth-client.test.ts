/**
 * A remote MCP server whose authorization server registers clients by hand only: the
 * entry's `oauth.clientId` and `oauth.callbackPort` (pi 1.x's `oauth` object) are used
 * as they are. `xcsh mcp login` registers nothing, sends that client id, has the browser
 * come back to that port, and a model run then calls the server's tool with the token.
 * Through the built binary against the in-process OAuth and MCP servers.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
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

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

const CLIENT_ID = "client-registered-by-hand";
const port = freePort();
const env = home.env;

/** `xcsh mcp login`, the test following the printed address as a browser would; also returns that address. */
async function login(name: string): Promise<{ exitCode: number; stdout: string; stderr: string; address: string }> {
  const proc = Bun.spawn([ensureBinary(), "mcp", "login", name], { env, cwd: home.home, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  const stderr = new Response(proc.stderr).text();
  let stdout = "";
  let address = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stdout) {
    stdout += decoder.decode(chunk);
    const found = /^\s+(http\S+\/authorize\?\S+)$/m.exec(stdout)?.[1];
    if (found && !address) {
      address = found;
      await (await fetch(found)).text();
    }
  }
  const exitCode = await proc.exited;
  clearTimeout(timer);
  return { exitCode, stdout, stderr: await stderr, address };
}

describe("an MCP server's OAuth client registered beforehand", () => {
  test("oauth.clientId and oauth.callbackPort are used: nothing is registered, and the tool works after the sign-in", async () => {
    oauth.registerClient(CLIENT_ID, [`http://127.0.0.1:${port}/mcp/oauth/callback`]);
    writeMcpJson(join(home.agentDir, "mcp.json"), { srv: { url: oauth.mcpUrl, exposure: "direct", oauth: { clientId: CLIENT_ID, callbackPort: port } } });

    const result = await login("srv");
    expect(result.stderr).not.toContain("xcsh mcp:");
    expect(result.exitCode).toBe(0);
    const asked = new URL(result.address);
    expect(asked.searchParams.get("client_id")).toBe(CLIENT_ID);
    expect(asked.searchParams.get("redirect_uri")).toBe(`http://127.0.0.1:${port}/mcp/oauth/callback`);
    expect(oauth.registrations).toBe(0);
    expect(oauth.codeGrants).toBe(1);

    server.enqueue({ content: [{ type: "toolCall", id: "c1", name: "mcp__srv__echo", arguments: { text: "by hand" } }] }, { content: [{ type: "text", text: "done" }] });
    const run = await runXcsh(["-p", "--model", "fake/m", "--no-session", "hi"], { env, cwd: home.home, timeoutMs: 20_000 });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).not.toContain("does not apply");
    expect(bodyText(server.requests.at(-1)!)).toContain("locked echo: by hand");
    const stored = JSON.parse(readFileSync(join(home.agentDir, "auth.json"), "utf8"))[`mcp:${oauth.mcpUrl}`];
    expect(oauth.acceptedTokens).toContain(stored.access);
  }, 60_000);
});
