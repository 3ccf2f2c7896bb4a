/**
 * Real OpenAI Responses streams with a custom (free-form) tool call, and with an `error` event
 * whose code is null, recorded from the live API by the Vercel AI SDK's test suite (copied
 * into test/fixtures/provider-streams/recorded/openai/; SOURCES.md there names each file's
 * source, commit and licence), replayed through the built binary as the built-in `openai`
 * provider with its base URL pointed at the fake server.
 *
 * A custom call carries raw text, not JSON arguments. An extension gives xcsh the tool the
 * recording calls (`setHtml`, one string parameter); the user must see that call with the
 * recorded text as its argument, the tool must run with it, and the next request must send it
 * back as a `custom_tool_call` with its `custom_tool_call_output`. The expectations come from
 * the recording, read here by a small reader of the Responses events. A cut stream must end as
 * an error, retried, and must never run a half-received call.
 */
import { beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { assistantEnds, blocksOf, cutAtEvent, cutEveryAttempt, expectCutOnEveryAttempt, fakeServerAndHome, readRecordedChunks, runJsonMode, toSse as toSseOf, usageOf, type Json as Event, type Json as Frame } from "../support/recorded-streams.ts";

const RECORDED = join(import.meta.dir, "..", "fixtures", "provider-streams", "recorded", "openai");

/** A `.chunks.txt` recording: one event's JSON per line, as the API sent it. */
const readEvents = (name: string): Event[] => readRecordedChunks(join(RECORDED, name));

/** The Responses API names each event on an `event:` line before its `data:` line. */
const toSse = (events: Event[]) => toSseOf(events, "openai-responses");

// --- what the recording says the user should see -----------------------------------------

interface CustomCall {
  /** pi's session form: the call id and the item id joined by "|". */
  id: string;
  callId: string;
  name: string;
  /** The raw text, as the input deltas streamed it. */
  input: string;
}

function customCallsOf(events: Event[]): CustomCall[] {
  return events
    .filter((event) => event.type === "response.output_item.added" && event.item.type === "custom_tool_call")
    .map(({ item }) => ({
      id: `${item.call_id}|${item.id}`,
      callId: item.call_id,
      name: item.name,
      input: events
        .filter((event) => event.type === "response.custom_tool_call_input.delta" && event.item_id === item.id)
        .map((event) => event.delta)
        .join(""),
    }));
}

function recordedUsage(events: Event[]) {
  const usage = events.find((event) => event.type === "response.completed")!.response.usage;
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  return { input: usage.input_tokens - cached, output: usage.output_tokens, cacheRead: cached, cacheWrite: 0 };
}

// --- the binary, against the fake server ------------------------------------------------

/** The file the test's `setHtml` writes: what the call did, for the user to find. */
const PAGE = "page.html";

/** The tool the recording calls, taking its free text as its one string parameter. */
const TOOLS_EXTENSION = `import { Type } from "typebox";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
export default function (pi) {
  pi.registerTool({
    name: "setHtml",
    label: "Set HTML",
    description: "Return the requested HTML verbatim as freeform text.",
    parameters: Type.Object({ html: Type.String() }),
    async execute(_id, params, _signal, _onUpdate, ctx) {
      writeFileSync(join(ctx.cwd, ${JSON.stringify(PAGE)}), params.html);
      return { content: [{ type: "text", text: "page set: " + params.html.length + " characters" }], details: {} };
    },
  });
}
`;

/** The catalog's Codex model stands for gpt-5.2-codex, which the recording names. */
const MODEL = "openai/gpt-5.3-codex";

const { server, home, writeExtension } = fakeServerAndHome();
let extension: string;
let cwd: string;

beforeAll(() => {
  home.writeModelsJson({ providers: { openai: { baseUrl: server.baseUrl("openai-responses"), apiKey: "test-key" } } });
  home.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 2 } });
  extension = writeExtension("set-html.ts", TOOLS_EXTENSION);
  cwd = join(home.home, "project");
  mkdirSync(cwd, { recursive: true });
});
beforeEach(() => rmSync(join(cwd, PAGE), { force: true }));

async function ask(): Promise<Frame[]> {
  const { frames } = await runJsonMode(["-e", extension, "-p", "Set the page.", "--model", MODEL], { env: home.env, cwd, timeoutMs: 30_000 });
  return frames;
}

// --- replayed whole ---------------------------------------------------------------------

