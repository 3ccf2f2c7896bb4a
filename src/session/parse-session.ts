/**
 * Reading a session file (JSONL: a header line, then one entry per line) into
 * its header and entries. A file is read in fixed-size chunks and each line is
 * parsed as soon as it is complete, so opening a 200 MB session holds its parsed
 * entries and one chunk — never the whole text, nor an array of its lines, beside
 * them. Reading is synchronous because `SessionManager.open` is (extensions call
 * it so); a chunk at a time keeps it cheap all the same.
 *
 * Strict where a mistake would lose data, lenient where a crash may have left a mark:
 * - a file that is not a session (not JSON, first line not a header, cannot be
 *   read) is an error naming the file, never an empty session;
 * - a last line without its "\n" that does not parse is a write torn by a crash:
 *   skipped, with a warning;
 * - a bad line in the middle is skipped with a warning.
 */
import { closeSync, openSync, readSync } from "node:fs";
import type { SessionEntry, SessionHeader } from "./types.ts";

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

/** One line of a session file, without its "\n" (and, for the first, without a BOM). */
interface FileLine {
  text: string;
  /** Its byte offset in the file. */
  startByte: number;
  /** False only for a last line with no "\n" after it. */
  terminated: boolean;
}

/** What a first write torn by a crash starts with: our header is serialized with `type` first. */
const TORN_HEADER_PREFIX = '{"type":"session"';
/** Bytes read per system call when loading a session. */
const CHUNK_BYTES = 1024 * 1024;
const LF = 0x0a;
/** How much text is read between collections of the lines already parsed. */
const COLLECT_EVERY_BYTES = 8 * CHUNK_BYTES;

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isHeader(value: unknown): value is SessionHeader {
  return isObject(value) && value.type === "session";
}

/** Signals the end of reading: the first write was torn, nothing after it counts. */
const STOP = Symbol("stop");

/** The decisions for one line at a time; the readers below feed it. */
class SessionLineParser {
  readonly warnings: string[] = [];
  readonly entries: SessionEntry[] = [];
  header: SessionHeader | undefined;
  tornTail: TornTail | undefined;
  tailUnterminated = false;

  constructor(private readonly file: string) {}

  /** `number` is 1-based. Returns STOP when nothing after this line may be read. */
  take(line: FileLine, number: number): typeof STOP | undefined {
    const { text } = line;
    if (!line.terminated) this.tailUnterminated = true;
    // Entry lines start with "{"; only other lines are checked for being blank (trim copies 5 KB lines).
    if (text.length === 0 || (text.charCodeAt(0) !== 0x7b && text.trim() === "")) return undefined;
    const file = this.file;
    const isTornTail = !line.terminated;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      if (this.header === undefined) {
        if (isTornTail && text.startsWith(TORN_HEADER_PREFIX)) {
          this.warnings.push(`${file}: the first write was interrupted before it completed; starting the session afresh`);
          return STOP;
        }
        throw new SessionFileError(file, `line ${number} is not JSON, so this is not a session file (JSONL)`);
      }
      this.warnings.push(
        isTornTail
          ? `${file}: line ${number} is incomplete (a write was interrupted) and was skipped; it moves to ${file}.torn before the next entry is written`
          : `${file}: line ${number} is not valid JSON and was skipped`,
      );
      if (isTornTail) this.tornTail = { startByte: line.startByte, text };
      return undefined;
    }

    if (this.header === undefined) {
      if (!isHeader(value)) throw new SessionFileError(file, `line ${number} is not a session header (expected {"type":"session",...})`);
      if (typeof value.id !== "string") throw new SessionFileError(file, "the session header has no id");
      this.header = value;
      return undefined;
    }
    if (!isObject(value) || typeof value.type !== "string") {
      this.warnings.push(`${file}: line ${number} is not a session entry (no "type") and was skipped`);
      return undefined;
    }
    this.entries.push(value as unknown as SessionEntry);
    return undefined;
  }

  result(): ParsedSessionFile {
    const tornTail = this.tornTail;
    return { header: this.header, entries: this.entries, warnings: this.warnings, needsNewline: this.tailUnterminated && !tornTail, ...(tornTail ? { tornTail } : {}) };
  }
}

