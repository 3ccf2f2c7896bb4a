/**
 * The script the offline `faux` provider replays: its JSON format, loading with
 * validation that names the file and the faulty entry, and the cursor that hands
 * the responses out in order across the whole process (a tool-use reply for the
 * first request, the final answer for the next).
 *
 * A script file is an array of responses, or `{ "responses": [...] }`. A response
 * is a reply `{ content, stopReason?, usage?, delayMs?, chunkDelayMs?, chunkSize? }`,
 * or an error `{ error, status?, delayMs? }`; either may carry `match`, a substring
 * the last user message must contain for the response to be used.
 */
import { readFileSync } from "node:fs";
import { errorText } from "./errors.ts";

export interface FauxUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export type FauxBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "toolCall"; name: string; arguments: Record<string, unknown>; id?: string };

interface FauxStepBase {
  /** Use this response only when the last user message contains this text. */
  match?: string;
  /** Wait before answering at all. */
  delayMs?: number;
}

export interface FauxReply extends FauxStepBase {
  kind: "reply";
  content: FauxBlock[];
  /** Defaults to "toolUse" when the reply has a tool call, else "stop". */
  stopReason?: "stop" | "length" | "toolUse";
  /** Token counts to report; fields left out are estimated. */
  usage?: FauxUsage;
  /** Wait between streamed chunks. */
  chunkDelayMs?: number;
  /** Characters per streamed chunk of text, thinking and tool-argument JSON. */
  chunkSize?: number;
}

export interface FauxError extends FauxStepBase {
  kind: "error";
  error: string;
  /** An HTTP-like status put in front of the message, so retry logic can classify it. */
  status?: number;
}

export type FauxResponse = FauxReply | FauxError;

/** A script that cannot be used; the message names the file and what is wrong. */
export class FauxScriptError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`Faux script ${file}: ${problem}`);
    this.name = "FauxScriptError";
  }
}

// --- validation ---------------------------------------------------------------

type Json = Record<string, unknown>;

const REPLY_FIELDS = ["content", "stopReason", "usage", "delayMs", "chunkDelayMs", "chunkSize", "match"];
const ERROR_FIELDS = ["error", "status", "delayMs", "match"];
const STOP_REASONS = ["stop", "length", "toolUse"];
const USAGE_FIELDS = ["input", "output", "cacheRead", "cacheWrite"];

/** Thrown inside validation with the location; turned into a FauxScriptError by `parseFauxScript`. */
class Problem extends Error {}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return `a ${typeof value}`;
}

function rejectUnknownFields(value: Json, allowed: string[], where: string): void {
  for (const key of Object.keys(value)) {
    // Unknown keys are usually typos ("stopreason"); ignoring them would replay something else than meant.
    if (!allowed.includes(key)) throw new Problem(`${where}: unknown field "${key}" (allowed: ${allowed.join(", ")})`);
  }
}

function optionalNumber(value: Json, key: string, where: string, rule: { integer?: boolean; min: number }): number | undefined {
  const raw = value[key];
  if (raw === undefined) return undefined;
  const ok = typeof raw === "number" && Number.isFinite(raw) && raw >= rule.min && (!rule.integer || Number.isInteger(raw));
  if (!ok) {
    const wanted = rule.integer ? `an integer of at least ${rule.min}` : `a number of at least ${rule.min}`;
    throw new Problem(`${where}: "${key}" must be ${wanted}, found ${JSON.stringify(raw)}`);
  }
  return raw as number;
}

function optionalString(value: Json, key: string, where: string): string | undefined {
  const raw = value[key];
  if (raw === undefined) return undefined;
  if (typeof raw !== "string") throw new Problem(`${where}: "${key}" must be a string, found ${kindOf(raw)}`);
  return raw;
}

function requiredString(value: Json, key: string, where: string): string {
  const raw = optionalString(value, key, where);
  if (raw === undefined) throw new Problem(`${where}: "${key}" (a string) is missing`);
  return raw;
}

function parseBlock(value: unknown, where: string): FauxBlock {
  if (!isObject(value)) throw new Problem(`${where}: expected a content block object, found ${kindOf(value)}`);
  switch (value.type) {
    case "text":
      rejectUnknownFields(value, ["type", "text"], where);
      return { type: "text", text: requiredString(value, "text", where) };
    case "thinking":
      rejectUnknownFields(value, ["type", "thinking"], where);
      return { type: "thinking", thinking: requiredString(value, "thinking", where) };
    case "toolCall": {
      rejectUnknownFields(value, ["type", "name", "arguments", "id"], where);
      const name = requiredString(value, "name", where);
      if (name === "") throw new Problem(`${where}: "name" must not be empty`);
      const args = value.arguments ?? {};
      if (!isObject(args)) throw new Problem(`${where}: "arguments" must be an object, found ${kindOf(args)}`);
      const block: FauxBlock = { type: "toolCall", name, arguments: args };
      const id = optionalString(value, "id", where);
      if (id !== undefined) block.id = id;
      return block;
    }
    default:
      throw new Problem(`${where}: "type" must be "text", "thinking" or "toolCall", found ${JSON.stringify(value.type)}`);
  }
}

function parseUsage(value: unknown, where: string): FauxUsage {
  if (!isObject(value)) throw new Problem(`${where}: expected an object, found ${kindOf(value)}`);
  rejectUnknownFields(value, USAGE_FIELDS, where);
  const usage: FauxUsage = {};
  for (const key of USAGE_FIELDS as (keyof FauxUsage)[]) {
    const count = optionalNumber(value, key, where, { integer: true, min: 0 });
    if (count !== undefined) usage[key] = count;
  }
  return usage;
}

