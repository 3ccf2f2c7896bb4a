/**
 * The catalog's per-model compat keys decide what goes on the wire, not the model's name.
 * Each key is checked through the built binary against the fake LLM server, from the
 * request the server received: a catalog model that carries the key, one that does not,
 * and a models.json `compat` (modelOverrides, provider-level or a custom model's) that
 * turns it the other way. models.json points each catalog provider at the fake server,
 * as a proxy would; the catalog's models and their compat stay as they are.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestHome, runXcsh } from "../support/cli.ts";
import { startFakeLlm, type FakeApi, type FakeLlmServer, type FakeResponse, type RecordedRequest } from "../support/fake-llm/server.ts";

const SESSION = "compat-session-7";
const KEYS = {
  ANTHROPIC_API_KEY: "k",
  FIREWORKS_API_KEY: "k",
  ZAI_API_KEY: "k",
  DEEPSEEK_API_KEY: "k",
  OPENAI_API_KEY: "k",
  OPENCODE_API_KEY: "k",
  BASETEN_API_KEY: "k",
  TOGETHER_API_KEY: "k",
  GEMINI_API_KEY: "k",
};

let server: FakeLlmServer;
beforeAll(() => {
  server = startFakeLlm();
});
afterAll(() => server.close());

const OK: FakeResponse = { content: [{ type: "text", text: "ok" }] };

interface Run {
  /** `provider/model`. */
  model: string;
  /** The models.json `providers` entries; each gets its baseUrl pointed at the fake server for `api`. */
  providers: Record<string, Record<string, unknown> & { api: FakeApi }>;
  args?: string[];
  replies?: FakeResponse[];
}

/** Runs one prompt and hands back the requests the server received for it (and the JSON frames it printed). */
async function requestsOf(run: Run): Promise<RecordedRequest[]> {
  return (await runOnce(run)).requests;
}

async function runOnce({ model, providers, args = [], replies = [OK] }: Run): Promise<{ requests: RecordedRequest[]; frames: Record<string, any>[] }> {
  const home = makeTestHome();
  try {
    const config: Record<string, unknown> = {};
    for (const [name, entry] of Object.entries(providers)) config[name] = { ...entry, baseUrl: server.baseUrl(entry.api) };
    home.writeModelsJson({ providers: config });
    server.clearScript();
    server.enqueue(...replies);
    const before = server.requests.length;
    const result = await runXcsh(["--mode", "json", "-p", "hi", "--model", model, "--session-id", SESSION, ...args], {
      env: { ...home.env, ...KEYS },
      timeoutMs: 30_000,
    });
    const requests = server.requests.slice(before);
    if (requests.length === 0) throw new Error(`no request reached the server: ${result.stderr}`);
    const frames = result.stdout.split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
    return { requests, frames };
  } finally {
    home.cleanup();
  }
}

const first = async (run: Run) => (await requestsOf(run))[0];

const ANTHROPIC = { api: "anthropic-messages" } as const;
const FIREWORKS_ANTHROPIC = "fireworks/accounts/fireworks/models/minimax-m3";

