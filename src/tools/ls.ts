/**
 * The `ls` tool: the entries of one directory, sorted alphabetically without
 * regard to case, directories marked with a trailing `/`, dotfiles included.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Static } from "typebox";
import { Type } from "../schema/type.ts";
import type { AgentToolResult } from "../agent/types.ts";
import { assertMayRead } from "../sandbox/read-guard.ts";
import { resolveToCwd } from "./path-utils.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead, type TruncationResult } from "./truncate.ts";
import type { CodingTool } from "./types.ts";

const DEFAULT_LIMIT = 500;

const lsSchema = Type.Object({
  path: Type.Optional(Type.String({ description: "Directory to list (default: the working directory)" })),
  limit: Type.Optional(Type.Number({ description: `Maximum number of entries to return (default: ${DEFAULT_LIMIT})` })),
});

export type LsToolInput = Static<typeof lsSchema>;

export interface LsToolDetails {
  truncation?: TruncationResult;
  /** The entry limit, when the directory has more entries than were shown. */
  entryLimitReached?: number;
}

/** File access `ls` needs; replace it to list a remote machine or a container. */
export interface LsOperations {
  exists(absolutePath: string): Promise<boolean> | boolean;
  stat(absolutePath: string): Promise<{ isDirectory(): boolean }> | { isDirectory(): boolean };
  /** Entry names, without `.` and `..`. */
  readdir(absolutePath: string): Promise<string[]> | string[];
}

export interface LsToolOptions {
  operations?: LsOperations;
}

const localLsOperations: LsOperations = {
  exists: (absolutePath) => existsSync(absolutePath),
  stat: (absolutePath) => statSync(absolutePath),
  readdir: (absolutePath) => readdirSync(absolutePath),
};

const DESCRIPTION = `List the entries of one directory (default: the working directory), sorted alphabetically regardless of case, including dotfiles. Directories end with "/". At most limit entries (default ${DEFAULT_LIMIT}) and ${formatSize(DEFAULT_MAX_BYTES)} of output. Use find to search a whole tree.`;

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Error("Operation aborted");
}

function positiveLimit(value: number | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  if (!Number.isFinite(value)) throw new Error("limit must be a number");
  return Math.max(1, Math.floor(value));
}

/** Case-insensitive, with names differing only in case kept in a fixed order. */
function compareNames(a: string, b: string): number {
  const lowerA = a.toLowerCase();
  const lowerB = b.toLowerCase();
  if (lowerA !== lowerB) return lowerA < lowerB ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `name/` for a directory (or a link to one); the bare name otherwise, or when it cannot be stat'ed (a broken link). */
async function displayName(ops: LsOperations, directory: string, name: string): Promise<string> {
  try {
    return (await ops.stat(join(directory, name))).isDirectory() ? `${name}/` : name;
  } catch {
    return name;
  }
}

function formatResult(entries: string[], total: number, limit: number): AgentToolResult<LsToolDetails | undefined> {
  const truncation = truncateHead(entries.join("\n"), { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES });
  const details: LsToolDetails = {};
  const notices: string[] = [];
  if (total > limit) {
    details.entryLimitReached = limit;
    notices.push(`[Showing ${limit} of ${total} entries. Use limit=${total} to see them all, or find to look for specific names.]`);
  }
  if (truncation.truncated) {
    details.truncation = truncation;
    notices.push(
      `[Output truncated to ${truncation.outputLines} of ${entries.length} entries (${formatSize(truncation.maxBytes)} limit). Use find with a pattern to see the rest.]`,
    );
  }
  const text = notices.length > 0 ? `${truncation.content}\n\n${notices.join("\n")}` : truncation.content;
  return { content: [{ type: "text", text }], details: Object.keys(details).length > 0 ? details : undefined };
}

export function createLsTool(cwd: string, options?: LsToolOptions): CodingTool<typeof lsSchema, LsToolDetails | undefined> {
  const ops = options?.operations ?? localLsOperations;
  return {
    name: "ls",
    label: "ls",
    description: DESCRIPTION,
    parameters: lsSchema,
    promptSnippet: "List directory contents",
    promptGuidelines: [],
    async execute(_toolCallId, params, signal) {
      throwIfAborted(signal);
      const limit = positiveLimit(params.limit);
      const directory = resolveToCwd(params.path || ".", cwd);
      // Listed from inside xcsh: what the sandbox hides from commands stays hidden (a remote backend has its own rules).
      if (!options?.operations) assertMayRead(directory);
      if (!(await ops.exists(directory))) throw new Error(`Path not found: ${directory}. Check the path, or list its parent directory.`);
      if (!(await ops.stat(directory)).isDirectory()) {
        throw new Error(`Not a directory: ${directory}. Use read to see a file's contents.`);
      }

      let names: string[];
      try {
        names = await ops.readdir(directory);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`Cannot list ${directory}: ${reason}`);
      }
      throwIfAborted(signal);
      if (names.length === 0) return { content: [{ type: "text", text: "(empty directory)" }], details: undefined };

      // Sorting names needs no stat, so only the entries shown are stat'ed.
      const shown = [...names].sort(compareNames).slice(0, limit);
      const entries = await Promise.all(shown.map((name) => displayName(ops, directory, name)));
      throwIfAborted(signal);
      return formatResult(entries, names.length, limit);
    },
  };
}
