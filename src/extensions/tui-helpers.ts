/**
 * The terminal-UI helpers pi's extensions import from its package (`keyHint`,
 * `DynamicBorder`, `BorderedLoader`, `CustomEditor`, the markdown and list
 * themes, `highlightCode`), re-made for xcsh. Components that
 * build on `@earendil-works/pi-tui` are lazy classes: the library is loaded the
 * first time one is constructed or extended, never because an extension merely
 * imports `xcsh`. Colours come from the theme the interactive mode is drawing with
 * (`useHelperTheme`); in the other modes output is no terminal, so text stays plain.
 */
import type * as PiTui from "@earendil-works/pi-tui";
import type { EditorOptions, EditorTheme, KeybindingsManager, MarkdownTheme, SelectListTheme, SettingsListTheme } from "@earendil-works/pi-tui";
import { plainTheme } from "./ui-headless.ts";
import type { ExtensionTheme } from "./ui-types.ts";

type PiTuiModule = typeof PiTui;
let piTui: PiTuiModule | undefined;

/**
 * pi-tui, loaded synchronously on first use (it has no top-level await, so
 * `require` works from source and in the binary). By its entry file's path:
 * once extensions run, the package name answers with a virtual module.
 */
export function loadPiTui(): PiTuiModule {
  return (piTui ??= require("@earendil-works/pi-tui/dist/index.js") as PiTuiModule);
}

/**
 * A constructor that stands for the class `define()` returns, calling it only
 * when the class is first used: constructed, extended (`class X extends Lazy`
 * reads `Lazy.prototype`), or asked for a static member.
 */
