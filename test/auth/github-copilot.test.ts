/**
 * Signing in to GitHub Copilot and using it, through the built binary against a fake
 * GitHub (device flow, Copilot token exchange) and the fake LLM server: the user code
 * is read from stderr as a person would read it; polling honours `interval` and
 * `slow_down`; requests carry the Copilot token and Copilot's headers; an expired token
 * is refreshed, once, even by two processes at the same moment; a refused refresh says
 * which command signs in again.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";
import { AcpClient } from "../modes/acp/support/acp-harness.ts";
import { fakeOAuthEnv, GITHUB_TOKEN, startFakeOAuth, USER_CODE, type FakeOAuth } from "./fake-oauth.ts";

/** One polling "second" in these tests: the flow keeps RFC 8628's arithmetic, scaled down. */
const SECOND_MS = 60;

let llm: FakeLlmServer;
let oauth: FakeOAuth;
let home: TestHome;
let env: Record<string, string>;
const running: RpcProcess[] = [];

beforeAll(() => {
  ensureBinary();
  llm = startFakeLlm();
});
afterAll(async () => {
  await llm.close();
});
beforeEach(() => {
  oauth = startFakeOAuth();
  home = makeTestHome();
  env = { ...home.env, ...fakeOAuthEnv(oauth, { XCSH_TEST_OAUTH_SECOND_MS: String(SECOND_MS), XCSH_TEST_OAUTH_COPILOT_API_URL: `${llm.url}/copilot` }) };
  llm.clearScript();
  llm.requests.length = 0;
});
afterEach(async () => {
  for (const rpc of running.splice(0)) rpc.kill();
  await oauth.close();
  home.cleanup();
});

const authPath = () => join(home.agentDir, "auth.json");
const storedCopilot = () => JSON.parse(readFileSync(authPath(), "utf8"))["github-copilot"];

function storeCopilot(access: string, expires: number): void {
  writeFileSync(authPath(), JSON.stringify({ "github-copilot": { type: "oauth", access, refresh: GITHUB_TOKEN, expires } }), { mode: 0o600 });
}

/**
 * Starts `xcsh auth login github-copilot …` and reads its stderr up to the device code it
 * shows; `rest()` reads the remainder once the sign-in goes on, and returns all of it.
 */
