/**
 * The anthropic-messages provider end to end: the real SDK against the fake LLM
 * server, which answers in Anthropic's streaming wire format.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { isContextOverflow, isTransientError } from "../../../src/ai/errors.ts";
import { stream, streamSimple } from "../../../src/ai/providers/anthropic.ts";
import type {
  AssistantMessage,
  AssistantMessageEvent,
  Context,
  Model,
  ProviderStreamOptions,
  Tool,
  ToolResultMessage,
} from "../../../src/ai/types.ts";
import { startFakeLlm, type FakeBlock, type FakeLlmServer } from "../../support/fake-llm/server.ts";
import { collectStream, waitUntil } from "../../support/stream-helpers.ts";

let server: FakeLlmServer;

beforeAll(() => {
  server = startFakeLlm();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

function makeModel(overrides: Partial<Model> = {}): Model {
  return {
    id: "claude-sonnet-4-20250514",
    name: "Claude Sonnet 4",
    api: "anthropic-messages",
    provider: "anthropic",
    baseUrl: server.baseUrl("anthropic-messages"),
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    contextWindow: 200_000,
    maxTokens: 64_000,
    ...overrides,
  };
}

const KEY = { apiKey: "sk-ant-test-key" };

function userContext(text: string, extra: Partial<Context> = {}): Context {
  return { systemPrompt: "You are a careful assistant.", messages: [{ role: "user", content: text, timestamp: 1 }], ...extra };
}

function lastBody() {
  return server.requests[server.requests.length - 1].body;
}

const readTool: Tool = {
  name: "read",
  description: "Read a file",
  parameters: {
    type: "object",
    properties: { path: { type: "string" }, limit: { type: "number" } },
    required: ["path"],
  } as unknown as Tool["parameters"],
};

function assistantFrom(model: Model, content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"] = "stop"): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason,
    timestamp: 2,
  };
}

describe("text streaming", () => {
  test("emits start, text events and done with the final message, usage and cost", async () => {
    server.enqueue({
      content: [{ type: "text", text: "Hello there, world!" }],
      usage: { input: 1200, output: 42, cacheRead: 300, cacheWrite: 100 },
      chunkSize: 5,
    });
    const model = makeModel();
    const { events, message } = await collectStream(stream(model, userContext("Say hello"), KEY));

    expect(events.map((event) => event.type)).toEqual([
      "start",
      "text_start",
      "text_delta",
      "text_delta",
      "text_delta",
      "text_delta",
      "text_end",
      "done",
    ]);
    const deltas = events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : []));
    expect(deltas.join("")).toBe("Hello there, world!");

    expect(message.content).toEqual([{ type: "text", text: "Hello there, world!" }]);
    expect(message.stopReason).toBe("stop");
    expect(message.api).toBe("anthropic-messages");
    expect(message.provider).toBe("anthropic");
    expect(message.model).toBe("claude-sonnet-4-20250514");
    expect(message.responseId).toMatch(/^msg_01[A-Za-z0-9]{22}$/);
    expect(message.usage).toMatchObject({ input: 1200, output: 42, cacheRead: 300, cacheWrite: 100, totalTokens: 1642 });
    expect(message.usage.cost.input).toBeCloseTo((1200 * 3) / 1e6, 12);
    expect(message.usage.cost.output).toBeCloseTo((42 * 15) / 1e6, 12);
    expect(message.usage.cost.cacheRead).toBeCloseTo((300 * 0.3) / 1e6, 12);
    expect(message.usage.cost.cacheWrite).toBeCloseTo((100 * 3.75) / 1e6, 12);
    expect(message.usage.cost.total).toBeCloseTo((1200 * 3 + 42 * 15 + 300 * 0.3 + 100 * 3.75) / 1e6, 12);
  });

  test("sends the model, key, max_tokens, system prompt and cache breakpoints", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    await collectStream(stream(makeModel(), userContext("Hi"), { ...KEY, temperature: 0.3 }));

    const request = server.requests[0];
    expect(request.path).toBe("/v1/messages");
    // This SDK generation sends the API key as a bearer token.
    expect(request.headers.authorization).toBe("Bearer sk-ant-test-key");
    expect(request.body).toMatchObject({ model: "claude-sonnet-4-20250514", max_tokens: 64_000, stream: true, temperature: 0.3 });
    expect(request.body.system).toEqual([{ type: "text", text: "You are a careful assistant.", cache_control: { type: "ephemeral" } }]);
    expect(request.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Hi", cache_control: { type: "ephemeral" } }] },
    ]);
    expect(request.body.thinking).toBeUndefined();
  });

  test("cacheRetention none sends no breakpoints; long asks for a one-hour cache unless the model cannot", async () => {
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] }, { content: [{ type: "text", text: "c" }] });
    await collectStream(stream(makeModel(), userContext("Hi"), { ...KEY, cacheRetention: "none" }));
    expect(JSON.stringify(lastBody())).not.toContain("cache_control");

    await collectStream(stream(makeModel(), userContext("Hi"), { ...KEY, cacheRetention: "long" }));
    expect(lastBody().system[0].cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(lastBody().messages[0].content[0].cache_control).toEqual({ type: "ephemeral", ttl: "1h" });

    const noLong = makeModel({ compat: { supportsLongCacheRetention: false } });
    await collectStream(stream(noLong, userContext("Hi"), { ...KEY, cacheRetention: "long" }));
    expect(lastBody().system[0].cache_control).toEqual({ type: "ephemeral" });
  });

  test("model and option headers reach the server", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const model = makeModel({ headers: { "x-proxy-tenant": "team-a", "x-shared": "model" } });
    await collectStream(stream(model, userContext("Hi"), { ...KEY, headers: { "x-shared": "options" } }));
    expect(server.requests[0].headers["x-proxy-tenant"]).toBe("team-a");
    expect(server.requests[0].headers["x-shared"]).toBe("options");
  });

  test("a reply cut off by max_tokens ends with stopReason length", async () => {
    server.enqueue({ content: [{ type: "text", text: "The answer is" }], stopReason: "length" });
    const { message } = await collectStream(stream(makeModel(), userContext("Go"), KEY));
    expect(message.stopReason).toBe("length");
    expect(message.content).toEqual([{ type: "text", text: "The answer is" }]);
  });
});

describe("thinking", () => {
  test("streams thinking with its signature, and a follow-up replays it", async () => {
    server.enqueue({
      content: [
        { type: "thinking", thinking: "The user greets me; greet back.", signature: "EqQBCkYIBRgCKkDsig" },
        { type: "text", text: "Hello!" },
      ],
      chunkSize: 10,
    });
    const model = makeModel();
    const context = userContext("Hello");
    const { events, message } = await collectStream(stream(model, context, { ...KEY, thinkingEnabled: true, thinkingBudgetTokens: 2048 }));

    const types = events.map((event) => event.type);
    expect(types.slice(0, 3)).toEqual(["start", "thinking_start", "thinking_delta"]);
    expect(types).toContain("thinking_end");
    expect(types.indexOf("thinking_end")).toBeLessThan(types.indexOf("text_start"));
    expect(message.content).toEqual([
      { type: "thinking", thinking: "The user greets me; greet back.", thinkingSignature: "EqQBCkYIBRgCKkDsig" },
      { type: "text", text: "Hello!" },
    ]);
    expect(server.requests[0].body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });

    server.enqueue({ content: [{ type: "text", text: "Fine." }] });
    context.messages.push(message, { role: "user", content: "How are you?", timestamp: 3 });
    await collectStream(stream(model, context, KEY));
    expect(server.requests[1].body.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "The user greets me; greet back.", signature: "EqQBCkYIBRgCKkDsig" },
        { type: "text", text: "Hello!" },
      ],
    });
  });

  test("thinking from another model is replayed as text, without its signature", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const model = makeModel();
    const foreign = assistantFrom(makeModel({ id: "claude-opus-4-1" }), [
      { type: "thinking", thinking: "Earlier reasoning", thinkingSignature: "other-model-sig" },
      { type: "text", text: "Earlier answer" },
    ]);
    const context: Context = {
      messages: [{ role: "user", content: "Q1", timestamp: 1 }, foreign, { role: "user", content: "Q2", timestamp: 3 }],
    };
    await collectStream(stream(model, context, KEY));
    expect(lastBody().messages[1].content).toEqual([
      { type: "text", text: "Earlier reasoning" },
      { type: "text", text: "Earlier answer" },
    ]);
  });

  test("redacted thinking is kept as an opaque block and sent back as redacted_thinking", async () => {
    // The script's thinking block with the encoder's `redacted` flag.
    const redacted = { type: "thinking" as const, thinking: "", signature: "EmwKAhgBEgy3va3pzix/LafPsn4a", redacted: true };
    server.enqueue({ content: [redacted as FakeBlock, { type: "text", text: "Done." }] });
    const model = makeModel();
    const context = userContext("Hi");
    const { message } = await collectStream(stream(model, context, { ...KEY, thinkingEnabled: true }));

    const thinking = message.content[0];
    expect(thinking).toMatchObject({ type: "thinking", redacted: true, thinkingSignature: "EmwKAhgBEgy3va3pzix/LafPsn4a" });

    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    context.messages.push(message, { role: "user", content: "Next", timestamp: 3 });
    await collectStream(stream(model, context, KEY));
    expect(lastBody().messages[1].content).toEqual([
      { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4a" },
      { type: "text", text: "Done." },
    ]);
  });

  test("streamSimple maps a reasoning level to a thinking budget, raising max_tokens above it", async () => {
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
    const model = makeModel();
    await collectStream(streamSimple(model, userContext("Think"), { ...KEY, reasoning: "high", maxTokens: 8000, temperature: 0.2 }));
    const body = lastBody();
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 32768 });
    expect(body.max_tokens).toBeGreaterThan(32768);
    expect(body.max_tokens).toBeLessThanOrEqual(model.maxTokens);
    // The API refuses a custom temperature while thinking.
    expect(body.temperature).toBeUndefined();

    await collectStream(streamSimple(model, userContext("Think"), { ...KEY, reasoning: "low", thinkingBudgets: { low: 3000 } }));
    expect(lastBody().thinking).toEqual({ type: "enabled", budget_tokens: 3000 });
  });

  test("streamSimple sends no thinking when reasoning is off or the model cannot reason", async () => {
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
    await collectStream(streamSimple(makeModel(), userContext("Hi"), { ...KEY, reasoning: undefined, temperature: 0.5 }));
    expect(lastBody().thinking).toBeUndefined();
    expect(lastBody().temperature).toBe(0.5);

    await collectStream(streamSimple(makeModel({ id: "claude-3-5-haiku", reasoning: false }), userContext("Hi"), { ...KEY, reasoning: "high" }));
    expect(lastBody().thinking).toBeUndefined();
    expect(lastBody().output_config).toBeUndefined();
  });

  test("a model with compat.supportsTemperature false never gets a temperature (no caller reaches it through the binary)", async () => {
    server.enqueue({ content: [{ type: "text", text: "a" }] });
    await collectStream(streamSimple(makeModel({ compat: { supportsTemperature: false } }), userContext("Hi"), { ...KEY, temperature: 0.5 }));
    expect(lastBody().temperature).toBeUndefined();
  });

  test("adaptive-thinking models (compat.forceAdaptiveThinking) get thinking type adaptive with an effort", async () => {
    server.enqueue({ content: [{ type: "text", text: "a" }] });
    const model = makeModel({ id: "claude-opus-4-6", maxTokens: 128_000, compat: { forceAdaptiveThinking: true } });
    await collectStream(streamSimple(model, userContext("Think"), { ...KEY, reasoning: "medium" }));
    expect(lastBody().thinking).toEqual({ type: "adaptive" });
    expect(lastBody().output_config).toEqual({ effort: "medium" });
  });
});

describe("tool calls", () => {
  test("arguments stream progressively and the turn ends with toolUse", async () => {
    server.enqueue({
      content: [
        { type: "text", text: "Reading it." },
        { type: "toolCall", name: "read", arguments: { path: "/srv/app/config/settings.json", limit: 20 } },
      ],
      chunkSize: 6,
    });
    const events = stream(makeModel(), userContext("Show the settings", { tools: [readTool] }), KEY);
    const partials: string[] = [];
    const seen: AssistantMessageEvent[] = [];
    for await (const event of events) {
      seen.push(event);
      // The partial message is live; snapshot what a client would render at this moment.
      if (event.type === "toolcall_delta") partials.push(JSON.stringify((event.partial.content[event.contentIndex] as { arguments: unknown }).arguments));
    }
    const message = await events.result();

    const types = seen.map((event) => event.type);
    expect(types).toContain("toolcall_start");
    expect(types.filter((type) => type === "toolcall_delta").length).toBeGreaterThan(3);
    // Before the end a client already saw the path, without the limit.
    expect(partials.some((snapshot) => snapshot.includes("/srv/app") && !snapshot.includes("limit"))).toBe(true);

    const end = seen.find((event) => event.type === "toolcall_end");
    expect(end?.type === "toolcall_end" && end.toolCall.arguments).toEqual({ path: "/srv/app/config/settings.json", limit: 20 });
    expect(message.stopReason).toBe("toolUse");
    const call = message.content[1];
    expect(call).toMatchObject({ type: "toolCall", name: "read", arguments: { path: "/srv/app/config/settings.json", limit: 20 } });
    expect(call.type === "toolCall" && call.id).toMatch(/^toolu_01[A-Za-z0-9]{22}$/);

    expect(server.requests[0].body.tools).toEqual([
      // The last tool closes the cached tool list.
      { name: "read", description: "Read a file", input_schema: readTool.parameters, eager_input_streaming: true, cache_control: { type: "ephemeral" } },
    ]);
    expect(server.requests[0].headers["anthropic-beta"]).toBeUndefined();
  });

  test("the second turn sends the tool calls and consecutive results in one user turn", async () => {
    const model = makeModel();
    const assistant = assistantFrom(
      model,
      [
        { type: "toolCall", id: "toolu_01A", name: "read", arguments: { path: "a.txt" } },
        { type: "toolCall", id: "toolu_01B", name: "read", arguments: { path: "b.txt" } },
      ],
      "toolUse",
    );
    const results: ToolResultMessage[] = [
      { role: "toolResult", toolCallId: "toolu_01A", toolName: "read", content: [{ type: "text", text: "alpha" }], isError: false, timestamp: 3 },
      { role: "toolResult", toolCallId: "toolu_01B", toolName: "read", content: [{ type: "text", text: "ENOENT: b.txt" }], isError: true, timestamp: 4 },
    ];
    server.enqueue({ content: [{ type: "text", text: "a.txt says alpha" }] });
    await collectStream(stream(model, { messages: [{ role: "user", content: "Read both", timestamp: 1 }, assistant, ...results], tools: [readTool] }, KEY));

    const body = lastBody();
    expect(body.messages).toHaveLength(3);
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "tool_use", id: "toolu_01A", name: "read", input: { path: "a.txt" } },
        { type: "tool_use", id: "toolu_01B", name: "read", input: { path: "b.txt" } },
      ],
    });
    expect(body.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_01A", content: [{ type: "text", text: "alpha" }] },
        {
          type: "tool_result",
          tool_use_id: "toolu_01B",
          content: [{ type: "text", text: "ENOENT: b.txt" }],
          is_error: true,
          cache_control: { type: "ephemeral" },
        },
      ],
    });
  });

  test("tool-call ids from another API are rewritten to a form Anthropic accepts, the same in call and result", async () => {
    const foreignModel = makeModel({ api: "openai-responses", provider: "openai", id: "gpt-5" });
    const foreignId = "call_9xYz|fc_68a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071829";
    const assistant = assistantFrom(foreignModel, [{ type: "toolCall", id: foreignId, name: "read", arguments: { path: "x" } }], "toolUse");
    const result: ToolResultMessage = {
      role: "toolResult",
      toolCallId: foreignId,
      toolName: "read",
      content: [{ type: "text", text: "x!" }],
      isError: false,
      timestamp: 3,
    };
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    await collectStream(stream(makeModel(), { messages: [{ role: "user", content: "go", timestamp: 1 }, assistant, result] }, KEY));

    const body = lastBody();
    const callId = body.messages[1].content[0].id;
    expect(callId).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(body.messages[2].content[0].tool_use_id).toBe(callId);
  });

  test("without eager input streaming the fine-grained streaming beta header is sent instead", async () => {
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
    const model = makeModel({ compat: { supportsEagerToolInputStreaming: false } });
    await collectStream(stream(model, userContext("Hi", { tools: [readTool] }), KEY));
    expect(server.requests[0].body.tools[0].eager_input_streaming).toBeUndefined();
    expect(server.requests[0].headers["anthropic-beta"]).toContain("fine-grained-tool-streaming-2025-05-14");

    // A request without tools does not need it.
    await collectStream(stream(model, userContext("Hi"), KEY));
    expect(server.requests[1].headers["anthropic-beta"]).toBeUndefined();
  });
});

describe("images", () => {
  const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

  test("images in a user message and in a tool result reach the request as base64 blocks", async () => {
    const model = makeModel();
    const assistant = assistantFrom(model, [{ type: "toolCall", id: "toolu_01S", name: "screenshot", arguments: {} }], "toolUse");
    const context: Context = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this picture?" },
            { type: "image", data: PNG, mimeType: "image/png" },
          ],
          timestamp: 1,
        },
        assistant,
        {
          role: "toolResult",
          toolCallId: "toolu_01S",
          toolName: "screenshot",
          content: [
            { type: "text", text: "Screenshot taken" },
            { type: "image", data: PNG, mimeType: "image/jpeg" },
          ],
          isError: false,
          timestamp: 3,
        },
      ],
    };
    server.enqueue({ content: [{ type: "text", text: "A pixel." }] });
    await collectStream(stream(model, context, KEY));

    const body = lastBody();
    // The user message before the last is where the previous request ended: a cache breakpoint.
    expect(body.messages[0].content).toEqual([
      { type: "text", text: "What is in this picture?" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG }, cache_control: { type: "ephemeral" } },
    ]);
    expect(body.messages[2].content[0].content).toEqual([
      { type: "text", text: "Screenshot taken" },
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: PNG } },
    ]);
  });
});

describe("errors", () => {
  test.each([
    [429, "Number of request tokens has exceeded your per-minute rate limit"],
    [500, "Internal server error"],
    [529, "Overloaded"],
  ])("HTTP %i ends in an error the retry logic treats as transient", async (status, text) => {
    server.enqueue({ type: "error", status, message: text });
    const { events, message } = await collectStream(stream(makeModel(), userContext("Hi"), KEY));
    expect(events.at(-1)?.type).toBe("error");
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain(String(status));
    expect(message.errorMessage).toContain(text);
    expect(isTransientError(message)).toBe(true);
  });

  test("the overload body names its error type", async () => {
    server.enqueue({ type: "error", status: 529, message: "Overloaded" });
    const { message } = await collectStream(stream(makeModel(), userContext("Hi"), KEY));
    expect(message.errorMessage).toContain("overloaded_error");
  });

  test("a 400 prompt-too-long is recognised as context overflow and not retried", async () => {
    server.enqueue({ type: "error", status: 400, message: "prompt is too long: 213462 tokens > 200000 maximum" });
    const { message } = await collectStream(stream(makeModel(), userContext("Hi"), KEY));
    expect(message.stopReason).toBe("error");
    expect(isContextOverflow(message)).toBe(true);
    expect(isTransientError(message)).toBe(false);
  });

  test("a 401 is not transient", async () => {
    server.enqueue({ type: "error", status: 401, message: "invalid x-api-key" });
    const { message } = await collectStream(stream(makeModel(), userContext("Hi"), KEY));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("401");
    expect(message.errorMessage).toContain("invalid x-api-key");
    expect(isTransientError(message)).toBe(false);
  });

  test("without an API key the error names the environment variable and nothing is sent", async () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      const { message } = await collectStream(stream(makeModel(), userContext("Hi")));
      expect(message.stopReason).toBe("error");
      expect(message.errorMessage).toContain("ANTHROPIC_API_KEY");
      expect(server.requests).toHaveLength(0);
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });
});

describe("abort", () => {
  test("aborting mid-stream ends promptly with stopReason aborted and closes the connection", async () => {
    server.enqueue({ content: [{ type: "text", text: "A long answer that will never finish streaming." }], chunkSize: 4, stallAfterEvents: 5 });
    const controller = new AbortController();
    const events = stream(makeModel(), userContext("Talk"), { ...KEY, signal: controller.signal });
    let abortedAt = 0;
    const seen: AssistantMessageEvent[] = [];
    for await (const event of events) {
      seen.push(event);
      if (event.type === "text_delta" && !abortedAt) {
        abortedAt = Date.now();
        controller.abort();
      }
    }
    const message = await events.result();
    expect(Date.now() - abortedAt).toBeLessThan(1000);
    expect(message.stopReason).toBe("aborted");
    expect(message.content[0]).toMatchObject({ type: "text" });
    expect(seen.at(-1)?.type).toBe("error");
    await waitUntil(() => server.openStreams() === 0);
    expect(server.openStreams()).toBe(0);
  });
});

describe("onPayload", () => {
  test("a replaced payload is what the server receives", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    let seenModel: Model | undefined;
    const options: ProviderStreamOptions = {
      ...KEY,
      onPayload: (payload, model) => {
        seenModel = model;
        return { ...(payload as Record<string, unknown>), max_tokens: 1234, stop_sequences: ["END"] };
      },
    };
    const { message } = await collectStream(stream(makeModel(), userContext("Hi"), options));
    expect(message.stopReason).toBe("stop");
    expect(seenModel?.id).toBe("claude-sonnet-4-20250514");
    expect(lastBody().max_tokens).toBe(1234);
    expect(lastBody().stop_sequences).toEqual(["END"]);
  });
});

describe("lazy loading", () => {
  test("the SDK loads when the provider is first used, not when the registry is imported", async () => {
    const script = `
      const { getApiProvider } = await import("./src/ai/api-registry.ts");
      process.stderr.write("registry-ready\\n");
      const provider = getApiProvider("anthropic-messages");
      const events = provider.stream(
        { id: "m", name: "m", api: "anthropic-messages", provider: "anthropic", baseUrl: "http://127.0.0.1:9", reasoning: false,
          input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 },
        { messages: [] }, {});
      await events.result();
    `;
    const child = Bun.spawn(["bun", "-e", script], {
      cwd: `${import.meta.dir}/../../..`,
      env: { ...process.env, XCSH_TRACE_LOAD: "1", ANTHROPIC_API_KEY: "" },
      stderr: "pipe",
      stdout: "ignore",
    });
    const stderr = await new Response(child.stderr).text();
    await child.exited;
    const ready = stderr.indexOf("registry-ready");
    const loaded = stderr.indexOf("loaded @anthropic-ai/sdk");
    expect(ready).toBeGreaterThanOrEqual(0);
    expect(loaded).toBeGreaterThan(ready);
  });
});

