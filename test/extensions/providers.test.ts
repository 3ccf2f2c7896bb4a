import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { getApiProvider } from "../../src/ai/api-registry.ts";
import { createAssistantMessageEventStream } from "../../src/ai/event-stream.ts";
import { getModels } from "../../src/ai/models.ts";
import { streamSimple } from "../../src/ai/stream.ts";
import type { AssistantMessage, Context, Model, SimpleStreamOptions } from "../../src/ai/types.ts";
import { emptyUsage } from "../../src/ai/usage.ts";
import { ModelRegistry } from "../../src/config/model-registry.ts";
import { registerExtensionProvider, unregisterExtensionProvider } from "../../src/extensions/providers.ts";
import type { ProviderConfig } from "../../src/extensions/types.ts";
import { createConfigSandbox, type ConfigSandbox } from "../config/helpers.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { collectStream } from "../support/stream-helpers.ts";

const SOURCE = "/extensions/test-provider.ts";

let server: FakeLlmServer;
let sandbox: ConfigSandbox;
let registry: ModelRegistry;
/** Providers a test registered; the api registry is process-wide, so each is removed afterwards. */
let registeredNames: string[];

beforeAll(() => {
  server = startFakeLlm();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  sandbox = createConfigSandbox();
  registry = ModelRegistry.load({ modelsJsonPath: join(sandbox.agentDir, "models.json") });
  registeredNames = [];
  server.requests.length = 0;
  server.clearScript();
});
afterEach(() => {
  for (const name of registeredNames) unregisterExtensionProvider(registry, name);
  sandbox.cleanup();
});

function register(name: string, config: ProviderConfig): void {
  registeredNames.push(name);
  registerExtensionProvider(registry, name, config, SOURCE);
}

const hello: Context = { systemPrompt: "Be brief.", messages: [{ role: "user", content: "Hi", timestamp: Date.now() }] };

/** A turn as the session runs it: key and headers from the registry, the stream picked by the model's api. */
async function ask(model: Model, options: SimpleStreamOptions = {}) {
  const apiKey = await registry.getApiKey(model);
  const headers = await registry.getHeaders(model, apiKey);
  return collectStream(streamSimple(model, hello, { apiKey, headers, ...options }));
}