describe("anthropic-messages", () => {
  test("forceAdaptiveThinking: adaptive thinking with an effort where the catalog says so, a budget elsewhere, either way by models.json", async () => {
    const adaptive = await first({ model: "anthropic/claude-sonnet-4-6", providers: { anthropic: ANTHROPIC }, args: ["--thinking", "high"] });
    expect(adaptive.body.thinking).toEqual({ type: "adaptive" });
    expect(adaptive.body.output_config).toEqual({ effort: "high" });

    const budget = await first({ model: "anthropic/claude-sonnet-4-5", providers: { anthropic: ANTHROPIC }, args: ["--thinking", "high"] });
    expect(budget.body.thinking).toMatchObject({ type: "enabled", budget_tokens: expect.any(Number) });
    expect(budget.body.output_config).toBeUndefined();

    const optedOut = await first({
      model: "anthropic/claude-sonnet-4-6",
      providers: { anthropic: { ...ANTHROPIC, modelOverrides: { "claude-sonnet-4-6": { compat: { forceAdaptiveThinking: false } } } } },
      args: ["--thinking", "high"],
    });
    expect(optedOut.body.thinking.type).toBe("enabled");

    // A model whose name says nothing: the switch alone decides.
    const custom = await first({
      model: "gateway/house-model",
      providers: { gateway: { ...ANTHROPIC, apiKey: "k", models: [{ id: "house-model", reasoning: true, compat: { forceAdaptiveThinking: true } }] } },
      args: ["--thinking", "medium"],
    });
    expect(custom.body.thinking).toEqual({ type: "adaptive" });
    expect(custom.body.output_config).toEqual({ effort: "medium" });
  });

  test("supportsCacheControlOnTools and supportsEagerToolInputStreaming: Fireworks' tools go without markers, Anthropic's last tool closes the cache", async () => {
    const anthropic = await first({ model: "anthropic/claude-sonnet-4-5", providers: { anthropic: ANTHROPIC } });
    const tools = anthropic.body.tools as Record<string, unknown>[];
    expect(tools.at(-1)!.cache_control).toEqual({ type: "ephemeral" });
    expect(tools.slice(0, -1).every((tool) => tool.cache_control === undefined)).toBe(true);
    expect(tools.every((tool) => tool.eager_input_streaming === true)).toBe(true);
    expect(anthropic.headers["anthropic-beta"] ?? "").not.toContain("fine-grained-tool-streaming");

    const fireworks = await first({ model: FIREWORKS_ANTHROPIC, providers: { fireworks: ANTHROPIC } });
    const plain = fireworks.body.tools as Record<string, unknown>[];
    expect(plain.length).toBeGreaterThan(0);
    expect(plain.some((tool) => "cache_control" in tool || "eager_input_streaming" in tool)).toBe(false);
    expect(fireworks.headers["anthropic-beta"]).toContain("fine-grained-tool-streaming-2025-05-14");

    const overridden = await first({ model: "anthropic/claude-sonnet-4-5", providers: { anthropic: { ...ANTHROPIC, compat: { supportsCacheControlOnTools: false } } } });
    expect((overridden.body.tools as Record<string, unknown>[]).some((tool) => "cache_control" in tool)).toBe(false);
  });

  test("sendSessionAffinityHeaders and sessionAffinityFormat: Fireworks gets x-session-affinity, Anthropic nothing, an override OpenRouter's x-session-id", async () => {
    const fireworks = await first({ model: FIREWORKS_ANTHROPIC, providers: { fireworks: ANTHROPIC } });
    expect(fireworks.headers["x-session-affinity"]).toBe(SESSION);

    const anthropic = await first({ model: "anthropic/claude-sonnet-4-5", providers: { anthropic: ANTHROPIC } });
    expect(anthropic.headers["x-session-affinity"]).toBeUndefined();
    expect(anthropic.headers["x-session-id"]).toBeUndefined();

    const overridden = await first({
      model: "anthropic/claude-sonnet-4-5",
      providers: { anthropic: { ...ANTHROPIC, compat: { sendSessionAffinityHeaders: true, sessionAffinityFormat: "openrouter" } } },
    });
    expect(overridden.headers["x-session-id"]).toBe(SESSION);
    expect(overridden.headers["x-session-affinity"]).toBeUndefined();
  });

  test("allowEmptySignature: unsigned thinking goes back as thinking with an empty signature where allowed, as text elsewhere", async () => {
    const unsignedTurn: FakeResponse[] = [
      { content: [{ type: "thinking", thinking: "Look at the notes first.", signature: "" }, { type: "toolCall", name: "read", arguments: { path: "notes.txt" } }] },
      OK,
    ];
    const replayed = async (model: string, providers: Run["providers"]) => {
      const requests = await requestsOf({ model, providers, replies: unsignedTurn });
      expect(requests).toHaveLength(2);
      const assistant = (requests[1].body.messages as { role: string; content: Record<string, unknown>[] }[]).find((message) => message.role === "assistant")!;
      return assistant.content[0];
    };
    expect(await replayed(FIREWORKS_ANTHROPIC, { fireworks: ANTHROPIC })).toEqual({ type: "thinking", thinking: "Look at the notes first.", signature: "" });
    expect(await replayed("anthropic/claude-sonnet-4-5", { anthropic: ANTHROPIC })).toEqual({ type: "text", text: "Look at the notes first." });
    expect(
      await replayed("anthropic/claude-sonnet-4-5", { anthropic: { ...ANTHROPIC, modelOverrides: { "claude-sonnet-4-5": { compat: { allowEmptySignature: true } } } } }),
    ).toEqual({ type: "thinking", thinking: "Look at the notes first.", signature: "" });
  });
});

