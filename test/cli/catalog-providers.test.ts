/**
 * The built-in catalog's providers, through the built binary as a user meets them: a key
 * in the provider's environment variable and nothing else, the provider's base URL
 * pointed at the fake LLM server with models.json's user-facing override. What reaches
 * the server shows the key, the path and the provider's dialect.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startFakeLlm, type FakeLlmServer, type RecordedRequest } from "../support/fake-llm/server.ts";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";

let server: FakeLlmServer;
let home: TestHome;
const running: RpcProcess[] = [];

beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  home = makeTestHome();
  // No key from the developer's own environment: each test sets the ones it means.
  server.clearScript();
});
afterEach(async () => {
  for (const rpc of running.splice(0)) rpc.kill();
  home.cleanup();
});

/** Points built-in providers at the fake server, as a user points one at a proxy. */
function overrideBaseUrls(baseUrls: Record<string, string>, extra: Record<string, unknown> = {}): void {
  const providers: Record<string, unknown> = { ...extra };
  for (const [name, baseUrl] of Object.entries(baseUrls)) providers[name] = { baseUrl };
  home.writeModelsJson({ providers });
}

async function prompt(args: string[], env: Record<string, string>): Promise<{ request: RecordedRequest; stdout: string; stderr: string; exitCode: number }> {
  const before = server.requests.length;
  const result = await runXcsh(["-p", "Say hi.", "--no-session", ...args], { env: { ...home.env, ...env }, timeoutMs: 60_000 });
  expect(result.stderr).toBe("");
  expect(server.requests.length).toBeGreaterThan(before);
  return { request: server.requests[before], ...result };
}

