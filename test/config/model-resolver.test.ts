import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ModelRegistry } from "../../src/config/model-registry.ts";
import { resolveModel, type ResolveModelOptions, type ResolveModelResult } from "../../src/config/model-resolver.ts";
import { createConfigSandbox, type ConfigSandbox } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(() => {
  sandbox = createConfigSandbox();
});
afterEach(() => sandbox.cleanup());

const LOCAL_PROVIDERS = {
  ollama: {
    baseUrl: "http://localhost:11434/v1",
    api: "openai-completions",
    apiKey: "ollama",
    models: [{ id: "llama3.1:8b" }, { id: "qwen:low" }, { id: "gpt-oss:20b", reasoning: true }],
  },
  openrouter: {
    baseUrl: "https://openrouter.ai/api/v1",
    api: "openai-completions",
    models: [{ id: "anthropic/claude-sonnet-4", name: "OpenRouter Claude Sonnet 4" }],
  },
};

function registry(providers: object = LOCAL_PROVIDERS): ModelRegistry {
  sandbox.write(join(sandbox.agentDir, "models.json"), { providers });
  return ModelRegistry.load();
}

function resolve(options: Partial<ResolveModelOptions>, from = registry()): ResolveModelResult {
  return resolveModel(from, { settings: {}, ...options });
}

/** The picked model as provider/id, its thinking level, and any warning; fails on an error. */
function picked(result: ResolveModelResult): { ref: string; thinking: string; warning?: string } {
  if ("error" in result) throw new Error(`unexpected error: ${result.error}`);
  return { ref: `${result.model.provider}/${result.model.id}`, thinking: result.thinkingLevel, warning: result.warning };
}

describe("--model matching", () => {
  test("provider/id picks exactly that model", () => {
    expect(picked(resolve({ model: "openai/gpt-4o" })).ref).toBe("openai/gpt-4o");
    expect(picked(resolve({ model: "anthropic/claude-sonnet-4-5" })).ref).toBe("anthropic/claude-sonnet-4-5");
  });

  test("an exact id wins over models that merely contain it", () => {
    // "gpt-5" is also a substring of gpt-5.2, gpt-5.1, gpt-5-mini, ... which come first in the catalog.
    expect(picked(resolve({ model: "gpt-5" })).ref).toBe("openai/gpt-5");
    expect(picked(resolve({ model: "GPT-4o" })).ref).toBe("openai/gpt-4o");
  });

  test("a pattern matches id or name, case-insensitively, first in catalog order", () => {
    // Each provider's ids run highest version first, so a family name finds its newest model.
    expect(picked(resolve({ model: "sonnet" })).ref).toBe("anthropic/claude-sonnet-5-5");
    expect(picked(resolve({ model: "2.5 Flash-Lite" })).ref).toBe("google/gemini-2.5-flash-lite");
    expect(picked(resolve({ model: "anthropic/haiku" })).ref).toBe("anthropic/claude-haiku-5-5");
  });

  test("among several matches, one with an API key beats catalog order", () => {
    const withProxy = registry({
      proxy: { baseUrl: "http://p/v1", api: "anthropic-messages", apiKey: "sk-proxy", models: [{ id: "team-sonnet" }] },
    });
    expect(picked(resolve({ model: "sonnet" }, withProxy)).ref).toBe("proxy/team-sonnet");
    sandbox.setEnv("ANTHROPIC_API_KEY", "sk-ant");
    expect(picked(resolve({ model: "sonnet" }, withProxy)).ref).toBe("anthropic/claude-sonnet-5-5");
  });

  test("the provider given wins over availability and catalog order", () => {
    sandbox.setEnv("ANTHROPIC_API_KEY", "sk-ant");
    const withProxy = registry({
      proxy: { baseUrl: "http://p/v1", api: "anthropic-messages", models: [{ id: "claude-sonnet-4-5" }] },
    });
    expect(picked(resolve({ model: "claude-sonnet-4-5" }, withProxy)).ref).toBe("anthropic/claude-sonnet-4-5");
    expect(picked(resolve({ provider: "proxy", model: "claude-sonnet-4-5" }, withProxy)).ref).toBe("proxy/claude-sonnet-4-5");
    expect(picked(resolve({ provider: "proxy", model: "sonnet" }, withProxy)).ref).toBe("proxy/claude-sonnet-4-5");
  });

  test("ids containing ':' and '/' are matched whole", () => {
    expect(picked(resolve({ model: "llama3.1:8b" }))).toEqual({ ref: "ollama/llama3.1:8b", thinking: "off", warning: undefined });
    expect(picked(resolve({ model: "ollama/llama3.1:8b" })).ref).toBe("ollama/llama3.1:8b");
    // An exact id beats reading "anthropic/" as a provider prefix.
    expect(picked(resolve({ model: "anthropic/claude-sonnet-4" })).ref).toBe("openrouter/anthropic/claude-sonnet-4");
    expect(picked(resolve({ model: "openrouter/anthropic/claude-sonnet-4" })).ref).toBe("openrouter/anthropic/claude-sonnet-4");
  });

  test("unknown model and unknown provider say what to do", () => {
    expect(resolve({ model: "no-such-model" })).toEqual({
      error: 'Unknown model "no-such-model". Run xcsh --list-models to see the available models.',
    });
    expect(resolve({ provider: "nope", model: "gpt-4o" })).toEqual({
      error: 'Unknown provider "nope". Known providers: anthropic, openai, google, faux, ollama, openrouter.',
    });
  });
});

