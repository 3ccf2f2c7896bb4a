/**
 * What grep does to one file, shared by the tool's own thread and its search
 * workers (search-worker.ts): the pattern as a line matcher, a file's bytes
 * checked and searched, and the matching lines (with their context) picked out.
 *
 * Local files are read as bytes into one reused buffer (a large one is first
 * scanned in small pieces for the rarest literal, and read whole only when it
 * holds it); a file is decoded to
 * text only when it may match — it must hold every literal the pattern
 * requires (grep-literals.ts), found by a byte search, so the files that do
 * not are never decoded. Without context lines, only the lines that hold the
 * rarest literal are decoded and tested, or, for a pattern with none, the
 * regex runs over the whole text at once (grep-scan.ts). Binary files (a NUL
 * byte in the first block) and files over MAX_SEARCHED_FILE_BYTES are skipped
 * before any search; the large ones are reported (SkippedFile), so that "No
 * matches found" is never said of a file that was not read.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { rarestFirst, requiredLiterals } from "./grep-literals.ts";
import { scanNeedleLines, scanText } from "./grep-scan.ts";
import { allocateHugePageBuffer } from "./huge-pages.ts";

/** Files larger than this are skipped: generated or data files, not code worth grepping. */
export const MAX_SEARCHED_FILE_BYTES = 10 * 1024 * 1024;
/** How much of a file's start decides whether it is binary. */
export const BINARY_SNIFF_BYTES = 8192;

/** What to look for; plain data, so it can be posted to a worker. */
export interface GrepQuery {
  pattern: string;
  literal: boolean;
  ignoreCase: boolean;
  /** Lines of context before and after each match. */
  context: number;
  /** Matches to collect per file at most. */
  maxMatches: number;
}

/** A file's matches: the lines at and around them, by 0-based index. Plain data too. */
export interface FileMatches {
  displayPath: string;
  /**
   * Lines in the file; with no context lines asked for, possibly only up to
   * the last match (counting the rest would be a pass over the file for nothing).
   */
  lineCount: number;
  /** 0-based indexes of matching lines, at most maxMatches of them. */
  matchIndexes: number[];
  /** The text of each matching line and of its context lines, by index. */
  lines: Record<number, string>;
}

/**
 * A file left unsearched for its size (over MAX_SEARCHED_FILE_BYTES): the tool names it,
 * since a log or a dump is just where a needle may be. Plain data, like FileMatches.
 */
export interface SkippedFile {
  displayPath: string;
  tooLarge: true;
}

/** What searching one file gives: its matches, or word that it was too large to search. */
export type FileOutcome = FileMatches | SkippedFile;

export const isSkippedFile = (outcome: FileOutcome): outcome is SkippedFile => "tooLarge" in outcome;

/** What a read gives for a file over MAX_SEARCHED_FILE_BYTES, instead of its bytes or text. */
export const TOO_LARGE: unique symbol = Symbol("too large");

export interface LineMatcher {
  /** UTF-8 bytes that every matching line contains, rarest first: a file lacking one cannot match. */
  needles: Buffer[];
  /** Whether a line holding needles[0] matches for that alone (a case-sensitive literal): no line test needed. */
  needleIsMatch: boolean;
  /** The regex with flags `g` and `m`, when running it over a whole file finds the same lines as testing each (scanText). */
  scan?: RegExp;
  /** Cheap whole-file test; false means no line can match. */
  mayMatch(text: string): boolean;
  matches(line: string): boolean;
}

const REGEX_SPECIAL = /[.*+?^${}()|[\]\\]/;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * A needle for the byte search, when every line containing the text also
 * contains its UTF-8 bytes. Not when the text holds U+FFFD or a lone
 * surrogate: decoding invalid UTF-8 produces those without their bytes.
 */
function byteNeedle(text: string): Buffer | undefined {
  if (text === "" || /[\uFFFD\uD800-\uDFFF]/.test(text)) return undefined;
  return Buffer.from(text, "utf8");
}

/**
 * The pattern as a line test. Flag `m` makes `^`/`$` mean line boundaries in the
 * whole-file pre-test too, so a line that matches implies the file matches —
 * except with lookarounds, which can see past a line's end, so those skip it.
 * Throws an error that says how to fix an invalid pattern.
 */
