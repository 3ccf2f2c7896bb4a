/**
 * Completion in the editor: `/` offers the built-in commands, extension
 * commands, prompt templates and skills; `@` offers the project's files
 * (walked once, .gitignore honoured, fuzzy-matched); Tab on a path completes it.
 * Slash commands and plain paths are pi-tui's CombinedAutocompleteProvider;
 * `@` files are ours, since that provider needs the `fd` program for them.
 */
import type { AutocompleteItem, AutocompleteProvider, AutocompleteSuggestions, SlashCommand } from "@earendil-works/pi-tui";
import { loadPiTui } from "../../extensions/tui-helpers.ts";
import { walkDirectory, STOP_WALK } from "../../tools/file-walker.ts";

/** A project with more files than this is listed only up to it. */
const MAX_FILES = 20_000;
const MAX_SUGGESTIONS = 30;
const AT_TOKEN = /(?:^|\s)@([^\s]*)$/;

export class ProjectCompletion implements AutocompleteProvider {
  readonly triggerCharacters = ["@"];
  private files: Promise<string[]> | undefined;
  private inner: AutocompleteProvider;

  constructor(
    private readonly cwd: string,
    commands: () => SlashCommand[],
  ) {
    const { CombinedAutocompleteProvider } = loadPiTui();
    // Built lazily per request: extension commands can change after /reload.
    let built: { list: SlashCommand[]; provider: AutocompleteProvider } | undefined;
    const provider = (): AutocompleteProvider => {
      const list = commands();
      if (!built || built.list.length !== list.length || built.list.some((c, i) => c.name !== list[i]!.name || !c.getArgumentCompletions !== !list[i]!.getArgumentCompletions)) {
        built = { list, provider: new CombinedAutocompleteProvider(list, cwd, null) };
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
    this.files ??= (async () => {
      const paths: string[] = [];
      try {
        await walkDirectory(this.cwd, (entry) => {
          paths.push(entry.isDirectory ? `${entry.path}/` : entry.path);
          if (paths.length >= MAX_FILES) return STOP_WALK;
        });
      } catch {
        // An unreadable folder leaves the list as far as it got.
      }
      return paths;
    })();
    return this.files;
  }

  async getSuggestions(lines: string[], cursorLine: number, cursorCol: number, options: { signal: AbortSignal; force?: boolean }): Promise<AutocompleteSuggestions | null> {
    const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
    const at = AT_TOKEN.exec(before);
    if (at) {
      const query = at[1] ?? "";
      const files = await this.projectFiles();
      if (options.signal.aborted) return null;
      const { fuzzyFilter } = loadPiTui();
      const matches = query ? fuzzyFilter(files, query, (path) => path) : files.filter((path) => !path.includes("/") || /^[^/]+\/$/.test(path));
      const items: AutocompleteItem[] = matches.slice(0, MAX_SUGGESTIONS).map((path) => ({ value: `@${path}`, label: path }));
      return items.length > 0 ? { items, prefix: `@${query}` } : null;
    }
    return this.inner.getSuggestions(lines, cursorLine, cursorCol, options);
  }

  applyCompletion(lines: string[], cursorLine: number, cursorCol: number, item: AutocompleteItem, prefix: string) {
    if (!prefix.startsWith("@")) return this.inner.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
    const line = lines[cursorLine] ?? "";
    const start = cursorCol - prefix.length;
    // A folder stays open for the next part of the path; a file ends with a space.
    const inserted = item.value.endsWith("/") ? item.value : `${item.value} `;
    const next = [...lines];
    next[cursorLine] = line.slice(0, start) + inserted + line.slice(cursorCol);
    return { lines: next, cursorLine, cursorCol: start + inserted.length };
  }

  shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number): boolean {
    return this.inner.shouldTriggerFileCompletion?.(lines, cursorLine, cursorCol) ?? true;
  }
}
