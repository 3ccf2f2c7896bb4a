/**
 * Real Mistral streams, recorded from Mistral's live API by the Vercel AI SDK's test suite
 * (copied into test/fixtures/provider-streams/recorded/mistral/; SOURCES.md there names each
 * file's source, commit and licence), replayed through the built binary as the built-in
 * `mistral` provider: its catalog entry and quirks (nine-character tool-call ids, the tool's
 * name on its result), only the base URL pointed at the fake server.
 *
 * What the user sees — text, thinking, tool calls with their arguments, usage, stop reason —
 * is compared with what the recording itself holds, read here by a small reader of Mistral's
 * chunks (content as a string, or as an array of `text` and `thinking` parts), never with
 * numbers written into the test. Each recording is also cut mid-way, between two events and
 * inside one: that must be an error, retried, never an answer, and a cut call never runs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";

const RECORDED = join(import.meta.dir, "..", "fixtures", "provider-streams", "recorded", "mistral");

type Chunk = Record<string, any>;

/** A `.chunks.txt` recording: one chunk's JSON per line, as Mistral sent it. */
function readChunks(name: string): Chunk[] {
  return readFileSync(join(RECORDED, name), "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Chunk);
}

/** Mistral frames each chunk as an SSE `data:` line and ends with `data: [DONE]`. */
const frameOf = (chunk: Chunk) => `data: ${JSON.stringify(chunk)}\n\n`;
const toSse = (chunks: Chunk[]) => chunks.map(frameOf).join("") + "data: [DONE]\n\n";

// --- what a recording says the user should see ------------------------------------------

interface Expected {
  text: string;
  thinking: string;
  toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[];
  stopReason: "stop" | "toolUse" | "length";
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

/** The text of `delta.content`: a string, or the `text` parts of an array. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((part) => part.type === "text").map((part) => part.text).join("");
}

/** The reasoning in `delta.content`: the `thinking` parts of an array, each a list of text parts. */
function contentThinking(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => part.type === "thinking")
    .flatMap((part) => part.thinking)
    .map((part: Chunk) => part.text)
    .join("");
}

/** Choice 0's deltas: content, thinking, tool calls by index (or array slot), the finish reason, the last usage. */
function expectedOf(chunks: Chunk[]): Expected {
  const choices = chunks.flatMap((chunk) => chunk.choices ?? []).filter((choice: Chunk) => choice.index === 0);
  const calls: { id: string; name: string; json: string }[] = [];
  for (const choice of choices) {
    (choice.delta.tool_calls ?? []).forEach((call: Chunk, slot: number) => {
      const at = call.index ?? slot;
      calls[at] ??= { id: "", name: "", json: "" };
      calls[at].id ||= call.id ?? "";
      calls[at].name ||= call.function?.name ?? "";
      calls[at].json += call.function?.arguments ?? "";
    });
  }
  const finish = choices.map((choice: Chunk) => choice.finish_reason).find(Boolean);
  const usage = chunks.map((chunk) => chunk.usage).filter(Boolean).at(-1) ?? { prompt_tokens: 0, completion_tokens: 0 };
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    text: choices.map((choice: Chunk) => contentText(choice.delta.content)).join(""),
    thinking: choices.map((choice: Chunk) => contentThinking(choice.delta.content)).join(""),
    toolCalls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.json.trim() ? JSON.parse(call.json) : {} })),
    stopReason: finish === "tool_calls" ? "toolUse" : finish === "length" ? "length" : "stop",
    usage: { input: usage.prompt_tokens - cached, output: usage.completion_tokens, cacheRead: cached, cacheWrite: 0 },
  };
}

// --- the binary, against the fake server ------------------------------------------------

/**
 * Tools named as the recordings call them, so a recorded call runs: each says what it was
 * given, which the user then sees as the result and Mistral gets back.
 */
const TOOLS_EXTENSION = `import { Type } from "typebox";
export default function (pi) {
  for (const [name, parameter] of [["weather", "location"], ["webSearchTool", "query"]]) {
    pi.registerTool({
      name,
      label: name,
      description: "Answers from the test",
      parameters: Type.Object({ [parameter]: Type.String() }),
      async execute(_id, params) {
        return { content: [{ type: "text", text: name + " ran with " + JSON.stringify(params) }], details: {} };
      },
    });
  }
}
`;
const ranText = (name: string, args: Record<string, unknown>) => `${name} ran with ${JSON.stringify(args)}`;

