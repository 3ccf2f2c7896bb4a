/**
 * Real provider streams, recorded from the live APIs by another open-source SDK's test
 * suite (the Vercel AI SDK: Anthropic Messages, OpenAI Responses, Chat Completions from
 * Azure OpenAI and DeepSeek) and published in its npm packages, replayed through the
 * built binary. The
 * recordings stay in node_modules (devDependencies pinned to the versions that ship them;
 * test/fixtures/provider-streams/README.md names each file, version and licence).
 *
 * What the user sees — text, thinking, tool calls with their arguments, usage, stop
 * reason — is compared with what the recording itself contains, read here by a small
 * independent reader of each wire format, never with numbers written into the test.
 * Each API's recording is also cut mid-way: that must be an error, never an answer.
 *
 * Gemini, Vertex and Mistral recordings are in no published package: they are copied into
 * test/fixtures/provider-streams/recorded/ and replayed by recorded-streams-google.test.ts
 * and recorded-streams-mistral.test.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { FakeApi } from "../support/fake-llm/server.ts";
import { assistantEnds, cutAtCharacter, cutEveryAttempt, expectCutOnEveryAttempt, fakeServerAndHome, jsonTextIndex, readRecordedChunks as readChunks, runJsonMode, textOf, toSse, visibleReply as seen, type Json as Event, type Json as Frame, type VisibleReply as Expected } from "../support/recorded-streams.ts";

// --- the recordings -------------------------------------------------------------------

/** A package's folder in node_modules, found the way Bun resolves it. */
const packageDir = (name: string) => dirname(Bun.resolveSync(`${name}/package.json`, import.meta.dir));

const OPENAI_FIXTURES = join(packageDir("ai-sdk-openai-3.0.17"), "src");
const ANTHROPIC_FIXTURES = join(packageDir("ai-sdk-anthropic-3.0.21"), "src", "__fixtures__");
const DEEPSEEK_FIXTURES = join(packageDir("ai-sdk-deepseek-2.0.10"), "src", "chat", "__fixtures__");

/** A recording of several requests in a row (a tool loop) split into one stream per request. */
function splitAt(events: Event[], firstType: string): Event[][] {
  const responses: Event[][] = [];
  for (const event of events) {
    if (event.type === firstType || responses.length === 0) responses.push([]);
    responses[responses.length - 1].push(event);
  }
  return responses;
}
const splitResponses = (events: Event[]) => splitAt(events, "response.created");

// --- what each recording says the user should see --------------------------------------

const parseArguments = (json: string) => (json.trim() ? JSON.parse(json) : {});

/**
 * The replies of a recorded tool loop that xcsh asks for: each reply with a call of its own
 * tools brings the next request; the first without one ends the turn.
 */
function untilTurnEnds(replies: Expected[]): Expected[] {
  const end = replies.findIndex((reply) => reply.toolCalls.length === 0);
  return end === -1 ? replies : replies.slice(0, end + 1);
}

/**
 * Anthropic Messages: text, thinking and client tool_use blocks, streamed or already whole in
 * message_start; server tool blocks (web search, code execution) are not the user's.
 */
function expectedAnthropic(events: Event[]): Expected {
  const blocks = new Map<number, { type: string; id?: string; name?: string; input?: Record<string, unknown>; text: string }>();
  const order: number[] = [];
  const open = (index: number, block: Event) => {
    blocks.set(index, { type: block.type, id: block.id, name: block.name, input: block.input, text: block.text ?? block.thinking ?? "" });
    order.push(index);
  };
  let usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let stop = "";
  for (const event of events) {
    if (event.type === "message_start") {
      const start = event.message.usage;
      usage = { input: start.input_tokens, output: start.output_tokens, cacheRead: start.cache_read_input_tokens ?? 0, cacheWrite: start.cache_creation_input_tokens ?? 0 };
      event.message.content.forEach((block: Event, position: number) => open(-1 - position, block));
      stop = event.message.stop_reason ?? "";
    }
    if (event.type === "content_block_start") open(event.index, event.content_block);
    if (event.type === "content_block_delta") {
      const block = blocks.get(event.index)!;
      block.text += event.delta.text ?? event.delta.partial_json ?? event.delta.thinking ?? "";
    }
    if (event.type === "message_delta") {
      stop = event.delta.stop_reason ?? stop;
      const delta = event.usage;
      usage = {
        input: delta.input_tokens ?? usage.input,
        output: delta.output_tokens ?? usage.output,
        cacheRead: delta.cache_read_input_tokens ?? usage.cacheRead,
        cacheWrite: delta.cache_creation_input_tokens ?? usage.cacheWrite,
      };
    }
  }
  const picked = order.map((index) => blocks.get(index)!);
  return {
    text: picked.filter((block) => block.type === "text").map((block) => block.text).join(""),
    thinking: picked.filter((block) => block.type === "thinking").map((block) => block.text).join(""),
    toolCalls: picked
      .filter((block) => block.type === "tool_use")
      // Arguments streamed in deltas; without any, those the block started with.
      .map((block) => ({ id: block.id!, name: block.name!, arguments: block.text.trim() ? parseArguments(block.text) : (block.input ?? {}) })),
    stopReason: stop === "tool_use" ? "toolUse" : stop === "max_tokens" ? "length" : "stop",
    usage,
  };
}

