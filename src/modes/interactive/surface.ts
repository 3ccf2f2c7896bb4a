/**
 * What extensions may change of the terminal UI (the Surface that extension-ui.ts
 * lends them): notices, footer statuses, widgets, header and footer, the title, the
 * editor's text or the editor itself, the working line, how thinking and tool output
 * are shown, raw input, autocompletion. Each maps onto one part of the application;
 * the parts stay the application's (interactive-mode.ts).
 */
import type { Component, TUI } from "@earendil-works/pi-tui";
import type { NotifyType } from "../../extensions/ui-types.ts";
import type { ConversationView } from "./conversation.ts";
import type { EditorHost, EditorLike } from "./editor-host.ts";
import type { Surface } from "./extension-ui.ts";
import type { Footer } from "./footer.ts";
import type { Layout } from "./layout.ts";
import type { ProgramStatusReporter } from "./program-status.ts";
import type { UiTheme } from "./theme.ts";
import type { ThemeController } from "./theme-controller.ts";

/** The application's parts a surface reaches. */
export interface SurfaceHost {
  readonly tui: TUI;
  readonly themes: ThemeController;
  readonly programStatus: ProgramStatusReporter;
  readonly conversation: ConversationView;
  readonly footer: Footer;
  readonly layout: Layout;
  readonly editors: EditorHost;
  readonly editor: EditorLike;
  /** Our header, put back when an extension's setHeader(undefined) removes its own. */
  readonly defaultHeader: Component;
  /** Raw input handlers, asked in order before the editor (consume, or rewrite the data). */
  readonly inputListeners: Set<(data: string) => unknown>;
  currentTheme(): UiTheme;
  say(label: string, detail?: string, color?: string): void;
  hiddenThinkingLabel: string;
  readonly toolsExpanded: boolean;
  setToolsExpanded(expanded: boolean): void;
}

export function createSurface(app: SurfaceHost): Surface {
  const { layout, editors } = app;
  return {
    get tui() {
      return app.tui;
    },
    theme: () => app.currentTheme(),
    themes: app.themes,
    blocked: (title) => app.programStatus.block(title),
    notify: (message: string, type: NotifyType) => app.say(type === "info" ? message : `${type === "error" ? "✗" : "!"} ${message}`, "", type === "info" ? "accent" : type),
    setStatus: (key, text) => {
      app.footer.setStatus(key, text);
      app.tui.requestRender();
    },
    setWidget: (key, component, placement) => layout.setWidget(key, component, placement),
    setHeader: (component) => layout.put(layout.header, component ?? app.defaultHeader),
    setFooter: (component) => layout.put(layout.footer, component ?? app.footer),
    setTitle: (title) => app.tui.terminal.setTitle(title),
    editorText: () => app.editor.getText(),
    setEditorText: (text) => {
      app.editor.setText(text);
      app.tui.requestRender();
    },
    insertIntoEditor: (text) => editors.insert(text),
    setWorkingMessage: (message) => layout.setWorkingMessage(message),
    setWorkingVisible: (visible) => layout.setWorkingVisible(visible),
    setWorkingIndicator: (indicator) => layout.setWorkingIndicator(indicator),
    setHiddenThinkingLabel: (label) => {
      app.hiddenThinkingLabel = label ?? "Thinking…";
      app.conversation.root.invalidate();
      app.tui.requestRender();
    },
    toolsExpanded: () => app.toolsExpanded,
    setToolsExpanded: (expanded) => app.setToolsExpanded(expanded),
    replaceEditor: (component) => editors.replaceWith(component),
    setEditorFactory: (factory) => editors.setFactory(factory),
    editorFactory: () => editors.factory,
    addInputListener: (handler) => {
      app.inputListeners.add(handler);
      return () => app.inputListeners.delete(handler);
    },
    addAutocompleteProvider: (factory) => editors.addAutocompleteProvider(factory),
    resetExtensionParts: () => {
      layout.clearExtensionParts();
      app.footer.clearStatuses();
      layout.put(layout.header, app.defaultHeader);
      layout.put(layout.footer, app.footer);
      editors.setFactory(undefined);
      editors.clearAutocompleteProviders();
      app.inputListeners.clear();
      app.hiddenThinkingLabel = "Thinking…";
      app.conversation.root.invalidate();
      app.tui.requestRender();
    },
  };
}
