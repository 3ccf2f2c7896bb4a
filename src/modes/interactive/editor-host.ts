/**
 * The editor place: the built-in prompt editor, or the editor an extension
 * supplies with `ctx.ui.setEditorComponent` (pi-tui's Editor or the host's
 * CustomEditor, built by the extension's factory), or for a while a `custom()`
 * component. Whichever editor is shown gets the application's keys, submits
 * through the shell, keeps the draft when swapped, and completes through one
 * chain: the built-in provider wrapped by each `addAutocompleteProvider`
 * factory in turn. An extension's editor or provider that throws is reported
 * and left out; it never takes the session down.
 */
import type { AutocompleteItem, AutocompleteProvider, Component, TUI } from "@earendil-works/pi-tui";
import { isShellLine } from "./bash-line.ts";
import type { Layout } from "./layout.ts";
import { guardComponent } from "./safe-render.ts";
import { createPromptEditor, readHistory, type AppKeyHandlers, type PromptEditor } from "./prompt-editor.ts";
import type { UiTheme } from "./theme.ts";

/** What the shell needs of an editor; an extension's editor must have at least getText/setText. */
export interface EditorLike extends Component {
  getText(): string;
  setText(text: string): void;
  onSubmit?: (text: string) => void;
  getExpandedText?(): string;
  insertTextAtCursor?(text: string): void;
  addToHistory?(text: string): void;
  setAutocompleteProvider?(provider: AutocompleteProvider): void;
}

/** The hooks pi's CustomEditor offers for the application's keys. */
interface AppAwareEditor extends EditorLike {
  onEscape?: () => void;
  onCtrlD?: () => void;
  onExtensionShortcut?: (data: string) => boolean;
  onAction?(action: string, handler: () => void): void;
}

export type EditorFactory = (...args: any[]) => unknown;
type ProviderFactory = (current: AutocompleteProvider) => unknown;

export interface EditorHostOptions {
  tui: TUI;
  layout: Layout;
  theme: () => UiTheme;
  cwd: string;
  keys: AppKeyHandlers;
  submit(text: string): void;
  /** The built-in completion (commands, paths, @files). */
  completion: AutocompleteProvider;
  report(what: string, error: unknown): void;
}

function isEditorLike(value: unknown): value is EditorLike {
  const candidate = value as EditorLike | null;
  return typeof candidate === "object" && candidate !== null && ["render", "getText", "setText"].every((name) => typeof (candidate as any)[name] === "function");
}

function isProvider(value: unknown): value is AutocompleteProvider {
  const candidate = value as AutocompleteProvider | null;
  return typeof candidate === "object" && candidate !== null && typeof candidate.getSuggestions === "function" && typeof candidate.applyCompletion === "function";
}

export class EditorHost {
  readonly prompt: PromptEditor;
  private custom: { editor: EditorLike; factory: EditorFactory } | undefined;
  private readonly providerFactories: ProviderFactory[] = [];
  private completion: AutocompleteProvider;

  constructor(private readonly options: EditorHostOptions) {
    this.prompt = createPromptEditor(options.tui, options.theme().editor(), options.cwd);
    this.prompt.keys = options.keys;
    // As in pi: a line that will run as a shell command shows it before it is sent.
    this.prompt.borderFor = (text) => (isShellLine(text) ? options.theme().getBashModeBorderColor() : options.theme().editor().borderColor);
    this.prompt.onSubmit = (text) => options.submit(text);
    this.completion = options.completion;
    this.prompt.setAutocompleteProvider(this.completion);
    this.show();
  }

  /** The editor on screen (the extension's, when one is set). */
  get active(): EditorLike {
    return this.custom?.editor ?? this.prompt;
  }

  get factory(): EditorFactory | undefined {
    return this.custom?.factory;
  }

  /** The text to send: with pasted blocks expanded where the editor supports that. */
  submittedText(): string {
    const editor = this.active;
    return editor.getExpandedText?.() ?? editor.getText();
  }

  insert(text: string): void {
    const editor = this.active;
    if (editor.insertTextAtCursor) editor.insertTextAtCursor(text);
    else editor.setText(editor.getText() + text);
    this.options.tui.requestRender();
  }

  addToHistory(text: string): void {
    this.prompt.addToHistory(text);
    this.custom?.editor.addToHistory?.(text);
  }

  /** Puts the active editor in the editor place with the keyboard. */
  show(): void {
    this.options.layout.put(this.options.layout.editor, this.active);
    this.options.tui.setFocus(this.active);
  }

