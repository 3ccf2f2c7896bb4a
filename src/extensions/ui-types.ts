/**
 * What `ctx.ui` offers an extension (seed 003 "Custom UI"). Each mode supplies
 * one implementation: RPC turns dialogs into extension_ui_request frames, print
 * and json resolve them to their defaults at once, a terminal UI renders them.
 * The runner never knows which one it holds beyond `ctx.mode`.
 */

export type ExtensionMode = "tui" | "rpc" | "json" | "print" | "acp";

export interface ExtensionUIDialogOptions {
  /** Milliseconds until the dialog resolves to its default by itself. */
  timeout?: number;
  /** Aborting dismisses the dialog; it resolves to its default. */
  signal?: AbortSignal;
}

export type NotifyType = "info" | "warning" | "error";

export type WidgetPlacement = "aboveEditor" | "belowEditor";

/** Theme helpers render functions receive; outside a terminal they return the text unstyled. */
export interface ExtensionTheme {
  fg(color: string, text: string): string;
  bg(color: string, text: string): string;
  bold(text: string): string;
  italic(text: string): string;
  underline(text: string): string;
  strikethrough(text: string): string;
  inverse(text: string): string;
  [key: string]: unknown;
}

export interface ExtensionUIContext {
  /** Resolves to the chosen option, or undefined when cancelled, timed out or aborted. */
  select(title: string, options: string[], opts?: ExtensionUIDialogOptions): Promise<string | undefined>;
  /** Resolves to false when cancelled, timed out or aborted. */
  confirm(title: string, message: string, opts?: ExtensionUIDialogOptions): Promise<boolean>;
  input(title: string, placeholder?: string, opts?: ExtensionUIDialogOptions): Promise<string | undefined>;
  editor(title: string, prefill?: string, opts?: ExtensionUIDialogOptions): Promise<string | undefined>;
  notify(message: string, type?: NotifyType): void;
  setStatus(key: string, text: string | undefined): void;
  /** String lines are shown by every UI; component factories only by a terminal UI. */
  setWidget(key: string, content: string[] | ((...args: any[]) => unknown) | undefined, options?: { placement?: WidgetPlacement }): void;
  setTitle(title: string): void;
  setEditorText(text: string): void;
  getEditorText(): string;
  pasteToEditor(text: string): void;
  setWorkingMessage(message?: string): void;
  setWorkingVisible(visible: boolean): void;
  /** The label shown for a folded thinking block in a terminal UI. */
  setHiddenThinkingLabel(label?: string): void;
  setWorkingIndicator(indicator?: { frames: string[]; intervalMs?: number }): void;
  setFooter(factory: ((...args: any[]) => unknown) | undefined): void;
  setHeader(factory: ((...args: any[]) => unknown) | undefined): void;
  setEditorComponent(factory: ((...args: any[]) => unknown) | undefined): void;
  getEditorComponent(): ((...args: any[]) => unknown) | undefined;
  /** A terminal component; resolves to undefined where there is no terminal. */
  custom<T>(factory: (...args: any[]) => unknown, options?: Record<string, unknown>): Promise<T | undefined>;
  setToolsExpanded(expanded: boolean): void;
  getToolsExpanded(): boolean;
  getAllThemes(): { name: string; path: string | undefined }[];
  getTheme(name: string): unknown;
  setTheme(theme: unknown): { success: boolean; error?: string };
  addAutocompleteProvider(factory: (current: unknown) => unknown): void;
  onTerminalInput(handler: (data: string) => unknown): () => void;
  readonly theme: ExtensionTheme;
}