const COMPLETIONS = { api: "openai-completions" } as const;

describe("openai-completions", () => {
  test("sendSessionAffinityHeaders: Fireworks gets the session in three headers, DeepSeek none, an override OpenRouter's form", async () => {
    const fireworks = await first({ model: "fireworks/accounts/fireworks/models/glm-5p3", providers: { fireworks: COMPLETIONS } });
    expect(fireworks.headers).toMatchObject({ session_id: SESSION, "x-client-request-id": SESSION, "x-session-affinity": SESSION });

    const deepseek = await first({ model: "deepseek/deepseek-flash", providers: { deepseek: COMPLETIONS } });
    for (const name of ["session_id", "x-client-request-id", "x-session-affinity", "x-session-id"]) expect(deepseek.headers[name]).toBeUndefined();

    const overridden = await first({
      model: "deepseek/deepseek-flash",
      providers: { deepseek: { ...COMPLETIONS, compat: { sendSessionAffinityHeaders: true, sessionAffinityFormat: "openrouter" } } },
    });
    expect(overridden.headers["x-session-id"]).toBe(SESSION);
    expect(overridden.headers["x-session-affinity"]).toBeUndefined();

    const fireworksNoSession = await first({
      model: "fireworks/accounts/fireworks/models/glm-5p3",
      providers: { fireworks: { ...COMPLETIONS, compat: { sessionAffinityFormat: "openai-nosession" } } },
    });
    expect(fireworksNoSession.headers.session_id).toBeUndefined();
    expect(fireworksNoSession.headers["x-session-affinity"]).toBe(SESSION);
  });

  test("zaiToolStream: z.ai's models ask for streamed tool arguments, DeepSeek's do not, models.json either way", async () => {
    const zai = await first({ model: "zai/glm-5.3-flash", providers: { zai: COMPLETIONS } });
    expect(zai.body.tool_stream).toBe(true);
    const deepseek = await first({ model: "deepseek/deepseek-flash", providers: { deepseek: COMPLETIONS } });
    expect(deepseek.body.tool_stream).toBeUndefined();
    const on = await first({ model: "deepseek/deepseek-flash", providers: { deepseek: { ...COMPLETIONS, compat: { zaiToolStream: true } } } });
    expect(on.body.tool_stream).toBe(true);
    const off = await first({ model: "zai/glm-5.3-flash", providers: { zai: { ...COMPLETIONS, modelOverrides: { "glm-5.3-flash": { compat: { zaiToolStream: false } } } } } });
    expect(off.body.tool_stream).toBeUndefined();
  });

  test("thinkingTokenBudgetField (or supportsThinkingTokenBudget) and vllmPriority: a vLLM model sends its budget field and priority, a plain one neither", async () => {
    const providers = {
      vllm: {
        ...COMPLETIONS,
        apiKey: "k",
        models: [
          { id: "qwen-served", reasoning: true, compat: { thinkingTokenBudgetField: "thinking_token_budget", vllmPriority: -5 } },
          { id: "plain", reasoning: true },
          { id: "older-spelling", reasoning: true, compat: { supportsThinkingTokenBudget: true } },
        ],
      },
    };
    const vllm = await first({ model: "vllm/qwen-served", providers, args: ["--thinking", "low"] });
    expect(vllm.body.thinking_token_budget).toBe(4096);
    expect(vllm.body.priority).toBe(-5);
    const plain = await first({ model: "vllm/plain", providers, args: ["--thinking", "low"] });
    expect(plain.body.thinking_token_budget).toBeUndefined();
    expect(plain.body.priority).toBeUndefined();
    const older = await first({ model: "vllm/older-spelling", providers, args: ["--thinking", "low"] });
    expect(older.body.thinking_token_budget).toBe(4096);
    // Thinking off: no budget, the priority stays.
    const off = await first({ model: "vllm/qwen-served", providers, args: ["--thinking", "off"] });
    expect(off.body.thinking_token_budget).toBeUndefined();
    expect(off.body.priority).toBe(-5);
  });

  test("supportsFinishReason false: a stream that ends with neither finish_reason nor [DONE] stands as the answer; without the switch it is a cut stream", async () => {
    const recorded = readFileSync(join(import.meta.dir, "..", "fixtures", "provider-streams", "openai-chat-text.sse"), "utf8").replace(/^(#[^\n]*\n)+\n/, "");
    const bare = recorded.replace('"finish_reason":"stop"', '"finish_reason":null').replace("data: [DONE]\n\n", "");
    const providers = {
      local: { ...COMPLETIONS, apiKey: "k", models: [{ id: "bare", compat: { supportsFinishReason: false } }, { id: "strict" }] },
    };
    const lastAssistant = (frames: Record<string, any>[]) => frames.filter((frame) => frame.type === "message_end" && frame.message.role === "assistant").map((frame) => frame.message);

    const trusted = await runOnce({ model: "local/bare", providers, replies: [{ type: "raw", body: bare }] });
    const [answer] = lastAssistant(trusted.frames);
    expect(answer.stopReason).toBe("stop");
    expect(answer.content).toEqual([{ type: "text", text: expect.stringContaining("The sky is blue") }]);
    expect(trusted.requests).toHaveLength(1);

    const strict = await runOnce({ model: "local/strict", providers, args: [], replies: [{ type: "raw", body: bare }, { type: "raw", body: recorded }] });
    const [cut] = lastAssistant(strict.frames);
    expect(cut.errorMessage).toContain("stream ended before the provider said it finished");
  });
});

describe("thinking formats from the catalog", () => {
  test("baseten: chat_template_args filled from the catalog's template, reasoning_effort from the level map; a models.json template replaces it", async () => {
    const on = await first({ model: "baseten/zai-org/GLM-5.2", providers: { baseten: COMPLETIONS }, args: ["--thinking", "high"] });
    expect(on.body.chat_template_args).toEqual({ enable_thinking: true });
    expect(on.body.reasoning_effort).toBe("high");
    const off = await first({ model: "baseten/zai-org/GLM-5.2", providers: { baseten: COMPLETIONS }, args: ["--thinking", "off"] });
    expect(off.body.chat_template_args).toEqual({ enable_thinking: false });
    expect(off.body.reasoning_effort).toBe("none");
    const replaced = await first({
      model: "baseten/zai-org/GLM-5.2",
      providers: { baseten: { ...COMPLETIONS, modelOverrides: { "zai-org/GLM-5.2": { compat: { chatTemplateArgs: { reasoning_budget: { $var: "thinking.budget" } } } } } } },
      args: ["--thinking", "high"],
    });
    expect(replaced.body.chat_template_args).toEqual({ reasoning_budget: expect.any(Number) });
  });

  test("together: reasoning.enabled, and no reasoning_effort where the catalog says the model takes none", async () => {
    const together = await first({ model: "together/zai-org/GLM-5.3", providers: { together: COMPLETIONS }, args: ["--thinking", "high"] });
    expect(together.body.reasoning).toEqual({ enabled: true });
    expect(together.body.reasoning_effort).toBeUndefined();
    const off = await first({ model: "together/zai-org/GLM-5.3", providers: { together: COMPLETIONS }, args: ["--thinking", "off"] });
    expect(off.body.reasoning).toEqual({ enabled: false });
  });
});

const RESPONSES = { api: "openai-responses" } as const;

describe("openai-responses", () => {
  test("supportsStrictMode: tools say strict false where the server knows the field, and carry no strict where models.json says it does not", async () => {
    const openai = await first({ model: "openai/gpt-6.2-sol", providers: { openai: RESPONSES } });
    expect((openai.body.tools as Record<string, unknown>[]).every((tool) => tool.strict === false)).toBe(true);
    const refused = await first({ model: "openai/gpt-6.2-sol", providers: { openai: { ...RESPONSES, modelOverrides: { "gpt-6.2-sol": { compat: { supportsStrictMode: false } } } } } });
    expect((refused.body.tools as Record<string, unknown>[]).some((tool) => "strict" in tool)).toBe(false);
  });

  test("sessionAffinityFormat: OpenAI gets session-id and x-client-request-id, OpenCode's openai-nosession models only the latter", async () => {
    const openai = await first({ model: "openai/gpt-6.2-sol", providers: { openai: RESPONSES } });
    expect(openai.headers).toMatchObject({ "session-id": SESSION, "x-client-request-id": SESSION });
    const opencode = await first({ model: "opencode/muse-spark-1.3", providers: { opencode: RESPONSES } });
    expect(opencode.headers["x-client-request-id"]).toBe(SESSION);
    expect(opencode.headers["session-id"]).toBeUndefined();
    const overridden = await first({ model: "openai/gpt-6.2-sol", providers: { openai: { ...RESPONSES, compat: { sessionAffinityFormat: "openrouter" } } } });
    expect(overridden.headers["x-session-id"]).toBe(SESSION);
    expect(overridden.headers["session-id"]).toBeUndefined();
  });
});

const GOOGLE = { api: "google-generative-ai" } as const;

describe("google-generative-ai", () => {
  test("a model whose catalog thinkingLevelMap names levels thinks by level (Gemini 4 too); a budget model by budget; the name decides nothing", async () => {
    const thinkingConfig = (request: RecordedRequest) => request.body.generationConfig?.thinkingConfig;
    const gemini4 = await first({ model: "google/gemini-4-argon", providers: { google: GOOGLE }, args: ["--thinking", "high"] });
    expect(thinkingConfig(gemini4)).toEqual({ includeThoughts: true, thinkingLevel: "HIGH" });
    const flashLatest = await first({ model: "google/gemini-flash-latest", providers: { google: GOOGLE }, args: ["--thinking", "low"] });
    expect(thinkingConfig(flashLatest)).toEqual({ includeThoughts: true, thinkingLevel: "LOW" });

    const budget = await first({ model: "google/gemini-2.5-flash", providers: { google: GOOGLE }, args: ["--thinking", "high"] });
    expect(thinkingConfig(budget)).toEqual({ includeThoughts: true, thinkingBudget: expect.any(Number) });

    const providers = {
      google: {
        ...GOOGLE,
        models: [
          { id: "gemini-3-house", reasoning: true },
          { id: "house-levels", reasoning: true, thinkingLevelMap: { minimal: null, low: "low", medium: "medium", high: "high" } },
        ],
      },
    };
    const namedLikeGemini3 = await first({ model: "google/gemini-3-house", providers, args: ["--thinking", "high"] });
    expect(thinkingConfig(namedLikeGemini3).thinkingBudget).toEqual(expect.any(Number));
    const levels = await first({ model: "google/house-levels", providers, args: ["--thinking", "medium"] });
    expect(thinkingConfig(levels)).toEqual({ includeThoughts: true, thinkingLevel: "MEDIUM" });
  });

  test("Gemini 2.5's budgets are catalog data: Pro's 'off' is 128 tokens, Flash's 0, Flash caps at 24,576; models.json changes each, a look-alike name gets none", async () => {
    const thinkingConfig = (request: RecordedRequest) => request.body.generationConfig?.thinkingConfig;
    const run = (model: string, level: string, google: Record<string, unknown> = {}) =>
      first({ model: `google/${model}`, providers: { google: { ...GOOGLE, ...google } }, args: ["--thinking", level] });

    // Pro cannot stop thinking: "off" asks for its least budget, and streams no thoughts.
    expect(thinkingConfig(await run("gemini-2.5-pro", "off"))).toEqual({ thinkingBudget: 128 });
    expect(thinkingConfig(await run("gemini-2.5-flash", "off"))).toEqual({ thinkingBudget: 0 });
    // xcsh's "high" budget is 32,768; Flash takes at most 24,576, Pro all of it.
    expect(thinkingConfig(await run("gemini-2.5-flash", "high"))).toEqual({ includeThoughts: true, thinkingBudget: 24_576 });
    expect(thinkingConfig(await run("gemini-2.5-pro", "high"))).toEqual({ includeThoughts: true, thinkingBudget: 32_768 });

    const overrides = {
      modelOverrides: {
        "gemini-2.5-pro": { thinkingLevelMap: { off: "256" } },
        "gemini-2.5-flash": { compat: { maxThinkingBudget: 8192 } },
      },
    };
    expect(thinkingConfig(await run("gemini-2.5-pro", "off", overrides))).toEqual({ thinkingBudget: 256 });
    expect(thinkingConfig(await run("gemini-2.5-flash", "high", overrides))).toEqual({ includeThoughts: true, thinkingBudget: 8192 });

    // A model of the user's that is named like one: its own data (none) decides.
    const house = { models: [{ id: "gemini-2.5-pro-flash-house", reasoning: true, maxTokens: 65_536 }] };
    expect(thinkingConfig(await run("gemini-2.5-pro-flash-house", "off", house))).toBeUndefined();
    expect(thinkingConfig(await run("gemini-2.5-pro-flash-house", "high", house))).toEqual({ includeThoughts: true, thinkingBudget: 32_768 });
  });
});