function textOf(message: AssistantMessage): string {
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** A custom stream in the shape pi's custom-provider.md describes: start, one text block, done. */
function replyingStream(text: string) {
  return (model: Model, _context: Context, _options?: SimpleStreamOptions) => {
    const stream = createAssistantMessageEventStream();
    const output: AssistantMessage = {
      role: "assistant",
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
    queueMicrotask(() => {
      stream.push({ type: "start", partial: output });
      output.content.push({ type: "text", text: "" });
      stream.push({ type: "text_start", contentIndex: 0, partial: output });
      (output.content[0] as { text: string }).text = text;
      stream.push({ type: "text_delta", contentIndex: 0, delta: text, partial: output });
      stream.push({ type: "text_end", contentIndex: 0, content: text, partial: output });
      stream.push({ type: "done", reason: "stop", message: output });
      stream.end();
    });
    return stream;
  };
}

describe("a provider with models on a built-in API", () => {
  test("its models stream from its baseUrl with its key and headers, resolved from the environment", async () => {
    sandbox.setEnv("XCSH_TEST_PROXY_KEY", "sk-proxy-123");
    sandbox.setEnv("XCSH_TEST_TEAM", "platform");
    register("my-proxy", {
      name: "My Proxy",
      baseUrl: server.baseUrl("openai-completions"),
      apiKey: "$XCSH_TEST_PROXY_KEY",
      api: "openai-completions",
      headers: { "X-Team": "${XCSH_TEST_TEAM}", "X-Static": "literal-value" },
      models: [{ id: "proxy-large", name: "Proxy Large", reasoning: false, input: ["text"], contextWindow: 64000, maxTokens: 4096 }],
    });
    server.enqueue({ content: [{ type: "text", text: "Hi from the proxy." }] });

    const model = registry.find("my-proxy", "proxy-large")!;
    expect(model).toMatchObject({ api: "openai-completions", baseUrl: server.baseUrl("openai-completions"), contextWindow: 64000, maxTokens: 4096 });
    // Defaults of models.json custom models fill what the definition leaves out.
    expect(model.cost).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

    const { message } = await ask(model);
    expect(message.stopReason).toBe("stop");
    expect(textOf(message)).toBe("Hi from the proxy.");
    const request = server.requests[0];
    expect(request.model).toBe("proxy-large");
    expect(request.headers.authorization).toBe("Bearer sk-proxy-123");
    expect(request.headers["x-team"]).toBe("platform");
    expect(request.headers["x-static"]).toBe("literal-value");
  });

  test("its models are available exactly when the key resolves", () => {
    register("my-proxy", {
      baseUrl: "http://localhost:1234/v1",
      apiKey: "${XCSH_TEST_PROXY_KEY}",
      api: "openai-completions",
      models: [{ id: "m1" }],
    });
    const available = () => registry.getAvailable().some((model) => model.provider === "my-proxy");
    expect(available()).toBe(false);
    sandbox.setEnv("XCSH_TEST_PROXY_KEY", "sk-now-set");
    expect(available()).toBe(true);
  });

  test("apiKey takes an env var name, $$ and $! escapes and a !command", async () => {
    sandbox.setEnv("XCSH_TEST_PLAIN_KEY", "from-env");
    const keyOf = async (apiKey: string) => {
      register("keyed", { baseUrl: "http://localhost:1234/v1", apiKey, api: "openai-completions", models: [{ id: "k" }] });
      return registry.getApiKey({ provider: "keyed" });
    };
    expect(await keyOf("XCSH_TEST_PLAIN_KEY")).toBe("from-env");
    expect(await keyOf("sk-literal")).toBe("sk-literal");
    expect(await keyOf("pre$$fix")).toBe("pre$fix");
    expect(await keyOf("$!not-a-command")).toBe("!not-a-command");
    expect(await keyOf("!echo from-command")).toBe("from-command");
  });

  test("a model's own baseUrl and api win over the provider's", () => {
    register("mixed", {
      baseUrl: "http://provider.example/v1",
      apiKey: "k",
      api: "openai-completions",
      models: [{ id: "plain" }, { id: "special", baseUrl: "http://model.example/v1", api: "openai-responses" }],
    });
    expect(registry.find("mixed", "plain")).toMatchObject({ baseUrl: "http://provider.example/v1", api: "openai-completions" });
    expect(registry.find("mixed", "special")).toMatchObject({ baseUrl: "http://model.example/v1", api: "openai-responses" });
  });
});

describe("overriding a built-in provider", () => {
  test("a baseUrl without models sends every anthropic model to the new endpoint", async () => {
    sandbox.setEnv("ANTHROPIC_API_KEY", "sk-ant-test");
    register("anthropic", { baseUrl: server.url, headers: { "X-Proxy-Auth": "corp-token" } });
    server.enqueue({ content: [{ type: "text", text: "Proxied." }] });

    const models = registry.getAll().filter((model) => model.provider === "anthropic");
    expect(models.map((model) => model.id)).toEqual(getModels("anthropic").map((model) => model.id));
    expect(models.every((model) => model.baseUrl === server.url)).toBe(true);

    const { message } = await ask(models[0]);
    expect(textOf(message)).toBe("Proxied.");
    expect(server.requests[0].api).toBe("anthropic-messages");
    expect(server.requests[0].headers["x-api-key"]).toBe("sk-ant-test");
    expect(server.requests[0].headers["x-proxy-auth"]).toBe("corp-token");
  });

  test("a later registration without models changes settings of an earlier one and keeps its models", () => {
    register("acme", { baseUrl: "http://one.example/v1", apiKey: "k", api: "openai-completions", models: [{ id: "a" }, { id: "b" }] });
    register("acme", { baseUrl: "http://two.example/v1" });
    expect(registry.getAll().filter((model) => model.provider === "acme").map((model) => [model.id, model.baseUrl])).toEqual([
      ["a", "http://two.example/v1"],
      ["b", "http://two.example/v1"],
    ]);
  });
});

describe("a provider with its own streamSimple", () => {
  test("answers a turn through the stream it registered", async () => {
    register("echo", { apiKey: "none", api: "echo-api", streamSimple: replyingStream("Echo says hi."), models: [{ id: "echo-1" }] });
    const model = registry.find("echo", "echo-1")!;
    expect(model.api).toBe("echo-api");
    const { events, message } = await ask(model);
    expect(events.map((event) => event.type)).toEqual(["start", "text_start", "text_delta", "text_end", "done"]);
    expect(message).toMatchObject({ stopReason: "stop", provider: "echo", model: "echo-1" });
    expect(textOf(message)).toBe("Echo says hi.");
  });

  test("declared on a built-in API, it serves only its own models, which it sees with the declared api", async () => {
    let seenApi: string | undefined;
    const inner = replyingStream("Wrapped.");
    register("wrapper", {
      apiKey: "none",
      api: "anthropic-messages",
      streamSimple: (model: Model, context: Context, options?: SimpleStreamOptions) => {
        seenApi = model.api;
        return inner(model, context, options);
      },
      models: [{ id: "w-1" }],
    });
    const model = registry.find("wrapper", "w-1")!;
    expect(model.api).toBe("ext:wrapper");
    const { message } = await ask(model);
    expect(textOf(message)).toBe("Wrapped.");
    expect(seenApi).toBe("anthropic-messages");
    // The built-in API is still served by the built-in provider for everyone else.
    expect(getApiProvider("anthropic-messages")?.api).toBe("anthropic-messages");
    expect(registry.find("anthropic", getModels("anthropic")[0].id)?.api).toBe("anthropic-messages");
  });

  test("a stream that throws ends the turn with an error message instead of throwing", async () => {
    register("broken", {
      apiKey: "none",
      streamSimple: () => {
        throw new Error("backend exploded");
      },
      models: [{ id: "b-1" }],
    });
    const { events, message } = await ask(registry.find("broken", "b-1")!);
    expect(events.map((event) => event.type)).toEqual(["error"]);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain('provider "broken"');
    expect(message.errorMessage).toContain("backend exploded");
  });

  test("a stream that returns garbage, or stops without done, ends with an error too", async () => {
    register("garbage", { apiKey: "none", streamSimple: () => 42, models: [{ id: "g-1" }] });
    const garbage = await ask(registry.find("garbage", "g-1")!);
    expect(garbage.message.stopReason).toBe("error");
    expect(garbage.message.errorMessage).toContain("returned a number instead of an AssistantMessageEventStream");

    register("silent", {
      apiKey: "none",
      streamSimple: () => {
        const stream = createAssistantMessageEventStream();
        stream.end();
        return stream;
      },
      models: [{ id: "s-1" }],
    });
    const silent = await ask(registry.find("silent", "s-1")!);
    expect(silent.message.stopReason).toBe("error");
    expect(silent.message.errorMessage).toContain('ended without a "done" or "error" event');
  });
});

describe("unregisterProvider", () => {
  test("restores the built-in anthropic models and removes the ones registered", () => {
    const builtinIds = getModels("anthropic").map((model) => model.id);
    register("anthropic", { baseUrl: server.url, models: [{ id: "claude-proxy-only" }] });
    register("echo", { apiKey: "none", api: "echo-api", streamSimple: replyingStream("x"), models: [{ id: "echo-1" }] });
    expect(registry.getAll().filter((model) => model.provider === "anthropic").map((model) => model.id)).toEqual(["claude-proxy-only"]);

    unregisterExtensionProvider(registry, "anthropic");
    unregisterExtensionProvider(registry, "echo");
    const anthropic = registry.getAll().filter((model) => model.provider === "anthropic");
    expect(anthropic.map((model) => model.id)).toEqual(builtinIds);
    expect(anthropic.every((model) => model.baseUrl !== server.url)).toBe(true);
    expect(registry.getProviders()).not.toContain("echo");
    expect(getApiProvider("echo-api")).toBeUndefined();
  });

  test("restores what models.json configured for the provider", () => {
    sandbox.write(join(sandbox.agentDir, "models.json"), {
      providers: { local: { baseUrl: "http://localhost:11434/v1", api: "openai-completions", apiKey: "ollama", models: [{ id: "llama" }] } },
    });
    registry = ModelRegistry.load({ modelsJsonPath: join(sandbox.agentDir, "models.json") });
    register("local", { apiKey: "other", baseUrl: "http://elsewhere/v1", api: "openai-completions", models: [{ id: "qwen" }] });
    expect(registry.getAll().filter((model) => model.provider === "local").map((model) => model.id)).toEqual(["qwen"]);
    unregisterExtensionProvider(registry, "local");
    expect(registry.find("local", "llama")?.baseUrl).toBe("http://localhost:11434/v1");
    expect(registry.find("local", "qwen")).toBeUndefined();
  });

  test("an unknown name changes nothing", () => {
    const before = registry.getAll();
    unregisterExtensionProvider(registry, "never-registered");
    expect(registry.getAll()).toEqual(before);
  });
});

describe("a bad config", () => {
  const attempt = (name: string, config: unknown) => () => register(name, config as ProviderConfig);

  test("is an error naming the provider and the field, and changes nothing", () => {
    const before = registry.getAll();
    expect(attempt("acme", { apiKey: "k", api: "openai-completions", models: [{ id: "m" }] })).toThrow(
      'Invalid provider "acme": baseUrl: is required for models served by the "openai-completions" API',
    );
    expect(attempt("acme", { baseUrl: "http://a/v1", apiKey: "k", api: "openai-completions", models: [{ name: "no id" }] })).toThrow(
      'Invalid provider "acme": models[0].id: is required but missing',
    );
    expect(attempt("acme", { baseUrl: "http://a/v1", apiKey: "k", models: [{ id: "m" }] })).toThrow('Invalid provider "acme": models[0].api: is required');
    expect(attempt("acme", { baseUrl: "not a url", apiKey: "k", api: "openai-completions", models: [{ id: "m" }] })).toThrow(
      'Invalid provider "acme": baseUrl: "not a url" is not a URL',
    );
    expect(attempt("acme", { baseUrl: "http://a/v1", api: "openai-completions", models: [{ id: "m" }] })).toThrow('Invalid provider "acme": apiKey: is required');
    expect(attempt("acme", { apiKey: "k", streamSimple: "nope", models: [{ id: "m" }] })).toThrow('Invalid provider "acme": streamSimple: expected a function');
    expect(attempt("anthropic", { models: [{ id: "m", contextWindow: "big" }] })).toThrow('Invalid provider "anthropic": models[0].contextWindow: expected a whole number');
    expect(registry.getAll()).toEqual(before);
  });

  test("a custom stream needs no baseUrl, and a built-in provider's catalog supplies one", () => {
    register("echo", { apiKey: "none", streamSimple: replyingStream("x"), models: [{ id: "e" }] });
    expect(registry.find("echo", "e")).toMatchObject({ api: "ext:echo", baseUrl: "" });
    register("openai", { models: [{ id: "gpt-custom" }] });
    expect(registry.find("openai", "gpt-custom")?.baseUrl).toBe(getModels("openai")[0].baseUrl);
  });
});
