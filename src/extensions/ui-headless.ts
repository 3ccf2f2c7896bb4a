/**
 * `ctx.ui` for print (`-p`) and json mode, where nobody can answer: every
 * dialog resolves to its default at once (undefined, or false for confirm),
 * notify() goes to the mode's notice line (stderr) when it has one, other
 * display calls are dropped, and queries report an empty UI. An extension
 * that forgot to check `ctx.hasUI` therefore carries on instead of hanging.
 */
import type { ExtensionTheme, ExtensionUIContext } from "./ui-types.ts";
import { builtinTheme } from "../resources/builtin-themes.ts";
import { concreteColors } from "../resources/theme-concrete-colors.ts";

const unchanged = (text: string) => text;

let darkColors: unknown;

/**
 * A theme that styles nothing: text comes back exactly as given. Used wherever
 * output is not a terminal (headless modes, the RPC bridge). Like pi 1.x's, it
 * still says what it would draw with: the dark appearance and the built-in dark
 * theme's concrete `colors` (made on first read), so an extension that picks
 * colours for an image or an HTML export from `ctx.ui.theme.colors` works in
 * every mode.
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
  appearance: "dark",
  sourcePath: undefined,
  sourceInfo: undefined,
  get colors() {
    darkColors ??= Object.freeze(concreteColors(builtinTheme("dark"), { appearance: "dark" }));
    return darkColors;
  },
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
