/**
 * Small runtime names of pi's coding-agent package that extensions call, on
 * xcsh's own parts: the built-in tools as tool definitions (what
 * `pi.registerTool` takes, e.g. to wrap `read` with a check), an event bus of
 * one's own, the shell bash runs in, and the tail of a text as the terminal
 * would wrap it.
 */
import { createBashTool } from "../tools/bash.ts";
import { detectShell } from "../tools/bash-operations.ts";
import { createEditTool } from "../tools/edit.ts";
import { createFindTool } from "../tools/find.ts";
import { createGrepTool } from "../tools/grep.ts";
import { createLsTool } from "../tools/ls.ts";
import { createReadTool } from "../tools/read.ts";
import { createWriteTool } from "../tools/write.ts";
import { createEventBus as createSharedEventBus } from "./event-bus.ts";
import { loadPiTui } from "./tui-helpers.ts";
import type { EventBus } from "./types.ts";

// --- tool definitions --------------------------------------------------------------

/**
 * A built-in tool as a definition an extension can register (or wrap and register):
 * the same name, schema, prompt lines and `execute`, which ignores the extension
 * context pi passes as its fifth argument.
 */
function asDefinition<Options, Tool extends object>(create: (cwd: string, options?: Options) => Tool) {
  return (cwd: string, options?: Options): Tool => {
    if (typeof cwd !== "string" || cwd === "") throw new TypeError("the working directory (cwd) must be a path");
    return { ...create(cwd, options) };
  };
}

export const createReadToolDefinition = asDefinition(createReadTool);
export const createBashToolDefinition = asDefinition(createBashTool);
export const createEditToolDefinition = asDefinition(createEditTool);
export const createWriteToolDefinition = asDefinition(createWriteTool);
export const createGrepToolDefinition = asDefinition(createGrepTool);
export const createFindToolDefinition = asDefinition(createFindTool);
export const createLsToolDefinition = asDefinition(createLsTool);

// --- event bus ------------------------------------------------------------------------

/** A bus of the extension's own (pi.events is the one all extensions share); `clear()` drops every handler. */
export function createEventBus(): EventBus & { clear(): void } {
  let bus = newBus();
  return {
    emit: (channel, data) => bus.emit(channel, data),
    on: (channel, handler) => bus.on(channel, handler),
    clear: () => {
      bus = newBus();
    },
  };
}

function newBus(): EventBus {
  return createSharedEventBus((channel, error) => {
    process.stderr.write(`xcsh: event handler failed on "${channel}": ${error instanceof Error ? error.message : String(error)}\n`);
  });
}

// --- shell ------------------------------------------------------------------------------

/** The shell and arguments bash commands run with: `customShellPath` if given (it must exist), else xcsh's choice. */
export function getShellConfig(customShellPath?: string): { shell: string; args: string[] } {
  if (customShellPath !== undefined) {
    if (typeof customShellPath !== "string" || customShellPath === "") throw new TypeError("getShellConfig(path): path must be a non-empty string");
    if (!Bun.which(customShellPath)) throw new Error(`Shell not found: ${customShellPath}`);
    return { shell: customShellPath, args: ["-c"] };
  }
  return { shell: detectShell(), args: ["-c"] };
}

// --- visual lines -----------------------------------------------------------------------

/**
 * The last `maxVisualLines` lines of `text` as a terminal `width` columns wide shows
 * them (long lines wrap), and how many earlier ones were left out.
 */
export function truncateToVisualLines(text: string, maxVisualLines: number, width: number, paddingX = 0): { visualLines: string[]; skippedCount: number } {
  if (typeof text !== "string") throw new TypeError("truncateToVisualLines: text must be a string");
  for (const [name, value] of [["maxVisualLines", maxVisualLines], ["width", width], ["paddingX", paddingX]] as const) {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw new TypeError(`truncateToVisualLines: ${name} must be a whole number`);
  }
  if (text === "") return { visualLines: [], skippedCount: 0 };
  const { Text } = loadPiTui();
  const lines = new Text(text, paddingX, 0).render(Math.max(1, width));
  const kept = maxVisualLines === 0 ? [] : lines.slice(-maxVisualLines);
  return { visualLines: kept, skippedCount: lines.length - kept.length };
}

// --- tool-call rendering ------------------------------------------------------------

function lineNumber(value: unknown): number | undefined {
  const number = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof number === "number" && Number.isFinite(number) ? number : undefined;
}

/**
 * The line range of a `read` call as a renderer shows it after the path: `:10` from an
 * offset alone, `:10-29` with a limit, nothing when neither is given or one is not a
 * number (a model may send numbers as strings, or null for an omitted argument).
 */
export function formatReadLineRange(offset: unknown, limit: unknown): string {
  if (offset == null && limit == null) return "";
  const first = offset == null ? 1 : lineNumber(offset);
  if (first === undefined) return "";
  if (limit == null) return `:${first}`;
  const count = lineNumber(limit);
  if (count === undefined) return "";
  const last = first + count - 1;
  return last ? `:${first}-${last}` : `:${first}`;
}