/** The lines of a text, with their byte offsets (a BOM is not part of the first line). */
function* textLines(content: string): Generator<FileLine> {
  let start = 0;
  let startByte = 0;
  if (content.charCodeAt(0) === 0xfeff) {
    start = 1;
    startByte = 3;
  }
  for (;;) {
    const newline = content.indexOf("\n", start);
    const text = newline === -1 ? content.slice(start) : content.slice(start, newline);
    // After a final "\n" there is no line left; anything else there was cut short.
    if (newline === -1) {
      if (text.length > 0) yield { text, startByte, terminated: false };
      return;
    }
    yield { text, startByte, terminated: true };
    startByte += Buffer.byteLength(text, "utf8") + 1;
    start = newline + 1;
  }
}

/**
 * The lines of an open file, read a chunk at a time. Only one line's text lives
 * at once; a line longer than a chunk is gathered from its pieces.
 */
function* fileLines(fd: number): Generator<FileLine> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let pieces: Buffer[] = [];
  let piecesBytes = 0;
  let lineStart = 0;
  let position = 0;
  let first = true;
  const decode = (bytes: Buffer, from: number, to: number): string => {
    if (first) {
      first = false;
      // A BOM (EF BB BF) before the header is not part of it.
      if (to - from >= 3 && bytes[from] === 0xef && bytes[from + 1] === 0xbb && bytes[from + 2] === 0xbf) {
        lineStart += 3;
        return bytes.toString("utf8", from + 3, to);
      }
    }
    return bytes.toString("utf8", from, to);
  };
  const gathered = (last: Buffer): Buffer => {
    pieces.push(last);
    const whole = Buffer.concat(pieces, piecesBytes + last.length);
    pieces = [];
    piecesBytes = 0;
    return whole;
  };

  for (;;) {
    const read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
    if (read === 0) break;
    // Each line's text is garbage once parsed. Collected as the file is read, its memory
    // is reused for the next lines; left to the collector's own pace, a 100 MB file
    // would leave tens of MB of dead text that the process keeps after the load.
    if (position > 0 && position % COLLECT_EVERY_BYTES === 0) Bun.gc(true);
    let start = 0;
    let newline = chunk.indexOf(LF, 0);
    while (newline !== -1 && newline < read) {
      const text = pieces.length === 0 ? decode(chunk, start, newline) : ((whole) => decode(whole, 0, whole.length))(gathered(chunk.subarray(start, newline)));
      yield { text, startByte: lineStart, terminated: true };
      lineStart = position + newline + 1;
      start = newline + 1;
      newline = chunk.indexOf(LF, start);
    }
    if (start < read) {
      // Copied: the chunk is reused by the next read.
      pieces.push(Buffer.from(chunk.subarray(start, read)));
      piecesBytes += read - start;
    }
    position += read;
  }
  if (piecesBytes > 0) {
    const whole = gathered(Buffer.alloc(0));
    yield { text: decode(whole, 0, whole.length), startByte: lineStart, terminated: false };
  }
}

function parseLines(lines: Iterable<FileLine>, file: string): ParsedSessionFile {
  const parser = new SessionLineParser(file);
  let number = 0;
  for (const line of lines) {
    if (parser.take(line, ++number) === STOP) break;
  }
  return parser.result();
}

/** Parses a session file's text. `file` names it in errors and warnings. Throws SessionFileError. */
export function parseSessionFile(content: string, file: string): ParsedSessionFile {
  return parseLines(textLines(content), file);
}

/** Reads and parses a session file a chunk at a time; undefined when it does not exist. Throws SessionFileError. */
export function readSessionFile(file: string): ParsedSessionFile | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw readFailure(file, error);
  }
  try {
    return parseLines(fileLines(fd), file);
  } catch (error) {
    if (error instanceof SessionFileError) throw error;
    throw readFailure(file, error);
  } finally {
    closeSync(fd);
  }
}

function readFailure(file: string, error: unknown): SessionFileError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EPERM") return new SessionFileError(file, "permission denied");
  if (code === "EISDIR") return new SessionFileError(file, "it is a directory");
  return new SessionFileError(file, (error as Error).message);
}
