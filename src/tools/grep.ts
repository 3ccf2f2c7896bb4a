/**
 * The `grep` tool: lines matching a regular expression (or literal text) in the
 * files under a directory, or in one file. Honours .gitignore, skips `.git`,
 * `node_modules`, binary and very large files, and needs no external binary.
 *
 * Output is one line per match, `path:LINE: text`, with context lines written
 * `path-LINE- text` and `--` between separate groups. Paths are relative to the
 * searched directory (or the file's name when a single file is searched), and
 * results come in path order, so the same search always gives the same text.
 * Files too large to search are named after the results (or after "No matches
 * found"): an answer of nothing must not hide a log that was never read.
 */
import { statSync } from "node:fs";
import { basename } from "node:path";
import type { Static } from "typebox";
import { Type } from "../schema/type.ts";
import type { AgentToolResult } from "../agent/types.ts";
import { createGlobFilter, type DirectoryEntry, type DirectorySource, type WalkEntry } from "./file-walker.ts";
import {
  BINARY_SNIFF_BYTES,
  createLineMatcher,
  isSkippedFile,
  looksBinary,
  MAX_SEARCHED_FILE_BYTES,
  readLocalBytes,
  releaseReadBuffer,
  searchBytes,
  searchText,
  TOO_LARGE,
  type FileMatches,
  type FileOutcome,
  type GrepQuery,
} from "./grep-search.ts";
import { searchLocalTree, searchTreeThrough } from "./grep-walk.ts";
import { assertMayRead, hiddenBelow } from "../sandbox/read-guard.ts";
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
/** Skipped files named in the result; the rest are counted. */
const NAMED_SKIPPED_FILES = 5;

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
  /** Files not searched for being over the size limit: how many, and the first few paths. */
  largeFilesSkipped?: { count: number; paths: string[] };
}

/**
 * File access `grep` needs; replace it to search elsewhere. These answer
 * whether `path` is a directory and supply each file's text. With `readdir`
 * the directory walk goes through it too, so a remote backend never touches
 * the local disk; without it the walk is local and only the reads are custom.
 */
export interface GrepOperations {
  isDirectory(absolutePath: string): Promise<boolean> | boolean;
  readFile(absolutePath: string): Promise<string> | string;
  /**
   * A directory's entries. An entry given as a bare name is asked about with
   * isDirectory; symlinked directories should be left out (the walk never
   * follows them locally, which is what keeps it free of cycles).
   */
  readdir?(absolutePath: string): Promise<Array<string | DirectoryEntry>> | Array<string | DirectoryEntry>;
}

export interface GrepToolOptions {
  operations?: GrepOperations;
}

const DESCRIPTION = `Search file contents for a pattern. The pattern is a JavaScript regular expression, or plain text with literal: true. Searches every file under path (default: the working directory), or just path when it is a file, skipping what .gitignore ignores, .git, node_modules, binary files and files over ${formatSize(MAX_SEARCHED_FILE_BYTES)} (these are named in the result). Each matching line is shown as "path:LINE: text" (paths relative to the searched directory); with context, surrounding lines are shown as "path-LINE- text" and separate groups are divided by "--". Patterns match within one line. Returns at most limit matches (default ${DEFAULT_LIMIT}) and ${formatSize(DEFAULT_MAX_BYTES)} of output; lines longer than ${GREP_MAX_LINE_LENGTH} characters are cut. Narrow large searches with path or glob (e.g. glob: "*.ts").`;

type LoadText = (absolutePath: string) => Promise<string | typeof TOO_LARGE | undefined>;

/** The size and binary checks of local files, for text that came through custom operations. */
function loadThroughOperations(ops: GrepOperations): LoadText {
  return async (absolutePath) => {
    try {
      const text = await ops.readFile(absolutePath);
      if (text.slice(0, BINARY_SNIFF_BYTES).includes("\u0000")) return undefined;
      if (text.length > MAX_SEARCHED_FILE_BYTES) return TOO_LARGE;
      return text;
    } catch {
      return undefined;
    }
  };
}

