/**
 * Corporate networks, through the built binary: providers and MCP servers served over
 * HTTPS with a certificate from a private CA (test/fixtures/private-ca), trusted through
 * NODE_EXTRA_CA_CERTS or SSL_CERT_FILE as a company machine sets them, and reached through
 * a forward proxy named by HTTPS_PROXY / https_proxy / HTTP_PROXY, with NO_PROXY honoured.
 * The proxy (test/support/http-proxy.ts) records each tunnel, so the tests see the traffic
 * went through it rather than around it.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeTestHome, runXcsh } from "../support/cli.ts";
import { startFakeLlm, type FakeApi } from "../support/fake-llm/server.ts";
import { startHttpProxy } from "../support/http-proxy.ts";
import { startHttpMcpServer } from "../mcp/support/http-server.ts";
import { bodyText, writeMcpJson } from "../mcp/support/mcp-fixture.ts";
import { fakeOAuthEnv, GITHUB_TOKEN, startFakeOAuth } from "../auth/fake-oauth.ts";
import { packTarball, startFakeRegistry } from "../packages/package-fixtures.ts";

const CA_DIR = join(import.meta.dir, "..", "fixtures", "private-ca");
const CA_FILE = join(CA_DIR, "ca.pem");
const tls = { cert: readFileSync(join(CA_DIR, "server.pem"), "utf8"), key: readFileSync(join(CA_DIR, "server.key"), "utf8") };

ensureBinary();
const llm = startFakeLlm({ tls });
const proxy = await startHttpProxy();
const home = makeTestHome();
// Whatever proxy or CA the machine running the tests has must not decide what these tests see.
for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR"]) {
  delete home.env[name];
  delete home.env[name.toLowerCase()];
}

const providers: Record<string, { api: FakeApi }> = {
  corp_anthropic: { api: "anthropic-messages" },
  corp_openai: { api: "openai-completions" },
  corp_responses: { api: "openai-responses" },
  corp_google: { api: "google-generative-ai" },
};
home.writeModelsJson({
  providers: Object.fromEntries(
    Object.entries(providers).map(([id, { api }]) => [id, { baseUrl: llm.baseUrl(api), api, apiKey: "corp-key", models: [{ id: "m" }] }]),
  ),
});

afterAll(async () => {
  await llm.close();
  await proxy.close();
  home.cleanup();
});
beforeEach(() => {
  llm.clearScript();
  proxy.seen.length = 0;
});

const tunnelToLlm = `CONNECT localhost:${llm.port}`;

async function ask(provider: string, env: Record<string, string>, reply = `answer from ${provider}`) {
  llm.enqueue({ content: [{ type: "text", text: reply }] });
  const before = llm.requests.length;
  const result = await runXcsh(["-p", "hi", "--no-session", "--model", `${provider}/m`], { env: { ...home.env, ...env }, cwd: home.home, timeoutMs: 30_000 });
  return { ...result, reached: llm.requests.length > before };
}

describe("a private CA", () => {
  test("without it, the provider's certificate is refused, and the error says which variable trusts a company CA", async () => {
    const result = await ask("corp_anthropic", {});
    expect(result.exitCode).not.toBe(0);
    expect(result.reached).toBe(false);
    expect(result.stderr).toMatch(/certificate/i);
    expect(result.stderr).toContain("NODE_EXTRA_CA_CERTS");
  }, 40_000);

  for (const [provider, variable] of [
    ["corp_anthropic", "NODE_EXTRA_CA_CERTS"],
    ["corp_openai", "SSL_CERT_FILE"],
    ["corp_responses", "NODE_EXTRA_CA_CERTS"],
    ["corp_google", "SSL_CERT_FILE"],
  ] as const) {
    test(`${providers[provider]!.api} over HTTPS, the CA given by ${variable}`, async () => {
      const result = await ask(provider, { [variable]: CA_FILE });
      expect(result.stderr).toBe("");
      expect(result.stdout).toBe(`answer from ${provider}\n`);
      expect(result.exitCode).toBe(0);
    }, 40_000);
  }
});

describe("a forward proxy", () => {
  for (const [provider, variable] of [
    ["corp_anthropic", "HTTPS_PROXY"],
    ["corp_openai", "https_proxy"],
    ["corp_google", "HTTPS_PROXY"],
  ] as const) {
    test(`${providers[provider]!.api} goes through ${variable} (a CONNECT tunnel), with the private CA`, async () => {
      const result = await ask(provider, { [variable]: proxy.url, NODE_EXTRA_CA_CERTS: CA_FILE });
      expect(result.stdout).toBe(`answer from ${provider}\n`);
      expect(proxy.seen).toContain(tunnelToLlm);
    }, 40_000);
  }

  test("NO_PROXY keeps a host off the proxy", async () => {
    const result = await ask("corp_openai", { HTTPS_PROXY: proxy.url, NO_PROXY: "localhost", NODE_EXTRA_CA_CERTS: CA_FILE });
    expect(result.stdout).toBe("answer from corp_openai\n");
    expect(proxy.seen).toEqual([]);
  }, 40_000);

  test("settings.json httpProxy is used when the environment names none", async () => {
    home.writeSettings({ httpProxy: proxy.url });
    try {
      const result = await ask("corp_anthropic", { NODE_EXTRA_CA_CERTS: CA_FILE });
      expect(result.stdout).toBe("answer from corp_anthropic\n");
      expect(proxy.seen).toContain(tunnelToLlm);
    } finally {
      home.writeSettings({});
    }
  }, 40_000);
});

/** TLS in front of a plain-HTTP test server, as a company's gateway would terminate it. */
function tlsFront(upstream: string) {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls,
    fetch: (request) => {
      const url = new URL(request.url);
      return fetch(`${upstream}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body: request.body, redirect: "manual" });
    },
  });
}

describe("other network paths", () => {
  test("an MCP server over HTTPS (private CA) through the proxy", async () => {
    const web = await startHttpMcpServer("web");
    const front = tlsFront(web.url);
    const mcpFile = join(home.home, "corp-mcp.json");
    writeMcpJson(mcpFile, { corp: { type: "http", url: `https://localhost:${front.port}/mcp`, exposure: "direct" } });
    try {
      llm.enqueue(
        { content: [{ type: "toolCall", id: "c1", name: "mcp__corp__echo", arguments: { text: "through the tunnel" } }] },
        { content: [{ type: "text", text: "done" }] },
      );
      const result = await runXcsh(["-p", "hi", "--no-session", "--model", "corp_openai/m", "--mcp-config", mcpFile], {
        env: { ...home.env, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: CA_FILE },
        cwd: home.home,
        timeoutMs: 30_000,
      });
      expect(result.stdout).toBe("done\n");
      expect(bodyText(llm.requests.at(-1)!)).toContain("web echo: through the tunnel");
      expect(proxy.seen).toContain(`CONNECT localhost:${front.port}`);
    } finally {
      front.stop(true);
      await web.close();
    }
  }, 40_000);

  test("a sign-in token refresh (GitHub Copilot) goes through HTTP_PROXY", async () => {
    const oauth = startFakeOAuth();
    const authFile = join(home.agentDir, "auth.json");
    writeFileSync(authFile, JSON.stringify({ "github-copilot": { type: "oauth", access: "expired", refresh: GITHUB_TOKEN, expires: Date.now() - 1000 } }), { mode: 0o600 });
    try {
      llm.enqueue({ content: [{ type: "text", text: "copilot answer" }] });
      const result = await runXcsh(["-p", "hi", "--no-session", "--model", "github-copilot/gpt-5.5"], {
        env: {
          ...home.env,
          ...fakeOAuthEnv(oauth, { XCSH_TEST_OAUTH_COPILOT_API_URL: `${llm.url}/copilot` }),
          HTTP_PROXY: proxy.url,
          HTTPS_PROXY: proxy.url,
          NODE_EXTRA_CA_CERTS: CA_FILE,
        },
        cwd: home.home,
        timeoutMs: 30_000,
      });
      expect(result.stdout).toBe("copilot answer\n");
      expect(oauth.copilotTokenRequests).toEqual([`Bearer ${GITHUB_TOKEN}`]);
      expect(proxy.seen).toContain(`GET ${oauth.url}/copilot_internal/v2/token`);
      expect(proxy.seen).toContain(tunnelToLlm);
    } finally {
      await oauth.close();
      writeFileSync(authFile, "{}", { mode: 0o600 });
    }
  }, 40_000);

  test("a package install from an HTTPS registry (private CA) through the proxy", async () => {
    const registry = startFakeRegistry();
    const front = tlsFront(registry.url.replace(/\/$/, ""));
    const work = join(home.home, "pkg-work");
    registry.publish("corp-tools", "1.0.0", packTarball(work, "corp-tools", "1.0.0", { "package.json": JSON.stringify({ name: "corp-tools", version: "1.0.0", pi: {} }) }));
    try {
      const result = await runXcsh(["install", "npm:corp-tools"], {
        env: {
          ...home.env,
          NPM_CONFIG_REGISTRY: `https://localhost:${front.port}/`,
          BUN_INSTALL_CACHE_DIR: join(home.home, "bun-cache"),
          npm_config_cache: join(home.home, "npm-cache"),
          HTTPS_PROXY: proxy.url,
          HTTP_PROXY: proxy.url,
          NODE_EXTRA_CA_CERTS: CA_FILE,
        },
        cwd: home.home,
        timeoutMs: 60_000,
      });
      expect(result.stderr).not.toContain("Cannot install");
      expect(result.exitCode).toBe(0);
      expect(registry.requests).toContain("/corp-tools");
      expect(proxy.seen).toContain(`CONNECT localhost:${front.port}`);
    } finally {
      front.stop(true);
      registry.stop();
    }
  }, 90_000);
});
