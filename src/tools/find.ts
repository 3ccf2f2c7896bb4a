/**
 * The `find` tool: paths matching a glob under a directory, sorted, honouring
 * .gitignore and skipping `.git` and `node_modules`. Needs no external binary.
 *
 * Pattern convention (as fd and ripgrep's --glob): a pattern without `/`
 * (`*.ts`) matches names at any depth; a pattern with `/` (`src/*.ts`, or with
 * `**` for any number of directories) matches the whole path relative to the
 * searched directory. Directories match too and are shown with a trailing `/`.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import type { Static } from "typebox";
import { Type } from "../schema/type.ts";
import type { AgentToolResult } from "../agent/types.ts";
import { createGlobFilter, SKIP_DIRECTORY, STOP_WALK, walkDirectory, type WalkEntry } from "./file-walker.ts";
import { assertMayRead, hiddenBelow } from "../sandbox/read-guard.ts";
import { resolveToCwd } from "./path-utils.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead, type TruncationResult } from "./truncate.ts";
import type { CodingTool } from "./types.ts";

const DEFAULT_LIMIT = 1000;

const findSchema = Type.Object({
  pattern: Type.String({
    description: "Glob to match, e.g. '*.ts' (names at any depth), 'src/**/*.test.ts' (paths from the search directory), '*.{js,json}'",
  }),
  path: Type.Optional(Type.String({ description: "Directory to search in (default: the working directory)" })),
  limit: Type.Optional(Type.Number({ description: `Maximum number of results (default: ${DEFAULT_LIMIT})` })),
});

export type FindToolInput = Static<typeof findSchema>;

export interface FindToolDetails {
  truncation?: TruncationResult;
  /** The result limit, when more paths matched than were shown. */
  resultLimitReached?: number;
}

/** File access `find` needs; replace it to search a remote machine or a container. */
export interface FindOperations {
  exists(absolutePath: string): Promise<boolean> | boolean;
  /**
   * Paths under `cwd` matching `pattern` (relative to `cwd`, or absolute),
   * leaving out what `ignore` globs match, at most `limit` of them. Honouring
   * .gitignore is up to the implementation; the local one does.
   */
  glob(pattern: string, cwd: string, options: { ignore: string[]; limit: number }): Promise<string[]> | string[];
}

export interface FindToolOptions {
  operations?: FindOperations;
}

/** Passed to every glob so other implementations leave out what the local walk always skips. */
const ALWAYS_IGNORED = ["**/.git/**", "**/node_modules/**"];

/** The local walk: results in sorted order, so stopping at `limit` keeps the first paths. */
async function localGlob(
  pattern: string,
  cwd: string,
  options: { ignore: string[]; limit: number },
  signal?: AbortSignal,
): Promise<string[]> {
  if (!statSync(cwd).isDirectory()) throw new Error(`${cwd} is not a directory. find searches directories; use read or ls for a single file.`);
  const matches = createGlobFilter(pattern);
  // The walk never enters .git or node_modules, so those ignores need no test per entry.
  const ignores = options.ignore.filter((ignore) => !ALWAYS_IGNORED.includes(ignore)).map((ignore) => createGlobFilter(ignore));
  const results: string[] = [];
  if (options.limit <= 0) return results;
  await walkDirectory(
    cwd,
    (entry: WalkEntry) => {
      if (ignores.length > 0 && ignores.some((ignored) => ignored(entry))) return SKIP_DIRECTORY;
      if (!matches(entry)) return;
      results.push(entry.isDirectory ? `${entry.path}/` : entry.path);
      if (results.length >= options.limit) return STOP_WALK;
    },
    { signal, skipPaths: hiddenBelow(cwd) },
  );
  return results;
}

const DESCRIPTION = `Find files and directories by glob pattern. A pattern without "/" matches names at any depth ("*.ts", "*.{js,json}", "README*"); a pattern with "/" matches paths relative to the search directory ("src/**/*.test.ts"). Searches path (default: the working directory), skipping what .gitignore ignores, .git and node_modules. Returns sorted paths relative to the search directory, directories ending in "/". At most limit results (default ${DEFAULT_LIMIT}) and ${formatSize(DEFAULT_MAX_BYTES)} of output.`;

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Error("Operation aborted");
}

function positiveLimit(value: number | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  if (!Number.isFinite(value)) throw new Error("limit must be a number");
  return Math.max(1, Math.floor(value));
}

/** Paths from another implementation may be absolute or use `\`; show them all alike. */
function toDisplayPath(path: string, searchPath: string): string {
  const relativePath = isAbsolute(path) ? relative(searchPath, path) : path;
  return sep === "/" ? relativePath : relativePath.split(sep).join("/");
}

function formatResult(paths: string[], limit: number): AgentToolResult<FindToolDetails | undefined> {
  if (paths.length === 0) return { content: [{ type: "text", text: "No files found matching pattern" }], details: undefined };

  const limitReached = paths.length > limit;
  const shown = limitReached ? paths.slice(0, limit) : paths;
  const truncation = truncateHead(shown.join("\n"), { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES });
  const details: FindToolDetails = {};
  const notices: string[] = [];
  if (limitReached) {
    details.resultLimitReached = limit;
    notices.push(`[Showing the first ${limit} results; there are more. Use a more specific pattern or path, or limit=${limit * 2} to see more.]`);
  }
  if (truncation.truncated) {
    details.truncation = truncation;
    notices.push(
      `[Output truncated to ${truncation.outputLines} of ${shown.length} results (${formatSize(truncation.maxBytes)} / ${truncation.maxLines} line limit). Use a more specific pattern or path to see the rest.]`,
    );
  }
  const text = notices.length > 0 ? `${truncation.content}\n\n${notices.join("\n")}` : truncation.content;
  return { content: [{ type: "text", text }], details: Object.keys(details).length > 0 ? details : undefined };
}

export function createFindTool(cwd: string, options?: FindToolOptions): CodingTool<typeof findSchema, FindToolDetails | undefined> {
  const custom = options?.operations;
  return {
    name: "find",
    label: "Find",
    description: DESCRIPTION,
    parameters: findSchema,
    promptSnippet: "Find files by glob pattern (respects .gitignore)",
    promptGuidelines: ["Use find to locate files by name instead of running find or ls -R through bash."],
    async execute(_toolCallId, params, signal) {
      throwIfAborted(signal);
      const limit = positiveLimit(params.limit);
      const searchPath = resolveToCwd(params.path || ".", cwd);
      // Searched from inside xcsh: what the sandbox hides from commands stays hidden (a remote backend has its own rules).
      if (!custom) assertMayRead(searchPath);
      const exists = custom ? await custom.exists(searchPath) : existsSync(searchPath);
      if (!exists) throw new Error(`Path not found: ${searchPath}. Check the path, or use ls to see what is there.`);

      // One result past the limit tells whether there are more.
      const globOptions = { ignore: [...ALWAYS_IGNORED], limit: limit + 1 };
      const found = custom
        ? await custom.glob(params.pattern, searchPath, globOptions)
        : await localGlob(params.pattern, searchPath, globOptions, signal);
      throwIfAborted(signal);

      const paths = found.map((path) => toDisplayPath(path, searchPath)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return formatResult(paths, limit);
    },
  };
}