describe("thinking level", () => {
  test("a :level suffix sets the thinking level, and is only stripped when it is a level", () => {
    expect(picked(resolve({ model: "sonnet:high" }))).toMatchObject({ ref: "anthropic/claude-sonnet-5-5", thinking: "high" });
    expect(picked(resolve({ model: "llama3.1:8b:high" }))).toMatchObject({ ref: "ollama/llama3.1:8b", thinking: "off" });
    expect(picked(resolve({ model: "ollama/gpt-oss:20b:medium" }))).toEqual({ ref: "ollama/gpt-oss:20b", thinking: "medium", warning: undefined });
    // A model whose id really ends in ":low" is taken whole.
    expect(picked(resolve({ model: "qwen:low" }))).toMatchObject({ ref: "ollama/qwen:low", thinking: "off" });
  });

  test("explicit thinking beats the suffix, which beats settings, which beat off", () => {
    const settings = { defaultThinkingLevel: "low" as const };
    expect(picked(resolve({ model: "claude-sonnet-4-5:high", thinking: "minimal", settings })).thinking).toBe("minimal");
    expect(picked(resolve({ model: "claude-sonnet-4-5:high", settings })).thinking).toBe("high");
    expect(picked(resolve({ model: "claude-sonnet-4-5", settings })).thinking).toBe("low");
    expect(picked(resolve({ model: "claude-sonnet-4-5" })).thinking).toBe("off");
  });

  test("a level the model lacks is clamped, with a warning when the user asked for it", () => {
    expect(picked(resolve({ model: "o3:minimal" }))).toEqual({
      ref: "openai/o3",
      thinking: "low",
      warning: 'Model openai/o3 does not support thinking level "minimal"; using "low".',
    });
    expect(picked(resolve({ model: "gpt-4o", thinking: "high" }))).toEqual({
      ref: "openai/gpt-4o",
      thinking: "off",
      warning: 'Model openai/gpt-4o does not support thinking; using "off".',
    });
    // From settings or the default: clamped quietly.
    expect(picked(resolve({ model: "gpt-4o", settings: { defaultThinkingLevel: "high" } }))).toEqual({ ref: "openai/gpt-4o", thinking: "off", warning: undefined });
    // GPT-6.2 Sol always reasons, at "low" at least.
    expect(picked(resolve({ model: "gpt-6.2-sol" }))).toEqual({ ref: "openai/gpt-6.2-sol", thinking: "low", warning: undefined });
  });

  test("an invalid --thinking value lists the levels", () => {
    expect(resolve({ model: "gpt-4o", thinking: "huge" })).toEqual({
      error: 'Invalid thinking level "huge". Use one of: off, minimal, low, medium, high, xhigh, max.',
    });
  });
});

describe("without --model", () => {
  test("settings defaultProvider/defaultModel are used", () => {
    const settings = { defaultProvider: "openai", defaultModel: "o3", defaultThinkingLevel: "high" as const };
    expect(picked(resolve({ settings }))).toEqual({ ref: "openai/o3", thinking: "high", warning: undefined });
    expect(picked(resolve({ settings: { defaultModel: "llama3.1:8b" } })).ref).toBe("ollama/llama3.1:8b");
  });

  test("a settings model that no longer exists falls back with a warning", () => {
    const result = picked(resolve({ settings: { defaultProvider: "anthropic", defaultModel: "claude-retired" } }));
    expect(result.ref).toBe("ollama/llama3.1:8b");
    expect(result.warning).toBe('The default model "anthropic/claude-retired" from settings was not found. Using ollama/llama3.1:8b.');
  });

  test("the first available model, trying anthropic, openai, google, then others", () => {
    const local = registry();
    expect(picked(resolve({}, local)).ref).toBe("ollama/llama3.1:8b");
    sandbox.setEnv("GEMINI_API_KEY", "gem");
    expect(picked(resolve({}, local)).ref).toBe("google/gemini-4-argon");
    sandbox.setEnv("OPENAI_API_KEY", "sk-openai");
    expect(picked(resolve({}, local)).ref).toBe("openai/gpt-6.2-sol");
    sandbox.setEnv("ANTHROPIC_API_KEY", "sk-ant");
    expect(picked(resolve({}, local)).ref).toBe("anthropic/claude-opus-5-5");
  });

  test("--provider alone picks that provider's everyday model", () => {
    expect(picked(resolve({ provider: "openai" })).ref).toBe("openai/gpt-6.2-sol");
    expect(picked(resolve({ provider: "ollama" })).ref).toBe("ollama/llama3.1:8b");
    const settings = { defaultProvider: "openai", defaultModel: "gpt-4.1" };
    expect(picked(resolve({ provider: "openai", settings })).ref).toBe("openai/gpt-4.1");
  });

  test("with no key anywhere, the error names the env vars and models.json", () => {
    const modelsJson = join(sandbox.agentDir, "models.json");
    expect(resolve({}, registry({}))).toEqual({
      error: `No model available: no API key is configured. Set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY, or add a provider with an "apiKey" to ${modelsJson}. To try xcsh without a key: xcsh --provider faux.`,
      missingKey: true,
    });
  });
});
