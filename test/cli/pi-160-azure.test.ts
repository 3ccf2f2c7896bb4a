/**
 * pi 1.x renamed the provider `azure-openai-responses` to `azure`. Through the built
 * binary against the fake LLM: `--model azure/…`, `--provider azure`, an auth.json entry
 * and a models.json provider under `azure`, settings' `defaultProvider: "azure"` and a
 * session whose model was recorded as `azure` all reach the Azure provider — and the old
 * id keeps working beside them.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeTestHome, runXcsh } from "../support/cli.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";

let server: FakeLlmServer;
const home = makeTestHome();
for (const name of Object.keys(home.env)) if (/^AZURE_/.test(name)) delete home.env[name];
beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});
beforeEach(() => {
  server.clearScript();
  home.writeSettings({});
  home.writeModelsJson({});
  writeFileSync(join(home.agentDir, "auth.json"), "{}", { mode: 0o600 });
});

const base = () => ({ AZURE_OPENAI_BASE_URL: `${server.url}/openai/v1` });
const withKey = () => ({ ...base(), AZURE_OPENAI_API_KEY: "azure-key-1" });
const run = (args: string[], env: Record<string, string>) =>
  runXcsh(["-p", "--no-session", ...args, "Say hi."], { env: { ...home.env, ...env }, timeoutMs: 60_000 });

async function answered(args: string[], env: Record<string, string>): Promise<{ key: string; path: string }> {
  server.enqueue({ content: [{ type: "text", text: "hi from azure" }] });
  const result = await run(args, env);
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe("hi from azure\n");
  const request = server.requests.at(-1)!;
  return { key: request.headers["api-key"]!, path: request.path };
}

describe("the azure provider id", () => {
  test("--model azure/… and --provider azure, and the old id still", async () => {
    expect((await answered(["--model", "azure/gpt-5-mini"], withKey())).key).toBe("azure-key-1");
    expect((await answered(["--provider", "azure", "--model", "gpt-5-mini"], withKey())).key).toBe("azure-key-1");
    expect((await answered(["--model", "azure-openai-responses/gpt-5-mini"], withKey())).key).toBe("azure-key-1");
  });

  test("an auth.json entry under azure is the key", async () => {
    writeFileSync(join(home.agentDir, "auth.json"), JSON.stringify({ azure: { type: "api_key", key: "stored-under-azure" } }), { mode: 0o600 });
    expect((await answered(["--model", "azure/gpt-5-mini"], base())).key).toBe("stored-under-azure");
  });

  test("xcsh auth check and print-api-key take azure", async () => {
    const env = { ...home.env, ...withKey() };
    const check = await runXcsh(["auth", "check", "--provider", "azure"], { env });
    expect([check.stdout, check.exitCode]).toEqual(["ready\n", 0]);
    expect((await runXcsh(["auth", "print-api-key", "--model", "azure/gpt-5-mini"], { env })).stdout).toBe("azure-key-1\n");
  });

  test("settings defaultProvider azure with defaultModel picks it", async () => {
    home.writeSettings({ defaultProvider: "azure", defaultModel: "gpt-5-mini" });
    await answered([], withKey());
  });

  test("a models.json provider keyed azure adds its models", async () => {
    home.writeModelsJson({ providers: { azure: { models: [{ id: "my-deployment", api: "azure-openai-responses" }] } } });
    await answered(["--model", "azure/my-deployment"], withKey());
    expect(server.requests.at(-1)!.body.model).toBe("my-deployment");
  });

  test("a session that recorded its model as azure resumes on it", async () => {
    const cwd = join(home.home, "proj");
    mkdirSync(cwd, { recursive: true });
    server.enqueue({ content: [{ type: "text", text: "first" }] }, { content: [{ type: "text", text: "second" }] });
    expect((await runXcsh(["-p", "--model", "azure/gpt-5-mini", "hello"], { env: { ...home.env, ...withKey() }, cwd })).exitCode).toBe(0);
    // Written as pi 1.6.0 writes it.
    const dir = join(home.agentDir, "sessions", readdirSync(join(home.agentDir, "sessions"))[0]!);
    const file = join(dir, readdirSync(dir)[0]!);
    const recorded = readFileSync(file, "utf8");
    expect(recorded).toContain('"provider":"azure-openai-responses"');
    writeFileSync(file, recorded.replaceAll('"provider":"azure-openai-responses"', '"provider":"azure"'));
    // Another provider, the default: without the alias the resumed run would fall back to it.
    home.writeModelsJson({ providers: { other: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "k", models: [{ id: "o" }] } } });
    home.writeSettings({ defaultProvider: "other", defaultModel: "o" });
    const resumed = await runXcsh(["-p", "--continue", "again"], { env: { ...home.env, ...withKey() }, cwd });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toBe("second\n");
    expect(server.requests.at(-1)!.headers["api-key"]).toBe("azure-key-1");
  });
});