let server: FakeLlmServer;
let home: TestHome;
let extension: string;

beforeAll(() => {
  server = startFakeLlm();
  home = makeTestHome();
  // The built-in provider, its models and compat as the catalog has them; only where it connects changes.
  home.writeModelsJson({ providers: { mistral: { baseUrl: server.baseUrl("openai-completions"), apiKey: "test-key" } } });
  home.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 2 } });
  mkdirSync(join(home.home, "ext"), { recursive: true });
  extension = join(home.home, "ext", "recorded-tools.ts");
  writeFileSync(extension, TOOLS_EXTENSION);
});
afterEach(() => {
  server.clearScript();
  server.requests.length = 0;
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});

type Frame = Record<string, any>;

async function ask(model: string): Promise<Frame[]> {
  const result = await runXcsh(["--mode", "json", "-e", extension, "-p", "Go on.", "--model", `mistral/${model}`], { env: home.env, timeoutMs: 30_000 });
  return result.stdout
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Frame);
}

const assistantEnds = (frames: Frame[]) => frames.filter((frame) => frame.type === "message_end" && frame.message.role === "assistant").map((frame) => frame.message);
const blocksOf = (message: Frame, type: string) => message.content.filter((block: Frame) => block.type === type);
const textOf = (message: Frame) => blocksOf(message, "text").map((block: Frame) => block.text).join("");
const thinkingOf = (message: Frame) => blocksOf(message, "thinking").map((block: Frame) => block.thinking).join("");

function seen(message: Frame): Expected {
  return {
    text: textOf(message),
    thinking: thinkingOf(message),
    toolCalls: blocksOf(message, "toolCall").map((block: Frame) => ({ id: block.id, name: block.name, arguments: block.arguments })),
    stopReason: message.stopReason,
    usage: { input: message.usage.input, output: message.usage.output, cacheRead: message.usage.cacheRead, cacheWrite: message.usage.cacheWrite },
  };
}

// --- replayed whole ---------------------------------------------------------------------

/** Each recording with the catalog model that stands for the one recorded (the catalog lists `-latest` names). */
const RECORDINGS = [
  { name: "mistral-text.chunks.txt", model: "mistral-small-latest", shows: "an answer in string deltas" },
  { name: "mistral-reasoning.chunks.txt", model: "magistral-medium-latest", shows: "content as arrays of thinking and text parts" },
  { name: "mistral-tool-call.chunks.txt", model: "mistral-small-latest", shows: "a whole tool call with no index, in the finishing chunk" },
  { name: "mistral-incremental-tool-call.chunks.txt", model: "zai-glm-5-2", shows: "a tool call in pieces (the second with an empty name), cached input" },
  { name: "mistral-usage-raw-live.chunks.txt", model: "mistral-small-latest", shows: "the `p` padding field, usage with service_tier" },
] as const;