/** OpenAI Responses: reasoning summaries, output text and function calls of one response. */
function expectedResponses(events: Event[]): Expected {
  const completed = events.find((event) => event.type === "response.completed")!.response;
  const calls = events.filter((event) => event.type === "response.output_item.done" && event.item.type === "function_call").map((event) => event.item);
  // The arguments are those streamed in deltas; the finished item repeats them.
  const streamedArguments = (itemId: string) =>
    events
      .filter((event) => event.type === "response.function_call_arguments.delta" && event.item_id === itemId)
      .map((event) => event.delta)
      .join("");
  return {
    text: events.filter((event) => event.type === "response.output_text.delta").map((event) => event.delta).join(""),
    thinking: events.filter((event) => event.type === "response.reasoning_summary_text.delta").map((event) => event.delta).join(""),
    // A call's id is the call_id and the item id joined by "|" (pi's session format): both go back.
    toolCalls: calls.map((item) => ({ id: `${item.call_id}|${item.id}`, name: item.name, arguments: parseArguments(streamedArguments(item.id)) })),
    stopReason: calls.length > 0 ? "toolUse" : "stop",
    usage: responsesUsage(completed.usage),
  };
}

function responsesUsage(usage: Event): Expected["usage"] {
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  return { input: usage.input_tokens - cached, output: usage.output_tokens, cacheRead: cached, cacheWrite: 0 };
}

/** Chat Completions: content, reasoning_content and tool-call deltas of choice 0, the finish reason, the usage chunk. */
function expectedChat(events: Event[]): Expected {
  const deltas = events
    .flatMap((event) => event.choices ?? [])
    .filter((choice: Event) => choice.index === 0)
    .map((choice: Event) => ({ ...choice.delta, finish: choice.finish_reason }));
  const calls: { id: string; name: string; json: string }[] = [];
  for (const call of deltas.flatMap((delta) => delta.tool_calls ?? [])) {
    calls[call.index] ??= { id: "", name: "", json: "" };
    calls[call.index].id ||= call.id ?? "";
    calls[call.index].name ||= call.function?.name ?? "";
    calls[call.index].json += call.function?.arguments ?? "";
  }
  const finish = deltas.map((delta) => delta.finish).find(Boolean);
  const usage = events.map((event) => event.usage).find(Boolean);
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    text: deltas.map((delta) => delta.content ?? "").join(""),
    thinking: deltas.map((delta) => delta.reasoning_content ?? "").join(""),
    toolCalls: calls.map((call) => ({ id: call.id, name: call.name, arguments: parseArguments(call.json) })),
    stopReason: finish === "tool_calls" ? "toolUse" : finish === "length" ? "length" : "stop",
    usage: { input: usage.prompt_tokens - cached, output: usage.completion_tokens, cacheRead: cached, cacheWrite: 0 },
  };
}

// --- the binary, against the fake server ----------------------------------------------

/** Each provider of the test's models.json, named after the service the recording came from. */
const PROVIDERS = {
  anthropic: { api: "anthropic-messages", model: "claude-sonnet-4-5" },
  azure: { api: "openai-completions", model: "gpt-5-nano" },
  deepseek: { api: "openai-completions", model: "deepseek-reasoner" },
  openai: { api: "openai-responses", model: "gpt-5.1-codex-max" },
} as const satisfies Record<string, { api: FakeApi; model: string }>;
type ProviderName = keyof typeof PROVIDERS;

