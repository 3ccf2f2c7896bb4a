/**
 * Which tools a session starts with, as the command line chose them (pi 0.87.1's
 * rules): `--tools` names the only ones, built-in or an extension's, and wins over
 * `--no-tools` and `--no-builtin-tools`; without it the default built-ins (settings'
 * `defaultTools`, else read, bash, edit, write) and every extension tool start active, `--no-builtin-tools` leaves the built-ins off and
 * `--no-tools` everything; `--exclude-tools` takes names off last.
 *
 * The same rule decides for a tool an extension registers later (in session_start,
 * after a reload): the choice is about names, not about when a tool arrives. An
 * extension may still switch any tool on afterwards (setActiveTools).
 */
import { allToolNames, defaultToolNames } from "../tools/index.ts";

export interface ToolSelection {
  /** --tools: exactly these names; undefined: the default choice. */
  only?: readonly string[];
  /** --exclude-tools: never active at start, whatever else says so. */
  exclude?: readonly string[];
  /** --no-tools: nothing active (unless --tools names some). */
  noTools?: boolean;
  /** --no-builtin-tools: no built-in active (unless --tools names it); extension tools stay. */
  noBuiltinTools?: boolean;
  /** The built-ins active when nothing else says (settings' defaultTools); undefined: read, bash, edit, write. */
  defaultBuiltins?: readonly string[];
}

/** Whether a tool of this name starts active; `builtin` tells xcsh's own tools from extensions' ones. */
export function startsActive(selection: ToolSelection, name: string, builtin: boolean): boolean {
  if (selection.exclude?.includes(name)) return false;
  if (selection.only !== undefined) return selection.only.includes(name);
  if (selection.noTools) return false;
  if (builtin) return !selection.noBuiltinTools && (selection.defaultBuiltins ?? defaultToolNames).includes(name);
  return true;
}

/** The built-in tools active at start. */
export function activeBuiltins(selection: ToolSelection): string[] {
  return [...allToolNames].filter((name) => startsActive(selection, name, true));
}

/**
 * The names `--tools` and `--exclude-tools` give that no tool has, judged against
 * `known` (the built-ins, and once extensions loaded, theirs too).
 */
export function unknownToolNames(selection: ToolSelection, known: (name: string) => boolean): { only: string[]; exclude: string[] } {
  return {
    only: (selection.only ?? []).filter((name) => !known(name)),
    exclude: (selection.exclude ?? []).filter((name) => !known(name)),
  };
}
