/**
 * pi 1.x's built-in extensions, named `builtin:<name>` in `-e` and in settings'
 * `extensions` (`-builtin:mcp` turns one off, `+builtin:mcp` back on; a project's entry
 * wins over the user's). In xcsh MCP support is part of the core rather than an
 * extension, so `builtin:mcp` decides whether it runs; codemode is a tool here
 * (`--tools +codemode`, which the warning for `builtin:codemode` says), and pi's other
 * built-ins (tool-search, llama.cpp) do not exist in xcsh yet and are only named in a
 * warning. The entries never reach extension discovery, which would take them for paths.
 */

export const BUILTIN_EXTENSION_PREFIX = "builtin:";

/** pi 1.6.0's built-in extensions, and whether xcsh has the feature. */
export const BUILTIN_EXTENSIONS: Readonly<Record<string, boolean>> = {
  mcp: true,
  codemode: false,
  "tool-search": false,
  "llama.cpp": false,
};

/** `builtin:x`, `+builtin:x` or `-builtin:x`. */
export function isBuiltinEntry(entry: string): boolean {
  return entry.replace(/^[+-]/, "").startsWith(BUILTIN_EXTENSION_PREFIX);
}

/** The list without its builtin entries: what extension discovery gets. */
export function withoutBuiltinEntries(list: readonly string[]): string[] {
  return list.filter((entry) => !isBuiltinEntry(entry));
}

/** The name in `builtin:<name>`; undefined for anything else. */
export function builtinName(entry: string): string | undefined {
  const bare = entry.replace(/^[+-]/, "");
  return bare.startsWith(BUILTIN_EXTENSION_PREFIX) ? bare.slice(BUILTIN_EXTENSION_PREFIX.length) : undefined;
}

/** What one settings list says about a built-in: true (`builtin:x`, `+builtin:x`), false (`-builtin:x`), or nothing; the last entry wins. */
function settingFor(list: readonly string[], name: string): boolean | undefined {
  let state: boolean | undefined;
  for (const entry of list) {
    if (builtinName(entry) === name) state = !entry.startsWith("-");
  }
  return state;
}

export interface BuiltinChoice {
  /** The built-ins `-e builtin:<name>` asked for. */
  cli: readonly string[];
  /** --no-extensions: built-ins are off unless `-e` names them. */
  noExtensions: boolean;
  /** settings' `extensions`: the user's, then the trusted project's (empty when untrusted). */
  userList: readonly string[];
  projectList: readonly string[];
}

/** Whether built-in `name` runs: `-e builtin:name` always; else not with --no-extensions; else the settings (project over user); on by default. */
export function builtinEnabled(choice: BuiltinChoice, name: string): boolean {
  if (choice.cli.includes(name)) return true;
  if (choice.noExtensions) return false;
  return settingFor(choice.projectList, name) ?? settingFor(choice.userList, name) ?? true;
}
