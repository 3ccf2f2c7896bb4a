import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { isContextOverflow, isTransientError } from "../../../src/ai/errors.ts";
import { stream, streamSimple } from "../../../src/ai/providers/openai-completions.ts";
import { buildPayload, detectCompat } from "../../../src/ai/providers/openai-completions-convert.ts";
import type {
  AssistantMessage,
  AssistantMessageEvent,
  Context,
  Model,
  ModelCompat,
  ToolResultMessage,
  UserMessage,
} from "../../../src/ai/types.ts";
import { startFakeLlm, type FakeLlmServer, type FakeReply } from "../../support/fake-llm/server.ts";
import { collectStream } from "../../support/stream-helpers.ts";

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

const KEY = "sk-test-key";
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

function makeModel(overrides: Partial<Model> = {}): Model {
  return {
    id: "gpt-fake",
    name: "GPT Fake",
    api: "openai-completions",
    provider: "openai",
    baseUrl: server.baseUrl("openai-completions"),
    reasoning: false,
    input: ["text", "image"],
    cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 1 },
    contextWindow: 128000,
    maxTokens: 4096,
    ...overrides,
  };
}

function reasoningModel(compat?: ModelCompat, overrides: Partial<Model> = {}): Model {
  return makeModel({ id: "reasoner-fake", reasoning: true, compat, ...overrides });
}

const user = (content: UserMessage["content"]): UserMessage => ({ role: "user", content, timestamp: Date.now() });
const hello: Context = { systemPrompt: "You are terse.", messages: [user("Hi")] };

const lastBody = () => server.requests[server.requests.length - 1].body;

const readTool = {
  name: "read",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } as never,
};

describe("text streaming", () => {
  test("emits start, text events and done with the final message", async () => {
    server.enqueue({ content: [{ type: "text", text: "Hello there, friend!" }], chunkSize: 6, usage: { input: 12, output: 4 } });
    const { events, message } = await collectStream(stream(makeModel(), hello, { apiKey: KEY }));

    const types = events.map((e) => e.type);
    expect(types[0]).toBe("start");
    expect(types[1]).toBe("text_start");
    expect(types.filter((t) => t === "text_delta").length).toBe(4);
    expect(types.slice(-2)).toEqual(["text_end", "done"]);
    const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : []));
    expect(deltas.join("")).toBe("Hello there, friend!");

    expect(message.content).toEqual([{ type: "text", text: "Hello there, friend!" }]);
    expect(message.stopReason).toBe("stop");
    expect(message.api).toBe("openai-completions");
    expect(message.provider).toBe("openai");
    expect(message.model).toBe("gpt-fake");
    expect(message.responseId).toBe("chatcmpl-resp_1");
    expect(message.usage.input).toBe(12);
    expect(message.usage.output).toBe(4);
    expect(message.usage.totalTokens).toBe(16);
  });

  test("sends a conservative request to an unknown host", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    await collectStream(stream(makeModel(), hello, { apiKey: KEY, temperature: 0.3, headers: { "x-extra": "yes" } }));
    const request = server.requests[0];
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers["x-extra"]).toBe("yes");
    expect(request.body).toMatchObject({
      model: "gpt-fake",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 4096,
      temperature: 0.3,
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Hi" },
      ],
    });
    expect(request.body.max_completion_tokens).toBeUndefined();
    expect(request.body.store).toBeUndefined();
  });

  test("reports the response model when the server names another one", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }], model: "gpt-fake-2025-01-01" });
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: KEY }));
    expect(message.model).toBe("gpt-fake");
    expect(message.responseModel).toBe("gpt-fake-2025-01-01");
  });

  test("a length stop is reported as length", async () => {
    server.enqueue({ content: [{ type: "text", text: "cut" }], stopReason: "length" });
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: KEY, maxTokens: 3 }));
    expect(message.stopReason).toBe("length");
    expect(lastBody().max_tokens).toBe(3);
  });
});