const { server, home } = fakeServerAndHome();

beforeAll(() => {
  const providers: Record<string, unknown> = {};
  for (const [name, { api, model }] of Object.entries(PROVIDERS)) {
    providers[name] = { baseUrl: server.baseUrl(api), api, apiKey: "test-key", models: [{ id: model, reasoning: true }] };
  }
  home.writeModelsJson({ providers });
  home.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 2 } });
});
async function ask(provider: ProviderName, prompt = "Go on."): Promise<Frame[]> {
  const { model } = PROVIDERS[provider];
  const { frames } = await runJsonMode(["-p", prompt, "--model", `${provider}/${model}`], { env: home.env, timeoutMs: 30_000 });
  return frames;
}

// --- replayed whole ---------------------------------------------------------------------

describe("Anthropic Messages, recorded", () => {
  // Every recording the package ships; one with several messages is a tool loop, one request each.
  const recordings = readdirSync(ANTHROPIC_FIXTURES).filter((name) => name.endsWith(".chunks.txt"));
  for (const name of recordings) {
    test(`${name}: the replies the user sees are the recorded ones`, async () => {
      const messages = splitAt(readChunks(join(ANTHROPIC_FIXTURES, name)), "message_start");
      for (const events of messages) server.enqueue({ type: "raw", body: toSse(events, "anthropic-messages"), chunkBytes: 61 });
      const expected = untilTurnEnds(messages.map(expectedAnthropic));
      // A recording that ends in a call leaves xcsh one more request, which the fake server answers.
      const replies = assistantEnds(await ask("anthropic")).slice(0, expected.length);
      expect(replies.map(seen)).toEqual(expected);
      expect(replies.map((reply) => reply.responseId)).toEqual(messages.slice(0, expected.length).map((events) => events[0].message.id));
    });
  }
});

describe("OpenAI Chat Completions, recorded", () => {
  const recordings: { provider: ProviderName; path: string; shows: string }[] = [
    { provider: "azure", path: join(OPENAI_FIXTURES, "chat", "__fixtures__", "azure-model-router.1.chunks.txt"), shows: "an empty first chunk, the usage chunk after finish_reason" },
    { provider: "deepseek", path: join(DEEPSEEK_FIXTURES, "deepseek-text.chunks.txt"), shows: "an answer cut by max_tokens" },
    { provider: "deepseek", path: join(DEEPSEEK_FIXTURES, "deepseek-reasoning.chunks.txt"), shows: "reasoning_content, then the answer" },
    { provider: "deepseek", path: join(DEEPSEEK_FIXTURES, "deepseek-tool-call.chunks.txt"), shows: "reasoning_content, then a tool call in pieces, cached input" },
  ];
  for (const { provider, path, shows } of recordings) {
    test(`${provider}: ${path.split("/").at(-1)}: ${shows}`, async () => {
      const events = readChunks(path);
      const expected = expectedChat(events);
      server.enqueue({ type: "raw", body: toSse(events, "openai-completions"), chunkBytes: 73 });
      const [reply] = assistantEnds(await ask(provider));
      expect(seen(reply)).toEqual(expected);
    });
  }
});

