import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { getModel, getModels } from "../../src/ai/models.ts";
import { ConfigError } from "../../src/config/errors.ts";
import { ModelRegistry } from "../../src/config/model-registry.ts";
import { createConfigSandbox, type ConfigSandbox } from "./helpers.ts";

let sandbox: ConfigSandbox;
let modelsJson: string;
beforeEach(() => {
  sandbox = createConfigSandbox();
  modelsJson = join(sandbox.agentDir, "models.json");
});
afterEach(() => sandbox.cleanup());

/** Writes models.json into the sandbox agent dir and loads the registry the default way. */
function registryWith(providers: object): ModelRegistry {
  sandbox.write(modelsJson, { providers });
  return ModelRegistry.load();
}

describe("ModelRegistry.load", () => {
  test("reads models.json from the agent dir by default, or from the path given", () => {
    sandbox.write(modelsJson, { providers: { local: { baseUrl: "http://a/v1", api: "openai-completions", models: [{ id: "from-default" }] } } });
    const other = sandbox.write(join(sandbox.projectDir, "other.json"), {
      providers: { local: { baseUrl: "http://b/v1", api: "openai-completions", models: [{ id: "from-option" }] } },
    });
    expect(ModelRegistry.load().find("local", "from-default")).toBeDefined();
    expect(ModelRegistry.load().modelsJsonPath).toBe(modelsJson);
    expect(ModelRegistry.load({ modelsJsonPath: other }).find("local", "from-option")?.baseUrl).toBe("http://b/v1");
  });

  test("without models.json, the built-in catalog is all there is", () => {
    const registry = ModelRegistry.load();
    const expected = [...getModels("anthropic"), ...getModels("openai"), ...getModels("google"), ...getModels("faux")];
    expect(registry.getAll()).toEqual(expected);
    expect(registry.getProviders()).toEqual(["anthropic", "openai", "google", "faux"]);
  });

  test("a broken models.json is a ConfigError naming the file", () => {
    sandbox.write(modelsJson, '{ "providers": { ');
    expect(() => ModelRegistry.load()).toThrow(ConfigError);
    expect(() => ModelRegistry.load()).toThrow(`${modelsJson}: invalid JSON at line 1, column 18: expected a property name`);
  });
});