function parseMatch(value: Json, where: string): string | undefined {
  const match = optionalString(value, "match", where);
  if (match === "") throw new Problem(`${where}: "match" must not be empty (leave it out to match every request)`);
  return match;
}

function parseResponse(value: unknown, where: string): FauxResponse {
  if (!isObject(value)) throw new Problem(`${where}: expected a response object, found ${kindOf(value)}`);
  const match = parseMatch(value, where);
  const delayMs = optionalNumber(value, "delayMs", where, { min: 0 });
  const base: FauxStepBase = {};
  if (match !== undefined) base.match = match;
  if (delayMs !== undefined) base.delayMs = delayMs;

  if ("error" in value) {
    rejectUnknownFields(value, ERROR_FIELDS, where);
    const error = requiredString(value, "error", where);
    const status = optionalNumber(value, "status", where, { integer: true, min: 100 });
    if (status !== undefined && status > 599) throw new Problem(`${where}: "status" must be an HTTP status (100-599), found ${status}`);
    return status === undefined ? { kind: "error", ...base, error } : { kind: "error", ...base, error, status };
  }

  rejectUnknownFields(value, REPLY_FIELDS, where);
  if (!Array.isArray(value.content)) {
    const found = value.content === undefined ? "it is missing" : `found ${kindOf(value.content)}`;
    throw new Problem(`${where}: a reply needs "content", an array of blocks (or give "error" for an error response); ${found}`);
  }
  const reply: FauxReply = {
    kind: "reply",
    ...base,
    content: value.content.map((block, index) => parseBlock(block, `${where}.content[${index}]`)),
  };
  if (value.stopReason !== undefined) {
    if (!STOP_REASONS.includes(value.stopReason as string)) {
      throw new Problem(`${where}: "stopReason" must be one of ${STOP_REASONS.join(", ")}, found ${JSON.stringify(value.stopReason)}`);
    }
    reply.stopReason = value.stopReason as FauxReply["stopReason"];
  }
  if (value.usage !== undefined) reply.usage = parseUsage(value.usage, `${where}.usage`);
  const chunkDelayMs = optionalNumber(value, "chunkDelayMs", where, { min: 0 });
  if (chunkDelayMs !== undefined) reply.chunkDelayMs = chunkDelayMs;
  const chunkSize = optionalNumber(value, "chunkSize", where, { integer: true, min: 1 });
  if (chunkSize !== undefined) reply.chunkSize = chunkSize;
  return reply;
}

/** Validates a script's parsed JSON; `file` only names it in errors. */
export function parseFauxScript(json: unknown, file: string): FauxResponse[] {
  const list = isObject(json) ? json.responses : json;
  if (!Array.isArray(list)) {
    const found = isObject(json) ? `an object whose "responses" is ${json.responses === undefined ? "missing" : kindOf(json.responses)}` : kindOf(json);
    throw new FauxScriptError(file, `expected an array of responses or { "responses": [...] }, found ${found}`);
  }
  if (isObject(json)) {
    const extra = Object.keys(json).filter((key) => key !== "responses");
    if (extra.length > 0) throw new FauxScriptError(file, `unknown top-level field "${extra[0]}" (only "responses" is allowed)`);
  }
  try {
    return list.map((value, index) => parseResponse(value, `responses[${index}]`));
  } catch (error) {
    if (error instanceof Problem) throw new FauxScriptError(file, error.message);
    throw error;
  }
}

function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") return "file not found";
  if (code === "EISDIR") return "is a directory, not a JSON file";
  if (code === "EACCES") return "permission denied";
  return `cannot read the file: ${errorText(error)}`;
}

/** Reads and validates a script file; throws FauxScriptError naming the file and the problem. */
export function loadFauxScript(file: string): FauxResponse[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new FauxScriptError(file, describeReadError(error));
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new FauxScriptError(file, `invalid JSON: ${errorText(error)}`);
  }
  return parseFauxScript(json, file);
}

// --- the cursor ---------------------------------------------------------------

/** Hands out a script's responses, each at most once. */
export class FauxScriptCursor {
  private readonly used: boolean[];

  constructor(readonly responses: readonly FauxResponse[]) {
    this.used = responses.map(() => false);
  }

  /**
   * The response for a request whose last user message is `userText`: the first
   * unused response whose `match` it contains, else the next unused response
   * without a `match`; undefined when neither is left.
   */
  next(userText: string): FauxResponse | undefined {
    let index = this.responses.findIndex((response, i) => !this.used[i] && response.match !== undefined && userText.includes(response.match));
    if (index === -1) index = this.responses.findIndex((response, i) => !this.used[i] && response.match === undefined);
    if (index === -1) return undefined;
    this.used[index] = true;
    return this.responses[index];
  }

  /** Responses not handed out yet (matched ones included). */
  remaining(): number {
    return this.used.filter((used) => !used).length;
  }
}

/** One cursor per script file for the life of the process, so responses are consumed across requests. */
const cursors = new Map<string, FauxScriptCursor>();

/** The process-wide cursor for `file`, loading it on first use; a bad file throws (and is retried next time). */
export function fauxScriptCursor(file: string): FauxScriptCursor {
  let cursor = cursors.get(file);
  if (!cursor) {
    cursor = new FauxScriptCursor(loadFauxScript(file));
    cursors.set(file, cursor);
  }
  return cursor;
}

/** Forgets every loaded script, so the next request reads its file afresh (tests, hosts that rewrite it). */
export function resetFauxScripts(): void {
  cursors.clear();
}
