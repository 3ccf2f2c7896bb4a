/**
 * `ctx.ui` in the terminal: extensions' dialogs become overlays, their widgets,
 * header, footer and statuses take their places around the editor, and
 * `custom()` components render for real. Everything a call needs of the
 * screen goes through `Surface`, which the application shell provides, so this
 * file only translates the extension API — it never lays anything out itself.
 */
import type { Component, TUI } from "@earendil-works/pi-tui";
import type { ExtensionUIContext, ExtensionUIDialogOptions, NotifyType, WidgetPlacement } from "../../extensions/ui-types.ts";
import { confirmDialog, editorDialog, inputDialog, selectDialog, type DialogHost } from "./dialogs.ts";
import type { UiTheme } from "./theme.ts";
import type { ThemeController } from "./theme-controller.ts";
import { appKeybindings, loadPiTui } from "../../extensions/tui-helpers.ts";
import { guardComponent } from "./safe-render.ts";
import { installedKeymap } from "./keymap.ts";

/** What the shell lends the extension UI. */
export interface Surface extends DialogHost {
  tui: TUI;
  theme: () => UiTheme;
  /** The themes that can be chosen, and the choice. */
  themes: ThemeController;
  /** A dialog waits for the user (OSC 7501 "blocked") until the returned function is called. */
  blocked?(title: string): () => void;
  notify(message: string, type: NotifyType): void;
  setStatus(key: string, text: string | undefined): void;
  setWidget(key: string, component: Component | undefined, placement: WidgetPlacement): void;
  setHeader(component: Component | undefined): void;
  setFooter(component: Component | undefined): void;
  setTitle(title: string): void;
  editorText(): string;
  setEditorText(text: string): void;
  insertIntoEditor(text: string): void;
  setWorkingMessage(message: string | undefined): void;
  setWorkingVisible(visible: boolean): void;
  setWorkingIndicator(indicator: { frames: string[]; intervalMs?: number } | undefined): void;
  setHiddenThinkingLabel(label: string | undefined): void;
  toolsExpanded(): boolean;
  setToolsExpanded(expanded: boolean): void;
  /** Shows a component in the editor's place until `restore` is called. */
  replaceEditor(component: Component): () => void;
  /** An extension's editor factory takes the editor's place (undefined: the built-in editor). */
  setEditorFactory(factory: ((...args: any[]) => unknown) | undefined): void;
  editorFactory(): ((...args: any[]) => unknown) | undefined;
  addInputListener(handler: (data: string) => unknown): () => void;
  addAutocompleteProvider(factory: (current: unknown) => unknown): void;
  /**
   * The session's extensions were replaced (a session of another folder): what the old
   * ones set — widgets, statuses, header, footer, editor, working line, thinking label,
   * input listeners, completion — goes, as in pi 1.6.0.
   */
  resetExtensionParts(): void;
}

function isComponent(value: unknown): value is Component {
  return typeof value === "object" && value !== null && typeof (value as Component).render === "function";
}

/** A keybindings object for components built by extensions (pi passes one to factories), app actions and keybindings.json included. */
function keybindings() {
  return installedKeymap() ?? appKeybindings();
}

export class TuiExtensionUI implements ExtensionUIContext {
  constructor(private readonly surface: Surface) {}

  get theme(): UiTheme {
    return this.surface.theme();
  }

  /** The dialog's answer, reporting xcsh as blocked on the user (program status) until it comes. */
  private waitingFor<T>(title: string, answer: () => Promise<T>): Promise<T> {
    const unblock = this.surface.blocked?.(title);
    let pending: Promise<T>;
    try {
      pending = answer();
    } catch (error) {
      unblock?.();
      throw error;
    }
    return pending.finally(() => unblock?.());
  }

  select(title: string, options: string[], opts?: ExtensionUIDialogOptions): Promise<string | undefined> {
    const items = (Array.isArray(options) ? options : []).map((option) => ({ value: String(option), label: String(option) }));
    return this.waitingFor(String(title), () => selectDialog(this.surface, String(title), items, { timeout: opts?.timeout, signal: opts?.signal })).then((item) => item?.value);
  }

  confirm(title: string, message: string, opts?: ExtensionUIDialogOptions): Promise<boolean> {
    return this.waitingFor(String(title), () => confirmDialog(this.surface, String(title), String(message ?? ""), { timeout: opts?.timeout, signal: opts?.signal }));
  }

  input(title: string, placeholder?: string, opts?: ExtensionUIDialogOptions): Promise<string | undefined> {
    return this.waitingFor(String(title), () => inputDialog(this.surface, String(title), placeholder, { timeout: opts?.timeout, signal: opts?.signal }));
  }

  editor(title: string, prefill?: string, opts?: ExtensionUIDialogOptions): Promise<string | undefined> {
    return this.waitingFor(String(title), () => editorDialog(this.surface, String(title), prefill, { timeout: opts?.timeout, signal: opts?.signal }));
  }

  notify(message: string, type: NotifyType = "info"): void {
    this.surface.notify(String(message), type === "warning" || type === "error" ? type : "info");
  }

  setStatus(key: string, text: string | undefined): void {
    this.surface.setStatus(String(key), text === undefined ? undefined : String(text));
  }

  setWidget(key: string, content: string[] | ((...args: any[]) => unknown) | undefined, options?: { placement?: WidgetPlacement }): void {
    const placement = options?.placement === "belowEditor" ? "belowEditor" : "aboveEditor";
    this.surface.setWidget(String(key), this.toComponent(content), placement);
  }