describe("OpenAI Responses, recorded", () => {
  const RESPONSES_FIXTURES = join(OPENAI_FIXTURES, "responses", "__fixtures__");
  const recordings = readdirSync(RESPONSES_FIXTURES).filter((name) => name.endsWith(".chunks.txt") && !name.startsWith("openai-error"));
  for (const name of recordings) {
    test(`${name}: the replies the user sees are the recorded ones`, async () => {
      const responses = splitResponses(readChunks(join(RESPONSES_FIXTURES, name)));
      for (const events of responses) server.enqueue({ type: "raw", body: toSse(events, "openai-responses"), chunkBytes: 89 });
      const expected = untilTurnEnds(responses.map(expectedResponses));
      const replies = assistantEnds(await ask("openai")).slice(0, expected.length);
      expect(replies.map(seen)).toEqual(expected);
    });
  }

  test("openai-reasoning-encrypted-content.1: each recorded call runs with its arguments and goes back with its result and the reasoning before it", async () => {
    const responses = splitResponses(readChunks(join(RESPONSES_FIXTURES, "openai-reasoning-encrypted-content.1.chunks.txt")));
    expect(responses.length).toBeGreaterThan(1);
    for (const events of responses) server.enqueue({ type: "raw", body: toSse(events, "openai-responses"), chunkBytes: 89 });
    const frames = await ask("openai");
    const started = frames.filter((frame) => frame.type === "tool_execution_start");
    const calls = responses.flatMap((events) => expectedResponses(events).toolCalls);
    expect(calls.length).toBeGreaterThan(0);
    expect(started.map((frame) => ({ id: frame.toolCallId, name: frame.toolName, arguments: frame.args }))).toEqual(calls);
    expect(server.requests).toHaveLength(responses.length);
    for (const [index, call] of calls.entries()) {
      const input = server.requests[index + 1].body.input as Frame[];
      const [callId, itemId] = call.id.split("|");
      expect(input).toContainEqual(expect.objectContaining({ type: "function_call", call_id: callId, id: itemId, name: call.name }));
      expect(input).toContainEqual(expect.objectContaining({ type: "function_call_output", call_id: callId }));
    }
    // The encrypted reasoning goes back as the finished item carried it (the API needs it with store: false).
    const reasoning = responses[0].find((event) => event.type === "response.output_item.done" && event.item.type === "reasoning")!.item;
    for (const request of server.requests.slice(1)) {
      expect(request.body.input).toContainEqual(expect.objectContaining({ type: "reasoning", id: reasoning.id, encrypted_content: reasoning.encrypted_content }));
    }
  });

  test("openai-error.1: an error event inside the stream reads as the provider's message", async () => {
    const events = readChunks(join(OPENAI_FIXTURES, "responses", "__fixtures__", "openai-error.1.chunks.txt"));
    const error = events.find((event) => event.type === "error")!.error;
    server.enqueue({ type: "raw", body: toSse(events, "openai-responses") });
    const [reply] = assistantEnds(await ask("openai"));
    expect(reply.stopReason).toBe("error");
    expect(reply.errorMessage).toContain(error.message);
    expect(textOf(reply)).toBe("");
    // An exhausted quota does not come back by waiting: no retry.
    expect(server.requests).toHaveLength(1);
  });
});

// --- cut mid-way ---------------------------------------------------------------------------

describe("a recorded stream cut mid-way", () => {
  const cases: { provider: ProviderName; api: FakeApi; events: () => Event[]; firstText: (events: Event[]) => string }[] = [
    {
      provider: "anthropic",
      api: "anthropic-messages",
      events: () => readChunks(join(ANTHROPIC_FIXTURES, "anthropic-tool-no-args.chunks.txt")),
      firstText: (events) => events.find((event) => event.delta?.type === "text_delta")!.delta.text,
    },
    {
      provider: "azure",
      api: "openai-completions",
      events: () => readChunks(join(OPENAI_FIXTURES, "chat", "__fixtures__", "azure-model-router.1.chunks.txt")),
      firstText: (events) => events.flatMap((event) => event.choices ?? []).find((choice: Event) => choice.delta?.content)!.delta.content,
    },
    {
      provider: "openai",
      api: "openai-responses",
      // The last request of the tool loop: the one that answers in text.
      events: () => splitResponses(readChunks(join(OPENAI_FIXTURES, "responses", "__fixtures__", "openai-reasoning-encrypted-content.1.chunks.txt"))).at(-1)!,
      firstText: (events) => events.find((event) => event.type === "response.output_text.delta")!.delta,
    },
  ];
  for (const { provider, api, events, firstText } of cases) {
    for (const [where, cut] of [["between events", "between"], ["inside an event", "inside"]] as const) {
      test(`${PROVIDERS[provider].api}, cut ${where}: an error, never a finished answer`, async () => {
        const recorded = events();
        const body = toSse(recorded, api);
        const text = firstText(recorded);
        // The event that carries the first text arrives (or half of it does), then the connection ends.
        server.enqueue(...cutEveryAttempt(body, cutAtCharacter(body, jsonTextIndex(body, text), cut), 3));
        const replies = expectCutOnEveryAttempt(await ask(provider), server, 3);
        if (cut === "between") for (const reply of replies) expect(textOf(reply)).toBe(text);
      });
    }
  }
});
