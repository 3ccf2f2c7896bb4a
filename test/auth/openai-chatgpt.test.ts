/**
 * Sign in with ChatGPT on the `openai` provider, through the built binary: the test plays
 * the browser (reads the authorize URL from stderr, comes back to the local callback with
 * the code, the state and the client id OpenAI issued); the fake token endpoint checks the
 * PKCE verifier, the issued client and the API resource. Then a request to an `openai`
 * model carries the plan's token as its key, an expired token is refreshed, and
 * `xcsh auth login openai` without `--chatgpt` still stores an API key.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { CHATGPT_ISSUED_CLIENT, fakeOAuthEnv, startFakeOAuth, type FakeOAuth } from "./fake-oauth.ts";

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
  // The built-in openai provider, pointed at the fake server (its models stay the catalog's).
  home.writeModelsJson({ providers: { openai: { baseUrl: llm.baseUrl("openai-responses") } } });
  callbackPort = freePort();
  env = { ...home.env, ...fakeOAuthEnv(oauth, { XCSH_TEST_OAUTH_CALLBACK_PORT: String(callbackPort) }) };
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
const stored = () => JSON.parse(readFileSync(authPath(), "utf8")).openai;

function startLogin(args: string[]) {
  const proc = Bun.spawn([ensureBinary(), "auth", "login", ...args], { env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
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

/** Signs in as the browser would; returns the authorize URL it was sent to. */
async function signIn(): Promise<URL> {
  const login = startLogin(["openai", "--chatgpt"]);
  await login.waitFor("Waiting for the browser");
  const line = login.output.stderr.split("\n").find((text) => text.trim().startsWith(`${oauth.url}/api/accounts/authorize?`));
  expect(line).toBeDefined();
  const authorize = new URL(line!.trim());
  oauth.expectedChallenge = authorize.searchParams.get("code_challenge")!;
  const state = authorize.searchParams.get("state");
  const back = await fetch(`http://127.0.0.1:${callbackPort}/auth/callback?code=auth-code-1&state=${state}&client_id=${CHATGPT_ISSUED_CLIENT}`);
  expect(back.status).toBe(200);
  expect(await login.proc.exited).toBe(0);
  await login.collecting;
  expect(login.output.stderr).toContain("Signed in with ChatGPT.");
  return authorize;
}

describe("xcsh auth login openai --chatgpt", () => {
  test("the authorize request names the dynamic client, this installation, the API and the direct-use scope; the issued client gets the tokens", async () => {
    const authorize = await signIn();
    const params = authorize.searchParams;
    expect(params.get("client_id")).toBe("dynamic_agent_client");
    expect(params.get("resource")).toBe("https://api.openai.com/v1");
    expect(params.get("scope")?.split(" ")).toContain("chatgpt.tokens.use.direct");
    expect(params.get("redirect_uri")).toBe(`http://127.0.0.1:${callbackPort}/auth/callback`);
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.get("ext_agent_host_id")).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);

    const exchange = oauth.openaiTokenRequests[0];
    expect(exchange).toMatchObject({ grant_type: "authorization_code", code: "auth-code-1", client_id: CHATGPT_ISSUED_CLIENT });
    expect(createHash("sha256").update(exchange.code_verifier).digest("base64url")).toBe(oauth.expectedChallenge!);
    const credential = stored();
    expect(credential).toMatchObject({ type: "oauth", access: "chatgpt-api-token-1", refresh: "refresh-1", clientId: CHATGPT_ISSUED_CLIENT });
    expect(`urn:uuid:${credential.deviceId}`).toBe(params.get("ext_agent_host_id")!);
    expect(statSync(authPath()).mode & 0o777).toBe(0o600);

    // Signing in again keeps the installation's id.
    const again = await signIn();
    expect(again.searchParams.get("ext_agent_host_id")).toBe(params.get("ext_agent_host_id"));
  });

  test("a request to an openai model sends the plan's token as the key; an expired one is refreshed for the issued client", async () => {
    await signIn();
    llm.enqueue({ content: [{ type: "text", text: "answered with the plan" }] });
    const first = await runXcsh(["-p", "hi", "--model", "openai/gpt-5.2"], { env });
    expect(first.stdout.trim()).toBe("answered with the plan");
    expect(llm.requests[0].headers.authorization).toBe("Bearer chatgpt-api-token-1");

    const file = JSON.parse(readFileSync(authPath(), "utf8"));
    file.openai.expires = Date.now() - 1000;
    writeFileSync(authPath(), JSON.stringify(file));
    llm.enqueue({ content: [{ type: "text", text: "after refresh" }] });
    const second = await runXcsh(["-p", "hi", "--model", "openai/gpt-5.2"], { env });
    expect(second.stdout.trim()).toBe("after refresh");
    expect(oauth.openaiTokenRequests.at(-1)).toMatchObject({ grant_type: "refresh_token", refresh_token: "refresh-1", client_id: CHATGPT_ISSUED_CLIENT });
    expect(llm.requests[1].headers.authorization).toBe("Bearer chatgpt-api-token-2");
  });

  test("without --chatgpt, openai still takes an API key and says how to use a plan instead", async () => {
    const result = await runXcsh(["auth", "login", "openai"], { env, stdin: "sk-test-key\n" });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("xcsh auth login openai --chatgpt");
    expect(stored()).toEqual({ type: "api_key", key: "sk-test-key" });
  });

  test("--chatgpt is for openai only", async () => {
    const result = await runXcsh(["auth", "login", "groq", "--chatgpt"], { env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("--chatgpt applies to openai only.");
  });
});
