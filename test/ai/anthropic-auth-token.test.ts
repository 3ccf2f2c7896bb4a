/**
 * ANTHROPIC_AUTH_TOKEN, as pi 0.87.1 reads it: a bearer token for Anthropic (what
 * gateways in front of Claude take), sent as `Authorization: Bearer` and never as
 * `x-api-key`. It is the first of Anthropic's variables; ANTHROPIC_OAUTH_TOKEN is a key
 * like ANTHROPIC_API_KEY and comes before it; a key given explicitly (--api-key, auth.json,
 * models.json) beats every variable. Through the built binary, with anthropic's base URL
 * pointed at the fake server by models.json; what reached the server is the evidence.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, type FakeLlmServer, type RecordedRequest } from "../support/fake-llm/server.ts";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";

const ANTHROPIC_VARIABLES = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"];
const MODEL = ["--model", "anthropic/claude-sonnet-4-6"];

let server: FakeLlmServer;
let home: TestHome;

beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  home = makeTestHome();
  for (const name of ANTHROPIC_VARIABLES) delete home.env[name];
  home.writeModelsJson({ providers: { anthropic: { baseUrl: server.baseUrl("anthropic-messages") } } });
  server.clearScript();
});
afterEach(() => home.cleanup());

async function prompt(env: Record<string, string>, args: string[] = []): Promise<RecordedRequest> {
  server.enqueue({ content: [{ type: "text", text: "hi from claude" }] });
  const before = server.requests.length;
  const result = await runXcsh(["-p", "Say hi.", "--no-session", ...MODEL, ...args], { env: { ...home.env, ...env }, timeoutMs: 60_000 });
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe("hi from claude\n");
  expect(result.exitCode).toBe(0);
  return server.requests[before];
}

describe("ANTHROPIC_AUTH_TOKEN", () => {
  test("alone starts a model and goes as a bearer token, with no x-api-key", async () => {
    const request = await prompt({ ANTHROPIC_AUTH_TOKEN: "gateway-token" });
    expect(request.path).toBe("/v1/messages");
    expect(request.headers.authorization).toBe("Bearer gateway-token");
    expect(request.headers["x-api-key"]).toBeUndefined();
  });

  test("wins over ANTHROPIC_API_KEY and ANTHROPIC_OAUTH_TOKEN, as in pi", async () => {
    const request = await prompt({ ANTHROPIC_AUTH_TOKEN: "gateway-token", ANTHROPIC_API_KEY: "sk-ant-key", ANTHROPIC_OAUTH_TOKEN: "sk-ant-oat" });
    expect(request.headers.authorization).toBe("Bearer gateway-token");
    expect(request.headers["x-api-key"]).toBeUndefined();
    expect(JSON.stringify(request.headers)).not.toContain("sk-ant-");
  });

  test("loses to a key given explicitly: --api-key, then auth.json, go as x-api-key", async () => {
    const fromFlag = await prompt({ ANTHROPIC_AUTH_TOKEN: "gateway-token" }, ["--api-key", "sk-ant-flag"]);
    expect(fromFlag.headers["x-api-key"]).toBe("sk-ant-flag");
    expect(JSON.stringify(fromFlag.headers)).not.toContain("gateway-token");

    writeFileSync(join(home.agentDir, "auth.json"), JSON.stringify({ anthropic: { type: "api_key", key: "sk-ant-stored" } }), { mode: 0o600 });
    const fromStore = await prompt({ ANTHROPIC_AUTH_TOKEN: "gateway-token" });
    expect(fromStore.headers["x-api-key"]).toBe("sk-ant-stored");
    expect(JSON.stringify(fromStore.headers)).not.toContain("gateway-token");
  });

  test("in the env of auth.json's entry (pi's per-provider variables), is a bearer token too", async () => {
    writeFileSync(join(home.agentDir, "auth.json"), JSON.stringify({ anthropic: { type: "api_key", env: { ANTHROPIC_AUTH_TOKEN: "stored-gateway-token" } } }), { mode: 0o600 });
    const request = await prompt({ ANTHROPIC_API_KEY: "sk-ant-key" });
    expect(request.headers.authorization).toBe("Bearer stored-gateway-token");
    expect(request.headers["x-api-key"]).toBeUndefined();
  });
});

describe("ANTHROPIC_OAUTH_TOKEN", () => {
  test("alone is an API key; it wins over ANTHROPIC_API_KEY", async () => {
    const alone = await prompt({ ANTHROPIC_OAUTH_TOKEN: "sk-ant-oat-token" });
    expect(alone.headers["x-api-key"]).toBe("sk-ant-oat-token");
    const both = await prompt({ ANTHROPIC_OAUTH_TOKEN: "sk-ant-oat-token", ANTHROPIC_API_KEY: "sk-ant-key" });
    expect(both.headers["x-api-key"]).toBe("sk-ant-oat-token");
  });

  test("ANTHROPIC_API_KEY alone keeps going as x-api-key", async () => {
    const request = await prompt({ ANTHROPIC_API_KEY: "sk-ant-key" });
    expect(request.headers["x-api-key"]).toBe("sk-ant-key");
  });
});

test("with no Anthropic variable set, the error names every one a user can set", async () => {
  const result = await runXcsh(["-p", "Say hi.", "--no-session", ...MODEL], { env: home.env, timeoutMs: 60_000 });
  expect(result.exitCode).not.toBe(0);
  expect(result.stderr).toContain("ANTHROPIC_API_KEY");
  expect(result.stderr).toContain("ANTHROPIC_AUTH_TOKEN");
});