function lazyClass<T extends abstract new (...args: any[]) => object>(name: string, define: () => T): T {
  let real: T | undefined;
  const resolve = (): T => (real ??= define());
  const placeholder = function () {};
  Object.defineProperty(placeholder, "name", { value: name });
  return new Proxy(placeholder, {
    get: (_target, key) => Reflect.get(resolve(), key),
    has: (_target, key) => Reflect.has(resolve(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(resolve()),
    construct: (_target, args, newTarget) => Reflect.construct(resolve(), args, newTarget),
  }) as unknown as T;
}

// --- the theme ------------------------------------------------------------------

/** A theme as the helpers use it: colours by name, plus the interactive mode's component themes. */
export interface HelperTheme extends ExtensionTheme {
  markdown?(): MarkdownTheme;
  selectList?(): SelectListTheme;
}

let activeTheme: HelperTheme = plainTheme;

/** The theme helpers draw with now. */
export function helperTheme(): HelperTheme {
  return activeTheme;
}

/** The interactive mode hands over the theme it draws with (again whenever it changes). */
export function useHelperTheme(theme: HelperTheme): void {
  activeTheme = theme;
}

// --- key hints --------------------------------------------------------------------

/** Default keys of the app-level actions extensions name in hints (pi's documented defaults). */
const APP_KEYS: Record<string, string> = {
  "app.interrupt": "escape",
  "app.clear": "ctrl+c",
  "app.exit": "ctrl+d",
  "app.suspend": "ctrl+z",
  "app.thinking.cycle": "shift+tab",
  "app.model.cycleForward": "ctrl+p",
  "app.model.cycleBackward": "shift+ctrl+p",
  "app.model.select": "ctrl+l",
  "app.tools.expand": "ctrl+o",
  "app.thinking.toggle": "ctrl+t",
  "app.editor.external": "ctrl+g",
  "app.message.followUp": "alt+enter",
  "app.message.dequeue": "alt+up",
  "app.clipboard.pasteImage": process.platform === "win32" ? "alt+v" : "ctrl+v",
};

let appBindings: KeybindingsManager | undefined;

/**
 * pi-tui's keybindings plus the app-level actions ("app.interrupt", "app.clear", …),
 * as pi hands them to the components extensions build (custom editors, `custom()`):
 * `matches(data, "app.interrupt")` is true for Esc.
 */
export function appKeybindings(): KeybindingsManager {
  if (appBindings) return appBindings;
  const { KeybindingsManager, TUI_KEYBINDINGS } = loadPiTui();
  const app = Object.fromEntries(Object.entries(APP_KEYS).map(([id, key]) => [id, { defaultKeys: key, description: id }]));
  appBindings = new KeybindingsManager({ ...TUI_KEYBINDINGS, ...app } as unknown as ConstructorParameters<typeof KeybindingsManager>[0]);
  return appBindings;
}

/** The key(s) bound to a keybinding id such as "app.tools.expand" or "tui.select.confirm"; "" for an id without keys. */
export function keyText(keybinding: string): string {
  const app = APP_KEYS[keybinding];
  if (app !== undefined) return app;
  if (keybinding.startsWith("tui.")) {
    const definition = (loadPiTui().TUI_KEYBINDINGS as Record<string, { defaultKeys: string | readonly string[] }>)[keybinding];
    if (definition) return typeof definition.defaultKeys === "string" ? definition.defaultKeys : definition.defaultKeys.join("/");
  }
  // pi 1.x: an id with no keys (unknown, or unbound) reads as "", so hints built from it stay empty.
  return "";
}

/** "ctrl+o to expand" from ("app.tools.expand", "to expand"): the key dim, the words muted. */
export function keyHint(keybinding: string, description: string): string {
  return rawKeyHint(keyText(String(keybinding)), description);
}

export function rawKeyHint(key: string, description: string): string {
  return activeTheme.fg("dim", String(key)) + activeTheme.fg("muted", ` ${description ?? ""}`);
}

// --- themes and highlighting ------------------------------------------------------

const plain = (text: string) => text;
const bold = (text: string) => `\x1b[1m${text}\x1b[22m`;
const italic = (text: string) => `\x1b[3m${text}\x1b[23m`;
const underline = (text: string) => `\x1b[4m${text}\x1b[24m`;
const strikethrough = (text: string) => `\x1b[9m${text}\x1b[29m`;

/** Code as coloured lines, one string per line (unchanged where there are no colours). */
export function highlightCode(code: string, lang?: string): string[] {
  const themed = activeTheme.markdown?.().highlightCode;
  return themed ? themed(String(code), lang) : String(code).split("\n");
}

export function getMarkdownTheme(): MarkdownTheme {
  const themed = activeTheme.markdown?.();
  if (themed) return themed;
  return {
    heading: bold,
    link: underline,
    linkUrl: plain,
    code: plain,
    codeBlock: plain,
    codeBlockBorder: plain,
    quote: italic,
    quoteBorder: plain,
    hr: plain,
    listBullet: plain,
    bold,
    italic,
    strikethrough,
    underline,
    highlightCode,
  };
}

export function getSelectListTheme(): SelectListTheme {
  const themed = activeTheme.selectList?.();
  if (themed) return themed;
  return { selectedPrefix: bold, selectedText: bold, description: plain, scrollInfo: plain, noMatch: plain };
}

export function getSettingsListTheme(): SettingsListTheme {
  const theme = activeTheme;
  return {
    label: (text, selected) => (selected ? theme.fg("accent", text) : text),
    value: (text, selected) => (selected ? theme.fg("accent", text) : theme.fg("muted", text)),
    description: (text) => theme.fg("dim", text),
    cursor: theme.fg("accent", "→ "),
    hint: (text) => theme.fg("dim", text),
  };
}

const LANGUAGES_BY_EXTENSION: Record<string, string> = {
  ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript",
  js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript",
  py: "python", rb: "ruby", rs: "rust", go: "go", java: "java", kt: "kotlin", swift: "swift",
  c: "c", h: "c", cpp: "cpp", cc: "cpp", cxx: "cpp", hpp: "cpp", cs: "csharp", php: "php",
  sh: "bash", bash: "bash", zsh: "bash", fish: "bash", ps1: "powershell",
  json: "json", jsonc: "json", yaml: "yaml", yml: "yaml", toml: "toml", ini: "ini", xml: "xml",
  html: "html", htm: "html", css: "css", scss: "scss", less: "less", sql: "sql",
  md: "markdown", markdown: "markdown", lua: "lua", r: "r", scala: "scala", dart: "dart",
  ex: "elixir", exs: "elixir", erl: "erlang", hs: "haskell", ml: "ocaml", vue: "vue", svelte: "svelte",
};
const LANGUAGES_BY_NAME: Record<string, string> = { dockerfile: "dockerfile", makefile: "makefile" };

/** The highlighting language for a file name, or undefined when unknown. */
export function getLanguageFromPath(filePath: string): string | undefined {
  const name = filePath.split(/[\\/]/).pop()?.toLowerCase() ?? "";
  const byName = LANGUAGES_BY_NAME[name];
  if (byName) return byName;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? LANGUAGES_BY_EXTENSION[name.slice(dot + 1)] : undefined;
}

// --- components -------------------------------------------------------------------

/** A horizontal rule as wide as the viewport, in the theme's border colour unless given one. Needs nothing of pi-tui. */
export class DynamicBorder {
  constructor(private readonly color: (text: string) => string = (text) => activeTheme.fg("border", text)) {}
  invalidate(): void {}
  render(width: number): string[] {
    return [this.color("─".repeat(Math.max(1, width)))];
  }
}

interface LoaderTheme {
  fg(color: string, text: string): string;
}

interface BorderedLoaderShape extends PiTui.Container {
  readonly signal: AbortSignal;
  onAbort: (() => void) | undefined;
  handleInput(data: string): void;
  dispose(): void;
}
type BorderedLoaderClass = new (tui: PiTui.TUI, theme: LoaderTheme, message: string, options?: { cancellable?: boolean }) => BorderedLoaderShape;

/** A spinner with a message between two borders; escape cancels it unless `cancellable: false`. */
export const BorderedLoader: BorderedLoaderClass = lazyClass("BorderedLoader", () => {
  const { Container, Loader, CancellableLoader, Spacer, Text } = loadPiTui();
  return class BorderedLoader extends Container {
    private readonly loader: PiTui.Loader;
    /** The signal of a loader that cannot be cancelled: it never aborts. */
    private readonly neverAborted = new AbortController().signal;

    constructor(tui: PiTui.TUI, theme: LoaderTheme, message: string, options: { cancellable?: boolean } = {}) {
      super();
      const cancellable = options.cancellable ?? true;
      const border = (text: string) => theme.fg("border", text);
      this.loader = cancellable
        ? new CancellableLoader(tui, (s) => theme.fg("accent", s), (s) => theme.fg("muted", s), message)
        : new Loader(tui, (s) => theme.fg("accent", s), (s) => theme.fg("muted", s), message);
      this.addChild(new DynamicBorder(border));
      this.addChild(this.loader);
      if (cancellable) {
        this.addChild(new Spacer(1));
        this.addChild(new Text(theme.fg("muted", keyHint("tui.select.cancel", "to cancel")), 1, 0));
      }
      this.addChild(new Spacer(1));
      this.addChild(new DynamicBorder(border));
    }

    get signal(): AbortSignal {
      return this.loader instanceof CancellableLoader ? this.loader.signal : this.neverAborted;
    }

    set onAbort(handler: (() => void) | undefined) {
      if (this.loader instanceof CancellableLoader) this.loader.onAbort = handler;
    }

    handleInput(data: string): void {
      if (this.loader instanceof CancellableLoader) this.loader.handleInput(data);
    }

    dispose(): void {
      if (this.loader instanceof CancellableLoader) this.loader.dispose();
      else this.loader.stop();
    }
  };
});

interface CustomEditorShape extends PiTui.Editor {
  actionHandlers: Map<string, () => void>;
  onEscape?: () => void;
  onCtrlD?: () => void;
  onPasteImage?: () => void;
  onExtensionShortcut?: (data: string) => boolean;
  onAction(action: string, handler: () => void): void;
}
type CustomEditorClass = new (tui: PiTui.TUI, theme: EditorTheme, keybindings: KeybindingsManager, options?: EditorOptions) => CustomEditorShape;

/**
 * pi-tui's Editor plus the app-level keys: extension shortcuts first, then
 * paste-image, escape (unless autocomplete is open), ctrl+d on an empty editor,
 * then any handler registered with `onAction`; everything else edits text.
 */
export const CustomEditor: CustomEditorClass = lazyClass("CustomEditor", () => {
  const { Editor } = loadPiTui();
  return class CustomEditor extends Editor {
    actionHandlers = new Map<string, () => void>();
    onEscape?: () => void;
    onCtrlD?: () => void;
    onPasteImage?: () => void;
    onExtensionShortcut?: (data: string) => boolean;

    constructor(tui: PiTui.TUI, theme: EditorTheme, private readonly keybindings: KeybindingsManager, options?: EditorOptions) {
      super(tui, theme, options);
    }

    onAction(action: string, handler: () => void): void {
      this.actionHandlers.set(action, handler);
    }

    private matches(data: string, action: string): boolean {
      const matches = this.keybindings?.matches as ((data: string, action: string) => boolean) | undefined;
      if (matches) return matches.call(this.keybindings, data, action);
      const key = APP_KEYS[action];
      return key !== undefined && loadPiTui().matchesKey(data, key as PiTui.KeyId);
    }

    override handleInput(data: string): void {
      if (this.onExtensionShortcut?.(data)) return;
      if (this.onPasteImage && this.matches(data, "app.clipboard.pasteImage")) return this.onPasteImage();
      if (this.onEscape && !this.isShowingAutocomplete() && this.matches(data, "app.interrupt")) return this.onEscape();
      if (this.onCtrlD && this.getText().length === 0 && this.matches(data, "app.exit")) return this.onCtrlD();
      for (const [action, handler] of this.actionHandlers) {
        if (this.matches(data, action)) return handler();
      }
      super.handleInput(data);
    }
  };
});