describe("merging models.json into the catalog", () => {
  test("custom models get the documented defaults", () => {
    const registry = registryWith({
      ollama: { baseUrl: "http://localhost:11434/v1", api: "openai-completions", apiKey: "ollama", models: [{ id: "llama3.1:8b" }] },
    });
    expect(registry.find("ollama", "llama3.1:8b")).toEqual({
      id: "llama3.1:8b",
      name: "llama3.1:8b",
      api: "openai-completions",
      provider: "ollama",
      baseUrl: "http://localhost:11434/v1",
      reasoning: false,
      input: ["text"],
      contextWindow: 128000,
      maxTokens: 16384,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    });
  });

  test("custom providers come after the built-in ones, in file order", () => {
    const registry = registryWith({
      zeta: { baseUrl: "http://z/v1", api: "openai-completions", models: [{ id: "z1" }, { id: "z2" }] },
      alpha: { baseUrl: "http://a/v1", api: "openai-completions", models: [{ id: "a1" }] },
    });
    expect(registry.getProviders()).toEqual(["anthropic", "openai", "google", "faux", "zeta", "alpha"]);
    expect(registry.getAll().slice(-3).map((model) => model.id)).toEqual(["z1", "z2", "a1"]);
  });

  test("model-level api and partial cost override the provider's and the defaults", () => {
    const registry = registryWith({
      mixed: {
        baseUrl: "http://m/v1",
        api: "openai-completions",
        models: [{ id: "r", api: "openai-responses", reasoning: true, cost: { input: 1, output: 2 }, thinkingLevelMap: { off: null } }],
      },
    });
    const model = registry.find("mixed", "r")!;
    expect(model.api).toBe("openai-responses");
    expect(model.cost).toEqual({ input: 1, output: 2, cacheRead: 0, cacheWrite: 0 });
    expect(model.thinkingLevelMap).toEqual({ off: null });
  });

  test("a provider-level baseUrl routes every built-in model of that provider through a proxy", () => {
    const registry = registryWith({ anthropic: { baseUrl: "https://my-proxy.example.com/v1" } });
    const anthropic = registry.getAll().filter((model) => model.provider === "anthropic");
    expect(anthropic.length).toBe(getModels("anthropic").length);
    for (const model of anthropic) expect(model.baseUrl).toBe("https://my-proxy.example.com/v1");
    expect(registry.find("openai", "gpt-4o")?.baseUrl).toBe("https://api.openai.com/v1");
  });

  test("provider-level api and compat apply to its built-in models", () => {
    const registry = registryWith({ openai: { api: "openai-completions", compat: { supportsStore: false } } });
    const model = registry.find("openai", "gpt-4o")!;
    expect(model.api).toBe("openai-completions");
    // Over the model's own quirks from the catalog.
    expect(model.compat).toEqual({ ...getModels("openai").find((candidate) => candidate.id === "gpt-4o")!.compat, supportsStore: false });
  });

  test("custom models are upserted by id into a built-in provider", () => {
    const registry = registryWith({
      anthropic: {
        baseUrl: "https://my-proxy.example.com/v1",
        models: [
          { id: "claude-sonnet-4-5", name: "Sonnet via proxy", contextWindow: 50000 },
          { id: "claude-next", reasoning: true },
        ],
      },
    });
    const anthropicIds = registry.getAll().filter((model) => model.provider === "anthropic").map((model) => model.id);
    // Built-ins kept, the replaced one stays in place, the new one is appended.
    expect(anthropicIds).toEqual([...getModels("anthropic").map((model) => model.id), "claude-next"]);
    const replaced = registry.find("anthropic", "claude-sonnet-4-5")!;
    expect(replaced.name).toBe("Sonnet via proxy");
    expect(replaced.contextWindow).toBe(50000);
    expect(replaced.maxTokens).toBe(16384); // a replacement starts from the defaults, not the built-in
    expect(replaced.api).toBe("anthropic-messages"); // inherited from the built-in provider
    expect(replaced.baseUrl).toBe("https://my-proxy.example.com/v1");
    expect(registry.find("anthropic", "claude-next")?.baseUrl).toBe("https://my-proxy.example.com/v1");
  });

  test("a custom model added to a built-in provider without baseUrl uses the built-in endpoint", () => {
    const registry = registryWith({ google: { models: [{ id: "gemma-4-31b-it" }] } });
    const model = registry.find("google", "gemma-4-31b-it")!;
    expect(model.baseUrl).toBe("https://generativelanguage.googleapis.com/v1beta");
    expect(model.api).toBe("google-generative-ai");
  });

  test("modelOverrides change only the named built-in model; unknown ids are ignored", () => {
    const builtin = getModel("openai", "gpt-4o")!;
    const registry = registryWith({
      openai: {
        compat: { supportsStore: false, supportsStrictMode: true },
        modelOverrides: {
          "gpt-4o": { name: "GPT-4o (team)", maxTokens: 8000, cost: { input: 1 }, compat: { supportsStrictMode: false } },
          "gpt-unknown": { name: "ignored" },
        },
      },
    });
    const model = registry.find("openai", "gpt-4o")!;
    expect(model.name).toBe("GPT-4o (team)");
    expect(model.maxTokens).toBe(8000);
    expect(model.contextWindow).toBe(builtin.contextWindow);
    expect(model.cost).toEqual({ ...builtin.cost, input: 1 });
    expect(model.compat).toEqual({ supportsStore: false, supportsStrictMode: false });
    expect(registry.find("openai", "gpt-unknown")).toBeUndefined();
    expect(registry.find("openai", "gpt-4.1")?.name).toBe("GPT-4.1");
  });

  test("a custom model replaces an overridden built-in entry", () => {
    const registry = registryWith({
      openai: { modelOverrides: { "gpt-4o": { name: "overridden", maxTokens: 8000 } }, models: [{ id: "gpt-4o", name: "custom" }] },
    });
    const model = registry.find("openai", "gpt-4o")!;
    expect(model.name).toBe("custom");
    expect(model.maxTokens).toBe(16384);
  });

  test("provider compat and model compat are merged, model winning", () => {
    const registry = registryWith({
      ollama: {
        baseUrl: "http://localhost:11434/v1",
        api: "openai-completions",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: "gpt-oss:20b", reasoning: true, compat: { supportsReasoningEffort: true, maxTokensField: "max_tokens" } }, { id: "plain" }],
      },
    });
    expect(registry.find("ollama", "gpt-oss:20b")?.compat).toEqual({
      supportsDeveloperRole: false,
      supportsReasoningEffort: true,
      maxTokensField: "max_tokens",
    });
    expect(registry.find("ollama", "plain")?.compat).toEqual({ supportsDeveloperRole: false, supportsReasoningEffort: false });
  });

  test("returned models are copies", () => {
    const registry = ModelRegistry.load();
    registry.find("openai", "gpt-4o")!.baseUrl = "http://changed";
    registry.getAll()[0].name = "changed";
    expect(registry.find("openai", "gpt-4o")?.baseUrl).toBe("https://api.openai.com/v1");
    expect(registry.getAll()[0].name).not.toBe("changed");
  });
});

