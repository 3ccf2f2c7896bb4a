/**
 * The OpenAI Responses provider, through the real `openai` SDK, against the fake
 * LLM server speaking the Responses streaming format.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { isContextOverflow, isTransientError } from "../../../src/ai/errors.ts";
import { stream, streamSimple } from "../../../src/ai/providers/openai-responses.ts";
import type { AssistantMessage, AssistantMessageEvent, Context, Model, ToolCall } from "../../../src/ai/types.ts";
import { startFakeLlm, type FakeLlmServer } from "../../support/fake-llm/server.ts";
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

const API_KEY = "sk-test-key";

function makeModel(overrides: Partial<Model> = {}): Model {
  return {
    id: "gpt-test",
    name: "GPT Test",
    api: "openai-responses",
    provider: "openai",
    baseUrl: server.baseUrl("openai-responses"),
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 16_000,
    ...overrides,
  };
}

const hello: Context = { systemPrompt: "Be brief.", messages: [{ role: "user", content: "Hi", timestamp: 1 }] };

function lastBody(): any {
  return server.requests[server.requests.length - 1].body;
}

const readTool = {
  name: "read_file",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" }, limit: { type: "number" } }, required: ["path"] },
} as unknown as NonNullable<Context["tools"]>[number];

describe("text streaming", () => {
  test("streams text events and ends with the complete message", async () => {
    server.enqueue({ content: [{ type: "text", text: "Hello there, friend!" }], chunkSize: 6, usage: { input: 12, output: 7 } });
    let responseStatus = 0;
    const { events, message } = await collectStream(
      stream(makeModel(), hello, { apiKey: API_KEY, onResponse: (response) => void (responseStatus = response.status) }),
    );

    const types = events.map((event) => event.type);
    expect(types[0]).toBe("start");
    expect(types[1]).toBe("text_start");
    expect(types.filter((type) => type === "text_delta").length).toBe(4);
    expect(types.slice(-2)).toEqual(["text_end", "done"]);
    const deltas = events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : []));
    expect(deltas.join("")).toBe("Hello there, friend!");

    expect(message.content).toHaveLength(1);
    expect(message.content[0]).toMatchObject({ type: "text", text: "Hello there, friend!" });
    expect((message.content[0] as { textSignature?: string }).textSignature).toStartWith("msg_");
    expect(message.stopReason).toBe("stop");
    expect(message).toMatchObject({ api: "openai-responses", provider: "openai", model: "gpt-test" });
    expect(message.responseId).toMatch(/^resp_\d+$/);
    expect(message.usage).toMatchObject({ input: 12, output: 7, cacheRead: 0, totalTokens: 19 });
    expect(responseStatus).toBe(200);

    const request = server.requests[0];
    expect(request.path).toBe("/v1/responses");
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.body).toMatchObject({
      model: "gpt-test",
      stream: true,
      store: false,
      instructions: "Be brief.",
      max_output_tokens: 16_000,
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] }],
    });
  });

  test("sends maxTokens, temperature, headers and the session's cache key", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const model = makeModel({ headers: { "x-from-model": "m" } });
    await collectStream(
      stream(model, hello, { apiKey: API_KEY, maxTokens: 500, temperature: 0.2, sessionId: "session-42", headers: { "x-from-call": "c" } }),
    );
    const request = server.requests[0];
    expect(request.body).toMatchObject({ max_output_tokens: 500, temperature: 0.2, prompt_cache_key: "session-42" });
    expect(request.headers["x-from-model"]).toBe("m");
    expect(request.headers["x-from-call"]).toBe("c");
  });

  test("a response cut off at max_output_tokens ends with stopReason length", async () => {
    server.enqueue({ content: [{ type: "text", text: "This is cut" }], stopReason: "length" });
    const { events, message } = await collectStream(stream(makeModel(), hello, { apiKey: API_KEY }));
    expect(message.stopReason).toBe("length");
    expect(message.content[0]).toMatchObject({ type: "text", text: "This is cut" });
    expect(events.at(-1)).toMatchObject({ type: "done", reason: "length" });
  });

  test("the reported model name is kept when it differs from the requested one", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }], model: "gpt-test-2025-01-01" });
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: API_KEY }));
    expect(message.model).toBe("gpt-test");
    expect(message.responseModel).toBe("gpt-test-2025-01-01");
  });
});

describe("reasoning", () => {
  test("a reasoning item streams as thinking and keeps the item as its signature", async () => {
    server.enqueue({
      content: [
        { type: "thinking", thinking: "Let me think about this.", signature: "ENCRYPTED-BLOB" },
        { type: "text", text: "Answer." },
      ],
      chunkSize: 5,
    });
    const { events, message } = await collectStream(streamSimple(makeModel(), hello, { apiKey: API_KEY, reasoning: "high" }));

    const types = events.map((event) => event.type);
    expect(types.slice(0, 3)).toEqual(["start", "thinking_start", "thinking_delta"]);
    expect(types.filter((type) => type === "thinking_delta").length).toBe(5);
    expect(types.indexOf("thinking_end")).toBeLessThan(types.indexOf("text_start"));

    const thinking = message.content[0];
    expect(thinking).toMatchObject({ type: "thinking", thinking: "Let me think about this." });
    const signature = JSON.parse((thinking as { thinkingSignature: string }).thinkingSignature);
    expect(signature).toMatchObject({
      type: "reasoning",
      encrypted_content: "ENCRYPTED-BLOB",
      summary: [{ type: "summary_text", text: "Let me think about this." }],
    });
    expect(signature.id).toStartWith("rs_");
    expect(message.content[1]).toMatchObject({ type: "text", text: "Answer." });
  });

  test("a follow-up request for the same model replays the reasoning and message items", async () => {
    server.enqueue({
      content: [
        { type: "thinking", thinking: "Pondering.", signature: "ENC-1" },
        { type: "text", text: "First answer." },
      ],
    });
    const model = makeModel();
    const first = await collectStream(streamSimple(model, hello, { apiKey: API_KEY, reasoning: "medium" }));
    const reasoningId = JSON.parse((first.message.content[0] as { thinkingSignature: string }).thinkingSignature).id;
    const messageId = (first.message.content[1] as { textSignature: string }).textSignature;

    server.enqueue({ content: [{ type: "text", text: "Second answer." }] });
    const followUp: Context = {
      messages: [...hello.messages, first.message, { role: "user", content: "And then?", timestamp: 2 }],
    };
    const second = await collectStream(streamSimple(model, followUp, { apiKey: API_KEY, reasoning: "medium" }));
    expect(second.message.stopReason).toBe("stop");

    expect(lastBody().input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] },
      { type: "reasoning", id: reasoningId, encrypted_content: "ENC-1", summary: [{ type: "summary_text", text: "Pondering." }] },
      {
        type: "message",
        role: "assistant",
        id: messageId,
        status: "completed",
        content: [{ type: "output_text", text: "First answer.", annotations: [] }],
      },
      { type: "message", role: "user", content: [{ type: "input_text", text: "And then?" }] },
    ]);
  });

  test("reasoning from another model is sent as plain assistant text, without item ids", async () => {
    server.enqueue({
      content: [
        { type: "thinking", thinking: "Hidden steps.", signature: "ENC-2" },
        { type: "text", text: "Reply." },
      ],
    });
    const first = await collectStream(streamSimple(makeModel({ id: "other-model" }), hello, { apiKey: API_KEY, reasoning: "low" }));

    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    await collectStream(stream(makeModel(), { messages: [...hello.messages, first.message] }, { apiKey: API_KEY }));
    const input = lastBody().input;
    expect(input.some((item: { type: string }) => item.type === "reasoning")).toBe(false);
    expect(input.slice(1)).toEqual([
      { type: "message", role: "assistant", content: "Hidden steps." },
      { type: "message", role: "assistant", content: "Reply." },
    ]);
  });

  test("streamSimple sends the reasoning effort only when reasoning is asked for and supported", async () => {
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
    server.enqueue({ content: [{ type: "text", text: "c" }] }, { content: [{ type: "text", text: "d" }] });

    await collectStream(streamSimple(makeModel(), hello, { apiKey: API_KEY, reasoning: "high" }));
    expect(lastBody().reasoning).toEqual({ effort: "high", summary: "auto" });
    expect(lastBody().include).toEqual(["reasoning.encrypted_content"]);

    await collectStream(streamSimple(makeModel(), hello, { apiKey: API_KEY }));
    expect(lastBody().reasoning).toBeUndefined();

    await collectStream(streamSimple(makeModel({ reasoning: false }), hello, { apiKey: API_KEY, reasoning: "high" }));
    expect(lastBody().reasoning).toBeUndefined();
    expect(lastBody().include).toBeUndefined();

    // A model that says how to ask for "off" gets that effort when reasoning is off.
    server.enqueue({ content: [{ type: "text", text: "e" }] });
    await collectStream(streamSimple(makeModel({ thinkingLevelMap: { off: "none" } }), hello, { apiKey: API_KEY }));
    expect(lastBody().reasoning).toEqual({ effort: "none", summary: "auto" });

    // xhigh is clamped to high unless the model lists it; a mapped level sends the model's value.
    await collectStream(streamSimple(makeModel({ thinkingLevelMap: { high: "max" } }), hello, { apiKey: API_KEY, reasoning: "xhigh" }));
    expect(lastBody().reasoning).toEqual({ effort: "max", summary: "auto" });
  });
});

describe("tool calls", () => {
  const toolCallReply = {
    content: [
      { type: "text" as const, text: "Reading it." },
      { type: "toolCall" as const, name: "read_file", arguments: { path: "/tmp/some/file.txt", limit: 20 } },
    ],
    chunkSize: 7,
  };

  test("arguments stream progressively and the turn ends with toolUse", async () => {
    server.enqueue(toolCallReply);
    const context: Context = { ...hello, tools: [readTool] };
    const events: AssistantMessageEvent[] = [];
    // `partial` is the live message, so the arguments are copied as each delta arrives.
    const partialArgs: Record<string, unknown>[] = [];
    const calls = stream(makeModel(), context, { apiKey: API_KEY });
    for await (const event of calls) {
      events.push(event);
      if (event.type === "toolcall_delta") partialArgs.push({ ...(event.partial.content[event.contentIndex] as ToolCall).arguments });
    }
    const message = await calls.result();

    expect(lastBody().tools).toEqual([
      { type: "function", name: "read_file", description: "Read a file", parameters: readTool.parameters, strict: false },
    ]);

    const types = events.map((event) => event.type);
    expect(types).toContain("toolcall_start");
    expect(partialArgs.length).toBeGreaterThan(2);
    // A consumer sees the path before the whole argument object has arrived.
    expect(partialArgs.some((args) => args.path !== undefined && args.limit === undefined)).toBe(true);

    const end = events.find((event) => event.type === "toolcall_end");
    expect(end?.type === "toolcall_end" && end.toolCall.arguments).toEqual({ path: "/tmp/some/file.txt", limit: 20 });
    expect(message.stopReason).toBe("toolUse");
    const call = message.content[1] as ToolCall;
    expect(call).toMatchObject({ type: "toolCall", name: "read_file" });
    // `${call_id}|${item id}`: both are needed to replay the call.
    expect(call.id).toMatch(/^call_\d+_1\|fc_resp_\d+_1$/);
  });

  test("the second turn sends the function call and its output back", async () => {
    server.enqueue(toolCallReply);
    const model = makeModel();
    const first = await collectStream(stream(model, { ...hello, tools: [readTool] }, { apiKey: API_KEY }));
    const call = first.message.content[1] as ToolCall;

    server.enqueue({ content: [{ type: "text", text: "The file says hi." }] });
    const second: Context = {
      tools: [readTool],
      messages: [
        ...hello.messages,
        first.message,
        { role: "toolResult", toolCallId: call.id, toolName: "read_file", content: [{ type: "text", text: "hi" }], isError: false, timestamp: 3 },
      ],
    };
    const { message } = await collectStream(stream(model, second, { apiKey: API_KEY }));
    expect(message.content[0]).toMatchObject({ type: "text", text: "The file says hi." });

    const [callId, itemId] = call.id.split("|");
    const input = lastBody().input;
    expect(input.slice(2)).toEqual([
      { type: "function_call", call_id: callId, id: itemId, name: "read_file", arguments: JSON.stringify(call.arguments) },
      { type: "function_call_output", call_id: callId, output: "hi" },
    ]);
  });

  test("tool calls from another provider are replayed with a valid call id and no item id", async () => {
    server.enqueue({ content: [{ type: "text", text: "done" }] });
    const foreign: AssistantMessage = {
      role: "assistant",
      content: [{ type: "toolCall", id: "toolu_01:weird/id", name: "read_file", arguments: { path: "a" } }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-test",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "toolUse",
      timestamp: 2,
    };
    const context: Context = {
      messages: [
        ...hello.messages,
        foreign,
        { role: "toolResult", toolCallId: "toolu_01:weird/id", toolName: "read_file", content: [{ type: "text", text: "A" }], isError: true, timestamp: 3 },
      ],
    };
    const { message } = await collectStream(stream(makeModel(), context, { apiKey: API_KEY }));
    expect(message.stopReason).toBe("stop");
    expect(lastBody().input.slice(1)).toEqual([
      { type: "function_call", call_id: "toolu_01_weird_id", name: "read_file", arguments: '{"path":"a"}' },
      { type: "function_call_output", call_id: "toolu_01_weird_id", output: "A" },
    ]);
  });
});

describe("images", () => {
  test("images in a user message and in a tool result reach the request", async () => {
    server.enqueue({ content: [{ type: "text", text: "I see." }] });
    const call: ToolCall = { type: "toolCall", id: "call_9|fc_9", name: "screenshot", arguments: {} };
    const context: Context = {
      messages: [
        { role: "user", content: [{ type: "text", text: "Look:" }, { type: "image", data: "AAAA", mimeType: "image/png" }], timestamp: 1 },
        {
          role: "assistant",
          content: [call],
          api: "openai-responses",
          provider: "openai",
          model: "gpt-test",
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
          stopReason: "toolUse",
          timestamp: 2,
        },
        {
          role: "toolResult",
          toolCallId: call.id,
          toolName: "screenshot",
          content: [{ type: "text", text: "Screenshot taken" }, { type: "image", data: "BBBB", mimeType: "image/jpeg" }],
          isError: false,
          timestamp: 3,
        },
      ],
    };
    await collectStream(stream(makeModel(), context, { apiKey: API_KEY }));
    expect(lastBody().input).toEqual([
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "Look:" },
          { type: "input_image", detail: "auto", image_url: "data:image/png;base64,AAAA" },
        ],
      },
      { type: "function_call", call_id: "call_9", id: "fc_9", name: "screenshot", arguments: "{}" },
      { type: "function_call_output", call_id: "call_9", output: "Screenshot taken" },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "Images returned by the tool:" },
          { type: "input_image", detail: "auto", image_url: "data:image/jpeg;base64,BBBB" },
        ],
      },
    ]);
  });
});

describe("usage and cost", () => {
  test("cached prompt tokens are split out of input_tokens and priced from model.cost", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }], usage: { input: 1000, cacheRead: 4000, output: 500 } });
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: API_KEY }));
    expect(message.usage).toMatchObject({ input: 1000, cacheRead: 4000, cacheWrite: 0, output: 500, totalTokens: 5500 });
    // $2 / $8 / $0.50 per million input / output / cache-read tokens.
    expect(message.usage.cost.input).toBeCloseTo(0.002, 10);
    expect(message.usage.cost.output).toBeCloseTo(0.004, 10);
    expect(message.usage.cost.cacheRead).toBeCloseTo(0.002, 10);
    expect(message.usage.cost.total).toBeCloseTo(0.008, 10);
  });
});

describe("errors", () => {
  test("429, 500 and overload errors end the stream with a transient error", async () => {
    const cases = [
      { status: 429, message: "Rate limit reached for gpt-test on tokens per min (TPM)." },
      { status: 500, message: "The server had an error while processing your request. Sorry about that!" },
      { status: 503, message: "The server is overloaded or not ready yet." },
    ];
    for (const { status, message: text } of cases) {
      server.enqueue({ type: "error", status, message: text });
      const { events, message } = await collectStream(stream(makeModel(), hello, { apiKey: API_KEY }));
      expect(events.map((event) => event.type)).toEqual(["start", "error"]);
      expect(message.stopReason).toBe("error");
      expect(message.errorMessage).toStartWith(`${status} `);
      expect(message.errorMessage).toContain(text);
      expect(isTransientError(message)).toBe(true);
    }
  });

  test("the real context-overflow error is recognised as overflow, not transient", async () => {
    server.enqueue({
      type: "error",
      status: 400,
      message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
    });
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: API_KEY }));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toStartWith("400 invalid_request_error: Your input exceeds the context window");
    expect(isContextOverflow(message)).toBe(true);
    expect(isTransientError(message)).toBe(false);
  });

  test("401 is an error that is not retried", async () => {
    server.enqueue({ type: "error", status: 401, message: "Incorrect API key provided: sk-test-key." });
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: API_KEY }));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^401 .*Incorrect API key/);
    expect(isTransientError(message)).toBe(false);
  });

  test("response.failed mid-stream keeps the provider's code and message; a server_error reads (and retries) as the 500 it stands for", async () => {
    const frames = [
      `event: response.created\ndata: ${JSON.stringify({ type: "response.created", sequence_number: 0, response: { id: "resp_x", model: "gpt-test", status: "in_progress", output: [] } })}\n\n`,
      `event: response.failed\ndata: ${JSON.stringify({
        type: "response.failed",
        sequence_number: 1,
        response: { id: "resp_x", model: "gpt-test", status: "failed", output: [], error: { code: "server_error", message: "The model produced invalid content." } },
      })}\n\n`,
    ];
    // A 200 with an SSE body: the scripted raw body lets the test send events the encoder never emits.
    server.enqueue({ type: "error", status: 200, body: frames.join(""), headers: { "content-type": "text/event-stream" } });
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: API_KEY }));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("server_error: The model produced invalid content.");
    expect(isTransientError(message)).toBe(true);
  });

  test("an error event mid-stream keeps its code, so a rate limit stays transient", async () => {
    const frames = [
      `event: response.created\ndata: ${JSON.stringify({ type: "response.created", sequence_number: 0, response: { id: "resp_z", model: "gpt-test", status: "in_progress", output: [] } })}\n\n`,
      `event: error\ndata: ${JSON.stringify({ type: "error", sequence_number: 1, code: "rate_limit_exceeded", message: "Please slow down.", param: null })}\n\n`,
    ];
    server.enqueue({ type: "error", status: 200, body: frames.join(""), headers: { "content-type": "text/event-stream" } });
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: API_KEY }));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("rate_limit_exceeded: Please slow down.");
    expect(isTransientError(message)).toBe(true);
  });

  test("a stream that ends before the response completes is a transient error", async () => {
    const frame = `event: response.created\ndata: ${JSON.stringify({ type: "response.created", sequence_number: 0, response: { id: "resp_y", model: "gpt-test", status: "in_progress", output: [] } })}\n\n`;
    server.enqueue({ type: "error", status: 200, body: frame, headers: { "content-type": "text/event-stream" } });
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: API_KEY }));
    expect(message.stopReason).toBe("error");
    expect(isTransientError(message)).toBe(true);
  });

  test("without an API key the error names the environment variable", async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const { message } = await collectStream(stream(makeModel(), hello));
      expect(message.stopReason).toBe("error");
      expect(message.errorMessage).toContain("OPENAI_API_KEY");
      expect(server.requests).toHaveLength(0);
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });
});

describe("abort", () => {
  test("aborting mid-stream ends with aborted at once and closes the connection", async () => {
    server.enqueue({ content: [{ type: "text", text: "A long answer that never finishes." }], chunkSize: 3, stallAfterEvents: 6 });
    const controller = new AbortController();
    const events = stream(makeModel(), hello, { apiKey: API_KEY, signal: controller.signal });
    let abortedAt = 0;
    const seen: string[] = [];
    for await (const event of events) {
      seen.push(event.type);
      if (event.type === "text_delta" && !controller.signal.aborted) {
        abortedAt = Date.now();
        controller.abort();
      }
    }
    const message = await events.result();
    expect(message.stopReason).toBe("aborted");
    expect(Date.now() - abortedAt).toBeLessThan(1000);
    expect(seen.at(-1)).toBe("error");
    expect(message.content[0]).toMatchObject({ type: "text" });
    await waitUntil(() => server.openStreams() === 0);
    expect(server.openStreams()).toBe(0);
  });

  test("an already aborted signal sends nothing", async () => {
    const controller = new AbortController();
    controller.abort();
    const { message } = await collectStream(stream(makeModel(), hello, { apiKey: API_KEY, signal: controller.signal }));
    expect(message.stopReason).toBe("aborted");
    expect(server.requests).toHaveLength(0);
  });
});

describe("onPayload", () => {
  test("a replaced payload is what the server receives", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    let seenModel = "";
    await collectStream(
      stream(makeModel(), hello, {
        apiKey: API_KEY,
        onPayload: (payload, model) => {
          seenModel = model.id;
          return { ...(payload as Record<string, unknown>), instructions: "Replaced instructions.", max_output_tokens: 77 };
        },
      }),
    );
    expect(seenModel).toBe("gpt-test");
    expect(lastBody()).toMatchObject({ instructions: "Replaced instructions.", max_output_tokens: 77, model: "gpt-test" });
  });
});

describe("loading", () => {
  test("the module reports loading the openai SDK when XCSH_TRACE_LOAD is set", async () => {
    const child = Bun.spawn(["bun", "-e", 'await import("./src/ai/providers/openai-responses.ts")'], {
      cwd: `${import.meta.dir}/../../..`,
      env: { ...process.env, XCSH_TRACE_LOAD: "1" },
      stderr: "pipe",
      stdout: "ignore",
    });
    const stderr = await new Response(child.stderr).text();
    expect(await child.exited).toBe(0);
    expect(stderr).toContain("xcsh: loaded openai");
  });
});
