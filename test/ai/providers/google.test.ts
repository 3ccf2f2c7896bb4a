/**
 * The Gemini provider through the real @google/genai SDK against the fake LLM
 * server, which answers in Gemini's own SSE format.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { isContextOverflow, isTransientError } from "../../../src/ai/errors.ts";
import { getModel } from "../../../src/ai/models.ts";
import { stream, streamSimple } from "../../../src/ai/providers/google.ts";
import type { AssistantMessage, AssistantMessageEvent, Context, Model, ToolCall, ToolResultMessage } from "../../../src/ai/types.ts";
import { startFakeLlm, type FakeLlmServer } from "../../support/fake-llm/server.ts";
import { collectStream, waitUntil } from "../../support/stream-helpers.ts";

/** The catalog's thinkingLevelMap of a Gemini 3 Pro model: it thinks by named levels. */
const GEMINI_3_LEVELS = { minimal: null, low: "low", medium: "medium", high: "high" };

let server: FakeLlmServer;

beforeAll(() => {
  server = startFakeLlm();
});

afterAll(async () => {
  await server.close();
});

afterEach(() => {
  expect(server.pending()).toBe(0);
});

/** The catalog's Gemini 2.5 Flash (its thinking quirks are catalog data), served by the fake server. */
function makeModel(overrides: Partial<Model> = {}): Model {
  const catalogRow = getModel("google", "gemini-2.5-flash");
  if (!catalogRow) throw new Error("the catalog lacks google/gemini-2.5-flash");
  // Fixed prices: the usage test computes its costs from these, whatever the catalog's become.
  const cost = { input: 0.3, output: 2.5, cacheRead: 0.075, cacheWrite: 0 };
  return { ...catalogRow, baseUrl: server.baseUrl("google-generative-ai"), cost, ...overrides };
}

const KEY = { apiKey: "test-key" };

function userContext(text: string, extra: Partial<Context> = {}): Context {
  return { messages: [{ role: "user", content: text, timestamp: 1 }], ...extra };
}

function lastBody(): any {
  return server.requests[server.requests.length - 1].body;
}

const readTool = {
  name: "read",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } as any,
};

describe("text", () => {
  test("streams text deltas and ends with the final message", async () => {
    server.enqueue({ content: [{ type: "text", text: "Hello from Gemini, streamed." }], chunkSize: 6 });
    const { events, message } = await collectStream(stream(makeModel(), userContext("Hi", { systemPrompt: "Be brief." }), KEY));

    const types = events.map((event) => event.type);
    expect(types[0]).toBe("start");
    expect(types[1]).toBe("text_start");
    expect(types.filter((type) => type === "text_delta").length).toBe(5);
    expect(types.slice(-2)).toEqual(["text_end", "done"]);
    const deltas = events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : []));
    expect(deltas.join("")).toBe("Hello from Gemini, streamed.");

    expect(message.content).toEqual([{ type: "text", text: "Hello from Gemini, streamed." }]);
    expect(message.stopReason).toBe("stop");
    expect(message.api).toBe("google-generative-ai");
    expect(message.provider).toBe("google");
    expect(message.model).toBe("gemini-2.5-flash");
    expect(message.responseId).toMatch(/^resp_\d+$/);
    expect(message.usage.input).toBe(10);
    expect(message.usage.output).toBe(5);

    const request = server.requests[server.requests.length - 1];
    expect(request.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
    expect(request.query.alt).toBe("sse");
    expect(request.headers["x-goog-api-key"]).toBe("test-key");
    expect(request.body.systemInstruction).toEqual({ parts: [{ text: "Be brief." }] });
    expect(request.body.contents).toEqual([{ role: "user", parts: [{ text: "Hi" }] }]);
    expect(request.body.generationConfig.maxOutputTokens).toBe(65_536);
  });

  test("a baseUrl with a trailing slash, model and option headers, maxTokens and temperature", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const model = makeModel({ baseUrl: `${server.baseUrl("google-generative-ai")}/`, headers: { "x-from-model": "m" } });
    let response: { status: number; headers: Record<string, string> } | undefined;
    const { message } = await collectStream(
      stream(model, userContext("Hi"), {
        ...KEY,
        headers: { "x-from-options": "o" },
        maxTokens: 321,
        temperature: 0.4,
        onResponse: (received) => {
          response = received;
        },
      }),
    );
    expect(message.stopReason).toBe("stop");
    expect(response?.status).toBe(200);
    expect(response?.headers["content-type"]).toBe("text/event-stream");
    const request = server.requests[server.requests.length - 1];
    expect(request.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
    expect(request.headers["x-from-model"]).toBe("m");
    expect(request.headers["x-from-options"]).toBe("o");
    expect(request.body.generationConfig).toEqual({ maxOutputTokens: 321, temperature: 0.4 });
  });

  test("a baseUrl without an API version gets the SDK's default version", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const { message } = await collectStream(stream(makeModel({ baseUrl: server.url }), userContext("Hi"), KEY));
    expect(message.content).toEqual([{ type: "text", text: "ok" }]);
    expect(server.requests.at(-1)!.path).toBe("/v1beta/models/gemini-2.5-flash:streamGenerateContent");
  });

  test("the model name the service reports is kept when it differs", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }], model: "gemini-2.5-flash-preview-05-20" });
    const { message } = await collectStream(stream(makeModel(), userContext("Hi"), KEY));
    expect(message.model).toBe("gemini-2.5-flash");
    expect(message.responseModel).toBe("gemini-2.5-flash-preview-05-20");
  });

  test("MAX_TOKENS ends the message with stopReason length", async () => {
    server.enqueue({ content: [{ type: "text", text: "cut off mid" }], stopReason: "length" });
    const { events, message } = await collectStream(stream(makeModel(), userContext("Hi"), KEY));
    expect(message.stopReason).toBe("length");
    expect(events.at(-1)).toMatchObject({ type: "done", reason: "length" });
  });
});

