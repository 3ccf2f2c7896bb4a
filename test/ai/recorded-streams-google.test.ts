/**
 * Real Gemini API and Vertex AI streams, recorded from the live services by the Vercel AI
 * SDK's test suite and copied into test/fixtures/provider-streams/recorded/google (its
 * SOURCES.md names each file's repository, commit, licence and model), replayed through
 * the built binary on the API each was recorded from.
 *
 * What the user sees — text, thinking, tool calls with their arguments, usage, stop
 * reason — is compared with what the recording itself holds, read here by a small
 * reader of the wire format of its own, never with values written into the test. The
 * Vertex recordings stream function-call arguments in pieces addressed by JSON path: the
 * arguments the user sees must be the ones those pieces build. Each API's recording is
 * also cut mid-way, between two chunks and inside one: that must be an error, retried,
 * never an answer, and never a tool run with half its arguments.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { assistantEnds, cutAtCharacter, cutEveryAttempt, expectCutOnEveryAttempt, fakeServerAndHome, jsonTextIndex, readRecordedLines, runJsonMode, textOf, toolStarts, toSse as toSseOf, visibleReply, type Json as Chunk, type Json as Frame, type VisibleReply } from "../support/recorded-streams.ts";

// --- the recordings -------------------------------------------------------------------

const RECORDED = join(import.meta.dir, "..", "fixtures", "provider-streams", "recorded", "google");

interface Recording {
  name: string;
  /** Each chunk's JSON as recorded (the service's values; the recorder's spacing), one per line of the file. */
  lines: string[];
  chunks: Chunk[];
}

function readRecording(name: string): Recording {
  const lines = readRecordedLines(join(RECORDED, name));
  return { name, lines, chunks: lines.map((line) => JSON.parse(line) as Chunk) };
}

/** Vertex AI stamps each chunk with `createTime`; the Gemini API does not. */
const recordedOnVertex = (recording: Recording) => recording.chunks.some((chunk) => "createTime" in chunk);

/**
 * The files keep each chunk's JSON; the SSE framing goes back around it as the live API
 * sends it (`streamGenerateContent?alt=sse`): a `data:` line and a blank line, with CRLF.
 * Each line goes out as it was recorded, not parsed and written again.
 */
const toSse = (lines: string[]) => toSseOf(lines, "google-generative-ai");

const ALL = readdirSync(RECORDED).filter((name) => name.endsWith(".chunks.txt"));
/** Recordings with a test of their own below: a tool loop over two files, a refused prompt. */
const TOOL_LOOP = ["issue-10781.1.chunks.txt", "issue-10781.2.chunks.txt"];
const REFUSED = "issue-19758-prompt-block.chunks.txt";
const SINGLE = ALL.filter((name) => !TOOL_LOOP.includes(name) && name !== REFUSED);

// --- what a recording says the user should see ------------------------------------------

/** A call without an id in the recording gets one from xcsh: the reader expects any string there. */
type Expected = VisibleReply<unknown>;

/**
 * Puts one streamed piece of arguments at its JSON path (`$.recipe.ingredients[3].name`):
 * a string piece extends the string already there, any other value replaces it.
 */
function putPiece(args: Record<string, unknown>, piece: Chunk): void {
  const keys = String(piece.jsonPath)
    .replace(/^\$\.?/, "")
    .replace(/\[(\d+)\]/g, ".$1")
    .split(".");
  let node: any = args;
  keys.slice(0, -1).forEach((key, i) => {
    node[key] ??= /^\d+$/.test(keys[i + 1]) ? [] : {};
    node = node[key];
  });
  const last = keys.at(-1)!;
  if ("stringValue" in piece) node[last] = (node[last] ?? "") + piece.stringValue;
  else if ("numberValue" in piece) node[last] = piece.numberValue;
  else if ("boolValue" in piece) node[last] = piece.boolValue;
  else if ("nullValue" in piece) node[last] = null;
}

/**
 * The reply of one `streamGenerateContent` stream: text and thought parts of candidate 0,
 * function calls — whole (`args`), or opened by a part naming the function and built
 * from `partialArgs` until a part without `willContinue` — the last full usage, the
 * finish reason. A call without an id gets one from xcsh: any string will do.
 */