/** The walk's view of custom operations that can list directories. */
function directorySourceOf(ops: GrepOperations & Required<Pick<GrepOperations, "readdir">>): DirectorySource {
  return {
    async readdir(absolutePath) {
      const listed = await ops.readdir(absolutePath);
      const prefix = absolutePath.endsWith("/") ? absolutePath : `${absolutePath}/`;
      return Promise.all(
        listed.map(async (entry) => (typeof entry === "string" ? { name: entry, isDirectory: await ops.isDirectory(prefix + entry) } : entry)),
      );
    },
    async readText(absolutePath) {
      try {
        return await ops.readFile(absolutePath);
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * Collects output lines across files, up to the match limit — or until there
 * is more output than the result can hold (DEFAULT_MAX_BYTES or
 * DEFAULT_MAX_LINES), when reading more files would only find lines that are
 * cut anyway: the search stops there, as it does at the match limit.
 */
class GrepOutput {
  readonly lines: string[] = [];
  matchCount = 0;
  limitReached = false;
  /** The output outgrew what the result holds, so the search stopped before the match limit. */
  outputFull = false;
  linesTruncated = false;
  /** Files too large to search, in walk order: the first NAMED_SKIPPED_FILES paths, and how many in all. */
  readonly skippedPaths: string[] = [];
  skippedCount = 0;
  private outputBytes = 0;

  constructor(
    private readonly limit: number,
    readonly context: number,
  ) {}

  /**
   * Adds a file's matches; returns false once a match beyond the limit has
   * been seen, which is when the notice can truthfully say there are more.
   */
  add(outcome: FileOutcome): boolean {
    if (isSkippedFile(outcome)) {
      if (this.skippedCount++ < NAMED_SKIPPED_FILES) this.skippedPaths.push(outcome.displayPath);
      return true;
    }
    const file = outcome;
    const remaining = this.limit - this.matchCount;
    if (file.matchIndexes.length > remaining) this.limitReached = true;
    const taken = file.matchIndexes.slice(0, remaining);
    this.matchCount += taken.length;

    const isMatch = new Set(taken);
    let printedUpTo = -1;
    for (const index of taken) {
      const start = Math.max(0, index - this.context, printedUpTo + 1);
      const end = Math.min(file.lineCount - 1, index + this.context);
      if (start > end) continue;
      // `--` between groups that are not contiguous (as grep and ripgrep print it), so context is not misread.
      const startsNewGroup = printedUpTo === -1 || start > printedUpTo + 1;
      if (this.context > 0 && this.lines.length > 0 && startsNewGroup) this.lines.push("--");
      for (let line = start; line <= end; line++) this.pushLine(file, line, isMatch.has(line));
      printedUpTo = end;
    }
    // Past the limits by at least one line, so the truncation notice says what was cut.
    if (!this.limitReached && (this.outputBytes > DEFAULT_MAX_BYTES || this.lines.length > DEFAULT_MAX_LINES)) this.outputFull = true;
    return !this.limitReached && !this.outputFull;
  }

  private pushLine(file: FileMatches, index: number, isMatch: boolean): void {
    const { text, wasTruncated } = truncateLine(file.lines[index], GREP_MAX_LINE_LENGTH);
    if (wasTruncated) this.linesTruncated = true;
    const separator = isMatch ? ":" : "-";
    const line = `${file.displayPath}${separator}${index + 1}${separator} ${text}`;
    this.lines.push(line);
    this.outputBytes += Buffer.byteLength(line) + 1;
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

/** The notice naming the files too large to search; undefined when there were none. */
function skippedNotice(output: GrepOutput): string | undefined {
  if (output.skippedCount === 0) return undefined;
  const files = output.skippedCount === 1 ? "1 file" : `${output.skippedCount} files`;
  const more = output.skippedCount - output.skippedPaths.length;
  const names = output.skippedPaths.join(", ") + (more > 0 ? ` and ${more} more` : "");
  return `[Skipped ${files} over ${formatSize(MAX_SEARCHED_FILE_BYTES)} without searching: ${names}. Search them with rg or grep through bash if they matter.]`;
}

function formatResult(output: GrepOutput, limit: number): AgentToolResult<GrepToolDetails | undefined> {
  const skipped = skippedNotice(output);
  const largeFilesSkipped = skipped ? { count: output.skippedCount, paths: output.skippedPaths } : undefined;
  if (output.matchCount === 0) {
    return skipped
      ? { content: [{ type: "text", text: `No matches found\n\n${skipped}` }], details: { largeFilesSkipped } }
      : { content: [{ type: "text", text: "No matches found" }], details: undefined };
  }

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
    // Stopped early, the search cannot count what it did not read; without context every cut line is a match.
    const more = !output.outputFull ? "" : output.context > 0 ? " and the search stopped there; there may be more matches" : " and the search stopped there; there are more matches";
    notices.push(
      `[Output truncated to ${truncation.outputLines} lines (${formatSize(truncation.maxBytes)} / ${truncation.maxLines} line limit)${more}. Narrow the search with path or glob, or use less context, to see the rest.]`,
    );
  }
  if (output.linesTruncated) {
    details.linesTruncated = true;
    notices.push(`[Some lines were longer than ${GREP_MAX_LINE_LENGTH} characters and were cut. Use the read tool to see them in full.]`);
  }
  if (skipped) {
    details.largeFilesSkipped = largeFilesSkipped;
    notices.push(skipped);
  }
  const text = notices.length > 0 ? `${truncation.content}\n\n${notices.join("\n")}` : truncation.content;
  return { content: [{ type: "text", text }], details: Object.keys(details).length > 0 ? details : undefined };
}

/** A single file, read locally; an error says why it cannot be searched. */
function searchOneLocalFile(absolutePath: string, matcher: ReturnType<typeof createLineMatcher>, query: GrepQuery): FileMatches | undefined {
  // A FIFO or device would block the read or never end; only regular files are searched.
  const bytes = statSync(absolutePath).isFile() ? readLocalBytes(absolutePath) : undefined;
  if (bytes === TOO_LARGE) throw tooLargeToSearch(absolutePath);
  if (bytes === undefined || looksBinary(bytes)) throw notSearchable(absolutePath);
  return searchBytes(bytes, basename(absolutePath), matcher, query);
}

function notSearchable(absolutePath: string): Error {
  return new Error(`${absolutePath} is binary or unreadable, so it was not searched.`);
}

function tooLargeToSearch(absolutePath: string): Error {
  return new Error(`${absolutePath} is too large (over ${formatSize(MAX_SEARCHED_FILE_BYTES)}), so it was not searched. Search it with rg or grep through bash.`);
}

export function createGrepTool(cwd: string, options?: GrepToolOptions): CodingTool<typeof grepSchema, GrepToolDetails | undefined> {
  const custom = options?.operations;
  const loadText: LoadText | undefined = custom ? loadThroughOperations(custom) : undefined;
  const source = custom?.readdir ? directorySourceOf({ ...custom, readdir: custom.readdir.bind(custom) }) : undefined;
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
      // One match past the limit tells whether there are more.
      const query: GrepQuery = { pattern: params.pattern, literal: params.literal ?? false, ignoreCase: params.ignoreCase ?? false, context, maxMatches: limit + 1 };
      const matcher = createLineMatcher(query);
      const searchPath = resolveToCwd(params.path || ".", cwd);
      // Searched from inside xcsh: what the sandbox hides from commands stays hidden (a remote backend has its own rules).
      if (!custom) assertMayRead(searchPath);
      const output = new GrepOutput(limit, context);

      if (await isDirectoryOrThrow(isDirectory, searchPath)) {
        const includeFile = params.glob ? createGlobFilter(params.glob) : () => true;
        if (loadText) {
          const search = async (entry: WalkEntry): Promise<FileOutcome | undefined> => {
            const text = await loadText(entry.absolutePath);
            if (text === TOO_LARGE) return { displayPath: entry.path, tooLarge: true };
            return text === undefined ? undefined : searchText(text, entry.path, matcher, query);
          };
          await searchTreeThrough(searchPath, output, search, includeFile, source, signal);
        } else {
          await searchLocalTree(searchPath, output, query, matcher, includeFile, signal, hiddenBelow(searchPath));
        }
      } else if (loadText) {
        const text = await loadText(searchPath);
        if (text === TOO_LARGE) throw tooLargeToSearch(searchPath);
        if (text === undefined) throw notSearchable(searchPath);
        const file = searchText(text, basename(searchPath), matcher, query);
        if (file) output.add(file);
      } else {
        const file = searchOneLocalFile(searchPath, matcher, query);
        if (file) output.add(file);
      }
      releaseReadBuffer();
      throwIfAborted(signal);
      return formatResult(output, limit);
    },
  };
}
