/**
 * What a session list shows of one file (SessionInfo), read from its head and
 * its tail only — never the whole file: a folder of 3 000 sessions totalling
 * 5 GB lists in well under a second. The head holds the header and the first
 * user message; the tail the last activity (the newest message's time) and,
 * usually, the latest name. A file no bigger than both windows together is read
 * whole, and then every field is exact. For a bigger one:
 *
 * - `messageCount` is estimated from the messages per byte in the two windows
 *   (`messageCountEstimated` says so; lists show it as "~N");
 * - `name` is the latest session_info entry in either window (one set in the
 *   middle of a long session and never again is not seen);
 * - `allMessagesText` (what a phrase or regex search looks through) holds the
 *   text of the messages in the two windows.
 *
 * Every text kept is capped and copied out of the lines it came from, so a list
 * of thousands of sessions holds kilobytes per session, not the windows read.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { AgentMessage } from "../agent/types.ts";
import { isHeader, isObject } from "./parse-session.ts";
import type { SessionHeader, SessionInfo } from "./types.ts";

/** Bytes read from each end of a file at first. */
const WINDOW_BYTES = 32 * 1024;
/** A window grows (doubling) up to this while it holds no complete line it needs. */
const MAX_WINDOW_BYTES = 1024 * 1024;
/** What a list keeps of the first message and of all messages' text, per session. */
const FIRST_MESSAGE_CHARS = 2_000;
const ALL_TEXT_CHARS = 8_000;
const LF = 0x0a;

/** The text of a user or assistant message (text blocks only). */
function messageText(message: AgentMessage): string {
  if (message.role !== "user" && message.role !== "assistant") return "";
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) if (block?.type === "text" && typeof block.text === "string") parts.push(block.text);
  return parts.join(" ");
}

/**
 * A copy of `text` that shares no memory with the (possibly much larger)
 * string it was cut from: a slice may keep its whole source alive.
 */
function detached(text: string): string {
  return text.length === 0 ? "" : Buffer.from(text, "utf8").toString("utf8");
}

/** The entries of the complete lines in `bytes[from, to)`; lines that do not parse are skipped. */
function entriesIn(bytes: Buffer, from: number, to: number): Record<string, unknown>[] {
  const entries: Record<string, unknown>[] = [];
  let start = from;
  while (start < to) {
    let end = bytes.indexOf(LF, start);
    if (end === -1 || end > to) end = to;
    if (end > start) {
      try {
        const value: unknown = JSON.parse(bytes.toString("utf8", start, end));
        if (isObject(value)) entries.push(value);
      } catch {
        // A torn or foreign line: it says nothing a list needs.
      }
    }
    start = end + 1;
  }
  return entries;
}

function readAt(fd: number, position: number, length: number): Buffer {
  const bytes = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, bytes, filled, length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled === length ? bytes : bytes.subarray(0, filled);
}

interface Window {
  entries: Record<string, unknown>[];
  /** Bytes of the complete lines parsed. */
  bytes: number;
  /** Where those lines end (head) or begin (tail) in the file. */
  edge: number;
}

/**
 * The complete lines at the start of the file, reading at most `limit` bytes:
 * the window grows until it holds the header and a user message.
 */
function readHead(fd: number, size: number, limit: number): Window {
  for (let length = Math.min(WINDOW_BYTES, limit); ; length = Math.min(length * 2, limit)) {
    const bytes = readAt(fd, 0, length);
    // At the end of the file a last line without "\n" is tried too (it may be whole, or torn).
    const atEnd = bytes.length >= size || bytes.length < length;
    const end = atEnd ? bytes.length : bytes.lastIndexOf(LF) + 1;
    const entries = entriesIn(bytes, 0, end);
    if (atEnd || length >= limit || entries.some(isUserMessage)) return { entries, bytes: end, edge: end };
  }
}

/** The complete lines at the end of the file, after `from`: grows until it holds a message, or reaches its bounds. */
function readTail(fd: number, from: number, size: number): Window {
  for (let length = Math.min(WINDOW_BYTES, size - from); ; length = Math.min(length * 2, size - from)) {
    const start = size - length;
    const bytes = readAt(fd, start, length);
    // The first line is cut unless the window starts where the head ended (on a line's start).
    const firstNewline = start === from ? -1 : bytes.indexOf(LF);
    const begin = firstNewline + 1;
    const entries = entriesIn(bytes, begin, bytes.length);
    const done = start === from || length >= MAX_WINDOW_BYTES || entries.some((entry) => entry.type === "message");
    if (done) return { entries, bytes: bytes.length - begin, edge: start + begin };
  }
}

function isUserMessage(entry: Record<string, unknown>): boolean {
  return entry.type === "message" && isObject(entry.message) && entry.message.role === "user";
}

/** The list's view of one session file; undefined when it is not a readable session. */
export function summarizeSessionFile(path: string): SessionInfo | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    const size = stats.size;
    // Small files (most sessions) are read whole, in one window: every field is exact.
    const head = readHead(fd, size, size <= 2 * WINDOW_BYTES ? size : Math.min(size, MAX_WINDOW_BYTES));
    const headerEntry = head.entries[0];
    if (!isHeader(headerEntry) || typeof headerEntry.id !== "string") return undefined;
    const tail = head.edge >= size ? undefined : readTail(fd, head.edge, size);
    return summarize(path, headerEntry, head, tail, size, stats.mtime);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function summarize(path: string, header: SessionHeader, head: Window, tail: Window | undefined, size: number, fileModified: Date): SessionInfo {
  const entries = tail ? [...head.entries.slice(1), ...tail.entries] : head.entries.slice(1);
  let messageCount = 0;
  let firstMessage = "";
  let lastActivity = 0;
  let name: string | undefined;
  const texts: string[] = [];
  let textChars = 0;
  for (const entry of entries) {
    if (entry.type === "session_info") name = typeof entry.name === "string" ? entry.name.trim() || undefined : undefined;
    if (entry.type !== "message" || !isObject(entry.message)) continue;
    messageCount++;
    const message = entry.message as unknown as AgentMessage;
    const text = messageText(message);
    if (text && textChars < ALL_TEXT_CHARS) {
      const piece = text.slice(0, ALL_TEXT_CHARS - textChars);
      texts.push(piece);
      textChars += piece.length + 1;
    }
    if (!firstMessage && message.role === "user" && text) firstMessage = detached(text.slice(0, FIRST_MESSAGE_CHARS));
    const at = typeof message.timestamp === "number" ? message.timestamp : Date.parse(String(entry.timestamp));
    if (Number.isFinite(at) && at > lastActivity) lastActivity = at;
  }
  const readWhole = tail === undefined || tail.edge <= head.edge;
  const bytesSeen = head.bytes + (tail?.bytes ?? 0);
  const estimated = !readWhole && bytesSeen > 0 && messageCount > 0;
  return {
    path,
    id: header.id,
    cwd: typeof header.cwd === "string" ? header.cwd : "",
    ...(name !== undefined ? { name: detached(name) } : {}),
    ...(typeof header.parentSession === "string" ? { parentSessionPath: header.parentSession } : {}),
    created: new Date(header.timestamp),
    // When the conversation last moved; the file time only when no message was seen.
    modified: lastActivity > 0 ? new Date(lastActivity) : fileModified,
    messageCount: estimated ? Math.max(messageCount, Math.round((messageCount * size) / bytesSeen)) : messageCount,
    ...(estimated ? { messageCountEstimated: true } : {}),
    firstMessage: firstMessage || "(no messages)",
    allMessagesText: detached(texts.join(" ")),
  };
}
