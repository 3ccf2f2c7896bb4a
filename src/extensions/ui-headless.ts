/**
 * `ctx.ui` for print (`-p`) and json mode, where nobody can answer: every
 * dialog resolves to its default at once (undefined, or false for confirm),
 * notify() goes to the mode's notice line (stderr) when it has one, other
 * display calls are dropped, and queries report an empty UI. An extension
 * that forgot to check `ctx.hasUI` therefore carries on instead of hanging.
 */
import type { ExtensionTheme, ExtensionUIContext } from "./ui-types.ts";

const unchanged = (text: string) => text;

/**
 * A theme that styles nothing: text comes back exactly as given. Used wherever
 * output is not a terminal (headless modes, the RPC bridge).
 */
export const plainTheme: ExtensionTheme = Object.freeze({
  fg: (_color: string, text: string) => text,
  bg: (_color: string, text: string) => text,
  bold: unchanged,
  italic: unchanged,
  underline: unchanged,
  strikethrough: unchanged,
  inverse: unchanged,
  style: (text: string) => text,
});

const NO_THEMES = "Themes are not available: this mode has no interactive UI";

const nothing = () => {};

/** `notice`: where notify() goes (print and json mode: stderr); without it, notify is dropped. */
export function createHeadlessUI(options: { notice?: (line: string) => void } = {}): ExtensionUIContext {
  const notice = options.notice;
  return {
    select: async () => undefined,
    confirm: async () => false,
    input: async () => undefined,
    editor: async () => undefined,
    custom: async () => undefined,
    notify: notice ? (message: string, type?: string) => notice(type === "warning" || type === "error" ? `${type}: ${message}` : message) : nothing,
    setStatus: nothing,
    setWidget: nothing,
    setTitle: nothing,
    setEditorText: nothing,
    getEditorText: () => "",
    pasteToEditor: nothing,
    setWorkingMessage: nothing,
    setWorkingVisible: nothing,
    setHiddenThinkingLabel: nothing,
    setWorkingIndicator: nothing,
    setFooter: nothing,
    setHeader: nothing,
    setEditorComponent: nothing,
    getEditorComponent: () => undefined,
    setToolsExpanded: nothing,
    getToolsExpanded: () => false,
    getAllThemes: () => [],
    getTheme: () => undefined,
    setTheme: () => ({ success: false, error: NO_THEMES }),
    addAutocompleteProvider: nothing,
    onTerminalInput: () => nothing,
    theme: plainTheme,
  };
}
