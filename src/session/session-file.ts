/**
 * Reading and writing session files (JSONL: a header line, then one entry per
 * line). Reading is one pass — split on "\n", JSON.parse each line — and is
 * strict where a mistake would lose data and lenient where a crash may have
 * left a mark:
 *
 * - a file that is not a session (not JSON, first line not a header, cannot be
 *   read) is an error naming the file, never an empty session;
 * - a last line without its "\n" that does not parse is a write torn by a crash:
 *   skipped, with a warning;
 * - a bad line in the middle is skipped with a warning.
 *
 * Writing appends one complete line per write, so a process killed at any
 * moment leaves every earlier entry intact.
 */
import { accessSync, appendFileSync, closeSync, constants, fsyncSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, truncateSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { FileEntry, SessionEntry, SessionHeader } from "./types.ts";

/** A session file xcsh cannot use; the message names the file and the problem. */
export class SessionFileError extends Error {
  override readonly name = "SessionFileError";
  readonly file: string;
  readonly problem: string;

  constructor(file: string, problem: string) {
    super(`Cannot load session file ${file}: ${problem}`);
    this.file = file;
    this.problem = problem;
  }
}

export interface ParsedSessionFile {
  /**
   * undefined when the file holds no session yet: it is empty, or a crash tore
   * the very first write (header and first entry) before it completed.
   */
  header: SessionHeader | undefined;
  /** Every readable entry after the header, in file order, as written (not migrated). */
  entries: SessionEntry[];
  /** Lines that were skipped, and why: shown to the user, never silently dropped. */
  warnings: string[];
  /** The file does not end in "\n": the next append must start a fresh line first. */
  needsNewline: boolean;
  /**
   * A last line a crash cut short: it was never acknowledged, so it is cut off
   * before the next append (see `cutTornTail`) rather than left in the middle.
   */
  tornTail?: TornTail;
}

export interface TornTail {
  /** Where the torn line starts, in bytes from the start of the file. */
  startByte: number;
  text: string;
}

/** What a first write torn by a crash starts with: our header is serialized with `type` first. */
const TORN_HEADER_PREFIX = '{"type":"session"';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isHeader(value: unknown): value is SessionHeader {
  return isObject(value) && value.type === "session";
}

/** Parses a session file's text. `file` names it in errors and warnings. Throws SessionFileError. */
export function parseSessionFile(content: string, file: string): ParsedSessionFile {
  const bom = content.charCodeAt(0) === 0xfeff;
  if (bom) content = content.slice(1);
  const lines = content.split("\n");
  const lastIndex = lines.length - 1;
  // After a final "\n" the split leaves an empty last element; anything else there was cut short.
  const tailUnterminated = lines[lastIndex] !== "";
  const warnings: string[] = [];
  const entries: SessionEntry[] = [];
  let header: SessionHeader | undefined;
  let tornTail: TornTail | undefined;

  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    // Entry lines start with "{"; only other lines are checked for being blank (trim copies 5 KB lines).
    if (line.length === 0 || (line.charCodeAt(0) !== 0x7b && line.trim() === "")) continue;
    const isTornTail = index === lastIndex && tailUnterminated;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (header === undefined) {
        if (isTornTail && line.startsWith(TORN_HEADER_PREFIX)) {
          warnings.push(`${file}: the first write was interrupted before it completed; starting the session afresh`);
          break;
        }
        throw new SessionFileError(file, `line ${index + 1} is not JSON, so this is not a session file (JSONL)`);
      }
      warnings.push(
        isTornTail
          ? `${file}: line ${index + 1} is incomplete (a write was interrupted) and was skipped; it moves to ${file}.torn before the next entry is written`
          : `${file}: line ${index + 1} is not valid JSON and was skipped`,
      );
      if (isTornTail) tornTail = { startByte: byteOffsetOfLine(content, lines, index, bom), text: line };
      continue;
    }

    if (header === undefined) {
      if (!isHeader(value)) {
        throw new SessionFileError(file, `line ${index + 1} is not a session header (expected {"type":"session",...})`);
      }
      if (typeof value.id !== "string") throw new SessionFileError(file, "the session header has no id");
      header = value;
      continue;
    }
    if (!isObject(value) || typeof value.type !== "string") {
      warnings.push(`${file}: line ${index + 1} is not a session entry (no "type") and was skipped`);
      continue;
    }
    entries.push(value as unknown as SessionEntry);
  }

  return { header, entries, warnings, needsNewline: tailUnterminated && !tornTail, ...(tornTail ? { tornTail } : {}) };
}

/** Byte offset of line `index` (only computed for a torn tail, once per load). */
function byteOffsetOfLine(content: string, lines: string[], index: number, bom: boolean): number {
  const before = content.length - lines[index].length;
  return Buffer.byteLength(content.slice(0, before), "utf8") + (bom ? 3 : 0);
}

