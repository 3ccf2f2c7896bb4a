/**
 * The `grep` tool: lines matching a regular expression (or literal text) in the
 * files under a directory, or in one file. Honours .gitignore, skips `.git`,
 * `node_modules`, binary and very large files, and needs no external binary.
 *
 * Output is one line per match, `path:LINE: text`, with context lines written
 * `path-LINE- text` and `--` between separate groups. Paths are relative to the
 * searched directory (or the file's name when a single file is searched), and
 * results come in path order, so the same search always gives the same text.
 */
import { statSync } from "node:fs";
import { readFile as fsReadFile } from "node:fs/promises";
import { basename } from "node:path";
import { Type, type Static } from "typebox";
import type { AgentToolResult } from "../agent/types.ts";
import { createGlobFilter, STOP_WALK, walkDirectory, type WalkEntry } from "./file-walker.ts";
import { resolveToCwd } from "./path-utils.ts";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  formatSize,
  GREP_MAX_LINE_LENGTH,
  truncateHead,
  truncateLine,
  type TruncationResult,
} from "./truncate.ts";
import type { CodingTool } from "./types.ts";

const DEFAULT_LIMIT = 100;
/** Files larger than this are skipped: generated or data files, not code worth grepping. */
const MAX_SEARCHED_FILE_BYTES = 10 * 1024 * 1024;
/** How much of a file's start decides whether it is binary. */
const BINARY_SNIFF_BYTES = 8192;
/** Files searched ahead of the one being reported, so slow (remote) reads overlap. */
const READ_CONCURRENCY = 32;

const grepSchema = Type.Object({
  pattern: Type.String({ description: "Regular expression (JavaScript syntax) to search for, or plain text with literal: true" }),
  path: Type.Optional(Type.String({ description: "Directory or file to search (default: the working directory)" })),
  glob: Type.Optional(Type.String({ description: "Only search files matching this glob, e.g. '*.ts' (any depth) or 'src/**/*.spec.ts'" })),
  ignoreCase: Type.Optional(Type.Boolean({ description: "Match case-insensitively (default: false)" })),
  literal: Type.Optional(Type.Boolean({ description: "Treat pattern as plain text, not a regular expression (default: false)" })),
  context: Type.Optional(Type.Number({ description: "Lines of context to show before and after each match (default: 0)" })),
  limit: Type.Optional(Type.Number({ description: `Maximum number of matching lines to return (default: ${DEFAULT_LIMIT})` })),
});

export type GrepToolInput = Static<typeof grepSchema>;

export interface GrepToolDetails {
  truncation?: TruncationResult;
  /** The match limit, when more matches exist than were shown. */
  matchLimitReached?: number;
  /** Some lines were cut at GREP_MAX_LINE_LENGTH characters. */
  linesTruncated?: boolean;
}

/**
 * File access `grep` needs; replace it to search elsewhere. The directory walk
 * itself stays local: these answer whether `path` is a directory and supply
 * each file's text.
 */
export interface GrepOperations {
  isDirectory(absolutePath: string): Promise<boolean> | boolean;
  readFile(absolutePath: string): Promise<string> | string;
}

export interface GrepToolOptions {
  operations?: GrepOperations;
}

const DESCRIPTION = `Search file contents for a pattern. The pattern is a JavaScript regular expression, or plain text with literal: true. Searches every file under path (default: the working directory), or just path when it is a file, skipping what .gitignore ignores, .git, node_modules, binary files and files over ${formatSize(MAX_SEARCHED_FILE_BYTES)}. Each matching line is shown as "path:LINE: text" (paths relative to the searched directory); with context, surrounding lines are shown as "path-LINE- text" and separate groups are divided by "--". Patterns match within one line. Returns at most limit matches (default ${DEFAULT_LIMIT}) and ${formatSize(DEFAULT_MAX_BYTES)} of output; lines longer than ${GREP_MAX_LINE_LENGTH} characters are cut. Narrow large searches with path or glob (e.g. glob: "*.ts").`;

type LoadText = (absolutePath: string) => Promise<string | undefined> | string | undefined;

/**
 * A local file's text, or undefined when it is binary, too large or unreadable.
 * The size check is a stat (cheap, and it keeps a multi-gigabyte file out of
 * memory); the read is async so READ_CONCURRENCY reads overlap on a cold disk.
 */
