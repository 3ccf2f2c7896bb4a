/**
 * What the tests that replay provider streams through the built binary share
 * (test/ai/recorded-streams*.test.ts, test/ai/provider-streams.test.ts): reading a
 * `.chunks.txt` recording, putting each API's SSE framing back around its payloads,
 * cutting a stream between two events or inside one, a fake server and a private home for
 * a test file, running xcsh in json mode, and reading what the user saw from its frames.
 *
 * What a recording says the user should see is not here: each test file reads its API's
 * wire format with a reader of its own, the independent check on xcsh's, so that a bug in
 * one reader cannot hide the same bug in every test.
 */
import { afterAll, afterEach, expect } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestHome, runXcsh, type TestHome } from "./cli.ts";
import { startFakeLlm, type FakeApi, type FakeLlmServer, type FakeRawReply } from "./fake-llm/server.ts";

/** One JSON payload of a recording, or one frame of xcsh's json output. */
export type Json = Record<string, any>;

// --- the recordings -------------------------------------------------------------------

/** A `.chunks.txt` recording: each payload's JSON text, one a line, as the provider sent it. */
export function readRecordedLines(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim());
}

/** A `.chunks.txt` recording's payloads, parsed. */
export const readRecordedChunks = (path: string): Json[] => readRecordedLines(path).map((line) => JSON.parse(line) as Json);

// --- the wire framing -----------------------------------------------------------------

/**
 * The recordings keep each payload's JSON; the SSE framing goes back around it as each API
 * sends it. Anthropic Messages and OpenAI Responses name the event on an `event:` line, Chat
 * Completions (Mistral's too) end with `data: [DONE]`, Gemini's `alt=sse` ends lines with CRLF.
 */
const FRAMING: Record<FakeApi, { namesEvents: boolean; lineEnd: string; end: string }> = {
  "anthropic-messages": { namesEvents: true, lineEnd: "\n", end: "" },
  "openai-responses": { namesEvents: true, lineEnd: "\n", end: "" },
  "openai-completions": { namesEvents: false, lineEnd: "\n", end: "data: [DONE]\n\n" },
  "google-generative-ai": { namesEvents: false, lineEnd: "\r\n", end: "" },
};

/** One payload as an SSE event of `api`. A string is the recorded JSON text, sent to the byte as it was recorded. */
export function sseFrame(payload: Json | string, api: FakeApi): string {
  const { namesEvents, lineEnd } = FRAMING[api];
  const json = typeof payload === "string" ? payload : JSON.stringify(payload);
  const name = namesEvents ? `event: ${(typeof payload === "string" ? JSON.parse(payload) : payload).type}${lineEnd}` : "";
  return `${name}data: ${json}${lineEnd}${lineEnd}`;
}

/** A whole recorded stream as `api` sends it. */
export const toSse = (payloads: readonly (Json | string)[], api: FakeApi): string => payloads.map((payload) => sseFrame(payload, api)).join("") + FRAMING[api].end;

// --- cutting a stream -----------------------------------------------------------------

/** Where a cut stream stops: after an event has arrived whole, or part-way into it. */
export type Cut = "between" | "inside";

/** Where `text` stands in an SSE body, written as the content of a JSON string. */
export const jsonTextIndex = (body: string, text: string): number => body.indexOf(JSON.stringify(text).slice(1, -1));

/**
 * The byte at which to end `body` so that the event holding character `at` arrives whole
 * ("between": up to the blank line that ends it) or up to and including that character only.
 */
export function cutAtCharacter(body: string, at: number, cut: Cut): number {
  return Buffer.byteLength(body.slice(0, cut === "inside" ? at + 1 : endOfEvent(body, at)), "utf8");
}

/** The index just past the blank line (LF, or CRLF in a CRLF body) that ends the event holding character `at`. */
function endOfEvent(body: string, at: number): number {
  const blankLine = body.includes("\r\n") ? "\r\n\r\n" : "\n\n";
  return body.indexOf(blankLine, at) + blankLine.length;
}

/** The byte at which to end the stream of `payloads` so that payload `index` arrives whole, or only its first half. */
export function cutAtEvent(payloads: readonly (Json | string)[], index: number, api: FakeApi, cut: Cut): number {
  const frames = payloads.map((payload) => sseFrame(payload, api));
  const before = frames.slice(0, index).join("");
  const frame = frames[index];
  return Buffer.byteLength(before + frame.slice(0, cut === "between" ? frame.length : Math.floor(frame.length / 2)), "utf8");
}