  /** A component in the editor's place until the returned function is called. */
  replaceWith(component: Component): () => void {
    this.options.layout.put(this.options.layout.editor, component);
    this.options.tui.setFocus(component);
    return () => this.show();
  }

  themeChanged(): void {
    this.prompt.borderColor = this.options.theme().editor().borderColor;
  }

  /** An extension's editor replaces the built-in one (undefined: the built-in one comes back). */
  setFactory(factory: EditorFactory | undefined): void {
    const draft = this.active.getText();
    if (!factory) {
      this.custom = undefined;
    } else {
      let built: unknown;
      try {
        built = factory(this.options.tui, this.options.theme().editor(), this.options.keys.keymap());
      } catch (error) {
        return this.options.report("setEditorComponent", error);
      }
      if (!isEditorLike(built)) return this.options.report("setEditorComponent", new Error("the factory did not return an editor (render, getText, setText)"));
      guardComponent(built, (error) => this.options.report("editor", error));
      this.wire(built);
      this.custom = { editor: built, factory };
    }
    this.active.setText(draft);
    this.show();
  }

  /**
   * The application's keys and the session's submit, on an extension's editor:
   * Esc and Ctrl+D through the editor's own hooks (it checks completion and
   * emptiness itself), every other action through onAction.
   */
  private wire(editor: AppAwareEditor): void {
    const { keys } = this.options;
    const run = (id: string) => keys.actions.find((action) => action.id === id)?.run();
    editor.onSubmit = (text) => this.options.submit(text);
    editor.onEscape = () => run("app.interrupt");
    editor.onCtrlD = () => run("app.exit");
    if (keys.shortcut) editor.onExtensionShortcut = (data) => keys.shortcut!(data);
    if (typeof editor.onAction === "function") {
      for (const action of keys.actions) if (action.id !== "app.interrupt" && action.id !== "app.exit") editor.onAction(action.id, action.run);
    }
    if (editor.addToHistory) for (const prompt of readHistory(this.options.cwd)) editor.addToHistory(prompt);
    editor.setAutocompleteProvider?.(this.completion);
  }

  /** The built-in completion again, without any extension's provider. */
  clearAutocompleteProviders(): void {
    this.providerFactories.length = 0;
    this.completion = this.options.completion;
    this.prompt.setAutocompleteProvider(this.completion);
    this.custom?.editor.setAutocompleteProvider?.(this.completion);
  }

  /** Stacks an extension's provider on the chain: its factory gets the current provider to delegate to. */
  addAutocompleteProvider(factory: ProviderFactory): void {
    this.providerFactories.push(factory);
    let chain = this.options.completion;
    for (const each of this.providerFactories) {
      try {
        const provider = each(chain);
        if (isProvider(provider)) chain = this.guard(provider, chain);
        else this.options.report("addAutocompleteProvider", new Error("the factory did not return a provider (getSuggestions, applyCompletion)"));
      } catch (error) {
        this.options.report("addAutocompleteProvider", error);
      }
    }
    this.completion = chain;
    this.prompt.setAutocompleteProvider(chain);
    this.custom?.editor.setAutocompleteProvider?.(chain);
  }

  /** A provider whose failures fall back to the one it wraps. */
  private guard(provider: AutocompleteProvider, fallback: AutocompleteProvider): AutocompleteProvider {
    const report = (error: unknown) => this.options.report("autocomplete", error);
    return {
      get triggerCharacters() {
        return provider.triggerCharacters ?? fallback.triggerCharacters;
      },
      async getSuggestions(...args) {
        try {
          return await provider.getSuggestions(...args);
        } catch (error) {
          report(error);
          return fallback.getSuggestions(...args);
        }
      },
      applyCompletion(lines: string[], cursorLine: number, cursorCol: number, item: AutocompleteItem, prefix: string) {
        try {
          return provider.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
        } catch (error) {
          report(error);
          return fallback.applyCompletion(lines, cursorLine, cursorCol, item, prefix);
        }
      },
      shouldTriggerFileCompletion(lines: string[], cursorLine: number, cursorCol: number) {
        try {
          return provider.shouldTriggerFileCompletion?.(lines, cursorLine, cursorCol) ?? true;
        } catch {
          return fallback.shouldTriggerFileCompletion?.(lines, cursorLine, cursorCol) ?? true;
        }
      },
    } as AutocompleteProvider;
  }
}
