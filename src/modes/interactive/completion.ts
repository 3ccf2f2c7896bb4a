/**
 * Completion in the editor: `/` offers the built-in commands, extension
 * commands, prompt templates and skills; `@` offers the project's files
 * (walked once, .gitignore honoured, fuzzy-matched), and `@server:` an MCP
 * server's resources; Tab on a path completes it.
 * Slash commands and plain paths are pi-tui's CombinedAutocompleteProvider;
 * `@` files are ours, since that provider needs the `fd` program for them.
 *
 * Keys that arrive together (a slow link, a busy machine, automation) reach
 * the editor before the list it shows has caught up with them: Enter or Tab
 * then applies a suggestion computed for fewer keys. applyCompletion notices
 * (the list's prefix is not the typed text's) and takes what the typed text
 * selects now, or leaves the text as typed when that cannot be known at once.
 */
import type { AutocompleteItem, AutocompleteProvider, AutocompleteSuggestions, SlashCommand } from "@earendil-works/pi-tui";
import { loadPiTui } from "../../extensions/tui-helpers.ts";
import { walkDirectory, STOP_WALK } from "../../tools/file-walker.ts";
import type { McpResourceItem } from "../../mcp/resources.ts";

/** A project with more files than this is listed only up to it. */
const MAX_FILES = 20_000;
const MAX_SUGGESTIONS = 30;
const AT_TOKEN = /(?:^|\s)@([^\s]*)$/;

export class ProjectCompletion implements AutocompleteProvider {
  readonly triggerCharacters = ["@"];
  private files: Promise<string[]> | undefined;
  /** The walked files once the walk is done: what a late Enter is matched against without waiting. */
  private walked: string[] | undefined;
  private inner: AutocompleteProvider;

  /** The folder walked: the session's, which /resume may move to another project's. */
  private walkedCwd: string | undefined;

  constructor(
    private readonly folder: () => string,
    private readonly commands: () => SlashCommand[],
    private readonly mcpResources: () => McpResourceItem[] = () => [],
  ) {
    const { CombinedAutocompleteProvider } = loadPiTui();
    // Built lazily per request: extension commands can change after /reload, the folder after /resume.
    let built: { list: SlashCommand[]; cwd: string; provider: AutocompleteProvider } | undefined;
    const provider = (): AutocompleteProvider => {
      const list = commands();
      const cwd = folder();
      if (!built || built.cwd !== cwd || built.list.length !== list.length || built.list.some((c, i) => c.name !== list[i]!.name || !c.getArgumentCompletions !== !list[i]!.getArgumentCompletions)) {
        built = { list, cwd, provider: new CombinedAutocompleteProvider(list, cwd, null) };
      }
      return built.provider;
    };
    this.inner = {
      getSuggestions: (...args) => provider().getSuggestions(...args),
      applyCompletion: (...args) => provider().applyCompletion(...args),
      shouldTriggerFileCompletion: (...args) => provider().shouldTriggerFileCompletion?.(...args) ?? true,
    };
  }

  /** Every file of the project, relative, walked once in the background. */
  private projectFiles(): Promise<string[]> {
    const cwd = this.folder();
    if (this.walkedCwd !== cwd) {
      this.walkedCwd = cwd;
      this.files = undefined;
      this.walked = undefined;
    }
    this.files ??= (async () => {
      const paths: string[] = [];
      try {
        await walkDirectory(cwd, (entry) => {
          paths.push(entry.isDirectory ? `${entry.path}/` : entry.path);
          if (paths.length >= MAX_FILES) return STOP_WALK;
        });
      } catch {
        // An unreadable folder leaves the list as far as it got.
      }
      if (this.walkedCwd === cwd) this.walked = paths;
      return paths;
    })();
    return this.files;
  }

  async getSuggestions(lines: string[], cursorLine: number, cursorCol: number, options: { signal: AbortSignal; force?: boolean }): Promise<AutocompleteSuggestions | null> {
    const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
    const at = AT_TOKEN.exec(before);
    if (at) {
      const query = at[1] ?? "";
      const resources = this.resourceItems(query);
      if (resources) return resources.length > 0 ? { items: resources, prefix: `@${query}` } : null;
      const files = await this.projectFiles();
      if (options.signal.aborted) return null;
      const items = [...this.serverItems(query), ...fileItems(files, query)];
      return items.length > 0 ? { items, prefix: `@${query}` } : null;
    }
    return this.inner.getSuggestions(lines, cursorLine, cursorCol, options);
  }

  /**
   * What the list holds for this text, computed without waiting: the prefix
   * always where it can be told, the items when they are at hand (command
   * names, walked files); undefined for plain paths, whose prefix is pi-tui's.
   */
  private suggestionsNow(before: string): { prefix: string; items?: AutocompleteItem[] } | undefined {
    const at = AT_TOKEN.exec(before);
    if (at) {
      const query = at[1] ?? "";
      return { prefix: `@${query}`, items: this.resourceItems(query) ?? (this.walked && [...this.serverItems(query), ...fileItems(this.walked, query)]) };
    }
    if (!before.startsWith("/")) return undefined;
    const space = before.indexOf(" ");
    // A command's argument completions may need an await: their items are not known now.
    if (space !== -1) return { prefix: before.slice(space + 1) };
    return { prefix: before, items: commandItems(this.commands(), before.slice(1)) };
  }

