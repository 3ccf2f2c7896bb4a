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
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { assistantEnds, cutAtEvent, cutEveryAttempt, expectCutOnEveryAttempt, fakeServerAndHome, readRecordedChunks, runJsonMode, textOf, thinkingOf, toSse as toSseOf, visibleReply as seen, type Json as Chunk, type Json as Frame, type VisibleReply as Expected } from "../support/recorded-streams.ts";

const RECORDED = join(import.meta.dir, "..", "fixtures", "provider-streams", "recorded", "mistral");

/** A `.chunks.txt` recording: one chunk's JSON per line, as Mistral sent it. */
const readChunks = (name: string): Chunk[] => readRecordedChunks(join(RECORDED, name));

/** Mistral frames its stream as Chat Completions does: a `data:` line for each chunk, then `data: [DONE]`. */
const toSse = (chunks: Chunk[]) => toSseOf(chunks, "openai-completions");

// --- what a recording says the user should see ------------------------------------------

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

const { server, home, writeExtension } = fakeServerAndHome();
let extension: string;

beforeAll(() => {
  // The built-in provider, its models and compat as the catalog has them; only where it connects changes.
  home.writeModelsJson({ providers: { mistral: { baseUrl: server.baseUrl("openai-completions"), apiKey: "test-key" } } });
  home.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 2 } });
  extension = writeExtension("recorded-tools.ts", TOOLS_EXTENSION);
});
async function ask(model: string): Promise<Frame[]> {
  const { frames } = await runJsonMode(["-e", extension, "-p", "Go on.", "--model", `mistral/${model}`], { env: home.env, timeoutMs: 30_000 });
  return frames;
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
    for (const [where, cut] of [["between events", "between"], ["inside an event", "inside"]] as const) {
      test(`${name}, cut ${where} at chunk ${at(readChunks(name))}: an error, retried, never an answer, no call run`, async () => {
        const chunks = readChunks(name);
        const index = at(chunks);
        expect(index).toBeGreaterThanOrEqual(0);
        server.enqueue(...cutEveryAttempt(toSse(chunks), cutAtEvent(chunks, index, "openai-completions", cut), 3));
        const frames = await ask(model);
        const replies = expectCutOnEveryAttempt(frames, server, 3);
        // What arrived before the cut is shown; that is all there was, so it is an error, not an answer.
        const arrived = expectedOf(chunks.slice(0, cut === "between" ? index + 1 : index));
        for (const reply of replies) {
          expect(textOf(reply)).toBe(arrived.text);
          expect(thinkingOf(reply)).toBe(arrived.thinking);
        }
        expect(frames.some((frame) => frame.type === "tool_execution_start")).toBe(false);
      });
    }
  }
});