  /** String lines, or a factory `(tui, theme) => Component`; anything else clears. */
  private toComponent(content: unknown): Component | undefined {
    if (Array.isArray(content)) {
      const { Text } = loadPiTui();
      return new Text(content.map(String).join("\n"), 1, 0);
    }
    if (typeof content === "function") {
      const built = content(this.surface.tui, this.theme);
      return isComponent(built) ? this.guard(built) : undefined;
    }
    return undefined;
  }

  /** A component that draws too wide or throws is cut or replaced by an error line, never fatal. */
  private guard<C extends Component>(component: C): C {
    return guardComponent(component, (error) => this.surface.notify(`Extension component failed to draw: ${(error as Error)?.message ?? String(error)}`, "error"));
  }

  setTitle(title: string): void {
    this.surface.setTitle(String(title));
  }

  setEditorText(text: string): void {
    this.surface.setEditorText(String(text ?? ""));
  }

  getEditorText(): string {
    return this.surface.editorText();
  }

  pasteToEditor(text: string): void {
    this.surface.insertIntoEditor(String(text ?? ""));
  }

  setWorkingMessage(message?: string): void {
    this.surface.setWorkingMessage(message === undefined ? undefined : String(message));
  }

  setWorkingVisible(visible: boolean): void {
    this.surface.setWorkingVisible(visible !== false);
  }

  setHiddenThinkingLabel(label?: string): void {
    this.surface.setHiddenThinkingLabel(label === undefined ? undefined : String(label));
  }

  setWorkingIndicator(indicator?: { frames: string[]; intervalMs?: number }): void {
    const frames = Array.isArray(indicator?.frames) ? indicator.frames.map(String) : undefined;
    this.surface.setWorkingIndicator(frames && frames.length > 0 ? { frames, intervalMs: indicator?.intervalMs } : undefined);
  }

  setFooter(factory: ((...args: any[]) => unknown) | undefined): void {
    this.surface.setFooter(factory ? this.toComponent(factory) : undefined);
  }

  setHeader(factory: ((...args: any[]) => unknown) | undefined): void {
    this.surface.setHeader(factory ? this.toComponent(factory) : undefined);
  }

  /** `factory(tui, editorTheme, keybindings)` builds the editor shown instead of the built-in one; undefined brings that back. */
  setEditorComponent(factory: ((...args: any[]) => unknown) | undefined): void {
    this.surface.setEditorFactory(typeof factory === "function" ? factory : undefined);
  }

  getEditorComponent(): ((...args: any[]) => unknown) | undefined {
    return this.surface.editorFactory();
  }

  /**
   * `factory(tui, theme, keybindings, done)` builds a component that takes the
   * keyboard until it calls `done(result)`; with `{ overlay: true }` it floats
   * over the conversation, otherwise it takes the editor's place.
   */
  custom<T>(factory: (...args: any[]) => unknown, options?: Record<string, unknown>): Promise<T | undefined> {
    return new Promise<T | undefined>((resolve) => {
      let finish: (() => void) | undefined;
      let settled = false;
      const done = (result?: T) => {
        if (settled) return;
        settled = true;
        finish?.();
        this.surface.tui.requestRender();
        resolve(result);
      };
      Promise.resolve()
        .then(() => factory(this.surface.tui, this.theme, keybindings(), done))
        .then((component) => {
          if (settled) return;
          if (!isComponent(component)) return done(undefined);
          this.guard(component);
          if (options?.overlay) {
            const overlayOptions = (options.overlayOptions as Record<string, unknown> | undefined) ?? {};
            const handle = this.surface.tui.showOverlay(component, { anchor: "center", width: "70%", ...overlayOptions });
            finish = () => handle.hide();
          } else {
            finish = this.surface.replaceEditor(component);
          }
          this.surface.tui.requestRender();
        })
        .catch((error) => {
          this.surface.notify(`Extension component failed: ${(error as Error).message}`, "error");
          done(undefined);
        });
    });
  }

  setToolsExpanded(expanded: boolean): void {
    this.surface.setToolsExpanded(expanded === true);
  }

  getToolsExpanded(): boolean {
    return this.surface.toolsExpanded();
  }

  getAllThemes(): { name: string; path: string | undefined }[] {
    return this.surface.themes.available();
  }

  /** The theme of that name as pi's Theme (fg, bg, getFgAnsi, …), fixed to it; undefined when there is none. */
  getTheme(name: string): unknown {
    return typeof name === "string" ? this.surface.themes.find(name) : undefined;
  }

  /**
   * Draws with a theme for the rest of the session (the settings stay as they are): a
   * name, a "light/dark" pair, or a theme getTheme returned (or an object naming one).
   */
  setTheme(theme: unknown): { success: boolean; error?: string } {
    const definition = (theme as Partial<UiTheme> | null)?.definition;
    if (typeof definition === "object" && definition !== null) return this.surface.themes.select(definition);
    const name = typeof theme === "string" ? theme : (theme as { name?: unknown } | null)?.name;
    if (typeof name !== "string") return { success: false, error: "setTheme takes a theme name or a theme" };
    const result = this.surface.themes.select(name);
    return result.success ? result : { success: false, error: `Theme "${name}" cannot be used: ${result.error}` };
  }

  addAutocompleteProvider(factory: (current: unknown) => unknown): void {
    this.surface.addAutocompleteProvider(factory);
  }

  onTerminalInput(handler: (data: string) => unknown): () => void {
    return this.surface.addInputListener(handler);
  }
}