  applyCompletion(lines: string[], cursorLine: number, cursorCol: number, item: AutocompleteItem, prefix: string) {
    const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
    const unchanged = { lines, cursorLine, cursorCol };
    const now = this.suggestionsNow(before);
    if (now ? now.prefix !== prefix : !before.endsWith(prefix)) {
      // The list was for fewer keys than have arrived: take what the typed text selects.
      const best = now?.items && bestItem(now.items, now.prefix);
      return best && now ? this.complete(lines, cursorLine, cursorCol, best, now.prefix) : unchanged;
    }
    return this.complete(lines, cursorLine, cursorCol, item, prefix);
  }

  private complete(lines: string[], cursorLine: number, cursorCol: number, item: AutocompleteItem, prefix: string) {
    if (!prefix.startsWith("@")) return this.inner.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
    const line = lines[cursorLine] ?? "";
    const start = cursorCol - prefix.length;
    // A folder stays open for the next part of the path, a server (`@docs:`) for its resource; a file ends with a space.
    const inserted = item.value.endsWith("/") || isServerItem(item) ? item.value : `${item.value} `;
    const next = [...lines];
    next[cursorLine] = line.slice(0, start) + inserted + line.slice(cursorCol);
    return { lines: next, cursorLine, cursorCol: start + inserted.length };
  }

  /** `@do` → `@docs:`: the servers with resources whose name starts with the query, before the files. */
  private serverItems(query: string): AutocompleteItem[] {
    if (query.includes("/")) return [];
    const servers = new Set(this.mcpResources().map((resource) => resource.server));
    return [...servers]
      .filter((server) => server.startsWith(query))
      .map((server) => ({ value: `@${server}:`, label: `${server}:`, description: `resources of MCP server ${server}` }));
  }

  /** `@server:…` of a server with resources: its resources matching the rest; undefined for anything else. */
  private resourceItems(query: string): AutocompleteItem[] | undefined {
    const match = /^([^\s:@/]+):(.*)$/.exec(query);
    if (!match) return undefined;
    const resources = this.mcpResources().filter((resource) => resource.server === match[1]);
    if (resources.length === 0) return undefined;
    const { fuzzyFilter } = loadPiTui();
    const matches = match[2] ? fuzzyFilter(resources, match[2], (resource) => resource.uri) : resources;
    return matches.slice(0, MAX_SUGGESTIONS).map((resource) => ({
      value: `@${resource.server}:${resource.uri}`,
      label: resource.uri,
      description: resource.description ? `${resource.name}: ${resource.description}` : resource.name,
    }));
  }

  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return this.inner.shouldTriggerFileCompletion?.(lines, cursorLine, cursorCol) ?? true;
  }
}

/** A name no one can type, which drawn in the list (or put in the editor) would reach the terminal raw. */
const CONTROL_CHARACTER = /[\x00-\x1f\x7f-\x9f]/;

/**
 * `@query`'s files: fuzzy-matched, or the top level of the project for a bare `@`. Files whose
 * names hold control characters (an escape sequence in a cloned repository's file name) are left out.
 */
function fileItems(files: string[], query: string): AutocompleteItem[] {
  const { fuzzyFilter } = loadPiTui();
  const typable = files.filter((path) => !CONTROL_CHARACTER.test(path));
  const matches = query ? fuzzyFilter(typable, query, (path) => path) : typable.filter((path) => !path.includes("/") || /^[^/]+\/$/.test(path));
  return matches.slice(0, MAX_SUGGESTIONS).map((path) => ({ value: `@${path}`, label: path }));
}

/** The command names `/query` lists, in the order pi-tui's provider lists them (skills match without `skill:`). */
function commandItems(commands: SlashCommand[], query: string): AutocompleteItem[] {
  const { fuzzyFilter } = loadPiTui();
  const matchKey = (command: SlashCommand) => (!query.startsWith("skill:") && command.name.startsWith("skill:") ? command.name.slice("skill:".length) : command.name);
  return fuzzyFilter(commands, query, matchKey).map((command) => ({ value: command.name, label: command.name }));
}

/** The item the editor highlights for a prefix: the exact one, else the first that starts with it, else the first. */
function bestItem(items: AutocompleteItem[], prefix: string): AutocompleteItem | undefined {
  const typed = prefix.startsWith("/") ? prefix.slice(1) : prefix;
  return items.find((item) => item.value === typed || item.value === prefix) ?? items.find((item) => item.value.startsWith(prefix)) ?? items[0];
}

function isServerItem(item: AutocompleteItem): boolean {
  return item.description?.startsWith("resources of MCP server ") === true && item.value.endsWith(":");
}
