import { describe, expect, test } from "bun:test";
import { getModel, getModels, getProviders, modelsAreEqual } from "../../src/ai/models.ts";
import { getSupportedThinkingLevels } from "../../src/ai/thinking.ts";

/** The providers everyone starts with, and the offline one (the rest: test/ai/catalog.test.ts). */
const HAND_WRITTEN = ["anthropic", "openai", "google", "faux"] as const;

describe("built-in model catalog", () => {
  test("offers anthropic, openai and google in that order, the generated providers after them, the offline faux last", () => {
    const providers = getProviders();
    expect(providers.slice(0, 3)).toEqual(["anthropic", "openai", "google"]);
    expect(providers.at(-1)).toBe("faux");
    expect(providers).toContain("groq");
  });

  test("each provider's models use the provider's API and endpoint", () => {
    const expected = {
      anthropic: { api: "anthropic-messages", baseUrl: "https://api.anthropic.com" },
      openai: { api: "openai-responses", baseUrl: "https://api.openai.com/v1" },
      google: { api: "google-generative-ai", baseUrl: "https://generativelanguage.googleapis.com/v1beta" },
      faux: { api: "faux", baseUrl: "faux://local" },
    } as const;
    for (const provider of HAND_WRITTEN) {
      const models = getModels(provider);
      expect(models.length).toBeGreaterThan(provider === "faux" ? 0 : 2);
      for (const model of models) {
        expect(model.provider).toBe(provider);
        // Every model of these three is served over the provider's own API at its endpoint.
        expect(model.api).toBe(expected[provider].api);
        expect(model.baseUrl).toBe(expected[provider].baseUrl);
      }
    }
  });

  test("every model has sane limits and prices, and unique ids within its provider", () => {
    // faux is free: it runs in-process (see "the offline faux model costs nothing").
    for (const provider of HAND_WRITTEN.filter((name) => name !== "faux")) {
      const ids = new Set<string>();
      for (const model of getModels(provider)) {
        expect(ids.has(model.id)).toBe(false);
        ids.add(model.id);
        expect(model.name.length).toBeGreaterThan(0);
        // gpt-4's 8K window is all output; Google's Gemma models are free on the Gemini API.
        expect(model.contextWindow).toBeGreaterThanOrEqual(model.maxTokens);
        expect(model.input).toContain("text");
        if (model.id.startsWith("gemma-")) {
          expect(model.cost).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
          continue;
        }
        expect(model.cost.input).toBeGreaterThan(0);
        expect(model.cost.output).toBeGreaterThan(model.cost.input);
        expect(model.cost.cacheRead).toBeLessThan(model.cost.input);
      }
    }
  });

  test("the offline faux model costs nothing and needs no network", () => {
    expect(getModels("faux").map((model) => model.id)).toEqual(["faux-1"]);
    expect(getModel("faux", "faux-1")).toMatchObject({
      api: "faux",
      baseUrl: "faux://local",
      reasoning: true,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    });
  });

  test("includes the families users ask for by name", () => {
    for (const [provider, id] of [
      ["anthropic", "claude-opus-5-5"],
      ["anthropic", "claude-opus-5"],
      ["anthropic", "claude-sonnet-5-5"],
      ["anthropic", "claude-haiku-5-5"],
      ["anthropic", "claude-fable-5-2"],
      ["anthropic", "claude-sonnet-4-5"],
      ["anthropic", "claude-haiku-4-5"],
      ["openai", "gpt-6.2-sol"],
      ["openai", "gpt-6.1-sol"],
      ["google", "gemini-4-argon"],
      ["openai", "gpt-5"],
      ["openai", "gpt-5-mini"],
      ["openai", "gpt-5-nano"],
      ["openai", "gpt-4.1"],
      ["openai", "o3"],
      ["openai", "o4-mini"],
      ["openai", "gpt-4o"],
      ["google", "gemini-2.5-pro"],
      ["google", "gemini-2.5-flash"],
      ["google", "gemini-2.5-flash-lite"],
      ["google", "gemini-3.1-pro-preview"],
    ]) {
      expect(getModel(provider, id)?.id).toBe(id);
    }
  });

  test("known prices per million tokens", () => {
    expect(getModel("anthropic", "claude-sonnet-4-5")?.cost).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(getModel("openai", "gpt-4o")?.cost).toEqual({ input: 2.5, output: 10, cacheRead: 1.25, cacheWrite: 0 });
    expect(getModel("google", "gemini-2.5-flash")?.cost.output).toBe(2.5);
    expect(getModel("anthropic", "claude-opus-5-5")?.cost).toEqual({ input: 4, output: 20, cacheRead: 0.2, cacheWrite: 5 });
  });

  test("thinking levels follow each model's controls", () => {
    expect(getSupportedThinkingLevels(getModel("openai", "gpt-4o")!)).toEqual(["off"]);
    expect(getSupportedThinkingLevels(getModel("openai", "o3")!)).toEqual(["low", "medium", "high"]);
    expect(getSupportedThinkingLevels(getModel("anthropic", "claude-opus-5-5")!)).toEqual(["low", "medium", "high", "xhigh"]);
    expect(getSupportedThinkingLevels(getModel("openai", "gpt-6.2-sol")!)).not.toContain("off");
    expect(getSupportedThinkingLevels(getModel("anthropic", "claude-opus-4-7")!)).toContain("xhigh");
    expect(getSupportedThinkingLevels(getModel("anthropic", "claude-sonnet-4-5")!)).toEqual(["off", "minimal", "low", "medium", "high"]);
  });

  test("unknown provider or id gives nothing", () => {
    expect(getModel("anthropic", "no-such-model")).toBeUndefined();
    expect(getModel("nobody", "gpt-4o")).toBeUndefined();
    expect(getModels("nobody")).toEqual([]);
  });

  test("callers get copies: changing one does not change the catalog", () => {
    const model = getModel("openai", "gpt-4o")!;
    model.baseUrl = "http://proxy";
    model.cost.input = 999;
    model.input.push("image");
    getModels("openai")[0].name = "changed";
    const fresh = getModel("openai", "gpt-4o")!;
    expect(fresh.baseUrl).toBe("https://api.openai.com/v1");
    expect(fresh.cost.input).toBe(2.5);
    expect(fresh.input).toEqual(["text", "image"]);
    expect(getModels("openai")[0].name).not.toBe("changed");
  });

  test("modelsAreEqual compares provider and id", () => {
    const a = getModel("openai", "gpt-4o")!;
    const renamed = { ...a, name: "other name", baseUrl: "http://proxy" };
    expect(modelsAreEqual(a, renamed)).toBe(true);
    expect(modelsAreEqual(a, { provider: "azure", id: "gpt-4o" })).toBe(false);
    expect(modelsAreEqual(a, getModel("openai", "o3"))).toBe(false);
    expect(modelsAreEqual(a, undefined)).toBe(false);
    expect(modelsAreEqual(null, null)).toBe(false);
  });
});
