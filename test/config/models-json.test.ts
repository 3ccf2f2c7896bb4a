import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ConfigError } from "../../src/config/errors.ts";
import { loadModelsJson } from "../../src/config/models-json.ts";
import { createConfigSandbox, type ConfigSandbox } from "./helpers.ts";

let sandbox: ConfigSandbox;
let file: string;
beforeEach(() => {
  sandbox = createConfigSandbox();
  file = join(sandbox.agentDir, "models.json");
});
afterEach(() => sandbox.cleanup());

function loadError(content: string | object): ConfigError {
  sandbox.write(file, content);
  try {
    loadModelsJson(file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).file).toBe(file);
    expect((error as ConfigError).message).toContain(file);
    return error as ConfigError;
  }
  throw new Error("expected loadModelsJson to throw");
}

describe("loadModelsJson", () => {
  test("a missing file means no custom providers", () => {
    expect(loadModelsJson(file)).toEqual({ providers: {} });
  });

  test("accepts the documented examples", () => {
    sandbox.write(file, {
      providers: {
        ollama: {
          baseUrl: "http://localhost:11434/v1",
          api: "openai-completions",
          apiKey: "ollama",
          compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [
            { id: "llama3.1:8b", name: "Llama 3.1 8B (Local)", input: ["text"], contextWindow: 128000, maxTokens: 32000, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } },
            { id: "deepseek-v4-pro", reasoning: true, thinkingLevelMap: { minimal: null, low: null, medium: null, high: "high", xhigh: "max" } },
          ],
        },
        anthropic: { baseUrl: "https://my-proxy.example.com/v1" },
        openrouter: {
          modelOverrides: { "anthropic/claude-sonnet-4": { name: "Claude Sonnet 4 (Bedrock Route)", compat: { openRouterRouting: { only: ["amazon-bedrock"] } } } },
        },
        "custom-proxy": {
          baseUrl: "https://proxy.example.com/v1",
          apiKey: "MY_API_KEY",
          api: "anthropic-messages",
          headers: { "x-portkey-api-key": "PORTKEY_API_KEY", "x-secret": "!op read 'op://vault/item/secret'" },
          authHeader: true,
          models: [{ id: "claude-opus-4-7", reasoning: true, input: ["text", "image"] }],
        },
      },
    });
    const config = loadModelsJson(file);
    expect(config.providers.ollama.models?.[0].id).toBe("llama3.1:8b");
    expect(config.providers.ollama.models?.[1].thinkingLevelMap?.xhigh).toBe("max");
    expect(config.providers["custom-proxy"].authHeader).toBe(true);
  });

  test("invalid JSON names the line and column", () => {
    const error = loadError('{\n  "providers": {\n    "ollama": { "baseUrl": http://localhost }\n  }\n}');
    expect(error.message).toContain('invalid JSON at line 3, column 28: unexpected character "h"');
  });

  test("a wrong type names the JSON path and what was expected", () => {
    const error = loadError({ providers: { ollama: { baseUrl: "http://x", api: "openai-completions", models: [{ id: 42 }] } } });
    expect(error.message).toContain("providers.ollama.models[0].id: expected a string (got 42)");
  });

  test("a missing model id is reported at the id", () => {
    const error = loadError({ providers: { ollama: { baseUrl: "http://x", api: "openai-completions", models: [{ name: "no id" }] } } });
    expect(error.message).toContain("providers.ollama.models[0].id: is required but missing");
  });

  test("odd keys are quoted in paths", () => {
    const error = loadError({ providers: { openrouter: { modelOverrides: { "anthropic/claude-sonnet-4": { maxTokens: "big" } } } } });
    expect(error.message).toContain('providers.openrouter.modelOverrides["anthropic/claude-sonnet-4"].maxTokens: expected a whole number (got "big")');
  });

  test("an unknown api lists the supported ones", () => {
    const error = loadError({ providers: { local: { baseUrl: "http://x", api: "openai-chat", models: [{ id: "m" }] } } });
    expect(error.message).toContain(
      'providers.local.api: expected one of "openai-completions", "openai-responses", "anthropic-messages", "google-generative-ai", "azure-openai-responses", "google-vertex", "bedrock-converse-stream" (got "openai-chat")',
    );
  });

  test("bad enum values inside compat and input are explained", () => {
    const error = loadError({
      providers: {
        local: {
          baseUrl: "http://x",
          api: "openai-completions",
          compat: { maxTokensField: "max_output_tokens" },
          models: [{ id: "m", input: ["text", "audio"] }],
        },
      },
    });
    expect(error.message).toContain('providers.local.compat.maxTokensField: expected one of "max_completion_tokens", "max_tokens"');
    expect(error.message).toContain('providers.local.models[0].input[1]: expected one of "text", "image" (got "audio")');
  });

  test("a custom provider with models needs baseUrl and api", () => {
    const error = loadError({ providers: { ollama: { apiKey: "ollama", models: [{ id: "llama3.1:8b" }] } } });
    expect(error.message).toContain('providers.ollama: "baseUrl" is required for a custom provider that defines models');
    expect(error.message).toContain('providers.ollama.models[0]: "api" is required, on the provider or on the model');
    expect(error.message).toContain("openai-completions, openai-responses, anthropic-messages, google-generative-ai");
  });

  test("a built-in provider may add models without baseUrl or api", () => {
    sandbox.write(file, { providers: { anthropic: { models: [{ id: "claude-next" }] } } });
    expect(loadModelsJson(file).providers.anthropic.models?.[0].id).toBe("claude-next");
  });

  test("a per-model api is enough when the provider has none", () => {
    sandbox.write(file, { providers: { mixed: { baseUrl: "http://x", models: [{ id: "a", api: "openai-responses" }] } } });
    expect(loadModelsJson(file).providers.mixed.models?.[0].api).toBe("openai-responses");
  });

  test("a baseUrl that is not a URL is rejected", () => {
    const error = loadError({ providers: { anthropic: { baseUrl: "my-proxy" } } });
    expect(error.message).toContain('providers.anthropic.baseUrl: "my-proxy" is not a URL');
  });

  test("the top level must be an object", () => {
    expect(loadError("[]").message).toContain('expected a JSON object with a "providers" object');
    expect(loadError({ providers: [] }).message).toContain("providers: expected an object (got [])");
  });
});