describe("Mistral, recorded", () => {
  for (const { name, model, shows } of RECORDINGS) {
    test(`${name}: ${shows}: the reply the user sees is the recorded one`, async () => {
      const chunks = readChunks(name);
      const expected = expectedOf(chunks);
      server.enqueue({ type: "raw", body: toSse(chunks), chunkBytes: 67 });
      const frames = await ask(model);
      const [reply] = assistantEnds(frames);
      expect(seen(reply)).toEqual(expected);
      expect(reply.responseId).toBe(chunks[0].id);
      // Something must be there to compare: a recording the reader misreads as empty proves nothing.
      expect(expected.text || expected.thinking || expected.toolCalls.length).toBeTruthy();
    });
  }

  for (const name of ["mistral-tool-call.chunks.txt", "mistral-incremental-tool-call.chunks.txt"]) {
    test(`${name}: the recorded call runs with its arguments and goes back under an id Mistral accepts, with the tool's name`, async () => {
      const chunks = readChunks(name);
      const [call] = expectedOf(chunks).toolCalls;
      const model = RECORDINGS.find((recording) => recording.name === name)!.model;
      server.enqueue({ type: "raw", body: toSse(chunks), chunkBytes: 67 });
      const frames = await ask(model);

      const started = frames.filter((frame) => frame.type === "tool_execution_start");
      expect(started.map((frame) => ({ id: frame.toolCallId, name: frame.toolName, arguments: frame.args }))).toEqual([call]);
      const ended = frames.find((frame) => frame.type === "tool_execution_end")!;
      expect(ended.isError).toBe(false);
      expect(JSON.stringify(ended.result)).toContain(JSON.stringify(ranText(call.name, call.arguments)).slice(1, -1));

      // The next request carries the call and its result, paired by one id of nine letters and digits.
      expect(server.requests).toHaveLength(2);
      const messages = server.requests[1].body.messages as Frame[];
      const assistant = messages.find((message) => message.role === "assistant" && message.tool_calls)!;
      const result = messages.find((message) => message.role === "tool")!;
      const sentCall = assistant.tool_calls[0];
      expect(sentCall.id).toMatch(/^[A-Za-z0-9]{9}$/);
      expect(result.tool_call_id).toBe(sentCall.id);
      expect(sentCall.function.name).toBe(call.name);
      expect(JSON.parse(sentCall.function.arguments)).toEqual(call.arguments);
      expect(result.name).toBe(call.name);
      expect(JSON.stringify(result.content)).toContain(JSON.stringify(ranText(call.name, call.arguments)).slice(1, -1));
    });
  }
});

// --- cut mid-way ----------------------------------------------------------------------------

describe("a recorded Mistral stream cut mid-way", () => {
  /** Each recording is cut after (or inside) the chunk that `at` picks. */
  const cases = [
    { name: "mistral-text.chunks.txt", model: "mistral-small-latest", at: (chunks: Chunk[]) => chunks.findIndex((chunk) => contentText(chunk.choices[0]?.delta.content)) },
    { name: "mistral-reasoning.chunks.txt", model: "magistral-medium-latest", at: (chunks: Chunk[]) => chunks.findIndex((chunk) => contentThinking(chunk.choices[0]?.delta.content)) },
    { name: "mistral-reasoning.chunks.txt", model: "magistral-medium-latest", at: (chunks: Chunk[]) => chunks.findIndex((chunk) => contentText(chunk.choices[0]?.delta.content)) },
    { name: "mistral-incremental-tool-call.chunks.txt", model: "zai-glm-5-2", at: (chunks: Chunk[]) => chunks.findIndex((chunk) => chunk.choices[0]?.delta.tool_calls) },
  ];
  for (const { name, model, at } of cases) {
    for (const where of ["between events", "inside an event"] as const) {
      test(`${name}, cut ${where} at chunk ${at(readChunks(name))}: an error, retried, never an answer, no call run`, async () => {
        const chunks = readChunks(name);
        const index = at(chunks);
        expect(index).toBeGreaterThanOrEqual(0);
        const body = toSse(chunks);
        const before = chunks.slice(0, index).map(frameOf).join("").length;
        const cutAt = where === "between events" ? before + frameOf(chunks[index]).length : before + Math.floor(frameOf(chunks[index]).length / 2);
        server.enqueue(...[1, 2, 3].map(() => ({ type: "raw" as const, body, cutAtByte: cutAt })));
        const frames = await ask(model);
        const replies = assistantEnds(frames);
        expect(replies.length).toBeGreaterThan(0);
        // What arrived before the cut is shown; that is all there was, so it is an error, not an answer.
        const arrived = expectedOf(chunks.slice(0, where === "between events" ? index + 1 : index));
        for (const reply of replies) {
          expect(reply.stopReason).toBe("error");
          expect(reply.errorMessage).toContain("stream ended before the provider said it finished");
          expect(textOf(reply)).toBe(arrived.text);
          expect(thinkingOf(reply)).toBe(arrived.thinking);
        }
        expect(frames.some((frame) => frame.type === "tool_execution_start")).toBe(false);
        expect(frames.some((frame) => frame.type === "auto_retry_start")).toBe(true);
        expect(server.requests).toHaveLength(3);
      });
    }
  }
});
