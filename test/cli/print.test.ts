/**
 * The built binary, driven as a user or a CI pipeline would: `xcsh -p` against
 * models.json providers of each API pointed at the fake LLM server.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, type FakeApi, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";

const APIS: FakeApi[] = ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"];

let server: FakeLlmServer;
let home: TestHome;

function modelsJsonFor(server: FakeLlmServer) {
  const providers: Record<string, unknown> = {};
  for (const api of APIS) {
    providers[`fake-${api}`] = {
      baseUrl: server.baseUrl(api),
      api,
      apiKey: "test-key",
      models: [{ id: `${api}-model`, name: `Fake ${api}`, reasoning: true, input: ["text", "image"], cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }],
    };
  }
  return { providers };
}

beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  home?.cleanup();
  home = makeTestHome();
  home.writeModelsJson(modelsJsonFor(server));
});

describe("xcsh -p through each provider API", () => {
  for (const api of APIS) {
    test(`${api}: prints the scripted answer and sends the prompt`, async () => {
      server.enqueue({ content: [{ type: "text", text: `Answer via ${api}: 42.` }], chunkSize: 3 });
      const before = server.requests.length;
      const result = await runXcsh(["-p", "What is six times seven?", "--provider", `fake-${api}`, "--model", `${api}-model`], { env: home.env });
      expect(result.stderr).toBe("");
      expect(result.stdout).toBe(`Answer via ${api}: 42.\n`);
      expect(result.exitCode).toBe(0);
      const request = server.requests[before];
      expect(request.api).toBe(api);
      expect(JSON.stringify(request.body)).toContain("What is six times seven?");
    });
  }

  test("provider/id model form and a :thinking suffix reach the provider", async () => {
    server.enqueue({ content: [{ type: "thinking", thinking: "hmm" }, { type: "text", text: "ok" }] });
    const before = server.requests.length;
    const result = await runXcsh(["-p", "hi", "--model", "fake-anthropic-messages/anthropic-messages-model:high"], { env: home.env });
    expect(result.stdout).toBe("ok\n");
    expect(result.exitCode).toBe(0);
    const body = server.requests[before].body;
    expect(body.thinking?.type).toBe("enabled");
  });

  test("the prompt can be piped on stdin", async () => {
    server.enqueue({ content: [{ type: "text", text: "piped ok" }] });
    const before = server.requests.length;
    const result = await runXcsh(["-p", "--model", "openai-completions-model"], { env: home.env, stdin: "summarize this piped text" });
    expect(result.stdout).toBe("piped ok\n");
    expect(result.exitCode).toBe(0);
    expect(JSON.stringify(server.requests[before].body)).toContain("summarize this piped text");
  });

  test("--system-prompt is sent as the system prompt", async () => {
    server.enqueue({ content: [{ type: "text", text: "yes" }] });
    const before = server.requests.length;
    await runXcsh(["-p", "hi", "--model", "anthropic-messages-model", "--system-prompt", "You are terse."], { env: home.env });
    expect(JSON.stringify(server.requests[before].body.system)).toContain("You are terse.");
  });
});

describe("failures are one clear line on stderr and a non-zero exit", () => {
  test("missing API key for a built-in provider names the environment variable", async () => {
    const result = await runXcsh(["-p", "hi", "--provider", "anthropic"], { env: home.env });
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("ANTHROPIC_API_KEY");
  });

  test("an unknown model points to --list-models", async () => {
    const result = await runXcsh(["-p", "hi", "--model", "no-such-model-anywhere"], { env: home.env });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("no-such-model-anywhere");
    expect(result.stderr).toContain("--list-models");
  });

  test("a provider error shows the status and the provider's message", async () => {
    server.enqueue({ type: "error", status: 400, message: "the fake backend refuses this request" });
    const result = await runXcsh(["-p", "hi", "--model", "openai-responses-model"], { env: home.env });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("400");
    expect(result.stderr).toContain("the fake backend refuses this request");
  });

  test("a transient error is retried (settings.retry), with progress on stderr", async () => {
    home.writeSettings({ retry: { baseDelayMs: 20 } });
    server.enqueue({ type: "error", status: 529, message: "Overloaded" }, { content: [{ type: "text", text: "second time lucky" }] });
    const result = await runXcsh(["-p", "hi", "--model", "anthropic-messages-model"], { env: home.env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("second time lucky\n");
    expect(result.stderr).toContain("retrying");
    expect(result.stderr).toContain("attempt 1 of 3");
  });

  test("a broken models.json names the file and the problem", async () => {
    writeFileSync(join(home.agentDir, "models.json"), '{ "providers": { "x": { "models": [ { "id": 5 } ] } } }');
    const result = await runXcsh(["-p", "hi"], { env: home.env });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("models.json");
    expect(result.stderr).toMatch(/providers\.x/);
  });

  test("an unknown option is rejected with a pointer to --help", async () => {
    const result = await runXcsh(["--frobnicate"], { env: home.env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("--frobnicate");
    expect(result.stderr).toContain("--help");
  });

  test("no prompt at all says how to give one", async () => {
    const result = await runXcsh(["-p"], { env: home.env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('xcsh -p "');
  });
});

describe("information commands", () => {
  test("--version answers without loading any provider SDK", async () => {
    const env = { ...home.env, XCSH_TRACE_LOAD: "1" };
    const version = await runXcsh(["--version"], { env });
    expect(version.exitCode).toBe(0);
    expect(version.stdout).toMatch(/^xcsh \d+\.\d+\.\d+ \(/);
    expect(version.stderr).toBe("");

    // The same trace does report an SDK when a prompt really needs one.
    server.enqueue({ content: [{ type: "text", text: "x" }] });
    const prompt = await runXcsh(["-p", "hi", "--model", "anthropic-messages-model"], { env });
    expect(prompt.stderr).toContain("loaded @anthropic-ai/sdk");
    expect(prompt.stderr).not.toContain("loaded openai");
  });

  test("--help shows usage", async () => {
    const result = await runXcsh(["--help"], { env: home.env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("xcsh -p");
    expect(result.stdout).toContain("--list-models");
  });

  test("--list-models lists built-in and models.json models, filtered by search", async () => {
    const all = await runXcsh(["--list-models"], { env: home.env });
    expect(all.exitCode).toBe(0);
    expect(all.stdout).toContain("fake-google-generative-ai");
    expect(all.stdout).toMatch(/anthropic\s+claude-/);
    const filtered = await runXcsh(["--list-models", "openai-responses"], { env: home.env });
    expect(filtered.stdout).toContain("openai-responses-model");
    expect(filtered.stdout).not.toContain("anthropic-messages-model");
  });
});
