/**
 * Signing in to OpenAI Codex with a ChatGPT plan, through the built binary: the test
 * plays the browser — it reads the authorize URL from stderr and comes back to the
 * local callback with a code and the state (a wrong state is refused), or pastes the
 * redirect address on stdin when the callback port is taken. The fake token endpoint
 * checks the PKCE code_verifier against the challenge of the authorize URL. Then the
 * Codex endpoint gets the token and the account header, and an expired token is
 * refreshed.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { CHATGPT_ACCOUNT, fakeJwt, fakeOAuthEnv, startFakeOAuth, type FakeOAuth } from "./fake-oauth.ts";

let llm: FakeLlmServer;
let oauth: FakeOAuth;
let home: TestHome;
let env: Record<string, string>;
let callbackPort: number;
const spawned: Subprocess[] = [];

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
  callbackPort = freePort();
  env = { ...home.env, ...fakeOAuthEnv(oauth, { XCSH_TEST_OAUTH_CALLBACK_PORT: String(callbackPort), XCSH_TEST_OAUTH_CODEX_API_URL: `${llm.url}/codex` }) };
  llm.clearScript();
  llm.requests.length = 0;
});
afterEach(async () => {
  for (const proc of spawned.splice(0)) proc.kill();
  await oauth.close();
  home.cleanup();
});

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

const authPath = () => join(home.agentDir, "auth.json");
const storedCodex = () => JSON.parse(readFileSync(authPath(), "utf8"))["openai-codex"];

/** `xcsh auth login openai-codex`, with its stderr collected as it comes. */
function startLogin() {
  const proc = Bun.spawn([ensureBinary(), "auth", "login", "openai-codex"], { env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  spawned.push(proc);
  const output = { stderr: "" };
  const decoder = new TextDecoder();
  const collecting = (async () => {
    for await (const chunk of proc.stderr) output.stderr += decoder.decode(chunk, { stream: true });
  })();
  const waitFor = async (text: string) => {
    for (let i = 0; i < 400 && !output.stderr.includes(text); i++) await Bun.sleep(25);
    if (!output.stderr.includes(text)) throw new Error(`stderr never said "${text}": ${output.stderr}`);
  };
  return { proc, output, collecting, waitFor };
}

/** The authorize URL the login printed, checked for what an authorization code + PKCE request must carry. */
function authorizeUrlFrom(stderr: string): URL {
  const line = stderr.split("\n").find((text) => text.trim().startsWith(`${oauth.url}/oauth/authorize?`));
  expect(line).toBeDefined();
  const url = new URL(line!.trim());
  expect(url.searchParams.get("response_type")).toBe("code");
  expect(url.searchParams.get("client_id")).toBe("app_EMoamEEZ73f0CkXaXp7hrann");
  expect(url.searchParams.get("redirect_uri")).toBe(`http://localhost:${callbackPort}/auth/callback`);
  expect(url.searchParams.get("code_challenge_method")).toBe("S256");
  expect(url.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(url.searchParams.get("state")?.length).toBeGreaterThanOrEqual(16);
  return url;
}

function expectStoredSignIn(): void {
  const stored = storedCodex();
  expect(stored).toMatchObject({ type: "oauth", access: oauth.openaiAccessTokens[0], refresh: "refresh-1", accountId: CHATGPT_ACCOUNT });
  expect(stored.expires).toBeGreaterThan(Date.now() + 50 * 60_000);
  expect(statSync(authPath()).mode & 0o777).toBe(0o600);
  // The verifier the token endpoint saw is one whose S256 is the challenge the browser was given.
  const exchange = oauth.openaiTokenRequests.find((form) => form.grant_type === "authorization_code")!;
  expect(exchange.code_verifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
  expect(createHash("sha256").update(exchange.code_verifier).digest("base64url")).toBe(oauth.expectedChallenge!);
}

describe("xcsh auth login openai-codex", () => {
  test("the browser comes back to the local callback: a wrong state is refused, the right one signs in", async () => {
    const login = startLogin();
    await login.waitFor("Waiting for the browser");
    const authorize = authorizeUrlFrom(login.output.stderr);
    oauth.expectedChallenge = authorize.searchParams.get("code_challenge")!;
    const callback = `http://127.0.0.1:${callbackPort}/auth/callback`;

    const forged = await fetch(`${callback}?code=auth-code-1&state=not-the-state`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain("does not match");
    expect(oauth.openaiTokenRequests).toHaveLength(0);

    const back = await fetch(`${callback}?code=auth-code-1&state=${authorize.searchParams.get("state")}`);
    expect(back.status).toBe(200);
    expect(await login.proc.exited).toBe(0);
    await login.collecting;
    expect(login.output.stderr).toContain("Signed in to OpenAI Codex.");
    const exchange = oauth.openaiTokenRequests[0];
    expect(exchange).toMatchObject({ grant_type: "authorization_code", code: "auth-code-1", client_id: "app_EMoamEEZ73f0CkXaXp7hrann" });
    expect(exchange.redirect_uri).toBe(`http://localhost:${callbackPort}/auth/callback`);
    expectStoredSignIn();
  });

  test("headless: with the callback port taken, a pasted redirect address signs in; one of another sign-in is refused", async () => {
    const squatter = Bun.serve({ hostname: "127.0.0.1", port: callbackPort, fetch: () => new Response("someone else") });
    try {
      const login = startLogin();
      await login.waitFor("paste the address");
      expect(login.output.stderr).toContain(`Port ${callbackPort} is in use`);
      const authorize = authorizeUrlFrom(login.output.stderr);
      oauth.expectedChallenge = authorize.searchParams.get("code_challenge")!;
      const redirect = `http://localhost:${callbackPort}/auth/callback`;

      login.proc.stdin.write(`${redirect}?code=auth-code-1&state=stale-state\n`);
      await login.proc.stdin.flush();
      await login.waitFor("belongs to another sign-in");
      expect(oauth.openaiTokenRequests).toHaveLength(0);

      login.proc.stdin.write(`${redirect}?code=auth-code-1&state=${authorize.searchParams.get("state")}\n`);
      await login.proc.stdin.flush();
      expect(await login.proc.exited).toBe(0);
      expectStoredSignIn();
    } finally {
      squatter.stop(true);
    }
  });

  test("a sign-in declined in the browser ends the wait with the provider's reason", async () => {
    const login = startLogin();
    await login.waitFor("Waiting for the browser");
    const state = authorizeUrlFrom(login.output.stderr).searchParams.get("state");
    const back = await fetch(`http://127.0.0.1:${callbackPort}/auth/callback?error=access_denied&error_description=declined&state=${state}`);
    expect(back.status).toBe(400);
    expect(await login.proc.exited).toBe(1);
    await login.collecting;
    expect(login.output.stderr).toContain("The sign-in failed at the provider: access_denied (declined).");
    expect(oauth.openaiTokenRequests).toHaveLength(0);
  });

  test("a code the token endpoint refuses (a verifier that does not match) stores nothing", async () => {
    const login = startLogin();
    await login.waitFor("Waiting for the browser");
    const authorize = authorizeUrlFrom(login.output.stderr);
    oauth.expectedChallenge = "a-challenge-from-some-other-sign-in";
    await fetch(`http://127.0.0.1:${callbackPort}/auth/callback?code=auth-code-1&state=${authorize.searchParams.get("state")}`);
    expect(await login.proc.exited).toBe(1);
    await login.collecting;
    expect(login.output.stderr).toContain("OpenAI did not issue tokens (code exchange): HTTP 400: invalid_grant (code or code_verifier does not match).");
    expect(() => statSync(authPath())).toThrow();
  });
});

describe("requests with a ChatGPT plan", () => {
  function storeCodex(expires: number): string {
    const access = fakeJwt({ "https://api.openai.com/auth": { chatgpt_account_id: CHATGPT_ACCOUNT } });
    writeFileSync(authPath(), JSON.stringify({ "openai-codex": { type: "oauth", access, refresh: "refresh-0", expires, accountId: CHATGPT_ACCOUNT } }), {
      mode: 0o600,
    });
    return access;
  }

  async function ask() {
    llm.enqueue({ content: [{ type: "text", text: "from codex" }] });
    const result = await runXcsh(["-p", "hi", "--no-session", "--model", "openai-codex/gpt-5.5"], { env, timeoutMs: 30_000 });
    return { ...result, request: llm.requests.at(-1)! };
  }

  test("go to the Codex endpoint with the token, the account and no max_output_tokens", async () => {
    const access = storeCodex(Date.now() + 3_600_000);
    const { stdout, exitCode, request } = await ask();
    expect(stdout).toBe("from codex\n");
    expect(exitCode).toBe(0);
    expect(request.path).toBe("/codex/responses");
    expect(request.headers.authorization).toBe(`Bearer ${access}`);
    expect(request.headers["chatgpt-account-id"]).toBe(CHATGPT_ACCOUNT);
    expect(request.headers["openai-beta"]).toBe("responses=experimental");
    expect(request.headers.originator).toBe("xcsh");
    expect(request.body).toMatchObject({ model: "gpt-5.5", store: false, stream: true });
    expect(typeof request.body.instructions).toBe("string");
    expect(request.body.max_output_tokens).toBeUndefined();
  });

  test("an expired token is refreshed with the refresh token first", async () => {
    storeCodex(Date.now() - 1000);
    const { exitCode, request } = await ask();
    expect(exitCode).toBe(0);
    expect(oauth.openaiTokenRequests).toEqual([{ grant_type: "refresh_token", refresh_token: "refresh-0", client_id: "app_EMoamEEZ73f0CkXaXp7hrann" }]);
    expect(request.headers.authorization).toBe(`Bearer ${oauth.openaiAccessTokens[0]}`);
    expect(storedCodex()).toMatchObject({ access: oauth.openaiAccessTokens[0], refresh: "refresh-1", accountId: CHATGPT_ACCOUNT });
  });
});
