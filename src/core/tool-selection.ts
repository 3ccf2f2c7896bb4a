/**
 * Which tools a session starts with, as the command line and settings chose them
 * (pi 1.6.0's rules, a superset of 0.87.1's):
 *
 * - `--tools a,b` names the only ones (built-in or an extension's); an entry may be a
 *   pattern where `*` matches any characters. MCP tools (`mcp__…`) stay whatever the
 *   list says, unless one of its entries starts with `mcp__`: then it filters them too.
 *   It wins over `--no-tools` and `--no-builtin-tools`.
 * - `--tools +a,-b` (only `+`/`-` entries) is no allowlist: it changes the default
 *   selection, adding and removing exact names in order.
 * - settings' `defaultTools` sets the default built-ins the same way: plain names form
 *   the selection, `+name`/`-name` then apply in order; only `+`/`-` entries change
 *   read, bash, edit, write. A project's list of only `+`/`-` entries changes the user's.
 * - without `--tools`, every extension tool starts active unless a `-name` removed it;
 *   `--no-builtin-tools` leaves the built-ins off and `--no-tools` everything.
 * - `--exclude-tools` takes names or patterns off last, MCP tools included.
 *
 * The same rule decides for a tool an extension or an MCP server registers later: the
 * choice is about names, not about when a tool arrives. An extension may still switch
 * any tool on afterwards (setActiveTools).
 */
import { allToolNames, defaultToolNames } from "../tools/index.ts";
import { MCP_PREFIX } from "../mcp/names.ts";

export interface ToolSelection {
  /** --tools with plain names or patterns: exactly these; undefined: the default choice. */
  only?: readonly string[];
  /** --tools with only `+name`/`-name` entries: changes to the default choice, in order. */
  changes?: readonly string[];
  /** --exclude-tools: never active at start, whatever else says so (names or patterns). */
  exclude?: readonly string[];
  /** --no-tools: nothing active (unless --tools names some). */
  noTools?: boolean;
  /** --no-builtin-tools: no built-in active (unless --tools names it); extension tools stay. */
  noBuiltinTools?: boolean;
  /** settings' defaultTools as written (plain names, `+name`, `-name`); undefined: read, bash, edit, write. */
  defaultBuiltins?: readonly string[];
}

/** A `+name` or `-name` entry: a change to a selection rather than a member of it. */
export function isToolChange(entry: string): boolean {
  return entry.startsWith("+") || entry.startsWith("-");
}

/** The tool name an entry is about, without its `+`/`-`. */
export function toolEntryName(entry: string): string {
  return isToolChange(entry) ? entry.slice(1) : entry;
}

/**
 * A list of plain names and `+`/`-` entries applied to `base`: plain names (if any)
 * replace it, then each `+name` adds and each `-name` removes, in order. An empty
 * list is the empty selection (settings' `"defaultTools": []`: no built-in).
 */
export function applyToolEntries(base: readonly string[], entries: readonly string[]): string[] {
  const plain = entries.filter((entry) => !isToolChange(entry));
  const result = plain.length > 0 || entries.length === 0 ? [...new Set(plain)] : [...base];
  for (const entry of entries) {
    if (!isToolChange(entry)) continue;
    const name = entry.slice(1);
    const at = result.indexOf(name);
    if (entry.startsWith("+") && at < 0) result.push(name);
    if (entry.startsWith("-") && at >= 0) result.splice(at, 1);
  }
  return result;
}

/** Names whose last `+`/`-` entry removes them. */
function removedBy(entries: readonly string[] | undefined): Set<string> {
  const removed = new Set<string>();
  for (const entry of entries ?? []) {
    if (entry.startsWith("-")) removed.add(entry.slice(1));
    else removed.delete(toolEntryName(entry));
  }
  return removed;
}

/** Whether `name` is `pattern`, where `*` in the pattern matches any run of characters. */
export function toolPatternMatches(pattern: string, name: string): boolean {
  if (!pattern.includes("*")) return pattern === name;
  // Linear match of the `*`-separated parts, left to right (no backtracking RegExp).
  const parts = pattern.split("*");
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!name.startsWith(first) || name.length < first.length + last.length || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = name.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

function matchesAny(patterns: readonly string[] | undefined, name: string): boolean {
  return (patterns ?? []).some((pattern) => toolPatternMatches(pattern, name));
}

/** The default built-ins: settings' defaultTools, then --tools' `+`/`-` changes. */
function defaultSelection(selection: ToolSelection): string[] {
  const fromSettings = applyToolEntries(defaultToolNames, selection.defaultBuiltins ?? defaultToolNames);
  return selection.changes ? applyToolEntries(fromSettings, selection.changes) : fromSettings;
}

/** Whether a tool of this name starts active; `builtin` tells xcsh's own tools from extensions' ones. */
export function startsActive(selection: ToolSelection, name: string, builtin: boolean): boolean {
  if (matchesAny(selection.exclude, name)) return false;
  if (selection.only !== undefined) {
    const filtersMcp = selection.only.some((entry) => entry.startsWith(MCP_PREFIX));
    if (name.startsWith(MCP_PREFIX) && !filtersMcp) return !selection.noTools;
    return matchesAny(selection.only, name);
  }
  if (selection.noTools) return false;
  if (builtin) return !selection.noBuiltinTools && defaultSelection(selection).includes(name);
  // An extension or MCP tool: active unless a `-name` (settings, then the command line) removed it,
  // or a `+name` put it back.
  const defaults = defaultSelection(selection);
  if (defaults.includes(name)) return true;
  return !removedBy([...(selection.defaultBuiltins ?? []), ...(selection.changes ?? [])]).has(name);
}

/**
 * Whether codemode or tool_search may switch on when an MCP server's tools need it:
 * not when the command line left it out (`--exclude-tools`, a `--tools` list without
 * it, `--no-tools`) or a `-name` entry removed it.
 */
export function mayActivateByItself(selection: ToolSelection, name: string): boolean {
  if (matchesAny(selection.exclude, name)) return false;
  if (selection.only !== undefined) return matchesAny(selection.only, name);
  if (selection.noTools) return false;
  return !removedBy([...(selection.defaultBuiltins ?? []), ...(selection.changes ?? [])]).has(name);
}

/** The built-in tools active at start. */
export function activeBuiltins(selection: ToolSelection): string[] {
  return [...allToolNames].filter((name) => startsActive(selection, name, true));
}

/**
 * The names `--tools` and `--exclude-tools` give that no tool has, judged against
 * `known` (the built-ins, and once extensions loaded, theirs too). A pattern is
 * never unknown: matching nothing is a fine answer for it.
 */
export function unknownToolNames(selection: ToolSelection, known: (name: string) => boolean): { only: string[]; changes: string[]; exclude: string[] } {
  const unknown = (entries: readonly string[] | undefined) =>
    (entries ?? []).map(toolEntryName).filter((name) => !name.includes("*") && !known(name));
  return { only: unknown(selection.only), changes: unknown(selection.changes), exclude: unknown(selection.exclude) };
}