async function readLocalTextFile(absolutePath: string): Promise<string | undefined> {
  try {
    if (statSync(absolutePath).size > MAX_SEARCHED_FILE_BYTES) return undefined;
    const buffer = await fsReadFile(absolutePath);
    if (buffer.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return undefined;
    return buffer.toString("utf8");
  } catch {
    return undefined;
  }
}

/** The same checks for text that came through custom operations. */
function loadThroughOperations(ops: GrepOperations): LoadText {
  return async (absolutePath) => {
    try {
      const text = await ops.readFile(absolutePath);
      if (text.length > MAX_SEARCHED_FILE_BYTES || text.slice(0, BINARY_SNIFF_BYTES).includes("\u0000")) return undefined;
      return text;
    } catch {
      return undefined;
    }
  };
}

interface LineMatcher {
  /** Cheap whole-file test; false means no line can match. */
  mayMatch(text: string): boolean;
  matches(line: string): boolean;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The pattern as a line test. Flag `m` makes `^`/`$` mean line boundaries in the
 * whole-file pre-test too, so a line that matches implies the file matches —
 * except with lookarounds, which can see past a line's end, so those skip it.
 */
function createLineMatcher(pattern: string, literal: boolean, ignoreCase: boolean): LineMatcher {
  if (literal && !ignoreCase) {
    return { mayMatch: (text) => text.includes(pattern), matches: (line) => line.includes(pattern) };
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
  return {
    mayMatch: (text) => hasLookaround || regex.test(text),
    matches: (line) => regex.test(line),
  };
}

interface FileMatches {
  displayPath: string;
  lines: string[];
  /** 0-based indexes of matching lines, at most limit + 1 of them. */
  matchIndexes: number[];
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

function searchText(text: string, displayPath: string, matcher: LineMatcher, maxMatches: number): FileMatches | undefined {
  // A BOM is an encoding detail, not text: `^foo` should match a first line that starts with one.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!matcher.mayMatch(body)) return undefined;
  const lines = splitLines(body);
  const matchIndexes: number[] = [];
  for (let i = 0; i < lines.length && matchIndexes.length < maxMatches; i++) {
    if (matcher.matches(lines[i])) matchIndexes.push(i);
  }
  return matchIndexes.length > 0 ? { displayPath, lines, matchIndexes } : undefined;
}

/** Collects output lines across files, up to the match limit. */
class GrepOutput {
  readonly lines: string[] = [];
  matchCount = 0;
  limitReached = false;
  linesTruncated = false;

  constructor(
    private readonly limit: number,
    private readonly context: number,
  ) {}

  /**
   * Adds a file's matches; returns false once a match beyond the limit has
   * been seen, which is when the notice can truthfully say there are more.
   */
  add(file: FileMatches): boolean {
    const remaining = this.limit - this.matchCount;
    if (file.matchIndexes.length > remaining) this.limitReached = true;
    const taken = file.matchIndexes.slice(0, remaining);
    this.matchCount += taken.length;

    const isMatch = new Set(taken);
    let printedUpTo = -1;
    for (const index of taken) {
      const start = Math.max(0, index - this.context, printedUpTo + 1);
      const end = Math.min(file.lines.length - 1, index + this.context);
      if (start > end) continue;
      // `--` between groups that are not contiguous (as grep and ripgrep print it), so context is not misread.
      const startsNewGroup = printedUpTo === -1 || start > printedUpTo + 1;
      if (this.context > 0 && this.lines.length > 0 && startsNewGroup) this.lines.push("--");
      for (let line = start; line <= end; line++) this.pushLine(file, line, isMatch.has(line));
      printedUpTo = end;
    }
    return !this.limitReached;
  }

  private pushLine(file: FileMatches, index: number, isMatch: boolean): void {
    const { text, wasTruncated } = truncateLine(file.lines[index], GREP_MAX_LINE_LENGTH);
    if (wasTruncated) this.linesTruncated = true;
    const separator = isMatch ? ":" : "-";
    this.lines.push(`${file.displayPath}${separator}${index + 1}${separator} ${text}`);
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Error("Operation aborted");
}

function wholeNumber(value: number | undefined, fallback: number, minimum: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value)) throw new Error(`${name} must be a number`);
  return Math.max(minimum, Math.floor(value));
}

async function isDirectoryOrThrow(isDirectory: GrepOperations["isDirectory"], absolutePath: string): Promise<boolean> {
  try {
    return await isDirectory(absolutePath);
  } catch {
    throw new Error(`Path not found: ${absolutePath}. Check the path, or use find or ls to locate it.`);
  }
}

/**
 * Searches the files under `root` in path order. Up to READ_CONCURRENCY files
 * are read ahead, but results are reported in walk order, and the walk stops
 * as soon as the limit is reached.
 */
async function searchDirectory(
  root: string,
  output: GrepOutput,
  search: (entry: WalkEntry) => Promise<FileMatches | undefined>,
  includeFile: (entry: WalkEntry) => boolean,
  signal: AbortSignal | undefined,
): Promise<void> {
  const pending: Promise<FileMatches | undefined>[] = [];
  let done = false;
  const reportOldest = async (): Promise<void> => {
    const file = await pending.shift();
    if (file && !done && !output.add(file)) done = true;
  };

  await walkDirectory(
    root,
    (entry) => {
      if (entry.isDirectory || !includeFile(entry)) return;
      pending.push(search(entry));
      if (pending.length < READ_CONCURRENCY) return;
      return reportOldest().then(() => (done ? STOP_WALK : undefined));
    },
    { signal },
  );
  while (pending.length > 0 && !done) {
    throwIfAborted(signal);
    await reportOldest();
  }
}

function formatResult(output: GrepOutput, limit: number): AgentToolResult<GrepToolDetails | undefined> {
  if (output.matchCount === 0) return { content: [{ type: "text", text: "No matches found" }], details: undefined };

  const truncation = truncateHead(output.lines.join("\n"), { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES });
  const details: GrepToolDetails = {};
  const notices: string[] = [];
  if (output.limitReached) {
    details.matchLimitReached = limit;
    notices.push(
      `[Showing the first ${limit} matches; there are more. Narrow the search with a more specific pattern, path or glob, or use limit=${limit * 2} to see more.]`,
    );
  }
  if (truncation.truncated) {
    details.truncation = truncation;
    notices.push(
      `[Output truncated to ${truncation.outputLines} lines (${formatSize(truncation.maxBytes)} / ${truncation.maxLines} line limit). Narrow the search with path or glob, or use less context, to see the rest.]`,
    );
  }
  if (output.linesTruncated) {
    details.linesTruncated = true;
    notices.push(`[Some lines were longer than ${GREP_MAX_LINE_LENGTH} characters and were cut. Use the read tool to see them in full.]`);
  }
  const text = notices.length > 0 ? `${truncation.content}\n\n${notices.join("\n")}` : truncation.content;
  return { content: [{ type: "text", text }], details: Object.keys(details).length > 0 ? details : undefined };
}

export function createGrepTool(cwd: string, options?: GrepToolOptions): CodingTool<typeof grepSchema, GrepToolDetails | undefined> {
  const custom = options?.operations;
  // Locally, files are read as bytes so the size and binary checks come before decoding.
  const loadText: LoadText = custom ? loadThroughOperations(custom) : readLocalTextFile;
  const isDirectory: GrepOperations["isDirectory"] = custom
    ? (absolutePath) => custom.isDirectory(absolutePath)
    : (absolutePath) => statSync(absolutePath).isDirectory();
  return {
    name: "grep",
    label: "Grep",
    description: DESCRIPTION,
    parameters: grepSchema,
    promptSnippet: "Search file contents by regex or literal text (respects .gitignore)",
    promptGuidelines: ["Use grep to search file contents instead of running grep or rg through bash."],
    async execute(_toolCallId, params, signal) {
      throwIfAborted(signal);
      const limit = wholeNumber(params.limit, DEFAULT_LIMIT, 1, "limit");
      const context = wholeNumber(params.context, 0, 0, "context");
      const matcher = createLineMatcher(params.pattern, params.literal ?? false, params.ignoreCase ?? false);
      const searchPath = resolveToCwd(params.path || ".", cwd);
      const output = new GrepOutput(limit, context);
      // One match past the limit tells whether there are more.
      const maxMatchesPerFile = limit + 1;

      if (await isDirectoryOrThrow(isDirectory, searchPath)) {
        const includeFile = params.glob ? createGlobFilter(params.glob) : () => true;
        const search = async (entry: WalkEntry) => {
          const text = await loadText(entry.absolutePath);
          return text === undefined ? undefined : searchText(text, entry.path, matcher, maxMatchesPerFile);
        };
        await searchDirectory(searchPath, output, search, includeFile, signal);
      } else {
        const text = await loadText(searchPath);
        if (text === undefined) throw new Error(`${searchPath} is binary, too large (over ${formatSize(MAX_SEARCHED_FILE_BYTES)}) or unreadable, so it was not searched.`);
        const file = searchText(text, basename(searchPath), matcher, maxMatchesPerFile);
        if (file) output.add(file);
      }
      throwIfAborted(signal);
      return formatResult(output, limit);
    },
  };
}