/** The same stream, cut at the same byte, for each of `attempts` requests. */
export const cutEveryAttempt = (body: string, cutAtByte: number, attempts: number): FakeRawReply[] =>
  Array.from({ length: attempts }, () => ({ type: "raw" as const, body, cutAtByte }));

/**
 * What the user sees of a stream cut on every attempt: each reply an error saying the stream
 * ended early (so never an answer), a retry announced, and one request per attempt. The
 * replies are returned for the checks a test adds of its own.
 */
export function expectCutOnEveryAttempt(frames: Json[], server: FakeLlmServer, attempts: number): Json[] {
  const replies = assistantEnds(frames);
  expect(replies.length).toBeGreaterThan(0);
  for (const reply of replies) {
    expect(reply.stopReason).toBe("error");
    expect(reply.errorMessage).toContain("stream ended before the provider said it finished");
  }
  expect(frames.some((frame) => frame.type === "auto_retry_start")).toBe(true);
  expect(server.requests).toHaveLength(attempts);
  return replies;
}

// --- the binary, against the fake server ----------------------------------------------

/** A test file's fake LLM server, its private home, and a way to put an extension in that home. */
export interface ReplayHome {
  server: FakeLlmServer;
  home: TestHome;
  /** Writes an extension's source under `<home>/ext/` and gives its path, for `-e`. */
  writeExtension(fileName: string, source: string): string;
}

/**
 * A fake LLM server and a private home for one test file, started as the file loads (so a
 * test file can name them as constants), emptied of script and requests after each test,
 * closed and removed after the last. The file writes its own models.json and settings.
 */
export function fakeServerAndHome(): ReplayHome {
  const server = startFakeLlm();
  const home = makeTestHome();
  afterEach(() => {
    server.clearScript();
    server.requests.length = 0;
  });
  afterAll(async () => {
    await server.close();
    home.cleanup();
  });
  const writeExtension = (fileName: string, source: string) => {
    mkdirSync(join(home.home, "ext"), { recursive: true });
    const path = join(home.home, "ext", fileName);
    writeFileSync(path, source);
    return path;
  };
  return { server, home, writeExtension };
}

/** Runs xcsh with `--mode json` and `args` to its end: every frame it wrote, its stderr, its exit code. */
export async function runJsonMode(
  args: string[],
  options: { env: Record<string, string>; cwd?: string; timeoutMs: number },
): Promise<{ frames: Json[]; stderr: string; exitCode: number }> {
  const result = await runXcsh(["--mode", "json", ...args], options);
  const frames = result.stdout
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Json);
  return { frames, stderr: result.stderr, exitCode: result.exitCode };
}

// --- what the user saw ----------------------------------------------------------------

export const assistantEnds = (frames: Json[]): Json[] => frames.filter((frame) => frame.type === "message_end" && frame.message.role === "assistant").map((frame) => frame.message);
export const blocksOf = (message: Json, type: string): Json[] => message.content.filter((block: Json) => block.type === type);
export const textOf = (message: Json): string => blocksOf(message, "text").map((block) => block.text).join("");
export const thinkingOf = (message: Json): string => blocksOf(message, "thinking").map((block) => block.thinking).join("");
export const toolStarts = (frames: Json[]): Json[] => frames.filter((frame) => frame.type === "tool_execution_start");

/**
 * The user-visible parts of one assistant reply. A recording's reader gives the same shape;
 * `CallId` lets a reader put a matcher where xcsh makes the id up.
 */
export interface VisibleReply<CallId = string> {
  text: string;
  thinking: string;
  toolCalls: { id: CallId; name: string; arguments: Record<string, unknown> }[];
  stopReason: "stop" | "toolUse" | "length";
  /** As pi counts: `input` leaves out what was read from the cache. */
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

/** One assistant message of the json frames, in the shape a recording's reader gives. */
export function visibleReply(message: Json): VisibleReply {
  return {
    text: textOf(message),
    thinking: thinkingOf(message),
    toolCalls: blocksOf(message, "toolCall").map((block) => ({ id: block.id, name: block.name, arguments: block.arguments })),
    stopReason: message.stopReason,
    usage: usageOf(message),
  };
}

/** The four token counts of an assistant message's usage. */
export const usageOf = (message: Json): VisibleReply["usage"] => ({
  input: message.usage.input,
  output: message.usage.output,
  cacheRead: message.usage.cacheRead,
  cacheWrite: message.usage.cacheWrite,
});