describe("auth", () => {
  test("hasAuth: models.json apiKey or the provider's env var; getAvailable follows", () => {
    const registry = registryWith({
      ollama: { baseUrl: "http://l/v1", api: "openai-completions", apiKey: "ollama", models: [{ id: "llama3.1:8b" }] },
      nokey: { baseUrl: "http://n/v1", api: "openai-completions", models: [{ id: "n1" }] },
    });
    // faux needs no key, so it is always available.
    expect(registry.getAvailable().map((model) => `${model.provider}/${model.id}`)).toEqual(["faux/faux-1", "ollama/llama3.1:8b"]);
    sandbox.setEnv("OPENAI_API_KEY", "sk-openai");
    expect(registry.hasAuth(registry.find("openai", "gpt-4o")!)).toBe(true);
    expect(registry.hasAuth(registry.find("anthropic", "claude-sonnet-4-5")!)).toBe(false);
    expect(registry.hasAuth(registry.find("nokey", "n1")!)).toBe(false);
    expect(new Set(registry.getAvailable().map((model) => model.provider))).toEqual(new Set(["openai", "faux", "ollama"]));
  });

  test("hasAuth never runs a !command", () => {
    const marker = join(sandbox.agentDir, "ran");
    const registry = registryWith({
      vault: { baseUrl: "http://v/v1", api: "openai-completions", apiKey: `!touch '${marker}'; echo key`, models: [{ id: "v1" }] },
    });
    expect(registry.hasAuth(registry.find("vault", "v1")!)).toBe(true);
    expect(registry.getAvailable().some((model) => model.provider === "vault")).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });

  test("getApiKey: override, then models.json (env name, literal, command), then env var", async () => {
    sandbox.setEnv("ANTHROPIC_API_KEY", "sk-ant-env");
    sandbox.setEnv("PROXY_KEY", "sk-proxy-from-env");
    const registry = registryWith({
      anthropic: { baseUrl: "https://proxy.example.com", apiKey: "PROXY_KEY" },
      literal: { baseUrl: "http://l/v1", api: "openai-completions", apiKey: "sk-literal", models: [{ id: "m" }] },
      command: { baseUrl: "http://c/v1", api: "openai-completions", apiKey: "!echo sk-from-command", models: [{ id: "m" }] },
    });
    const sonnet = registry.find("anthropic", "claude-sonnet-4-5")!;
    expect(await registry.getApiKey(sonnet, "sk-override")).toBe("sk-override");
    expect(await registry.getApiKey(sonnet)).toBe("sk-proxy-from-env");
    expect(await registry.getApiKey(registry.find("literal", "m")!)).toBe("sk-literal");
    expect(await registry.getApiKey(registry.find("command", "m")!)).toBe("sk-from-command");
    sandbox.setEnv("GEMINI_API_KEY", "gem-env");
    expect(await registry.getApiKey(registry.find("google", "gemini-2.5-pro")!)).toBe("gem-env");
    expect(await registry.getApiKey(registry.find("openai", "gpt-4o")!)).toBeUndefined();
  });

  test("a failing apiKey command names the provider, models.json and the command's stderr", async () => {
    const registry = registryWith({
      vault: { baseUrl: "http://v/v1", api: "openai-completions", apiKey: "!echo locked >&2; exit 1", models: [{ id: "v1" }] },
    });
    const attempt = registry.getApiKey(registry.find("vault", "v1")!);
    await expect(attempt).rejects.toThrow(`Cannot resolve the "apiKey" of provider "vault" in ${modelsJson}`);
    await expect(registry.getApiKey(registry.find("vault", "v1")!)).rejects.toThrow("exit code 1: locked");
  });
});