describe("thinking", () => {
  const thinkingReply: FakeReply = {
    content: [
      { type: "thinking", thinking: "Let me think about it." },
      { type: "text", text: "Answer." },
    ],
    chunkSize: 5,
  };

  test("streams reasoning_content as a thinking block before the text", async () => {
    server.enqueue(thinkingReply);
    const { events, message } = await collectStream(streamSimple(reasoningModel(), hello, { apiKey: KEY, reasoning: "medium" }));
    const types = events.map((e) => e.type);
    expect(types.slice(0, 3)).toEqual(["start", "thinking_start", "thinking_delta"]);
    // As in pi 1.6.0, Chat Completions blocks close together when the stream ends, in content order.
    expect(types.indexOf("thinking_end")).toBeGreaterThan(types.lastIndexOf("text_delta"));
    expect(types.indexOf("thinking_end")).toBeLessThan(types.indexOf("text_end"));
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Let me think about it.", thinkingSignature: "reasoning_content" },
      { type: "text", text: "Answer." },
    ]);
  });

  test("replays own thinking as reasoning_content only where the server requires it", async () => {
    server.enqueue(thinkingReply);
    const model = reasoningModel({ requiresReasoningContentOnAssistantMessages: true });
    const first = await collectStream(streamSimple(model, hello, { apiKey: KEY, reasoning: "high" }));
    const followUp: Context = { messages: [...hello.messages, first.message, user("And then?")] };

    server.enqueue({ content: [{ type: "text", text: "Then this." }] });
    await collectStream(streamSimple(model, followUp, { apiKey: KEY, reasoning: "high" }));
    const assistant = lastBody().messages.find((m: any) => m.role === "assistant");
    expect(assistant).toEqual({ role: "assistant", content: "Answer.", reasoning_content: "Let me think about it." });

    // OpenAI-style servers reject the field: it is dropped.
    server.enqueue({ content: [{ type: "text", text: "Then this." }] });
    await collectStream(streamSimple(reasoningModel(), followUp, { apiKey: KEY, reasoning: "high" }));
    const plain = lastBody().messages.find((m: any) => m.role === "assistant");
    expect(plain).toEqual({ role: "assistant", content: "Answer." });

    // Servers that only take text get the thinking as text.
    server.enqueue({ content: [{ type: "text", text: "Then this." }] });
    await collectStream(streamSimple(reasoningModel({ requiresThinkingAsText: true }), followUp, { apiKey: KEY }));
    const asText = lastBody().messages.find((m: any) => m.role === "assistant");
    expect(asText).toEqual({ role: "assistant", content: "Let me think about it.\n\nAnswer." });
  });

  test("sends an empty reasoning_content on assistant messages without thinking when reasoning is on", async () => {
    const earlier: AssistantMessage = {
      role: "assistant",
      content: [{ type: "text", text: "Earlier." }],
      api: "openai-completions",
      provider: "openai",
      model: "reasoner-fake",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "stop",
      timestamp: Date.now(),
    };
    const context: Context = { messages: [user("a"), earlier, user("b")] };
    const model = reasoningModel({ requiresReasoningContentOnAssistantMessages: true });
    server.enqueue({ content: [{ type: "text", text: "ok" }] }, { content: [{ type: "text", text: "ok" }] });
    await collectStream(streamSimple(model, context, { apiKey: KEY, reasoning: "low" }));
    expect(lastBody().messages[1]).toEqual({ role: "assistant", content: "Earlier.", reasoning_content: "" });
    await collectStream(streamSimple(model, context, { apiKey: KEY }));
    expect(lastBody().messages[1]).toEqual({ role: "assistant", content: "Earlier." });
  });

  test("streamSimple maps the level to reasoning_effort, and sends none when off or unsupported", async () => {
    const ok: FakeReply = { content: [{ type: "text", text: "ok" }] };
    server.enqueue(ok, ok, ok, ok, ok);

    await collectStream(streamSimple(reasoningModel(), hello, { apiKey: KEY, reasoning: "high" }));
    expect(lastBody().reasoning_effort).toBe("high");

    await collectStream(streamSimple(reasoningModel(), hello, { apiKey: KEY }));
    expect("reasoning_effort" in lastBody()).toBe(false);

    await collectStream(streamSimple(makeModel(), hello, { apiKey: KEY, reasoning: "high" }));
    expect("reasoning_effort" in lastBody()).toBe(false);

    // xhigh exists only where the model's map says so; elsewhere it clamps down to high.
    await collectStream(streamSimple(reasoningModel(), hello, { apiKey: KEY, reasoning: "xhigh" }));
    expect(lastBody().reasoning_effort).toBe("high");
    await collectStream(streamSimple(reasoningModel(undefined, { thinkingLevelMap: { xhigh: "xhigh" } }), hello, { apiKey: KEY, reasoning: "xhigh" }));
    expect(lastBody().reasoning_effort).toBe("xhigh");
  });

  test("supportsReasoningEffort: false keeps reasoning_effort out", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    await collectStream(streamSimple(reasoningModel({ supportsReasoningEffort: false }), hello, { apiKey: KEY, reasoning: "high" }));
    expect("reasoning_effort" in lastBody()).toBe(false);
  });

  test("each thinkingFormat puts the level where its servers look", async () => {
    const cases: { format: ModelCompat["thinkingFormat"]; on: Record<string, unknown>; off: Record<string, unknown> }[] = [
      { format: "openrouter", on: { reasoning: { effort: "high" } }, off: {} },
      { format: "deepseek", on: { thinking: { type: "enabled" }, reasoning_effort: "high" }, off: { thinking: { type: "disabled" } } },
      { format: "zai", on: { enable_thinking: true }, off: { enable_thinking: false } },
      { format: "qwen", on: { enable_thinking: true }, off: { enable_thinking: false } },
      { format: "qwen-chat-template", on: { chat_template_kwargs: { enable_thinking: true } }, off: { chat_template_kwargs: { enable_thinking: false } } },
      { format: "together", on: { reasoning: { enabled: true }, reasoning_effort: "high" }, off: { reasoning: { enabled: false } } },
      { format: "string-thinking", on: { thinking: "high" }, off: { thinking: "none" } },
      { format: "ant-ling", on: { reasoning: { effort: "high" } }, off: {} },
      { format: "chat-template", on: {}, off: {} },
    ];
    const knobs = ["reasoning", "reasoning_effort", "thinking", "enable_thinking", "chat_template_kwargs", "chat_template_args"];
    const pick = (body: Record<string, unknown>) => Object.fromEntries(knobs.filter((k) => k in body).map((k) => [k, body[k]]));
    for (const { format, on, off } of cases) {
      const model = reasoningModel({ thinkingFormat: format });
      server.enqueue({ content: [{ type: "text", text: "ok" }] }, { content: [{ type: "text", text: "ok" }] });
      await collectStream(streamSimple(model, hello, { apiKey: KEY, reasoning: "high" }));
      expect({ format, knobs: pick(lastBody()) }).toEqual({ format, knobs: on });
      await collectStream(streamSimple(model, hello, { apiKey: KEY }));
      expect({ format, knobs: pick(lastBody()) }).toEqual({ format, knobs: off });
    }
  });

  test("chat-template and baseten fill their template fields per request: enabled, budget, effort, omitWhenOff", async () => {
    const template = { enable_thinking: { $var: "thinking.enabled" }, budget: { $var: "thinking.budget" }, effort: { $var: "thinking.effort", omitWhenOff: true }, fixed: 7 };
    for (const [format, field] of [["chat-template", "chat_template_kwargs"], ["baseten", "chat_template_args"]] as const) {
      const model = reasoningModel({ thinkingFormat: format, chatTemplateKwargs: template, chatTemplateArgs: template, supportsReasoningEffort: false });
      server.enqueue({ content: [{ type: "text", text: "ok" }] }, { content: [{ type: "text", text: "ok" }] });
      await collectStream(streamSimple(model, hello, { apiKey: KEY, reasoning: "low" }));
      expect({ format, sent: lastBody()[field] }).toEqual({ format, sent: { enable_thinking: true, budget: 3072, effort: "low", fixed: 7 } });
      await collectStream(streamSimple(model, hello, { apiKey: KEY }));
      expect({ format, sent: lastBody()[field] }).toEqual({ format, sent: { enable_thinking: false, fixed: 7 } });
    }
  });

  test("reads the reasoning and reasoning_text fields other servers stream", async () => {
    const frames = [
      { reasoning: "Plan A" },
      { reasoning: ", then B." },
      { content: "Done." },
    ].map((delta) => `data: ${JSON.stringify({ id: "x1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
    // vLLM sends both names for the same text; it must not be doubled.
    frames.unshift(
      `data: ${JSON.stringify({ id: "x1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { reasoning: "Hm. ", reasoning_content: "Hm. " }, finish_reason: null }] })}\n\n`,
    );
    frames.push(`data: ${JSON.stringify({ id: "x1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`, "data: [DONE]\n\n");
    server.enqueue(rawStream(frames));
    const { message } = await collectStream(streamSimple(reasoningModel(), hello, { apiKey: KEY, reasoning: "low" }));
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Hm. Plan A, then B.", thinkingSignature: "reasoning_content" },
      { type: "text", text: "Done." },
    ]);
  });
});