describe("thinking", () => {
  test("thought parts stream as thinking with their signature, and the signature is replayed", async () => {
    server.enqueue({
      content: [
        { type: "thinking", thinking: "The user greets me; answer kindly.", signature: "c2lnLWdlbWluaQ==" },
        { type: "text", text: "Hello!" },
      ],
    });
    const model = makeModel();
    const first = await collectStream(streamSimple(model, userContext("Hi"), { ...KEY, reasoning: "high" }));

    const types = first.events.map((event) => event.type);
    expect(types.slice(0, 3)).toEqual(["start", "thinking_start", "thinking_delta"]);
    expect(types.indexOf("thinking_end")).toBeLessThan(types.indexOf("text_start"));
    expect(first.message.content).toEqual([
      { type: "thinking", thinking: "The user greets me; answer kindly.", thinkingSignature: "c2lnLWdlbWluaQ==" },
      { type: "text", text: "Hello!" },
    ]);
    // Flash caps the thinking budget at 24576 tokens.
    expect(lastBody().generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 24576 });

    server.enqueue({ content: [{ type: "text", text: "Fine." }] });
    const context: Context = {
      messages: [
        { role: "user", content: "Hi", timestamp: 1 },
        first.message,
        { role: "user", content: "How are you?", timestamp: 2 },
      ],
    };
    await collectStream(streamSimple(model, context, { ...KEY, reasoning: "high" }));
    expect(lastBody().contents[1]).toEqual({
      role: "model",
      parts: [
        { text: "The user greets me; answer kindly.", thought: true, thoughtSignature: "c2lnLWdlbWluaQ==" },
        { text: "Hello!" },
      ],
    });
  });

  test("thinking of another model is sent as plain text without its signature", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const foreign: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Claude's reasoning", thinkingSignature: "anthropic-sig" },
        { type: "text", text: "Earlier answer" },
      ],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "stop",
      timestamp: 2,
    };
    const context: Context = {
      messages: [{ role: "user", content: "Hi", timestamp: 1 }, foreign, { role: "user", content: "Go on", timestamp: 3 }],
    };
    await collectStream(stream(makeModel(), context, KEY));
    expect(lastBody().contents[1]).toEqual({ role: "model", parts: [{ text: "Claude's reasoning" }, { text: "Earlier answer" }] });
  });

  test("reasoning off disables thinking on 2.5 Flash with a zero budget", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    await collectStream(streamSimple(makeModel(), userContext("Hi"), KEY));
    expect(lastBody().generationConfig.thinkingConfig).toEqual({ thinkingBudget: 0 });
  });

  test("user budgets apply to Gemini 2.x levels", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    await collectStream(streamSimple(makeModel(), userContext("Hi"), { ...KEY, reasoning: "low", thinkingBudgets: { low: 2000 } }));
    expect(lastBody().generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingBudget: 2000 });
  });

  test("Gemini 3 takes a thinking level, and the lowest one when reasoning is off", async () => {
    const model = makeModel({ id: "gemini-3-pro-preview", thinkingLevelMap: GEMINI_3_LEVELS });
    server.enqueue({ content: [{ type: "text", text: "ok" }] }, { content: [{ type: "text", text: "ok" }] });
    await collectStream(streamSimple(model, userContext("Hi"), { ...KEY, reasoning: "high" }));
    expect(server.requests.at(-1)!.path).toBe("/v1beta/models/gemini-3-pro-preview:streamGenerateContent");
    expect(lastBody().generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingLevel: "HIGH" });
    await collectStream(streamSimple(model, userContext("Hi"), KEY));
    expect(lastBody().generationConfig.thinkingConfig).toEqual({ thinkingLevel: "LOW" });
  });

  test("a model's thinkingLevelMap picks the Gemini 3 level", async () => {
    const model = makeModel({ id: "gemini-3-flash-preview", thinkingLevelMap: { minimal: "MINIMAL", medium: "MEDIUM" } });
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    await collectStream(streamSimple(model, userContext("Hi"), { ...KEY, reasoning: "medium" }));
    expect(lastBody().generationConfig.thinkingConfig).toEqual({ includeThoughts: true, thinkingLevel: "MEDIUM" });
  });

  test("a model without reasoning never gets thinking parameters", async () => {
    const model = makeModel({ id: "gemini-2.0-flash", reasoning: false });
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    await collectStream(streamSimple(model, userContext("Hi"), { ...KEY, reasoning: "high" }));
    expect(lastBody().generationConfig.thinkingConfig).toBeUndefined();
  });
});

