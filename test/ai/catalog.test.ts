/**
 * The generated part of the built-in catalog: the provider index (pi's key variables,
 * endpoints, APIs), the generated model lists, the quirks the Chat Completions provider
 * takes from them, and that the committed files are what the generator makes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalProvider } from "../../src/ai/provider-aliases.ts";
import { AMBIENT_CREDENTIAL_VARIABLES, findEnvKeys, getEnvApiKey } from "../../src/ai/env-api-keys.ts";
import { getCatalogProviders, getModel, getModels, getProviders, getProvidersToOffer } from "../../src/ai/models.ts";
import { detectCompat, mistralToolCallId } from "../../src/ai/providers/openai-completions-convert.ts";
import { calculateCost } from "../../src/ai/usage.ts";
import { DEFAULT_MODEL_IDS } from "../../src/ai/models-catalog.ts";
import type { Model } from "../../src/ai/types.ts";

const ROOT = join(import.meta.dir, "..", "..");
const APIS = ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai", "azure-openai-responses", "google-vertex", "bedrock-converse-stream"];

const savedEnv = new Map<string, string | undefined>();
function setEnv(name: string, value: string | undefined): void {
  if (!savedEnv.has(name)) savedEnv.set(name, process.env[name]);
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
afterEach(() => {
  for (const [name, value] of savedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  savedEnv.clear();
});

describe("the provider index", () => {
  test("knows pi's API-key providers by pi's variable names", () => {
    const expected: Record<string, string> = {
      anthropic: "ANTHROPIC_API_KEY",
      openai: "OPENAI_API_KEY",
      google: "GEMINI_API_KEY",
      deepseek: "DEEPSEEK_API_KEY",
      nvidia: "NVIDIA_API_KEY",
      mistral: "MISTRAL_API_KEY",
      groq: "GROQ_API_KEY",
      cerebras: "CEREBRAS_API_KEY",
      xai: "XAI_API_KEY",
      openrouter: "OPENROUTER_API_KEY",
      "vercel-ai-gateway": "AI_GATEWAY_API_KEY",
      zai: "ZAI_API_KEY",
      "zai-coding-cn": "ZAI_CODING_CN_API_KEY",
      opencode: "OPENCODE_API_KEY",
      "opencode-go": "OPENCODE_API_KEY",
      huggingface: "HF_TOKEN",
      fireworks: "FIREWORKS_API_KEY",
      together: "TOGETHER_API_KEY",
      baseten: "BASETEN_API_KEY",
      "kimi-coding": "KIMI_API_KEY",
      meta: "META_API_KEY",
      minimax: "MINIMAX_API_KEY",
      "minimax-cn": "MINIMAX_CN_API_KEY",
      moonshotai: "MOONSHOT_API_KEY",
      "moonshotai-cn": "MOONSHOT_API_KEY",
      "qwen-token-plan": "QWEN_TOKEN_PLAN_API_KEY",
      "qwen-token-plan-cn": "QWEN_TOKEN_PLAN_CN_API_KEY",
      "qwen-token-plan-individual": "QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY",
      "qwen-token-plan-individual-cn": "QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY",
      xiaomi: "XIAOMI_API_KEY",
      "xiaomi-token-plan-cn": "XIAOMI_TOKEN_PLAN_CN_API_KEY",
      "xiaomi-token-plan-ams": "XIAOMI_TOKEN_PLAN_AMS_API_KEY",
      "xiaomi-token-plan-sgp": "XIAOMI_TOKEN_PLAN_SGP_API_KEY",
      "ant-ling": "ANT_LING_API_KEY",
      "amazon-bedrock": "AWS_BEARER_TOKEN_BEDROCK",
      "google-vertex": "GOOGLE_CLOUD_API_KEY",
      "azure-openai-responses": "AZURE_OPENAI_API_KEY",
    };
    for (const [provider, variable] of Object.entries(expected)) expect(findEnvKeys(provider)?.[0]).toBe(variable);
    expect(getCatalogProviders().map((provider) => provider.id).sort()).toEqual(Object.keys(expected).sort());
  });

  test("every provider has a URL and an API xcsh speaks", () => {
    for (const provider of getCatalogProviders()) {
      // A cloud provider's endpoint is a template of the account's ({location}, {resource}).
      expect(URL.canParse(provider.baseUrl.replace(/\{[a-z]+\}/g, "x"))).toBe(true);
      expect(APIS).toContain(provider.api);
      expect(provider.name.length).toBeGreaterThan(0);
    }
  });

  test("a key is found in the provider's variable, and only there", () => {
    setEnv("GROQ_API_KEY", undefined);
    expect(getEnvApiKey("groq")).toBeUndefined();
    setEnv("GROQ_API_KEY", "gsk-1");
    expect(getEnvApiKey("groq")).toBe("gsk-1");
    expect(getEnvApiKey("nobody")).toBeUndefined();
  });
});

describe("the generated models", () => {
  const generated = getProviders().filter((provider) => !["anthropic", "openai", "google", "faux"].includes(provider));

  test("cover the providers the source lists, after the hand-written ones", () => {
    expect(generated).toEqual(expect.arrayContaining(["openrouter", "groq", "deepseek", "mistral", "xai", "cerebras", "together", "fireworks", "huggingface", "vercel-ai-gateway", "zai", "moonshotai", "opencode"]));
    expect(getProviders().indexOf("groq")).toBeGreaterThan(getProviders().indexOf("google"));
  });

  test("have sane limits and prices, unique ids, and their provider's endpoint", () => {
    for (const provider of generated) {
      const info = getCatalogProviders().find((candidate) => candidate.id === provider)!;
      const models = getModels(provider);
      expect(models.length).toBeGreaterThan(0);
      expect(new Set(models.map((model) => model.id)).size).toBe(models.length);
      for (const model of models) {
        expect(model.provider).toBe(provider);
        expect(model.name.length).toBeGreaterThan(0);
        expect(model.contextWindow).toBeGreaterThanOrEqual(model.maxTokens);
        expect(model.maxTokens).toBeGreaterThan(0);
        expect(model.input).toContain("text");
        for (const prices of [model.cost, ...(model.cost.tiers ?? [])]) for (const key of ["input", "output", "cacheRead", "cacheWrite"] as const) expect(prices[key]).toBeGreaterThanOrEqual(0);
        expect(APIS).toContain(model.api);
        // Bedrock's EU-only models name their region's endpoint; every other model served
        // over its provider's API is at its provider's endpoint.
        if (model.api === info.api && !model.id.startsWith("eu.")) expect(model.baseUrl).toBe(info.baseUrl);
      }
    }
  });

  test("each provider's default model is pi 1.6.0's and is in its list", () => {
    expect(DEFAULT_MODEL_IDS).toMatchObject({ anthropic: "claude-opus-5-5", openai: "gpt-6.2-sol", google: "gemini-4-argon", "azure-openai-responses": "gpt-6.2-sol" });
    for (const provider of getCatalogProviders()) {
      const id = DEFAULT_MODEL_IDS[provider.id];
      if (id) expect(getModel(provider.id, id)?.id).toBe(id);
      else expect(getModels(provider.id)).toEqual([]);
    }
  });

  test("a model served over another API carries that API's endpoint", () => {
    expect(getModel("opencode", "claude-sonnet-5-5")).toMatchObject({ api: "anthropic-messages", baseUrl: "https://opencode.ai/inference/anthropic" });
    expect(getModel("opencode", "gpt-6.2-sol")).toMatchObject({ api: "openai-responses", baseUrl: "https://opencode.ai/inference/openai/v1" });
    expect(getModel("opencode", "kimi-k3")).toMatchObject({ api: "openai-completions", baseUrl: "https://opencode.ai/inference/openai/v1" });
    expect(getModel("opencode", "gemini-4-argon")).toMatchObject({ api: "google-generative-ai", baseUrl: "https://opencode.ai/inference/google/v1beta" });
  });

  test("only the providers with a key set are offered without being named", () => {
    for (const provider of getCatalogProviders()) for (const name of provider.envKeys) setEnv(name, undefined);
    for (const name of AMBIENT_CREDENTIAL_VARIABLES) setEnv(name, undefined);
    expect(getProvidersToOffer()).toEqual(["anthropic", "openai", "google", "faux"]);
    setEnv("DEEPSEEK_API_KEY", "sk-ds");
    expect(getProvidersToOffer()).toEqual(["anthropic", "openai", "google", "deepseek", "faux"]);
  });

  /** The compat switches scripts/generate-catalog.ts adds to pi's data as xcsh's own. */
  const XCSH_COMPAT_KEYS = ["maxThinkingBudget", "supportsCachePoints", "supportsBudgetThinking"];

  test("every model of pi 1.6.0's data has pi's prices (cache prices too), limits, thinking levels and quirks", () => {
    const data = join(ROOT, "node_modules", "pi-coding-agent-160", "node_modules", "@earendil-works", "pi-ai", "dist", "providers", "data");
    let compared = 0;
    for (const file of readdirSync(data).filter((name) => name.endsWith(".json"))) {
      const provider = canonicalProvider(file.slice(0, -5));
      if (!getCatalogProviders().some((candidate) => candidate.id === provider)) continue;
      const groups = JSON.parse(readFileSync(join(data, file), "utf8")) as Record<string, Record<string, Record<string, any>>>;
      for (const source of Object.values(groups).flatMap((group) => Object.values(group))) {
        if (source.type !== "chat" || !APIS.includes(source.api === "mistral-conversations" ? "openai-completions" : source.api)) continue;
        const model = getModel(provider, source.id);
        expect(model, `${provider}/${source.id}`).toBeDefined();
        expect(model!.cost).toEqual(source.cost);
        expect([model!.contextWindow, model!.maxTokens, model!.reasoning, model!.name]).toEqual([source.contextWindow, source.maxTokens, source.reasoning, source.name]);
        // pi's quirks exactly; beside them only the ones the generator adds as xcsh's (addXcshQuirks).
        if (source.thinkingLevelMap) expect(model!.thinkingLevelMap).toMatchObject(source.thinkingLevelMap);
        const addedLevels = Object.keys(model!.thinkingLevelMap ?? {}).filter((level) => !(level in (source.thinkingLevelMap ?? {})));
        expect(addedLevels.every((level) => level === "off"), `${provider}/${source.id} thinkingLevelMap`).toBe(true);
        if (source.compat) expect(model!.compat).toMatchObject(source.compat);
        const addedSwitches = Object.keys(model!.compat ?? {}).filter((key) => !(key in (source.compat ?? {})));
        expect(addedSwitches.every((key) => XCSH_COMPAT_KEYS.includes(key)), `${provider}/${source.id} compat`).toBe(true);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1_500);
  });

  test("a prompt above a long-context tier's threshold pays that tier's prices", () => {
    const model = getModels("anthropic").find((candidate) => candidate.cost.tiers?.length)!;
    const tier = model.cost.tiers![0];
    const usage = (input: number) => ({ input, output: 1_000_000, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
    expect(calculateCost(model, usage(tier.inputTokensAbove)).output).toBe(model.cost.output);
    expect(calculateCost(model, usage(tier.inputTokensAbove + 1)).output).toBe(tier.output);
  });

  test("the committed files are what the generator makes from the source", () => {
    const result = Bun.spawnSync([process.execPath, join(ROOT, "scripts", "generate-catalog.ts"), "--check"], { cwd: ROOT, stderr: "pipe" });
    expect(result.stderr.toString()).not.toContain("out of date");
    expect(result.exitCode).toBe(0);
  });
});

describe("Chat Completions quirks from the catalog", () => {
  const model = (overrides: Partial<Model>): Model => ({
    id: "some-model",
    name: "Some model",
    api: "openai-completions",
    provider: "custom",
    baseUrl: "http://127.0.0.1:9/v1",
    reasoning: true,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 100_000,
    maxTokens: 8_000,
    ...overrides,
  });

  test("a catalog provider keeps its dialect at any URL (a proxy, a test server)", () => {
    expect(detectCompat(model({ provider: "deepseek" }))).toMatchObject({
      thinkingFormat: "deepseek",
      requiresReasoningContentOnAssistantMessages: true,
      maxTokensField: "max_tokens",
      supportsDeveloperRole: false,
    });
    expect(detectCompat(model({ provider: "mistral" }))).toMatchObject({ toolCallIdFormat: "mistral", requiresToolResultName: true });
    expect(detectCompat(model({ provider: "openrouter", id: "anthropic/claude-sonnet-4" })).cacheControlFormat).toBe("anthropic");
    expect(detectCompat(model({ provider: "openrouter", id: "openai/gpt-5" })).cacheControlFormat).toBeUndefined();
  });

  test("any provider at a catalog provider's host speaks that provider's dialect", () => {
    expect(detectCompat(model({ baseUrl: "https://api.deepseek.com" })).thinkingFormat).toBe("deepseek");
    expect(detectCompat(model({ baseUrl: "https://api.z.ai/api/coding/paas/v4" })).thinkingFormat).toBe("zai");
    expect(detectCompat(model({ baseUrl: "http://localhost:11434/v1" })).thinkingFormat).toBe("openai");
  });

  test("models.json's compat wins over the catalog's", () => {
    expect(detectCompat(model({ provider: "deepseek", compat: { maxTokensField: "max_completion_tokens" } })).maxTokensField).toBe("max_completion_tokens");
  });

  test("Mistral tool-call ids: its own kept, others made nine stable letters and digits", () => {
    expect(mistralToolCallId("abcDEF123")).toBe("abcDEF123");
    const converted = mistralToolCallId("call_0123456789abcdef|fc_99");
    expect(converted).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(mistralToolCallId("call_0123456789abcdef|fc_99")).toBe(converted);
    expect(mistralToolCallId("call_other")).not.toBe(converted);
  });
});