/** A hand-written SSE body, for wire shapes the scripted encoder does not produce. */
function rawStream(frames: string[]) {
  return { type: "error" as const, status: 200, body: frames.join(""), headers: { "content-type": "text/event-stream" } };
}

describe("tool calls", () => {
  test("stream arguments progressively and end with toolUse", async () => {
    server.enqueue({
      content: [
        { type: "text", text: "Reading." },
        { type: "toolCall", id: "call_abc", name: "read", arguments: { path: "/tmp/some/long/file.txt" } },
      ],
      chunkSize: 7,
    });
    // The partial message is live, so what a client sees must be read as the events arrive.
    const pathsSeen: unknown[] = [];
    const events: AssistantMessageEvent[] = [];
    for await (const event of stream(makeModel(), { messages: [user("read it")], tools: [readTool] }, { apiKey: KEY })) {
      events.push(event);
      if (event.type === "toolcall_delta") pathsSeen.push((event.partial.content[event.contentIndex] as any).arguments.path);
    }
    const last = events[events.length - 1];
    if (last.type !== "done") throw new Error(`ended with ${last.type}`);
    const message = last.message;

    const start = events.findIndex((e) => e.type === "toolcall_start");
    const end = events.findIndex((e) => e.type === "toolcall_end");
    // As in pi 1.6.0, the text block closes when the stream ends: after the call began, before the call's own end.
    const textEnd = events.findIndex((e) => e.type === "text_end");
    expect(textEnd).toBeGreaterThan(start);
    expect(textEnd).toBe(end - 1);
    expect(events.slice(start + 1, textEnd).every((e) => e.type === "toolcall_delta")).toBe(true);
    // Partial arguments are visible before the call ends.
    const partialPaths = pathsSeen.filter((p): p is string => typeof p === "string" && p !== "/tmp/some/long/file.txt");
    expect(partialPaths.length).toBeGreaterThan(0);
    for (const path of partialPaths) expect("/tmp/some/long/file.txt".startsWith(path)).toBe(true);

    const endEvent = events[end] as Extract<AssistantMessageEvent, { type: "toolcall_end" }>;
    expect(endEvent.toolCall).toEqual({ type: "toolCall", id: "call_abc", name: "read", arguments: { path: "/tmp/some/long/file.txt" } });
    expect(message.stopReason).toBe("toolUse");

    expect(server.requests[0].body.tools).toEqual([
      {
        type: "function",
        function: {
          name: "read",
          description: "Read a file",
          parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        },
      },
    ]);
  });

  test("the second turn sends the call and its result back", async () => {
    server.enqueue({ content: [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt" } }] });
    const context: Context = { messages: [user("read a.txt")], tools: [readTool] };
    const first = await collectStream(stream(makeModel(), context, { apiKey: KEY }));
    const result: ToolResultMessage = {
      role: "toolResult",
      toolCallId: "call_1",
      toolName: "read",
      content: [{ type: "text", text: "file contents" }],
      isError: false,
      timestamp: Date.now(),
    };
    server.enqueue({ content: [{ type: "text", text: "It says file contents." }] });
    const second = await collectStream(stream(makeModel(), { ...context, messages: [...context.messages, first.message, result] }, { apiKey: KEY }));
    expect(second.message.stopReason).toBe("stop");
    expect(lastBody().messages).toEqual([
      { role: "user", content: "read a.txt" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: "file contents" },
    ]);
  });

  test("interleaved calls are kept apart by index", async () => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: "x2", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    server.enqueue(
      rawStream([
        chunk({ role: "assistant", content: null }),
        chunk({ tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "read", arguments: '{"pa' } }] }),
        chunk({ tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "read", arguments: '{"path"' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"x"}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: ':"y"}' } }] }),
        chunk({}, "tool_calls"),
        "data: [DONE]\n\n",
      ]),
    );
    const { message } = await collectStream(stream(makeModel(), { messages: [user("two")], tools: [readTool] }, { apiKey: KEY }));
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([
      { type: "toolCall", id: "call_a", name: "read", arguments: { path: "x" } },
      { type: "toolCall", id: "call_b", name: "read", arguments: { path: "y" } },
    ]);
  });

  test("a content_filter finish ends the message with an error", async () => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: "x3", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    server.enqueue(rawStream([chunk({ content: "Some" }), chunk({}, "content_filter"), "data: [DONE]\n\n"]));
    const { events, message } = await collectStream(stream(makeModel(), hello, { apiKey: KEY }));
    expect(events[events.length - 1].type).toBe("error");
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("content filter");
    expect(message.content).toEqual([{ type: "text", text: "Some" }]);
  });
});