describe("tool calls", () => {
  test("a function call streams as a tool call with generated unique ids, and ends the turn with toolUse", async () => {
    server.enqueue({
      content: [
        { type: "text", text: "Reading both." },
        { type: "toolCall", name: "read", arguments: { path: "a.txt" } },
        { type: "toolCall", name: "read", arguments: { path: "b.txt" } },
      ],
    });
    const { events, message } = await collectStream(stream(makeModel(), userContext("Read", { tools: [readTool] }), KEY));

    const firstDelta = events.findIndex((event) => event.type === "toolcall_delta");
    const firstEnd = events.findIndex((event) => event.type === "toolcall_end");
    expect(events[firstDelta - 1].type).toBe("toolcall_start");
    expect(firstDelta).toBeLessThan(firstEnd);
    const delta = events[firstDelta] as Extract<AssistantMessageEvent, { type: "toolcall_delta" }>;
    expect(JSON.parse(delta.delta)).toEqual({ path: "a.txt" });
    expect((delta.partial.content[delta.contentIndex] as ToolCall).arguments).toEqual({ path: "a.txt" });
    const end = events[firstEnd] as Extract<AssistantMessageEvent, { type: "toolcall_end" }>;
    expect(end.toolCall).toMatchObject({ type: "toolCall", name: "read", arguments: { path: "a.txt" } });

    const calls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
    expect(calls.map((call) => call.arguments)).toEqual([{ path: "a.txt" }, { path: "b.txt" }]);
    expect(calls[0].id).toBeTruthy();
    expect(calls[0].id).not.toBe(calls[1].id);
    expect(message.stopReason).toBe("toolUse");
    expect(events.at(-1)).toMatchObject({ type: "done", reason: "toolUse" });
    expect(lastBody().tools).toEqual([
      { functionDeclarations: [{ name: "read", description: "Read a file", parametersJsonSchema: readTool.parameters }] },
    ]);
  });

  test("the second turn sends the call back and the result as a functionResponse; made-up ids stay local", async () => {
    server.enqueue({ content: [{ type: "toolCall", name: "read", arguments: { path: "a.txt" } }] });
    const model = makeModel();
    const first = await collectStream(stream(model, userContext("Read", { tools: [readTool] }), KEY));
    const call = first.message.content[0] as ToolCall;

    server.enqueue({ content: [{ type: "text", text: "It says hi." }] });
    const context: Context = {
      tools: [readTool],
      messages: [
        { role: "user", content: "Read", timestamp: 1 },
        first.message,
        { role: "toolResult", toolCallId: call.id, toolName: "read", content: [{ type: "text", text: "hi" }], isError: false, timestamp: 2 },
      ],
    };
    const second = await collectStream(stream(model, context, KEY));
    expect(second.message.content).toEqual([{ type: "text", text: "It says hi." }]);
    expect(lastBody().contents.slice(1)).toEqual([
      { role: "model", parts: [{ functionCall: { name: "read", args: { path: "a.txt" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "read", response: { output: "hi" } } }] },
    ]);
  });

  test("ids and thought signatures the service sent are replayed; errors go back as error", async () => {
    server.enqueue({
      content: [
        { type: "thinking", thinking: "Need the file.", signature: "sig-t" },
        { type: "toolCall", id: "fc_7", name: "read", arguments: { path: "missing.txt" } },
      ],
    });
    const model = makeModel({ id: "gemini-3-pro-preview", thinkingLevelMap: GEMINI_3_LEVELS });
    const first = await collectStream(streamSimple(model, userContext("Read", { tools: [readTool] }), { ...KEY, reasoning: "high" }));
    const call = first.message.content[1] as ToolCall;
    expect(call.id).toBe("fc_7");
    expect(call.thoughtSignature).toBe("sig-t/call");

    server.enqueue({ content: [{ type: "text", text: "No such file." }] });
    const context: Context = {
      tools: [readTool],
      messages: [
        { role: "user", content: "Read", timestamp: 1 },
        first.message,
        { role: "toolResult", toolCallId: "fc_7", toolName: "read", content: [{ type: "text", text: "ENOENT" }], isError: true, timestamp: 2 },
      ],
    };
    await collectStream(streamSimple(model, context, { ...KEY, reasoning: "high" }));
    expect(lastBody().contents.slice(1)).toEqual([
      {
        role: "model",
        parts: [
          { text: "Need the file.", thought: true, thoughtSignature: "sig-t" },
          { functionCall: { id: "fc_7", name: "read", args: { path: "missing.txt" } }, thoughtSignature: "sig-t/call" },
        ],
      },
      { role: "user", parts: [{ functionResponse: { id: "fc_7", name: "read", response: { error: "ENOENT" } } }] },
    ]);
  });

  test("calls another model made get Gemini 3's placeholder signature on the first call of the step", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const foreign: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "toolCall", id: "toolu_1", name: "read", arguments: { path: "a" } },
        { type: "toolCall", id: "toolu_2", name: "read", arguments: { path: "b" } },
      ],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "toolUse",
      timestamp: 2,
    };
    const result = (id: string, text: string): ToolResultMessage => ({
      role: "toolResult",
      toolCallId: id,
      toolName: "read",
      content: [{ type: "text", text }],
      isError: false,
      timestamp: 3,
    });
    const context: Context = {
      tools: [readTool],
      messages: [{ role: "user", content: "Read", timestamp: 1 }, foreign, result("toolu_1", "A"), result("toolu_2", "B")],
    };
    await collectStream(stream(makeModel({ id: "gemini-3-pro-preview", thinkingLevelMap: GEMINI_3_LEVELS }), context, KEY));
    expect(lastBody().contents.slice(1)).toEqual([
      {
        role: "model",
        parts: [
          { functionCall: { name: "read", args: { path: "a" } }, thoughtSignature: "skip_thought_signature_validator" },
          { functionCall: { name: "read", args: { path: "b" } } },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "read", response: { output: "A" } } },
          { functionResponse: { name: "read", response: { output: "B" } } },
        ],
      },
    ]);
  });
});