describe("headers", () => {
  test("returned models carry no unresolved header values", () => {
    const registry = registryWith({
      "custom-proxy": {
        baseUrl: "https://proxy.example.com/v1",
        api: "anthropic-messages",
        headers: { "x-secret": "!echo s3cret" },
        models: [{ id: "m", headers: { "x-model": "MODEL_HEADER" } }],
      },
    });
    expect(registry.find("custom-proxy", "m")?.headers).toBeUndefined();
    expect(JSON.stringify(registry.getAll())).not.toContain("echo s3cret");
  });

  test("getHeaders resolves provider and model headers, model winning", async () => {
    sandbox.setEnv("PORTKEY_API_KEY", "pk-123");
    const registry = registryWith({
      "custom-proxy": {
        baseUrl: "https://proxy.example.com/v1",
        api: "anthropic-messages",
        apiKey: "sk-proxy",
        headers: { "x-portkey-api-key": "PORTKEY_API_KEY", "x-secret": "!echo s3cret", "x-shared": "provider" },
        models: [{ id: "m", headers: { "x-shared": "model" } }, { id: "plain" }],
      },
      openai: { modelOverrides: { "gpt-4o": { headers: { "x-team": "blue" } } } },
    });
    expect(await registry.getHeaders(registry.find("custom-proxy", "m")!)).toEqual({
      "x-portkey-api-key": "pk-123",
      "x-secret": "s3cret",
      "x-shared": "model",
    });
    expect((await registry.getHeaders(registry.find("custom-proxy", "plain")!))["x-shared"]).toBe("provider");
    expect(await registry.getHeaders(registry.find("openai", "gpt-4o")!)).toEqual({ "x-team": "blue" });
    expect(await registry.getHeaders(registry.find("openai", "gpt-4.1")!)).toEqual({});
  });

  test("authHeader adds Authorization: Bearer with the resolved key", async () => {
    sandbox.setEnv("LOCAL_KEY", "sk-local");
    const registry = registryWith({
      local: { baseUrl: "http://l/v1", api: "openai-completions", apiKey: "LOCAL_KEY", authHeader: true, models: [{ id: "m" }] },
      plain: { baseUrl: "http://p/v1", api: "openai-completions", apiKey: "LOCAL_KEY", models: [{ id: "m" }] },
    });
    expect(await registry.getHeaders(registry.find("local", "m")!)).toEqual({ Authorization: "Bearer sk-local" });
    expect(await registry.getHeaders(registry.find("local", "m")!, "sk-given")).toEqual({ Authorization: "Bearer sk-given" });
    expect(await registry.getHeaders(registry.find("plain", "m")!)).toEqual({});
  });

  test("a failing header command names the header and provider", async () => {
    const registry = registryWith({
      p: { baseUrl: "http://p/v1", api: "openai-completions", headers: { "x-secret": "!exit 7" }, models: [{ id: "m" }] },
    });
    await expect(registry.getHeaders(registry.find("p", "m")!)).rejects.toThrow(
      `Cannot resolve the header "x-secret" of provider "p" in ${modelsJson}: Command "exit 7" failed with exit code 7`,
    );
  });
});