describe("request conversion", () => {
  test("user images go out as data URLs", async () => {
    server.enqueue({ content: [{ type: "text", text: "A pixel." }] });
    const context: Context = { messages: [user([{ type: "text", text: "What is this?" }, { type: "image", data: PNG, mimeType: "image/png" }])] };
    await collectStream(stream(makeModel(), context, { apiKey: KEY }));
    expect(lastBody().messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is this?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });

  test("tool-result images follow the tool messages in a user message", async () => {
    const call: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "toolCall", id: "call_s", name: "screenshot", arguments: {} },
        { type: "toolCall", id: "call_r", name: "read", arguments: { path: "b" } },
      ],
      api: "openai-completions",
      provider: "openai",
      model: "gpt-fake",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "toolUse",
      timestamp: Date.now(),
    };
    const result = (toolCallId: string, toolName: string, content: ToolResultMessage["content"], isError = false): ToolResultMessage => ({
      role: "toolResult",
      toolCallId,
      toolName,
      content,
      isError,
      timestamp: Date.now(),
    });
    const context: Context = {
      messages: [
        user("look"),
        call,
        result("call_s", "screenshot", [{ type: "text", text: "Screenshot taken" }, { type: "image", data: PNG, mimeType: "image/png" }]),
        result("call_r", "read", [{ type: "text", text: "ENOENT: no such file" }], true),
      ],
    };
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    await collectStream(stream(makeModel({ compat: { requiresToolResultName: true } }), context, { apiKey: KEY }));
    expect(lastBody().messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "call_s", content: "Screenshot taken", name: "screenshot" },
      { role: "tool", tool_call_id: "call_r", content: "ENOENT: no such file", name: "read" },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by the tool calls above:" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });

  test("requiresAssistantAfterToolResult puts an assistant turn between tool results and the user", async () => {
    server.enqueue({ content: [{ type: "toolCall", id: "call_9", name: "read", arguments: { path: "c" } }] }, { content: [{ type: "text", text: "ok" }] });
    const model = makeModel({ compat: { requiresAssistantAfterToolResult: true } });
    const first = await collectStream(stream(model, { messages: [user("go")], tools: [readTool] }, { apiKey: KEY }));
    const result: ToolResultMessage = { role: "toolResult", toolCallId: "call_9", toolName: "read", content: [{ type: "text", text: "c!" }], isError: false, timestamp: Date.now() };
    await collectStream(stream(model, { messages: [user("go"), first.message, result, user("next")], tools: [readTool] }, { apiKey: KEY }));
    expect(lastBody().messages.map((m: any) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
  });

  test("compat switches change the request body", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }], usage: { input: 9, output: 9 } });
    const model = reasoningModel({
      supportsDeveloperRole: true,
      maxTokensField: "max_completion_tokens",
      supportsStore: true,
      supportsStrictMode: true,
      supportsUsageInStreaming: false,
      openRouterRouting: { only: ["anthropic"] },
      cacheControlFormat: "anthropic",
    });
    const { message } = await collectStream(stream(model, { systemPrompt: "sys", messages: [user("hi")], tools: [readTool] }, { apiKey: KEY }));
    const body = lastBody();
    expect(body.messages).toEqual([
      { role: "developer", content: [{ type: "text", text: "sys", cache_control: { type: "ephemeral" } }] },
      { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] },
    ]);
    expect(body.max_completion_tokens).toBe(4096);
    expect(body.max_tokens).toBeUndefined();
    expect(body.store).toBe(false);
    expect(body.tools[0].function.strict).toBe(false);
    expect(body.tools[0].cache_control).toEqual({ type: "ephemeral" });
    expect(body.stream_options).toBeUndefined();
    expect(body.provider).toEqual({ only: ["anthropic"] });
    // Without stream_options the server sends no usage.
    expect(message.usage.totalTokens).toBe(0);
  });

  test("api.openai.com gets OpenAI's own dialect", () => {
    const model = reasoningModel(undefined, { baseUrl: "https://api.openai.com/v1" });
    const compat = detectCompat(model);
    const body = buildPayload(model, { systemPrompt: "sys", messages: [user("hi")], tools: [readTool] }, compat, {
      reasoningEffort: "low",
      sessionId: "session-1",
    });
    expect(body.messages[0]).toEqual({ role: "developer", content: "sys" });
    expect(body.max_completion_tokens).toBe(4096);
    expect(body.store).toBe(false);
    expect(body.reasoning_effort).toBe("low");
    expect(body.prompt_cache_key).toBe("session-1");
    expect(body.tools?.[0].function.strict).toBe(false);
    expect(detectCompat(makeModel({ baseUrl: "https://openrouter.ai/api/v1" })).thinkingFormat).toBe("openrouter");
  });

  test("onPayload can replace the request body", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    let seen: any;
    const { message } = await collectStream(
      stream(makeModel(), hello, {
        apiKey: KEY,
        onPayload: (payload) => {
          seen = payload;
          return { ...(payload as object), temperature: 0.9, max_tokens: 77 };
        },
      }),
    );
    expect(message.stopReason).toBe("stop");
    expect(seen.max_tokens).toBe(4096);
    expect(lastBody().temperature).toBe(0.9);
    expect(lastBody().max_tokens).toBe(77);
  });

  test("onResponse sees the HTTP status", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    let status = 0;
    await collectStream(stream(makeModel(), hello, { apiKey: KEY, onResponse: (response) => void (status = response.status) }));
    expect(status).toBe(200);
  });
});