describe("images", () => {
  const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

  test("an image in a user message is sent as inlineData", async () => {
    server.enqueue({ content: [{ type: "text", text: "A pixel." }] });
    const context: Context = {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", data: PNG, mimeType: "image/png" },
          ],
          timestamp: 1,
        },
      ],
    };
    await collectStream(stream(makeModel(), context, KEY));
    expect(lastBody().contents).toEqual([
      { role: "user", parts: [{ text: "What is this?" }, { inlineData: { mimeType: "image/png", data: PNG } }] },
    ]);
  });

  test("an image in a tool result is sent as inlineData beside the functionResponse", async () => {
    server.enqueue({ content: [{ type: "text", text: "A pixel." }] });
    const call: ToolCall = { type: "toolCall", id: "gemini_local_x_1", name: "read", arguments: { path: "p.png" } };
    const assistant: AssistantMessage = {
      role: "assistant",
      content: [call],
      api: "google-generative-ai",
      provider: "google",
      model: "gemini-2.5-flash",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "toolUse",
      timestamp: 2,
    };
    const context: Context = {
      tools: [readTool],
      messages: [
        { role: "user", content: "Show p.png", timestamp: 1 },
        assistant,
        {
          role: "toolResult",
          toolCallId: call.id,
          toolName: "read",
          content: [
            { type: "text", text: "Read image file [image/png]" },
            { type: "image", data: PNG, mimeType: "image/png" },
          ],
          isError: false,
          timestamp: 3,
        },
      ],
    };
    await collectStream(stream(makeModel(), context, KEY));
    expect(lastBody().contents[2]).toEqual({
      role: "user",
      parts: [
        { functionResponse: { name: "read", response: { output: "Read image file [image/png]" } } },
        { inlineData: { mimeType: "image/png", data: PNG } },
      ],
    });
  });
});