export function createLineMatcher(query: Pick<GrepQuery, "pattern" | "literal" | "ignoreCase">): LineMatcher {
  const { pattern, ignoreCase } = query;
  // A pattern without special characters means the same as a regex and as text.
  const literal = query.literal || !REGEX_SPECIAL.test(pattern);
  if (literal && !ignoreCase) {
    const needle = byteNeedle(pattern);
    return { needles: needle ? [needle] : [], needleIsMatch: true, mayMatch: (text) => text.includes(pattern), matches: (line) => line.includes(pattern) };
  }
  const source = literal ? escapeRegex(pattern) : pattern;
  const flags = ignoreCase ? "mi" : "m";
  let regex: RegExp;
  try {
    // Unicode mode where the pattern allows it (\p{…}, astral characters); plain mode otherwise.
    regex = new RegExp(source, `${flags}u`);
  } catch {
    try {
      regex = new RegExp(source, flags);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Invalid regular expression ${JSON.stringify(pattern)}: ${reason}. Fix the pattern, or set literal: true to search for the text as written.`);
    }
  }
  const hasLookaround = /\(\?<?[=!]/.test(source);
  // A case-insensitive search can use a literal only when case cannot change it.
  const required = literal ? [] : requiredLiterals(source).filter((run) => !ignoreCase || run.toLowerCase() === run.toUpperCase());
  const needles = rarestFirst(required).flatMap((run) => byteNeedle(run) ?? []);
  return {
    needles,
    needleIsMatch: false,
    scan: hasLookaround ? undefined : new RegExp(regex.source, `${regex.flags}g`),
    mayMatch: (text) => hasLookaround || regex.test(text),
    matches: (line) => regex.test(line),
  };
}

/** A file's lines without line terminators; a final newline does not start another line. */
function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].endsWith("\r")) lines[i] = lines[i].slice(0, -1);
  }
  return lines;
}

/** Searches decoded text; undefined when no line matches. */
export function searchText(text: string, displayPath: string, matcher: LineMatcher, query: GrepQuery): FileMatches | undefined {
  // A BOM is an encoding detail, not text: `^foo` should match a first line that starts with one.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (query.context === 0 && matcher.scan && !body.includes("\r")) return scanText(body, matcher.scan, matcher.matches, displayPath, query.maxMatches);
  if (!matcher.mayMatch(body)) return undefined;
  const all = splitLines(body);
  const matchIndexes: number[] = [];
  for (let i = 0; i < all.length && matchIndexes.length < query.maxMatches; i++) {
    if (matcher.matches(all[i])) matchIndexes.push(i);
  }
  if (matchIndexes.length === 0) return undefined;
  const lines: Record<number, string> = {};
  for (const index of matchIndexes) {
    const end = Math.min(all.length - 1, index + query.context);
    for (let line = Math.max(0, index - query.context); line <= end; line++) lines[line] = all[line];
  }
  return { displayPath, lineCount: all.length, matchIndexes, lines };
}

/** Whether bytes look binary: a NUL in the first block. */
export function looksBinary(bytes: Uint8Array): boolean {
  // Most source files fit in the first block: no view of it to make.
  return (bytes.length <= BINARY_SNIFF_BYTES ? bytes : bytes.subarray(0, BINARY_SNIFF_BYTES)).indexOf(0) !== -1;
}

/**
 * Searches a file's bytes: skipped when binary, decoded only when every
 * needle is there — and a literal without context is matched in the bytes,
 * so only its matching lines are decoded.
 */
export function searchBytes(bytes: Buffer, displayPath: string, matcher: LineMatcher, query: GrepQuery): FileMatches | undefined {
  if (looksBinary(bytes)) return undefined;
  const needles = matcher.needles;
  const rarest = needles[0];
  // The rarest first: most files lack it, and one pass over them says so; the common needles are looked for only in the rest.
  if (rarest && bytes.indexOf(rarest) === -1) return undefined;
  for (let i = 1; i < needles.length; i++) if (bytes.indexOf(needles[i]) === -1) return undefined;
  // A line never holds a line terminator, so a needle with one finds nothing here; the line test says so.
  if (rarest && query.context === 0 && !rarest.includes(0x0a) && !rarest.includes(0x0d)) {
    return scanNeedleLines(bytes, rarest, matcher.needleIsMatch ? undefined : matcher.matches, displayPath, query.maxMatches);
  }
  return searchText(bytes.toString("utf8"), displayPath, matcher, query);
}

/** Most source files fit in one read of this size; a larger one is read on into a bigger buffer. */
const FIRST_READ_BYTES = 64 * 1024;
/**
 * The read buffer, reused for every file: it grows to the largest file read
 * so far. A fresh buffer per large file costs a page fault per 4 KiB touched,
 * which on real code (minified bundles of several MB) was as much system time
 * as the reads themselves.
 */
let shared: Buffer | undefined;

/** Lets a buffer grown by a large file go, once a search is done; the next read starts small again. */
export function releaseReadBuffer(): void {
  if (shared && shared.length > FIRST_READ_BYTES) shared = undefined;
}

/** A file larger than this is read into a buffer in huge pages (huge-pages.ts). */
const HUGE_BUFFER_AFTER_BYTES = 1024 * 1024;
/** A large file is first read in pieces of this size, looking for the rarest needle. */
const SCAN_CHUNK_BYTES = 256 * 1024;
let chunk: Buffer | undefined;

/**
 * Whether `needle` is in the file from `from` (its first `from` bytes, in `shared`, lack it)
 * up to `size`, read a chunk at a time into one small buffer that stays in the CPU's cache.
 * Reading a large file whole into a buffer the size of the file and then searching it goes
 * to memory twice and touches a page-table entry per 4 KiB; on real code (multi-MB bundles
 * and source maps, almost none holding the needle) this took a full scan from ~550 to ~390 ms
 * on one thread.
 */
function fileHolds(fd: number, needle: Buffer, from: number, size: number): boolean {
  const overlap = needle.length - 1;
  chunk ??= Buffer.allocUnsafeSlow(SCAN_CHUNK_BYTES + 4096);
  if (overlap > chunk.length - SCAN_CHUNK_BYTES) return true; // A needle this long: let the whole read decide.
  // The bytes before `from` that a needle crossing into the rest could start with.
  let kept = Math.min(overlap, from);
  shared!.copy(chunk, 0, from - kept, from);
  let position = from;
  while (position < size) {
    const read = readSync(fd, chunk, kept, Math.min(SCAN_CHUNK_BYTES, size - position), position);
    if (read === 0) break;
    const length = kept + read;
    if (chunk.subarray(0, length).indexOf(needle) !== -1) return true;
    position += read;
    kept = Math.min(overlap, length);
    chunk.copy(chunk, 0, length - kept, length);
  }
  return false;
}

/**
 * A local file's bytes; TOO_LARGE for one over MAX_SEARCHED_FILE_BYTES (unless its first
 * block shows it binary); undefined when it vanished or is unreadable — or binary and
 * larger than the first read, or larger than the first read and without `needle` (bytes
 * every match contains). The returned
 * buffer is a view of a shared one, valid until the next call. One open and
 * one read for a small file; the size is asked only of a file that fills the
 * first read, so a huge one is never loaded.
 */
export function readLocalBytes(absolutePath: string, needle?: Buffer): Buffer | typeof TOO_LARGE | undefined {
  shared ??= Buffer.allocUnsafeSlow(FIRST_READ_BYTES);
  let fd: number;
  try {
    fd = openSync(absolutePath, constants.O_RDONLY);
  } catch {
    return undefined;
  }
  try {
    const first = readSync(fd, shared, 0, FIRST_READ_BYTES, 0);
    if (first < FIRST_READ_BYTES) return shared.subarray(0, first);
    // A large binary (a native executable, an archive) is known by its first block: none of the rest is read.
    if (looksBinary(shared)) return undefined;
    const size = fstatSync(fd).size;
    if (size > MAX_SEARCHED_FILE_BYTES) return TOO_LARGE;
    if (needle && needle.length > 0 && shared.subarray(0, first).indexOf(needle) === -1 && !fileHolds(fd, needle, first, size)) return undefined;
    if (size > shared.length) {
      // Past 1 MiB, straight to the largest size searched, in huge pages: no growing again, few page faults.
      const bigger = size > HUGE_BUFFER_AFTER_BYTES ? allocateHugePageBuffer(MAX_SEARCHED_FILE_BYTES) : Buffer.allocUnsafeSlow(Math.max(size, shared.length * 2));
      shared.copy(bigger, 0, 0, first);
      shared = bigger;
    }
    let length = first;
    // Up to the size asked for (a file that grows meanwhile is read as it was).
    while (length < size) {
      const read = readSync(fd, shared, length, size - length, length);
      if (read === 0) break;
      length += read;
    }
    return shared.subarray(0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Reads and searches one local file. */
export function searchLocalFile(absolutePath: string, displayPath: string, matcher: LineMatcher, query: GrepQuery): FileOutcome | undefined {
  const bytes = readLocalBytes(absolutePath, matcher.needles[0]);
  if (bytes === TOO_LARGE) return { displayPath, tooLarge: true };
  return bytes === undefined ? undefined : searchBytes(bytes, displayPath, matcher, query);
}
