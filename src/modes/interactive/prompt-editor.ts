/**
 * The prompt editor: pi-tui's multi-line Editor with the application's keys
 * in front of it (Esc, Ctrl+C, Ctrl+D, Alt+Enter, the toggles, extension
 * shortcuts) and the prompt history, which is kept per project in
 * `<agent dir>/history/<project>.jsonl` so ↑ brings back yesterday's prompts.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Editor, EditorTheme, KeybindingsManager, TUI } from "@earendil-works/pi-tui";
import { getAgentDir } from "../../config/paths.ts";
import { appendPrivateFile, ensurePrivateFolder } from "../../config/private-files.ts";
import { encodeCwdForDirName } from "../../session/session-paths.ts";
import { loadPiTui } from "../../extensions/tui-helpers.ts";
import { matches } from "./keymap.ts";

/** One of the application's actions: its pi action id (its keys come from the keymap) and what it does. */
export interface AppAction {
  id: string;
  run(): void;
  /** Taken only then: Esc leaves an open completion list to the editor; Ctrl+D exits only from an empty editor. */
  when?: "noCompletion" | "emptyEditor";
}

/** Keys the application takes before the editor sees them; first match wins. */
export interface AppKeyHandlers {
  /** Extension shortcuts (registerShortcut): true when one took the key. */
  shortcut?(data: string): boolean;
  /** The resolved keys (defaults and keybindings.json). */
  keymap(): KeybindingsManager;
  actions: AppAction[];
}

const HISTORY_LIMIT = 100;

export function historyFile(cwd: string): string {
  return join(getAgentDir(), "history", `${encodeCwdForDirName(cwd)}.jsonl`);
}

/** The project's past prompts, oldest first. A torn or foreign line is skipped. */
export function readHistory(cwd: string): string[] {
  const file = historyFile(cwd);
  if (!existsSync(file)) return [];
  const prompts: string[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    try {
      const entry = JSON.parse(line) as { prompt?: unknown };
      if (typeof entry.prompt === "string") prompts.push(entry.prompt);
    } catch {
      // skipped
    }
  }
  return prompts.slice(-HISTORY_LIMIT);
}

export function appendHistory(cwd: string, prompt: string): void {
  try {
    const file = historyFile(cwd);
    ensurePrivateFolder(dirname(file));
    appendPrivateFile(file, JSON.stringify({ prompt, timestamp: Date.now() }) + "\n");
  } catch {
    // History is a convenience: a read-only home must not break the session.
  }
}

export type PromptEditor = Editor & {
  keys: AppKeyHandlers | undefined;
  /** The border for the text typed so far (a `!` line draws it in the shell's colour); unset: `borderColor` as it is. */
  borderFor: ((text: string) => (line: string) => string) | undefined;
};

/** xcsh's own look when settings.json says nothing (pi's defaults are 0 and 5). */
const DEFAULT_PADDING_X = 1;
const DEFAULT_COMPLETION_ROWS = 8;

/**
 * pi's `editorPaddingX` (0–3 cells) and `autocompleteMaxVisible` (3–20 rows), as pi bounds
 * them. A value out of range is brought into it; one that is not a number leaves xcsh's look.
 */
export function applyEditorSettings(editor: PromptEditor, settings: Readonly<Record<string, unknown>>): void {
  const within = (value: unknown, low: number, high: number) => (typeof value === "number" && Number.isFinite(value) ? Math.min(high, Math.max(low, Math.floor(value))) : undefined);
  editor.setPaddingX(within(settings.editorPaddingX, 0, 3) ?? DEFAULT_PADDING_X);
  editor.setAutocompleteMaxVisible(within(settings.autocompleteMaxVisible, 3, 20) ?? DEFAULT_COMPLETION_ROWS);
}

export function createPromptEditor(tui: TUI, theme: EditorTheme, cwd: string): PromptEditor {
  const { Editor } = loadPiTui();
  class AppEditor extends Editor {
    keys: AppKeyHandlers | undefined;
    borderFor: ((text: string) => (line: string) => string) | undefined;

    override render(width: number): string[] {
      if (this.borderFor) this.borderColor = this.borderFor(this.getText());
      return super.render(width);
    }

    override handleInput(data: string): void {
      const keys = this.keys;
      if (keys) {
        if (keys.shortcut?.(data)) return;
        const keymap = keys.keymap();
        for (const action of keys.actions) {
          if (action.when === "noCompletion" && this.isShowingAutocomplete()) continue;
          if (action.when === "emptyEditor" && this.getText().length > 0) continue;
          if (matches(keymap, data, action.id)) return action.run();
        }
      }
      super.handleInput(data);
    }
  }
  const editor = new AppEditor(tui, theme, { paddingX: DEFAULT_PADDING_X, autocompleteMaxVisible: DEFAULT_COMPLETION_ROWS }) as PromptEditor;
  for (const prompt of readHistory(cwd)) editor.addToHistory(prompt);
  return editor;
}