describe("usage", () => {
  test("prompt, cached, candidate and thought tokens become usage, and cost follows model.cost", async () => {
    server.enqueue({
      content: [
        { type: "thinking", thinking: "hmm" },
        { type: "text", text: "ok" },
      ],
      usage: { input: 1_000, output: 400, cacheRead: 3_000 },
    });
    const { message } = await collectStream(streamSimple(makeModel(), userContext("Hi"), { ...KEY, reasoning: "low" }));
    expect(message.usage.input).toBe(1_000);
    expect(message.usage.cacheRead).toBe(3_000);
    expect(message.usage.output).toBe(400); // candidates + thoughts
    expect(message.usage.cacheWrite).toBe(0);
    expect(message.usage.totalTokens).toBe(4_400);
    expect(message.usage.cost.input).toBeCloseTo((1_000 * 0.3) / 1e6, 12);
    expect(message.usage.cost.output).toBeCloseTo((400 * 2.5) / 1e6, 12);
    expect(message.usage.cost.cacheRead).toBeCloseTo((3_000 * 0.075) / 1e6, 12);
    expect(message.usage.cost.total).toBeCloseTo((1_000 * 0.3 + 400 * 2.5 + 3_000 * 0.075) / 1e6, 12);
  });
});

describe("errors", () => {
  test.each([
    [429, "Resource has been exhausted (e.g. check quota)."],
    [500, "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"],
    [503, "The model is overloaded. Please try again later."],
  ])("HTTP %d ends with a transient error carrying status and text", async (status, text) => {
    server.enqueue({ type: "error", status, message: text });
    const { events, message } = await collectStream(stream(makeModel(), userContext("Hi"), KEY));
    expect(events.at(-1)).toMatchObject({ type: "error", reason: "error" });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toStartWith(`${status} `);
    expect(message.errorMessage).toContain(text);
    expect(isTransientError(message)).toBe(true);
    expect(isContextOverflow(message)).toBe(false);
  });

  test("the service's context overflow text is recognised as overflow, not transient", async () => {
    server.enqueue({
      type: "error",
      status: 400,
      message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
    });
    const { message } = await collectStream(stream(makeModel(), userContext("Hi"), KEY));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("INVALID_ARGUMENT");
    expect(isContextOverflow(message)).toBe(true);
    expect(isTransientError(message)).toBe(false);
  });

  test("a rejected key is not transient", async () => {
    server.enqueue({ type: "error", status: 401, message: "API key not valid. Please pass a valid API key." });
    const { message } = await collectStream(stream(makeModel(), userContext("Hi"), KEY));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("API key not valid");
    expect(isTransientError(message)).toBe(false);
  });

  test("a request that outlives timeoutMs ends with a transient timeout error", async () => {
    server.enqueue({ content: [{ type: "text", text: "too late" }], delayMs: 1_000 });
    const { message } = await collectStream(stream(makeModel(), userContext("Hi"), { ...KEY, timeoutMs: 100 }));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("timed out");
    expect(isTransientError(message)).toBe(true);
  });

  test("without a key in options or environment the error names the variable", async () => {
    const saved = { GEMINI_API_KEY: process.env.GEMINI_API_KEY, GOOGLE_API_KEY: process.env.GOOGLE_API_KEY };
    delete process.env.GEMINI_API_KEY;
    delete process.env.GOOGLE_API_KEY;
    try {
      const before = server.requests.length;
      const { message } = await collectStream(stream(makeModel(), userContext("Hi")));
      expect(message.stopReason).toBe("error");
      expect(message.errorMessage).toContain("GEMINI_API_KEY");
      expect(server.requests.length).toBe(before);
    } finally {
      for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
    }
  });
});