describe("OpenAI Responses custom tool call, recorded (openai-custom-text-tool.1)", () => {
  const events = readEvents("openai-custom-text-tool.1.chunks.txt");
  const calls = customCallsOf(events);

  test("the recording holds one custom call whose streamed text is its finished input", () => {
    expect(calls).toHaveLength(1);
    const done = events.find((event) => event.type === "response.output_item.done")!.item;
    expect(calls[0].input).toBe(done.input);
    expect(calls[0].input.length).toBeGreaterThan(0);
  });

  test("the user sees the call with the recorded text as its argument, the tool runs with it, and the call goes back as a custom call", async () => {
    const [call] = calls;
    server.enqueue({ type: "raw", body: toSse(events), chunkBytes: 89 });
    const frames = await ask();

    const [reply] = assistantEnds(frames);
    expect(reply.stopReason).toBe("toolUse");
    expect(blocksOf(reply, "text")).toEqual([]);
    expect(blocksOf(reply, "toolCall").map((block: Frame) => ({ id: block.id, name: block.name, arguments: block.arguments }))).toEqual([
      { id: call.id, name: call.name, arguments: { html: call.input } },
    ]);
    expect(usageOf(reply)).toEqual(recordedUsage(events));

    // The tool ran once, with the text as the model wrote it.
    const started = frames.filter((frame) => frame.type === "tool_execution_start");
    expect(started.map((frame) => ({ id: frame.toolCallId, name: frame.toolName, args: frame.args }))).toEqual([{ id: call.id, name: call.name, args: { html: call.input } }]);
    expect(readFileSync(join(cwd, PAGE), "utf8")).toBe(call.input);

    // The next request replays the call as the custom call it was, with its output.
    expect(server.requests).toHaveLength(2);
    const input = server.requests[1].body.input as Frame[];
    expect(input).toContainEqual(expect.objectContaining({ type: "custom_tool_call", call_id: call.callId, name: call.name, input: call.input }));
    expect(input.some((item) => item.type === "function_call")).toBe(false);
    const output = input.find((item) => item.type === "custom_tool_call_output");
    expect(output).toMatchObject({ call_id: call.callId });
    expect(JSON.stringify(output!.output)).toContain(`page set: ${call.input.length} characters`);
  });

  test("while the call streams, a client following the deltas reads the call's arguments, and never more than the recorded text so far", async () => {
    const [call] = calls;
    server.enqueue({ type: "raw", body: toSse(events), chunkBytes: 89 });
    const frames = await ask();
    const updates = frames.filter((frame) => frame.type === "message_update" && frame.message.role === "assistant" && frame.message.content.some((block: Frame) => block.type === "toolCall"));
    // The deltas join into the arguments' JSON, as a function call's do (json mode may merge neighbours).
    const deltas = updates.filter((frame) => frame.assistantMessageEvent.type === "toolcall_delta").map((frame) => frame.assistantMessageEvent.delta);
    expect(deltas.length).toBeGreaterThan(0);
    expect(JSON.parse(deltas.join(""))).toEqual({ html: call.input });
    // Each snapshot of the call shows the start of the recorded text, never other text.
    const partials = updates.map((frame) => blocksOf(frame.message, "toolCall")[0].arguments.html as string);
    for (const html of partials) expect(call.input.startsWith(html)).toBe(true);
    expect(partials.at(-1)).toBe(call.input);
  });
});

// --- cut mid-way ----------------------------------------------------------------------------

describe("the recorded custom tool stream cut mid-way", () => {
  const events = readEvents("openai-custom-text-tool.1.chunks.txt");
  /** Half-way through the call's input deltas. */
  const index = (() => {
    const deltas = events.flatMap((event, at) => (event.type === "response.custom_tool_call_input.delta" ? [at] : []));
    return deltas[Math.floor(deltas.length / 2)];
  })();

  for (const [where, cut] of [["between events", "between"], ["inside an event", "inside"]] as const) {
    test(`cut ${where}, half-way through the call's text: an error, retried, and the half-received call never runs`, async () => {
      server.enqueue(...cutEveryAttempt(toSse(events), cutAtEvent(events, index, "openai-responses", cut), 3));
      const frames = await ask();
      expectCutOnEveryAttempt(frames, server, 3);
      expect(frames.some((frame) => frame.type === "tool_execution_start")).toBe(false);
      expect(existsSync(join(cwd, PAGE))).toBe(false);
    });
  }
});

// --- an error event with no code --------------------------------------------------------------

describe("OpenAI Responses error event with a null code, recorded", () => {
  for (const name of ["openai-error-null-code.1.chunks.txt", "openai-error-null-code.chunks.txt"]) {
    test(`${name}: the user reads the provider's message and its kind, and a server error is tried again`, async () => {
      const events = readEvents(name);
      const { error } = events.find((event) => event.type === "error")!;
      expect(error.code).toBeNull();
      server.enqueue(...[1, 2, 3].map(() => ({ type: "raw" as const, body: toSse(events) })));
      const frames = await ask();
      const replies = assistantEnds(frames);
      for (const reply of replies) {
        expect(reply.stopReason).toBe("error");
        expect(reply.errorMessage).toContain(error.message);
        expect(reply.errorMessage).toContain(error.type);
      }
      // A server error is the provider's own trouble: retrying can help.
      expect(frames.some((frame) => frame.type === "auto_retry_start")).toBe(true);
      expect(server.requests).toHaveLength(3);
    });
  }
});