describe("a catalog provider with only its key set", () => {
  test("groq: the key goes as a bearer token to Groq's chat/completions, in Groq's dialect", async () => {
    overrideBaseUrls({ groq: server.baseUrl("openai-completions") });
    server.enqueue({ content: [{ type: "text", text: "hi from groq" }] });
    const { request, stdout, exitCode } = await prompt(["--provider", "groq", "--model", "openai/gpt-oss-120b", "--thinking", "low"], {
      GROQ_API_KEY: "gsk-test-key",
    });
    expect(stdout).toBe("hi from groq\n");
    expect(exitCode).toBe(0);
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer gsk-test-key");
    expect(request.body.model).toBe("openai/gpt-oss-120b");
    // A reasoning model, yet the system prompt goes as "system": Groq has no "developer" role.
    expect(request.body.messages[0].role).toBe("system");
    expect(request.body.stream_options).toEqual({ include_usage: true });
    expect(request.body.store).toBeUndefined();
    // Groq's effort levels start at "low" (pi 1.6.0's level map for the model has no "minimal").
    expect(request.body.reasoning_effort).toBe("low");
  });

  test("groq: with only GROQ_API_KEY set, xcsh starts on Groq's everyday model", async () => {
    overrideBaseUrls({ groq: server.baseUrl("openai-completions") });
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
    const alone = await prompt([], { GROQ_API_KEY: "gsk-test-key" });
    expect(alone.stdout).toBe("a\n");
    expect(alone.request.body.model).toBe("openai/gpt-oss-120b");
    const byProvider = await prompt(["--provider", "groq"], { GROQ_API_KEY: "gsk-test-key" });
    expect(byProvider.request.body.model).toBe("openai/gpt-oss-120b");
  });

  test("groq: --model groq/<id> finds the model without --provider", async () => {
    overrideBaseUrls({ groq: server.baseUrl("openai-completions") });
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const { request, exitCode } = await prompt(["--model", "groq/llama-3.3-70b-versatile"], { GROQ_API_KEY: "gsk-test-key" });
    expect(exitCode).toBe(0);
    expect(request.body.model).toBe("llama-3.3-70b-versatile");
    expect(request.headers.authorization).toBe("Bearer gsk-test-key");
  });

  test("openrouter: reasoning as OpenRouter's `reasoning` object, cache breakpoints for Claude", async () => {
    overrideBaseUrls({ openrouter: server.baseUrl("openai-completions") });
    server.enqueue({ content: [{ type: "thinking", thinking: "hmm" }, { type: "text", text: "routed" }] });
    const { request, stdout } = await prompt(["--model", "openrouter/anthropic/claude-sonnet-4.6:batch", "--thinking", "high"], {
      OPENROUTER_API_KEY: "sk-or-test",
    });
    expect(stdout).toBe("routed\n");
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe("Bearer sk-or-test");
    // (pi 1.6.0 serves the plain anthropic/ ids over Anthropic Messages; the :batch ones over Chat Completions.)
    expect(request.body.model).toBe("anthropic/claude-sonnet-4.6:batch");
    expect(request.body.reasoning).toEqual({ effort: "high" });
    expect(request.body.reasoning_effort).toBeUndefined();
    expect(request.body.messages[0].role).toBe("system");
    expect(request.body.messages[0].content[0].cache_control).toEqual({ type: "ephemeral" });
  });

  test("deepseek: thinking switched with `thinking`, max_tokens, and earlier reasoning sent back after a tool call", async () => {
    // DeepSeek's base URL has no /v1: the SDK appends /chat/completions to it.
    overrideBaseUrls({ deepseek: server.url });
    server.enqueue(
      { content: [{ type: "thinking", thinking: "list first" }, { type: "toolCall", id: "call_1", name: "bash", arguments: { command: "echo listed" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const before = server.requests.length;
    const result = await runXcsh(["-p", "List.", "--no-session", "--model", "deepseek/deepseek-v4-pro", "--thinking", "high"], {
      env: { ...home.env, DEEPSEEK_API_KEY: "sk-ds-test" },
      timeoutMs: 60_000,
    });
    expect(result.stdout).toBe("done\n");
    const [first, second] = server.requests.slice(before);
    expect(first.path).toBe("/chat/completions");
    expect(first.headers.authorization).toBe("Bearer sk-ds-test");
    expect(first.body.thinking).toEqual({ type: "enabled" });
    expect(first.body.max_tokens).toBeGreaterThan(0);
    expect(first.body.max_completion_tokens).toBeUndefined();
    const assistant = second.body.messages.find((message: { role: string }) => message.role === "assistant");
    expect(assistant.reasoning_content).toBe("list first");
    expect(assistant.tool_calls[0].id).toBe("call_1");
  });

  test("mistral: a tool call's id becomes nine letters and digits, and its result names the tool", async () => {
    overrideBaseUrls({ mistral: server.baseUrl("openai-completions") });
    server.enqueue(
      { content: [{ type: "toolCall", id: "call_from_elsewhere_0001", name: "bash", arguments: { command: "echo ran" } }] },
      { content: [{ type: "text", text: "finished" }] },
    );
    const before = server.requests.length;
    const result = await runXcsh(["-p", "Run it.", "--no-session", "--model", "mistral/devstral-medium-latest"], {
      env: { ...home.env, MISTRAL_API_KEY: "mistral-test" },
      timeoutMs: 60_000,
    });
    expect(result.stdout).toBe("finished\n");
    const second = server.requests[before + 1];
    expect(second.headers.authorization).toBe("Bearer mistral-test");
    const call = second.body.messages.find((message: { role: string }) => message.role === "assistant").tool_calls[0];
    const toolResult = second.body.messages.find((message: { role: string }) => message.role === "tool");
    expect(call.id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(toolResult.tool_call_id).toBe(call.id);
    expect(toolResult.name).toBe("bash");
  });

  test("a provider without built-in models takes its key from its variable once models.json names its models", async () => {
    home.writeModelsJson({
      providers: { minimax: { baseUrl: server.baseUrl("anthropic-messages"), api: "anthropic-messages", models: [{ id: "MiniMax-M2" }] } },
    });
    server.enqueue({ content: [{ type: "text", text: "minimax here" }] });
    const { request, stdout } = await prompt(["--model", "minimax/MiniMax-M2"], { MINIMAX_API_KEY: "mm-test" });
    expect(stdout).toBe("minimax here\n");
    expect(request.path).toBe("/v1/messages");
    expect(request.headers["x-api-key"]).toBe("mm-test");
  });

  test("without the key, naming the provider says which variable to set", async () => {
    const byProvider = await runXcsh(["-p", "hi", "--provider", "groq"], { env: home.env });
    expect(byProvider.exitCode).not.toBe(0);
    expect(byProvider.stderr).toContain("GROQ_API_KEY");
    const byModel = await runXcsh(["-p", "hi", "--model", "groq/llama-3.3-70b-versatile"], { env: home.env });
    expect(byModel.exitCode).not.toBe(0);
    expect(byModel.stderr).toContain("GROQ_API_KEY");
  });
});

describe("--list-models", () => {
  test("lists the catalog providers' models with whether each provider's key is set", async () => {
    const result = await runXcsh(["--list-models"], { env: { ...home.env, GROQ_API_KEY: "gsk-test-key" } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^groq\s+llama-3\.3-70b-versatile\s+131\.1K\s+32\.8K\s+no\s+no\s+yes$/m);
    expect(result.stdout).toMatch(/^openrouter\s+anthropic\/claude-sonnet-4\.6\s+.*\s+no$/m);
    expect(result.stdout).toMatch(/^deepseek\s+deepseek-v4-pro\s/m);
    expect(result.stdout).toMatch(/^anthropic\s+claude-sonnet-4-6\s/m);
  });

  test("the providers that once had no built-in models list pi 1.6.0's, keyed by their variable", async () => {
    // Every provider of the index has built-in models now: no "Providers without built-in models" part.
    const unset = await runXcsh(["--list-models", "minimax"], { env: home.env });
    expect(unset.exitCode).toBe(0);
    expect(unset.stdout).not.toContain("Providers without built-in models");
    expect(unset.stdout).toMatch(/^minimax\s+MiniMax-M3\s+1M\s+524\.3K\s+yes\s+yes\s+no$/m);
    const set = await runXcsh(["--list-models", "minimax"], { env: { ...home.env, MINIMAX_API_KEY: "mm-test" } });
    expect(set.stdout).toMatch(/^minimax\s+MiniMax-M3\s+.*\s+yes$/m);
    expect(set.stdout).toMatch(/^minimax-cn\s+MiniMax-M3\s+.*\s+no$/m);
  });

  test("a search narrows the list: every word must match provider/id or name", async () => {
    const result = await runXcsh(["--list-models", "groq gpt"], { env: home.env });
    expect(result.exitCode).toBe(0);
    // The table, without its header and the catalog line after the blank one.
    const rows = result.stdout.split("\n\n")[0].trim().split("\n").slice(1);
    expect(rows.length).toBeGreaterThan(2);
    for (const row of rows) expect(row).toMatch(/^groq\s+\S*gpt/);
  });
});

describe("get_available_models over RPC", () => {
  async function availableIds(env: Record<string, string>): Promise<{ ids: string[]; stderr: string }> {
    overrideBaseUrls({}, { fake: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "test-key", models: [{ id: "fake-model" }] } });
    const rpc = startRpc({ env: { ...home.env, XCSH_TRACE_LOAD: "1", ...env }, cwd: home.home, args: ["--no-session", "--model", "fake/fake-model"] });
    running.push(rpc);
    const response = await rpc.request({ type: "get_available_models" }, 30_000);
    expect(response.success).toBe(true);
    await rpc.close(30_000);
    return { ids: response.data.models.map((model: { provider: string; id: string }) => `${model.provider}/${model.id}`), stderr: rpc.stderr };
  }

  test("without keys: only models with a credential, none from the catalog's keyless providers", async () => {
    const { ids, stderr } = await availableIds({});
    expect(ids).toEqual(["fake/fake-model"]);
    // Start-up read no keyless provider's model list: only the three offered without a key.
    expect(stderr.match(/loaded catalog\/\S+/g)?.sort()).toEqual(["loaded catalog/anthropic", "loaded catalog/google", "loaded catalog/openai"]);
  });

  test("with GROQ_API_KEY: Groq's models too, and only Groq's list was read", async () => {
    const { ids, stderr } = await availableIds({ GROQ_API_KEY: "gsk-test-key" });
    expect(ids).toContain("groq/llama-3.3-70b-versatile");
    expect(ids).toContain("fake/fake-model");
    expect(ids.some((id) => id.startsWith("openrouter/") || id.startsWith("anthropic/"))).toBe(false);
    expect(stderr.match(/loaded catalog\/\S+/g)?.sort()).toEqual(["loaded catalog/anthropic", "loaded catalog/google", "loaded catalog/groq", "loaded catalog/openai"]);
  });
});