function expectedReply(chunks: Chunk[]): Expected {
  let text = "";
  let thinking = "";
  const calls: { id?: string; name: string; args: Record<string, unknown> }[] = [];
  let open: (typeof calls)[number] | undefined;
  let finish = "";
  let usage: Chunk = {};
  for (const chunk of chunks) {
    if (chunk.usageMetadata?.promptTokenCount !== undefined) usage = chunk.usageMetadata;
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      const call = part.functionCall;
      if (!call) {
        if (part.thought) thinking += part.text ?? "";
        else text += part.text ?? "";
        continue;
      }
      if (call.name) {
        open = { id: call.id, name: call.name, args: structuredClone(call.args ?? {}) };
        calls.push(open);
      }
      for (const piece of call.partialArgs ?? []) putPiece(open!.args, piece);
      if (!call.willContinue) open = undefined;
    }
    finish = candidate?.finishReason ?? finish;
  }
  const cached = usage.cachedContentTokenCount ?? 0;
  return {
    text,
    thinking,
    toolCalls: calls.map((call) => ({ id: call.id ?? expect.any(String), name: call.name, arguments: call.args })),
    stopReason: finish === "MAX_TOKENS" ? "length" : calls.length > 0 ? "toolUse" : "stop",
    usage: {
      // The prompt count includes cached tokens; a built-in tool's prompt is input too.
      input: (usage.promptTokenCount ?? 0) - cached + (usage.toolUsePromptTokenCount ?? 0),
      output: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
      cacheRead: cached,
      cacheWrite: 0,
    },
  };
}

// --- the binary, against the fake server ----------------------------------------------

/** The test's models.json providers: the Gemini API, and Vertex AI in express mode (an API key). */
const PROVIDERS = {
  gemini: { api: "google-generative-ai", model: "gemini-3-pro-preview" },
  vertex: { api: "google-vertex", model: "gemini-3.1-pro-preview" },
} as const;
type ProviderName = keyof typeof PROVIDERS;

const { server, home } = fakeServerAndHome();

beforeAll(() => {
  home.writeModelsJson({
    providers: {
      gemini: { baseUrl: server.baseUrl("google-generative-ai"), api: PROVIDERS.gemini.api, apiKey: "test-key", models: [{ id: PROVIDERS.gemini.model, reasoning: true }] },
      // Vertex's own path below the host: /v1/publishers/google/models/<id>:streamGenerateContent.
      vertex: { baseUrl: server.url, api: PROVIDERS.vertex.api, apiKey: "test-key", models: [{ id: PROVIDERS.vertex.model, reasoning: true }] },
    },
  });
  home.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 2 } });
});
async function ask(provider: ProviderName, prompt = "Go on."): Promise<Frame[]> {
  const { model } = PROVIDERS[provider];
  const { frames } = await runJsonMode(["-p", prompt, "--model", `${provider}/${model}`], { env: home.env, timeoutMs: 60_000 });
  return frames;
}

/** What the user saw of a reply, where a test also puts what the recording's reader expects. */
const seen = (message: Frame): Expected => visibleReply(message);
const providerOf = (recording: Recording): ProviderName => (recordedOnVertex(recording) ? "vertex" : "gemini");

/** The model turn of a follow-up request: what xcsh sent back of the recorded reply. */
const modelTurns = (body: Chunk) => (body.contents as Chunk[]).filter((content) => content.role === "model");
const partsOfRequest = (body: Chunk) => (body.contents as Chunk[]).flatMap((content) => content.parts as Chunk[]);

// --- replayed whole ---------------------------------------------------------------------