describe("usage and cost", () => {
  test("cached prompt tokens are split out and priced from model.cost", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }], usage: { input: 1000, cacheRead: 4000, output: 500 } });
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: KEY }));
    expect(message.usage).toMatchObject({ input: 1000, cacheRead: 4000, cacheWrite: 0, output: 500, totalTokens: 5500 });
    // $2 / $8 / $0.5 per million tokens.
    expect(message.usage.cost.input).toBeCloseTo(0.002, 10);
    expect(message.usage.cost.output).toBeCloseTo(0.004, 10);
    expect(message.usage.cost.cacheRead).toBeCloseTo(0.002, 10);
    expect(message.usage.cost.total).toBeCloseTo(0.008, 10);
  });
});

describe("errors", () => {
  const failWith = async (status: number, message: string) => {
    server.enqueue({ type: "error", status, message });
    return (await collectStream(stream(makeModel(), hello, { apiKey: KEY }))).message;
  };

  test("429, 500 and 503 overload are transient errors", async () => {
    for (const [status, text] of [
      [429, "Rate limit reached for gpt-fake in organization org-x on tokens per min (TPM)."],
      [500, "The server had an error while processing your request. Sorry about that!"],
      [503, "The engine is currently overloaded, please try again later."],
    ] as const) {
      const message = await failWith(status, text);
      expect(message.stopReason).toBe("error");
      expect(message.errorMessage).toStartWith(`${status} `);
      expect(message.errorMessage).toContain(text);
      expect(isTransientError(message)).toBe(true);
    }
  });

  test("context overflow is recognised", async () => {
    const message = await failWith(
      400,
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
    );
    expect(message.stopReason).toBe("error");
    expect(isContextOverflow(message)).toBe(true);
    expect(isTransientError(message)).toBe(false);
  });

  test("401 is not transient", async () => {
    const message = await failWith(401, "Incorrect API key provided: sk-test-key.");
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toStartWith("401 ");
    expect(isTransientError(message)).toBe(false);
  });

  test("an error inside the stream ends it with that error", async () => {
    const data = { id: "x4", object: "chat.completion.chunk", created: 1, model: "m", error: { code: 502, message: "Upstream provider error" }, choices: [{ index: 0, delta: {}, finish_reason: "error" }] };
    server.enqueue(rawStream([`data: ${JSON.stringify({ ...data, error: undefined, choices: [{ index: 0, delta: { content: "par" }, finish_reason: null }] })}\n\n`, `data: ${JSON.stringify(data)}\n\n`]));
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: KEY }));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("Upstream provider error");
    expect(isTransientError(message)).toBe(true);
  });

  test("without an API key the error names the environment variable", async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const { message } = await collectStream(stream(makeModel(), hello));
      expect(message.stopReason).toBe("error");
      expect(message.errorMessage).toContain("OPENAI_API_KEY");
      expect(server.requests.length).toBe(0);
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });
});