async function startDeviceLogin(args: string[], loginEnv: Record<string, string>) {
  const login = Bun.spawn([ensureBinary(), "auth", "login", "github-copilot", ...args], { env: loginEnv, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = login.stderr.getReader();
  const decoder = new TextDecoder();
  let stderr = "";
  const readUntil = async (enough: () => boolean) => {
    while (!enough()) {
      const { done, value } = await reader.read();
      if (done) break;
      stderr += decoder.decode(value, { stream: true });
    }
  };
  await readUntil(() => stderr.includes("enter the code"));
  const shown = /open (\S+) and enter the code (\S+)/.exec(stderr);
  return {
    login,
    url: shown?.[1],
    code: shown?.[2],
    async rest(): Promise<string> {
      await readUntil(() => false);
      return stderr;
    },
  };
}

async function ask(model: string, text = "ok") {
  llm.enqueue({ content: [{ type: "text", text }] });
  const before = llm.requests.length;
  const result = await runXcsh(["-p", "hi", "--no-session", "--model", model], { env, timeoutMs: 30_000 });
  return { ...result, request: llm.requests[before] };
}

describe("xcsh auth login github-copilot", () => {
  test("the device flow: code on stderr, polling honours interval and slow_down, then a Copilot token in auth.json", async () => {
    // Pending until the code is entered; then one authorization_pending and one slow_down still come first.
    oauth.devicePollAnswers = [{ error: "authorization_pending" }, { error: "slow_down", interval: 6 }, { access_token: GITHUB_TOKEN }];
    const started = Date.now();
    const { login, url, code, rest } = await startDeviceLogin([], env);
    expect(url).toBe(`${oauth.url}/login/device`);
    expect(code).toBe(USER_CODE);
    // The person enters the code on the page the URL names.
    await fetch(url!, { method: "POST", body: new URLSearchParams({ user_code: code! }) });
    const stderr = await rest();
    expect(await login.exited).toBe(0);
    expect(await new Response(login.stdout).text()).toBe("");
    expect(stderr).toContain("Signed in to GitHub Copilot.");
    // The endpoints were the fake's, and the user was told so.
    expect(stderr).toContain(`xcsh: test-only override XCSH_TEST_OAUTH_GITHUB_URL=${oauth.url} is in effect`);

    expect(oauth.deviceCodeRequests).toEqual([{ client_id: "Iv1.b507a08c87ecfe98", scope: "read:user" }]);
    const polls = oauth.devicePolls;
    expect(polls.map((poll) => poll.form.grant_type)).toEqual(Array(3).fill("urn:ietf:params:oauth:grant-type:device_code"));
    expect(polls.map((poll) => poll.form.device_code)).toEqual(["dev-code-1", "dev-code-1", "dev-code-1"]);
    // interval 1: a second before the first poll and between the first two; after slow_down, 6.
    expect(polls[0].at - started).toBeGreaterThanOrEqual(SECOND_MS);
    expect(polls[1].at - polls[0].at).toBeGreaterThanOrEqual(SECOND_MS);
    expect(polls[1].at - polls[0].at).toBeLessThan(6 * SECOND_MS);
    expect(polls[2].at - polls[1].at).toBeGreaterThanOrEqual(6 * SECOND_MS);

    expect(oauth.copilotTokenRequests).toEqual([`Bearer ${GITHUB_TOKEN}`]);
    const stored = storedCopilot();
    expect(stored).toMatchObject({ type: "oauth", refresh: GITHUB_TOKEN, access: oauth.copilotTokensIssued[0] });
    // Saved five minutes before the Copilot token runs out (30 minutes), as pi saves it.
    expect(stored.expires).toBeGreaterThan(Date.now() + 20 * 60_000);
    expect(stored.expires).toBeLessThan(Date.now() + 26 * 60_000);
    expect(statSync(authPath()).mode & 0o777).toBe(0o600);
  });

  test("--enterprise <domain>: the sign-in runs at that GitHub Enterprise server, and a refresh goes back there", async () => {
    const domain = `localhost:${new URL(oauth.url).port}`;
    const enterpriseEnv = { ...env, XCSH_TEST_OAUTH_ENTERPRISE_SCHEME: "http" };
    const { login, url, code, rest } = await startDeviceLogin(["--enterprise", `https://${domain}/`], enterpriseEnv);
    await fetch(url!, { method: "POST", body: new URLSearchParams({ user_code: code! }) });
    await rest();
    expect(await login.exited).toBe(0);
    const tokenHosts = () => oauth.hostsAsked.filter((asked) => asked.path === "/copilot_internal/v2/token").map((asked) => asked.host);
    expect(oauth.hostsAsked.find((asked) => asked.path === "/login/device/code")?.host).toBe(domain);
    expect(tokenHosts()).toEqual([`api.${domain}`]);
    expect(storedCopilot()).toMatchObject({ type: "oauth", refresh: GITHUB_TOKEN, enterpriseUrl: domain });

    // The token runs out: the refresh asks the Enterprise server, not api.github.com.
    writeFileSync(authPath(), JSON.stringify({ "github-copilot": { ...storedCopilot(), expires: Date.now() - 1000 } }), { mode: 0o600 });
    env = enterpriseEnv;
    const result = await ask("github-copilot/gpt-5.5");
    expect(result.exitCode).toBe(0);
    expect(tokenHosts()).toEqual([`api.${domain}`, `api.${domain}`]);
    expect(result.request.headers.authorization).toBe(`Bearer ${oauth.copilotTokensIssued[1]}`);
    expect(storedCopilot().enterpriseUrl).toBe(domain);
  });

  test("--enterprise without a usable domain, or for another provider, is a usage error", async () => {
    for (const args of [["--enterprise"], ["--enterprise", "not a domain"], ["--enterprise=ghe.example.com", "--enterprise=x.example.com"]]) {
      const result = await runXcsh(["auth", "login", "github-copilot", ...args], { env });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain("--enterprise");
    }
    const other = await runXcsh(["auth", "login", "openai-codex", "--enterprise", "ghe.example.com"], { env });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain("--enterprise applies to github-copilot only.");
    expect(oauth.deviceCodeRequests).toHaveLength(0);
  });

  test("a denied sign-in fails with the reason and stores nothing", async () => {
    oauth.devicePollAnswers = [{ error: "authorization_pending" }, { error: "access_denied" }, {}];
    const result = await runXcsh(["auth", "login", "github-copilot"], { env });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("xcsh: The sign-in was denied on GitHub.");
    expect(() => statSync(authPath())).toThrow();
  });
});

describe("requests as a signed-in Copilot user", () => {
  test("carry the Copilot token and Copilot's headers, per model family's API", async () => {
    storeCopilot(oauth.copilotTokensIssued[0] ?? "tid=1;proxy-ep=proxy.individual.githubcopilot.com", Date.now() + 3_600_000);
    const token = storedCopilot().access;

    const gpt = await ask("github-copilot/gpt-5.5", "from gpt");
    expect(gpt.stdout).toBe("from gpt\n");
    expect(gpt.exitCode).toBe(0);
    expect(gpt.request.path).toBe("/copilot/responses");
    expect(gpt.request.headers.authorization).toBe(`Bearer ${token}`);
    expect(gpt.request.headers["copilot-integration-id"]).toBe("vscode-chat");
    expect(gpt.request.headers["editor-version"]).toMatch(/^vscode\//);
    expect(gpt.request.headers["openai-intent"]).toBe("conversation-edits");
    expect(gpt.request.headers["x-initiator"]).toBe("user");

    const claude = await ask("github-copilot/claude-sonnet-4.6", "from claude");
    expect(claude.stdout).toBe("from claude\n");
    expect(claude.request.path).toBe("/copilot/v1/messages");
    // Copilot's Anthropic endpoint reads the token as a bearer token.
    expect(claude.request.headers.authorization).toBe(`Bearer ${token}`);
    expect(claude.request.headers["copilot-integration-id"]).toBe("vscode-chat");
  });

  test("a follow-up after a tool result is marked as started by the agent", async () => {
    storeCopilot("tid=1;proxy-ep=proxy.individual.githubcopilot.com", Date.now() + 3_600_000);
    llm.enqueue(
      { content: [{ type: "toolCall", name: "ls", arguments: {} }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const result = await runXcsh(["-p", "list files", "--no-session", "--model", "github-copilot/gpt-5.5"], { env, timeoutMs: 30_000 });
    expect(result.stdout).toBe("done\n");
    expect(llm.requests.map((request) => request.headers["x-initiator"])).toEqual(["user", "agent"]);
  });

  test("the endpoint comes from the token's proxy-ep", async () => {
    storeCopilot("tid=1;exp=9;proxy-ep=proxy.business.githubcopilot.com;sku=x", Date.now() + 3_600_000);
    const { XCSH_TEST_OAUTH_COPILOT_API_URL: _unused, ...realEndpoint } = env;
    const rpc = startRpc({ env: realEndpoint, cwd: home.home, args: ["--no-session", "--model", "github-copilot/gpt-5.5"] });
    running.push(rpc);
    const models = (await rpc.request({ type: "get_available_models" }, 30_000)).data.models;
    const copilot = models.filter((model: { provider: string }) => model.provider === "github-copilot");
    expect(copilot.length).toBeGreaterThan(0);
    for (const model of copilot) expect(model.baseUrl).toBe("https://api.business.githubcopilot.com");
  });
});

describe("refreshing the Copilot token", () => {
  test("an expired token is exchanged again before the request, and auth.json is updated (still 0600)", async () => {
    storeCopilot("tid=old;proxy-ep=proxy.individual.githubcopilot.com", Date.now() - 1000);
    const result = await ask("github-copilot/gpt-5.5");
    expect(result.exitCode).toBe(0);
    expect(oauth.copilotTokenRequests).toEqual([`Bearer ${GITHUB_TOKEN}`]);
    const fresh = oauth.copilotTokensIssued[0];
    expect(result.request.headers.authorization).toBe(`Bearer ${fresh}`);
    expect(storedCopilot()).toMatchObject({ access: fresh, refresh: GITHUB_TOKEN });
    expect(storedCopilot().expires).toBeGreaterThan(Date.now());
    expect(statSync(authPath()).mode & 0o777).toBe(0o600);
  });

  test("two processes whose token expired together refresh it once, and both use the new token", async () => {
    storeCopilot("tid=old;proxy-ep=proxy.individual.githubcopilot.com", Date.now() - 1000);
    oauth.copilotTokenDelayMs = 600; // the first refresh is still running when the second process asks
    llm.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
    const run = () => runXcsh(["-p", "hi", "--no-session", "--model", "github-copilot/gpt-5.5"], { env, timeoutMs: 30_000 });
    const results = await Promise.all([run(), run()]);
    expect(results.map((result) => result.exitCode)).toEqual([0, 0]);
    expect(results.map((result) => result.stdout).sort()).toEqual(["a\n", "b\n"]);
    expect(oauth.copilotTokenRequests).toHaveLength(1);
    const fresh = oauth.copilotTokensIssued[0];
    expect(llm.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${fresh}`, `Bearer ${fresh}`]);
    expect(storedCopilot().access).toBe(fresh);
  });

  test("a refused refresh says which command signs in again: print mode and RPC", async () => {
    storeCopilot("tid=old;proxy-ep=proxy.individual.githubcopilot.com", Date.now() - 1000);
    oauth.copilotTokenStatus = 401;
    const printed = await ask("github-copilot/gpt-5.5");
    expect(printed.exitCode).toBe(3);
    expect(printed.stderr).toContain(`Refreshing the GitHub Copilot sign-in stored in ${authPath()} failed`);
    expect(printed.stderr).toContain("Run `xcsh auth login github-copilot` to sign in again.");
    expect(printed.request).toBeUndefined();

    const rpc = startRpc({ env, cwd: home.home, args: ["--no-session", "--model", "github-copilot/gpt-5.5"] });
    running.push(rpc);
    expect((await rpc.request({ type: "prompt", message: "hi" }, 30_000)).success).toBe(true);
    const end = await rpc.waitForEvent("agent_end", undefined, 30_000);
    const last = end.messages.at(-1);
    expect(last.stopReason).toBe("error");
    expect(last.errorMessage).toContain("Run `xcsh auth login github-copilot` to sign in again.");
    expect(llm.requests).toHaveLength(0);
  });

  test("in ACP, session/new with a refused refresh is an auth error naming the command that signs in", async () => {
    storeCopilot("tid=old;proxy-ep=proxy.individual.githubcopilot.com", Date.now() - 1000);
    oauth.copilotTokenStatus = 401;
    const client = new AcpClient(env, home.home, { args: ["--no-session", "--model", "github-copilot/gpt-5.5"] });
    try {
      await client.initialize();
      const error = await client.agent.request("session/new", { cwd: home.home, mcpServers: [] }).catch((failure) => failure);
      expect(error.code).toBe(-32000);
      expect(error.message).toContain("Run `xcsh auth login github-copilot` to sign in again.");
    } finally {
      expect(await client.close()).toBe(0);
    }
  });

  test("after logout, naming a Copilot model in RPC is refused with the command that signs in", async () => {
    storeCopilot("tid=1;proxy-ep=proxy.individual.githubcopilot.com", Date.now() + 3_600_000);
    const rpc = startRpc({ env, cwd: home.home, args: ["--no-session", "--model", "github-copilot/gpt-5.5"] });
    running.push(rpc);
    expect((await rpc.request({ type: "get_state" }, 30_000)).success).toBe(true);
    expect((await runXcsh(["auth", "logout", "github-copilot"], { env })).exitCode).toBe(0);
    const refused = await rpc.request({ type: "set_model", provider: "github-copilot", modelId: "claude-sonnet-4.6" }, 30_000);
    expect(refused.success).toBe(false);
    expect(refused.error).toContain("Not signed in to GitHub Copilot: run `xcsh auth login github-copilot`.");
  });
});