describe("abort", () => {
  test("aborting mid-stream ends with aborted at once and closes the HTTP request", async () => {
    server.enqueue({ content: [{ type: "text", text: "This reply will never finish streaming." }], chunkSize: 4, stallAfterEvents: 2 });
    const controller = new AbortController();
    const events = stream(makeModel(), userContext("Hi"), { ...KEY, signal: controller.signal });
    let deltas = 0;
    let abortedAt = 0;
    for await (const event of events) {
      if (event.type === "text_delta" && ++deltas === 2) {
        abortedAt = Date.now();
        controller.abort();
      }
    }
    const message = await events.result();
    expect(Date.now() - abortedAt).toBeLessThan(1000);
    expect(message.stopReason).toBe("aborted");
    expect(message.content).toEqual([{ type: "text", text: "This rep" }]);
    await waitUntil(() => server.openStreams() === 0);
    expect(server.openStreams()).toBe(0);
  });
});

describe("onPayload", () => {
  test("a replaced payload is what the server receives", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    let seen: any;
    const { message } = await collectStream(
      stream(makeModel(), userContext("Hi"), {
        ...KEY,
        onPayload: (payload: any) => {
          seen = payload;
          return { ...payload, config: { ...payload.config, temperature: 0.125, stopSequences: ["END"] } };
        },
      }),
    );
    expect(message.stopReason).toBe("stop");
    expect(seen.model).toBe("gemini-2.5-flash");
    expect(seen.contents).toEqual([{ role: "user", parts: [{ text: "Hi" }] }]);
    expect(lastBody().generationConfig).toEqual({ maxOutputTokens: 65_536, temperature: 0.125, stopSequences: ["END"] });
  });
});

describe("lazy loading", () => {
  test("the SDK loads when the provider is first used, not when the registry is imported", async () => {
    const script = `
      const { getApiProvider } = await import("./src/ai/api-registry.ts");
      process.stderr.write("registry-ready\\n");
      const provider = getApiProvider("google-generative-ai");
      const events = provider.stream(
        { id: "gemini-2.5-flash", name: "g", api: "google-generative-ai", provider: "google", baseUrl: "http://127.0.0.1:9/v1beta",
          reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 },
        { messages: [] }, {});
      await events.result();
    `;
    const child = Bun.spawn(["bun", "-e", script], {
      cwd: `${import.meta.dir}/../../..`,
      env: { ...process.env, XCSH_TRACE_LOAD: "1", GEMINI_API_KEY: "", GOOGLE_API_KEY: "" },
      stderr: "pipe",
      stdout: "ignore",
    });
    const stderr = await new Response(child.stderr).text();
    await child.exited;
    const ready = stderr.indexOf("registry-ready");
    const loaded = stderr.indexOf("loaded @google/genai");
    expect(ready).toBeGreaterThanOrEqual(0);
    expect(loaded).toBeGreaterThan(ready);
  });
});