describe("abort", () => {
  test("aborting mid-stream ends with aborted at once and closes the connection", async () => {
    server.enqueue({ content: [{ type: "text", text: "This reply will never finish streaming." }], chunkSize: 4, stallAfterEvents: 3 });
    const controller = new AbortController();
    const events: AssistantMessageEvent[] = [];
    let abortedAt = 0;
    for await (const event of stream(makeModel(), hello, { apiKey: KEY, signal: controller.signal })) {
      events.push(event);
      if (event.type === "text_delta" && !controller.signal.aborted) {
        abortedAt = Date.now();
        controller.abort();
      }
    }
    const last = events[events.length - 1];
    expect(last.type).toBe("error");
    if (last.type !== "error") return;
    expect(last.error.stopReason).toBe("aborted");
    expect(Date.now() - abortedAt).toBeLessThan(1000);
    // Whatever streamed before the stall is kept; the rest never came.
    const text = (last.error.content[0] as { text: string }).text;
    expect(text.length).toBeGreaterThan(0);
    expect("This reply will never finish streaming.".startsWith(text)).toBe(true);
    expect(text).not.toBe("This reply will never finish streaming.");

    // The server sees the client go away.
    const deadline = Date.now() + 2000;
    while (server.openStreams() > 0 && Date.now() < deadline) await Bun.sleep(10);
    expect(server.openStreams()).toBe(0);
  });

  test("an already aborted signal sends nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: KEY, signal: controller.signal }));
    expect(message.stopReason).toBe("aborted");
    expect(server.requests.length).toBe(0);
  });
});