describe("Gemini API and Vertex AI, recorded", () => {
  test("each recording names its source in SOURCES.md, and both APIs are recorded", () => {
    const sources = readFileSync(join(RECORDED, "SOURCES.md"), "utf8");
    const named = [...sources.matchAll(/^\| ([\w.-]+\.chunks\.txt) \| ([0-9a-f]{40}) \|/gm)].map((row) => row[1]);
    expect(named.toSorted()).toEqual(ALL.toSorted());
    expect(ALL.filter((name) => recordedOnVertex(readRecording(name))).length).toBeGreaterThan(0);
    expect(ALL.filter((name) => !recordedOnVertex(readRecording(name))).length).toBeGreaterThan(0);
  });

  for (const name of SINGLE) {
    test(`${name}: the reply the user sees is the recorded one`, async () => {
      const recording = readRecording(name);
      const provider = providerOf(recording);
      server.enqueue({ type: "raw", body: toSse(recording.lines), chunkBytes: 97 });
      const expected = expectedReply(recording.chunks);
      const frames = await ask(provider);
      const [reply] = assistantEnds(frames);
      expect(seen(reply)).toEqual(expected);
      expect(reply.responseId).toBe(recording.chunks[0].responseId);
      // Each call is one call with an id of its own: a tool result finds its call by id.
      const ids = expected.toolCalls.length ? seen(reply).toolCalls.map((call) => call.id) : [];
      expect(new Set(ids).size).toBe(expected.toolCalls.length);
      // The request went where that API lives.
      const path = server.requests[0].path;
      if (provider === "vertex") expect(path).toBe(`/v1/publishers/google/models/${PROVIDERS.vertex.model}:streamGenerateContent`);
      else expect(path).toBe(`/v1beta/models/${PROVIDERS.gemini.model}:streamGenerateContent`);
      // A reply with calls runs each with the arguments the recording built, and sends each back.
      expect(toolStarts(frames).map((frame) => ({ name: frame.toolName, arguments: frame.args }))).toEqual(
        expected.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments })),
      );
      if (expected.toolCalls.length > 0) {
        const followUp = server.requests[1].body;
        const sentCalls = modelTurns(followUp)
          .flatMap((content) => content.parts as Chunk[])
          .filter((part) => part.functionCall)
          .map((part) => ({ name: part.functionCall.name, arguments: part.functionCall.args }));
        expect(sentCalls).toEqual(expected.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments })));
        expect(partsOfRequest(followUp).filter((part) => part.functionResponse)).toHaveLength(expected.toolCalls.length);
        // The first call's thought signature goes back with it (Gemini 3 refuses the step without it).
        const signature = recording.chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []).find((part: Chunk) => part.functionCall)?.thoughtSignature;
        if (signature) expect(modelTurns(followUp).flatMap((content) => content.parts).find((part: Chunk) => part.functionCall).thoughtSignature).toBe(signature);
      }
    });
  }

  test("issue-10781.1 and .2: a recorded tool loop; the call goes back with its id and signature, its result with the same id", async () => {
    const [first, second] = TOOL_LOOP.map(readRecording);
    server.enqueue({ type: "raw", body: toSse(first.lines), chunkBytes: 97 }, { type: "raw", body: toSse(second.lines), chunkBytes: 97 });
    const frames = await ask("gemini");
    expect(assistantEnds(frames).map(seen)).toEqual([expectedReply(first.chunks), expectedReply(second.chunks)]);
    expect(server.requests).toHaveLength(2);
    const recordedCall = first.chunks.flatMap((chunk) => chunk.candidates[0].content.parts).find((part: Chunk) => part.functionCall);
    const parts = partsOfRequest(server.requests[1].body);
    expect(parts).toContainEqual(expect.objectContaining({ functionCall: { id: recordedCall.functionCall.id, name: recordedCall.functionCall.name, args: recordedCall.functionCall.args }, thoughtSignature: recordedCall.thoughtSignature }));
    expect(parts).toContainEqual({ functionResponse: expect.objectContaining({ id: recordedCall.functionCall.id, name: recordedCall.functionCall.name }) });
  });

  test("issue-19758: a refused prompt is an error that names the block reason, not an empty answer, and is not retried", async () => {
    const recording = readRecording(REFUSED);
    const reason = recording.chunks[0].promptFeedback.blockReason;
    server.enqueue({ type: "raw", body: toSse(recording.lines) }, { type: "raw", body: toSse(recording.lines) }, { type: "raw", body: toSse(recording.lines) });
    const frames = await ask("gemini");
    const replies = assistantEnds(frames);
    expect(replies).toHaveLength(1);
    expect(replies[0].stopReason).toBe("error");
    expect(replies[0].errorMessage).toContain(reason);
    expect(textOf(replies[0])).toBe("");
    // The same prompt is refused again: asking again only costs the user time.
    expect(server.requests).toHaveLength(1);
  });
});

// --- cut mid-way ---------------------------------------------------------------------------

describe("a recorded stream cut mid-way", () => {
  const cases: { provider: ProviderName; name: string; marker: (recording: Recording) => string }[] = [
    // The first text the user would see.
    { provider: "gemini", name: "google-text.chunks.txt", marker: (recording) => recording.chunks[0].candidates[0].content.parts[0].text },
    // A piece of the streamed call's arguments, halfway through them.
    {
      provider: "vertex",
      name: "google-vertex-stream-tool-call-arguments-nested.1.chunks.txt",
      marker: (recording) => {
        const pieces = recording.chunks.flatMap((chunk) => chunk.candidates[0].content.parts[0].functionCall?.partialArgs ?? []).filter((piece: Chunk) => piece.stringValue);
        return pieces[Math.floor(pieces.length / 2)].stringValue;
      },
    },
  ];
  for (const { provider, name, marker } of cases) {
    for (const [where, cut] of [["between chunks", "between"], ["inside a chunk", "inside"]] as const) {
      test(`${PROVIDERS[provider].api}, ${name}, cut ${where}: an error, retried, never an answer or a tool run`, async () => {
        const recording = readRecording(name);
        expect(providerOf(recording)).toBe(provider);
        const body = toSse(recording.lines);
        const at = jsonTextIndex(body, marker(recording));
        expect(at).toBeGreaterThan(0);
        server.enqueue(...cutEveryAttempt(body, cutAtCharacter(body, at, cut), 3));
        const frames = await ask(provider);
        const replies = expectCutOnEveryAttempt(frames, server, 3);
        if (provider === "gemini" && cut === "between") for (const reply of replies) expect(textOf(reply)).toBe(marker(recording));
        expect(toolStarts(frames)).toHaveLength(0);
      });
    }
  }
});