/**
 * Cuts a torn last line off the file, keeping a copy in `<file>.torn` so that
 * nothing is destroyed. Appends then continue from the last complete entry.
 */
export function cutTornTail(file: string, tail: TornTail): string {
  const saved = `${file}.torn`;
  appendFileSync(saved, tail.text + "\n");
  truncateSync(file, tail.startByte);
  return saved;
}

/** Reads and parses a session file; undefined when it does not exist. Throws SessionFileError. */
export function readSessionFile(file: string): ParsedSessionFile | undefined {
  let content: string;
  try {
    content = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "EACCES" || code === "EPERM") throw new SessionFileError(file, "permission denied");
    if (code === "EISDIR") throw new SessionFileError(file, "it is a directory");
    throw new SessionFileError(file, (error as Error).message);
  }
  return parseSessionFile(content, file);
}

/**
 * The lines of a session file, header first, unmigrated. A missing file, an
 * empty one or one whose first write was torn gives `[]`; a file that is not a
 * session throws SessionFileError.
 */
export function loadEntriesFromFile(file: string): FileEntry[] {
  const parsed = readSessionFile(file);
  if (!parsed?.header) return [];
  return [parsed.header, ...parsed.entries];
}

/**
 * The JSON objects of a session file's text, header included, skipping lines
 * that do not parse. Lenient on purpose: for tools that inspect any text;
 * loading a session goes through `parseSessionFile`, which reports problems.
 */
export function parseSessionEntries(content: string): FileEntry[] {
  const result: FileEntry[] = [];
  for (const line of content.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isObject(value) && typeof value.type === "string") result.push(value as unknown as FileEntry);
    } catch {
      // Not a line of a session; skipped by design (see above).
    }
  }
  return result;
}

export function serializeEntry(entry: FileEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/**
 * Appends one entry as one complete line in a single write. `needsNewline`
 * (the file ends mid-line, e.g. after a torn write) puts a "\n" in front, in
 * the same write, so the entry starts on a line of its own.
 */
export function appendEntryLine(file: string, entry: SessionEntry, needsNewline: boolean): void {
  const line = serializeEntry(entry);
  appendFileSync(file, needsNewline ? `\n${line}` : line);
}

/**
 * Creates a session file with its header and first entry in a single write.
 * `wx`: the name is fresh, so an existing file there is a mistake we must not overwrite.
 */
export function createSessionFile(file: string, header: SessionHeader, firstEntry: SessionEntry): void {
  mkdirSync(dirname(file), { recursive: true });
  const fd = openSync(file, "wx");
  try {
    writeSync(fd, serializeEntry(header) + serializeEntry(firstEntry));
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces a session file as a whole (after a migration, a fork, a branch
 * extraction): written beside it, flushed to disk, then renamed over it, so a
 * crash leaves either the old file or the new one — never half of each.
 */
export function writeSessionFileAtomically(file: string, header: SessionHeader, entries: readonly SessionEntry[]): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  const parts = new Array<string>(entries.length + 1);
  parts[0] = serializeEntry(header);
  for (let index = 0; index < entries.length; index++) parts[index + 1] = serializeEntry(entries[index]);
  try {
    const fd = openSync(temp, "w");
    try {
      writeSync(fd, parts.join(""));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * The header of a session file, reading only its first line (for picking the
 * most recent session among many without parsing them all). undefined when the
 * file cannot be read or does not start with a header.
 */
export function readSessionHeader(file: string): SessionHeader | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      size += read;
      if (chunk.subarray(0, read).includes(0x0a) || size > 1024 * 1024) break;
    }
    const bytes = Buffer.concat(chunks);
    const end = bytes.indexOf(0x0a);
    const firstLine = bytes.toString("utf8", 0, end === -1 ? bytes.length : end).replace(/^\uFEFF/, "");
    const value: unknown = JSON.parse(firstLine);
    return isHeader(value) ? value : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Why `file` could not be written, or undefined when it can: the file itself
 * when it exists, else the nearest folder on its path that exists (the rest is
 * created with the first write). Nothing is created: a run that writes nothing
 * leaves nothing behind.
 */
export function sessionWriteProblem(file: string): string | undefined {
  let path = file;
  for (;;) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = dirname(path);
      if ((code === "ENOENT" || code === "ENOTDIR") && parent !== path) {
        path = parent;
        continue;
      }
      return (error as Error).message;
    }
    if (path !== file && !isDirectory) return `${path} is a file, not a folder`;
    try {
      accessSync(path, constants.W_OK);
      return undefined;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === "EROFS" ? "read-only file system" : code === "EACCES" || code === "EPERM" ? "permission denied" : (error as Error).message;
      return `${path}: ${why}`;
    }
  }
}
