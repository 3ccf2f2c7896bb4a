/**
 * `xcsh` on a terminal: the interactive session on pi-tui. The screen is, top
 * to bottom: header, conversation, pending queue, working line, widgets,
 * editor, widgets, footer. The first frame (header and a live editor) is drawn
 * before the session, the model registry or any extension is loaded; prompts
 * typed meanwhile wait for the session. Keys: Enter sends (steers while the
 * agent works), Alt+Enter queues a follow-up, Esc aborts, Ctrl+C clears and
 * twice exits, Ctrl+D on an empty editor exits. Every way out restores the
 * terminal (terminal-restore.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { extname, resolve } from "node:path";
import type { Component, Container, Loader, SlashCommand, Text, TUI } from "@earendil-works/pi-tui";
import type { CliArgs } from "../../cli/args.ts";
import { VERSION } from "../../cli/version.ts";
import type { AgentSession } from "../../core/agent-session.ts";
import type { ExtensionSystem } from "../../core/extension-system.ts";
import type { ImageContent } from "../../ai/types.ts";
import { loadPiTui } from "../../extensions/tui-helpers.ts";
import type { NotifyType, WidgetPlacement } from "../../extensions/ui-types.ts";
import { createSessionFromArgs } from "../session-from-args.ts";
import type { App } from "./app.ts";
import { BUILTIN_COMMANDS, matchBuiltin } from "./commands/index.ts";
import { ProjectCompletion } from "./completion.ts";
import { ConversationView } from "./conversation.ts";
import { TuiExtensionUI, type Surface } from "./extension-ui.ts";
import { Footer, shortenHome } from "./footer.ts";
import { appendHistory, createPromptEditor, type PromptEditor } from "./prompt-editor.ts";
import { captureConsole, guardTerminal } from "./terminal-restore.ts";
import { createTheme, guessThemeFromEnv, themeForBackground, type ThemeName, type UiTheme } from "./theme.ts";

const IMAGE_TYPES: Record<string, string> = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" };
/** Two Ctrl+C within this long exit. */
const DOUBLE_PRESS_MS = 1000;

/** A slot in the layout whose content can be swapped (header, editor, footer, working line). */
function slot(initial?: Component): Container {
  const { Container } = loadPiTui();
  const container = new Container();
  if (initial) container.addChild(initial);
  return container;
}

function put(container: Container, component: Component | undefined): void {
  container.clear();
  if (component) container.addChild(component);
}

class InteractiveApp implements App {
  session!: AgentSession;
  extensions: ExtensionSystem | undefined;
  readonly tui: TUI;
  readonly conversation: ConversationView;
  readonly footer: Footer;
  readonly editor: PromptEditor;
  readonly surface: Surface;
  readonly cwd = process.cwd();
  readonly version = VERSION;

  private theme: UiTheme;
  private thinkingShown = false;
  private toolsExpanded = false;
  private hiddenThinkingLabel = "Thinking…";
  private readonly headerSlot = slot();
  private readonly pendingText: Text;
  private readonly workingSlot = slot();
  private readonly widgetsAbove = slot();
  private readonly widgetsBelow = slot();
  private readonly editorSlot = slot();
  private readonly footerSlot = slot();
  private readonly widgets = new Map<string, { component: Component; placement: WidgetPlacement }>();
  private readonly defaultHeader: Text;
  private loader: Loader | undefined;
  private workingMessage: string | undefined;
  private workingVisible = true;
  private workingIndicator: { frames: string[]; intervalMs?: number } | undefined;
  private lastCtrlC = 0;
  private readonly attachments: ImageContent[] = [];
  private readonly sessionReady: Promise<void>;
  private markReady!: () => void;
  private exitResolve!: (code: number) => void;
  readonly exited: Promise<number>;
  private exiting = false;
  private readonly inputListeners = new Set<(data: string) => unknown>();

  constructor() {
    const { ProcessTerminal, TuiMainScreen, Text } = loadPiTui();
    this.theme = createTheme(guessThemeFromEnv());
    this.tui = new TuiMainScreen(new ProcessTerminal());
    this.sessionReady = new Promise((resolve) => (this.markReady = resolve));
    this.exited = new Promise((resolve) => (this.exitResolve = resolve));
    this.surface = this.createSurface();
    this.conversation = new ConversationView({
      tui: this.tui,
      cwd: this.cwd,
      theme: () => this.theme,
      thinkingShown: () => this.thinkingShown,
      expanded: () => this.toolsExpanded,
      hiddenThinkingLabel: () => this.hiddenThinkingLabel,
      toolRenderers: (name) => this.toolRenderers(name),
      messageRenderer: (type) => this.messageRenderer(type),
    });
    this.defaultHeader = new Text("", 1, 0);
    this.pendingText = new Text("", 1, 0);
    this.footer = new Footer(undefined, this.cwd, () => this.theme);
    this.editor = createPromptEditor(this.tui, this.theme.editor(), this.cwd);
    this.editor.onSubmit = (text) => void this.submit(text);
    this.editor.keys = {
      shortcut: (data) => this.runShortcut(data),
      escape: () => this.onEscape(),
      ctrlC: () => this.onCtrlC(),
      ctrlD: () => this.exit(0),
      followUp: () => void this.submit(this.editor.getExpandedText(), "followUp"),
      bindings: [
        { key: "ctrl+o", run: () => this.setToolsExpanded(!this.toolsExpanded) },
        { key: "ctrl+t", run: () => this.toggleThinking() },
        { key: "shift+tab", run: () => this.cycleThinking() },
        { key: "ctrl+l", run: () => void this.runCommandLine("/model") },
      ],
    };
    this.editor.setAutocompleteProvider(new ProjectCompletion(this.cwd, () => this.slashCommands()));
    put(this.headerSlot, this.defaultHeader);
    put(this.editorSlot, this.editor);
    put(this.footerSlot, this.footer);
    this.updateHeader();
    for (const component of [this.headerSlot, this.conversation.root, this.pendingText, this.workingSlot, this.widgetsAbove, this.editorSlot, this.widgetsBelow, this.footerSlot]) {
      this.tui.addChild(component);
    }
    this.tui.setFocus(this.editor);
    this.tui.addInputListener((data) => {
      for (const listener of this.inputListeners) {
        const result = listener(data) as { consume?: boolean; data?: string } | undefined;
        if (result?.consume) return { consume: true };
        if (typeof result?.data === "string") data = result.data;
      }
      return this.pasteImage(data) ? { consume: true } : { data };
    });
  }

  // --- start and stop ------------------------------------------------------------

  start(): void {
    this.tui.start();
    // The palette follows the terminal's background once it answers (never delays the first frame).
    void this.tui
      .queryTerminalBackgroundColor({ timeoutMs: 300 })
      .then((rgb) => {
        if (rgb) this.setThemeName(themeForBackground(rgb));
      })
      .catch(() => undefined);
  }

  attach(session: AgentSession, extensions: ExtensionSystem | undefined): void {
    this.session = session;
    this.extensions = extensions;
    this.footer.setSession(session);
    session.subscribe((event) => {
      this.conversation.handle(event);
      switch (event.type) {
        case "agent_start":
          this.showWorking(true);
          break;
        case "agent_end":
          this.showWorking(false);
          this.footer.refresh();
          break;
        case "message_end":
        case "compaction_end":
          this.footer.refresh();
          break;
        case "queue_update":
          this.showPending(event.steering, event.followUp);
          break;
        case "auto_retry_start":
          this.setWorkingMessage(`Retrying (attempt ${event.attempt})…`);
          break;
      }
    });
    this.redraw();
    this.markReady();
  }

  exit(code = 0): void {
    if (this.exiting) return;
    this.exiting = true;
    this.exitResolve(code);
  }

  stop(): void {
    this.loader?.stop();
    this.tui.stop();
  }

  // --- drawing ---------------------------------------------------------------------

  private updateHeader(): void {
    const theme = this.theme;
    const session = this.session as AgentSession | undefined;
    const parts = [theme.bold(theme.fg("accent", `xcsh ${this.version}`))];
    if (session) {
      parts.push(theme.fg("muted", `${session.model.provider}/${session.model.id}`));
    } else parts.push(theme.fg("dim", "starting…"));
    parts.push(theme.fg("dim", shortenHome(this.cwd)));
    if (session?.sessionName) parts.push(theme.fg("muted", session.sessionName));
    const hint = theme.fg("dim", "/ commands · @ files · ! shell · esc abort · ctrl+c twice to exit · /hotkeys");
    this.defaultHeader.setText(`${parts.join(theme.fg("dim", " · "))}\n${hint}`);
    this.tui.requestRender();
  }

  redraw(): void {
    this.conversation.rebuild(this.session.messages);
    this.updateHeader();
    this.footer.refresh();
    this.showPending([], []);
    this.tui.requestRender();
  }

  say(label: string, detail = "", color = "muted"): void {
    this.conversation.notice(label, detail, color);
  }

  private showPending(steering: readonly string[], followUp: readonly string[]): void {
    const theme = this.theme;
    const lines = [
      ...steering.map((text) => theme.fg("warning", "⇢ steer: ") + theme.fg("muted", text.replace(/\s+/g, " "))),
      ...followUp.map((text) => theme.fg("accent", "⇢ follow-up: ") + theme.fg("muted", text.replace(/\s+/g, " "))),
    ];
    this.pendingText.setText(lines.length ? `\n${lines.join("\n")}` : "");
    this.footer.invalidate();
    this.tui.requestRender();
  }

  private showWorking(on: boolean): void {
    const { Loader } = loadPiTui();
    this.loader?.stop();
    this.loader = undefined;
    if (on && this.workingVisible) {
      this.loader = new Loader(
        this.tui,
        (text) => this.theme.fg("accent", text),
        (text) => this.theme.fg("muted", text),
        this.workingMessage ?? "Working… (esc to abort)",
        this.workingIndicator ? { frames: this.workingIndicator.frames, intervalMs: this.workingIndicator.intervalMs } : undefined,
      );
      put(this.workingSlot, this.loader);
    } else put(this.workingSlot, undefined);
    this.tui.requestRender();
  }

  private setWorkingMessage(message: string | undefined): void {
    this.workingMessage = message;
    this.loader?.setMessage(message ?? "Working… (esc to abort)");
  }

  private setToolsExpanded(expanded: boolean): void {
    this.toolsExpanded = expanded;
    this.conversation.root.invalidate();
    this.tui.requestRender();
  }

  private toggleThinking(): void {
    this.thinkingShown = !this.thinkingShown;
    this.conversation.root.invalidate();
    this.tui.requestRender();
  }

  private cycleThinking(): void {
    if (!this.session) return;
    const level = this.session.models.cycleThinkingLevel();
    if (level === undefined) this.say(`${this.session.model.provider}/${this.session.model.id} has no thinking levels`);
    this.footer.refresh();
    this.tui.requestRender();
  }

  setThemeName(name: ThemeName): void {
    if (name === this.theme.name) return;
    this.theme = createTheme(name, this.theme.colored);
    this.editor.borderColor = this.theme.editor().borderColor;
    this.updateHeader();
    this.tui.invalidate();
    this.tui.requestRender(true);
  }

  private renderWidgets(): void {
    const { Container, Spacer } = loadPiTui();
    const above = new Container();
    const below = new Container();
    // A blank line keeps widgets apart from the answer above them.
    if ([...this.widgets.values()].some((widget) => widget.placement !== "belowEditor")) above.addChild(new Spacer(1));
    for (const { component, placement } of this.widgets.values()) (placement === "belowEditor" ? below : above).addChild(component);
    put(this.widgetsAbove, above);
    put(this.widgetsBelow, below);
    this.tui.requestRender();
  }

  // --- input -----------------------------------------------------------------------

  private onEscape(): void {
    if (!this.session) return;
    if (this.session.isStreaming || this.session.isCompacting) {
      this.setWorkingMessage("Aborting…");
      void this.session.abort();
    } else if (this.session.isBashRunning) this.session.abortBash();
  }

  private onCtrlC(): void {
    const now = Date.now();
    if (this.editor.getText().length > 0) {
      this.editor.setText("");
      this.attachments.length = 0;
      this.lastCtrlC = now;
      return;
    }
    if (now - this.lastCtrlC < DOUBLE_PRESS_MS) return this.exit(0);
    this.lastCtrlC = now;
    this.say("Press Ctrl+C again to exit", "", "dim");
  }

  /** A pasted path to an image file is attached to the next prompt. */
  private pasteImage(data: string): boolean {
    const match = /^\x1b\[200~([\s\S]*)\x1b\[201~$/.exec(data);
    if (!match) return false;
    const path = match[1]!.trim().replace(/^'(.*)'$/, "$1").replace(/\\ /g, " ");
    const mimeType = IMAGE_TYPES[extname(path).toLowerCase()];
    if (!mimeType || path.includes("\n")) return false;
    const file = resolve(this.cwd, path);
    if (!existsSync(file)) return false;
    try {
      this.attachments.push({ type: "image", data: readFileSync(file).toString("base64"), mimeType });
    } catch {
      return false;
    }
    this.editor.insertTextAtCursor(`[image #${this.attachments.length}] `);
    return true;
  }

  private slashCommands(): SlashCommand[] {
    const builtins: SlashCommand[] = BUILTIN_COMMANDS.map((command) => ({ name: command.name, description: command.description, argumentHint: command.argumentHint }));
    if (!this.session) return builtins;
    const extensionCommands = this.extensions?.commandEntries() ?? [];
    const others = this.session.resources?.commands(extensionCommands) ?? extensionCommands;
    const taken = new Set(builtins.map((command) => command.name));
    return [...builtins, ...others.filter((command) => !taken.has(command.name)).map((command) => ({ name: command.name, description: command.description }))];
  }

  private async submit(raw: string, behavior: "steer" | "followUp" = "steer"): Promise<void> {
    const text = raw.trim();
    if (!text && this.attachments.length === 0) return;
    this.editor.addToHistory(text);
    appendHistory(this.cwd, text);
    this.editor.setText("");
    const images = this.attachments.splice(0);
    await this.sessionReady;
    try {
      if (text.startsWith("/") && (await this.runCommandLine(text))) return;
      if (text.startsWith("!")) return await this.runBash(text);
      const session = this.session;
      if (session.isStreaming) {
        await session.prompt(text, { images, streamingBehavior: behavior, source: "interactive" });
      } else {
        await session.prompt(text, { images, source: "interactive" });
      }
    } catch (error) {
      this.say("✗ " + ((error as Error).message || String(error)), "", "error");
    } finally {
      this.footer.refresh();
    }
  }

  /** Runs a built-in command; false when the line is not one (it goes to the session). */
  private async runCommandLine(text: string): Promise<boolean> {
    const matched = matchBuiltin(text);
    if (!matched) return false;
    await this.sessionReady;
    try {
      await matched.command.run(this, matched.args);
    } catch (error) {
      this.say(`✗ /${matched.command.name} failed`, (error as Error).message, "error");
    }
    this.updateHeader();
    this.tui.requestRender();
    return true;
  }

  private async runBash(text: string): Promise<void> {
    const excluded = text.startsWith("!!");
    const command = text.slice(excluded ? 2 : 1).trim();
    if (!command) return;
    this.showWorking(true);
    try {
      const result = await this.session.executeBash(command, { excludeFromContext: excluded });
      const message = { role: "bashExecution" as const, command, output: result.output, exitCode: result.exitCode, cancelled: result.cancelled, truncated: result.truncated, timestamp: Date.now(), excludeFromContext: excluded };
      this.conversation.handle({ type: "message_start", message });
    } finally {
      if (!this.session.isStreaming) this.showWorking(false);
    }
  }

  // --- extensions --------------------------------------------------------------------

  private runShortcut(data: string): boolean {
    const runner = this.extensions?.currentRunner;
    if (!runner) return false;
    const { matchesKey } = loadPiTui();
    for (const extension of runner.extensions) {
      for (const [key, options] of extension.shortcuts) {
        if (!matchesKey(data, key as Parameters<typeof matchesKey>[1])) continue;
        const context = runner.boundContext;
        Promise.resolve()
          .then(() => options.handler(context as never))
          .catch((error) => runner.report(extension.path, `shortcut:${key}`, error));
        return true;
      }
    }
    return false;
  }

  private toolRenderers(name: string) {
    for (const extension of this.extensions?.currentRunner.extensions ?? []) {
      const tool = extension.tools.get(name);
      if (tool && (tool.renderCall || tool.renderResult)) return { renderCall: tool.renderCall, renderResult: tool.renderResult };
    }
    return undefined;
  }

  private messageRenderer(customType: string) {
    for (const extension of this.extensions?.currentRunner.extensions ?? []) {
      const renderer = extension.messageRenderers.get(customType);
      if (renderer) return renderer;
    }
    return undefined;
  }

  private createSurface(): Surface {
    const app = this;
    return {
      get tui() {
        return app.tui;
      },
      theme: () => app.theme,
      setThemeName: (name) => app.setThemeName(name),
      notify: (message: string, type: NotifyType) => app.say(type === "info" ? message : `${type === "error" ? "✗" : "!"} ${message}`, "", type === "info" ? "accent" : type),
      setStatus: (key, text) => {
        app.footer.setStatus(key, text);
        app.tui.requestRender();
      },
      setWidget: (key, component, placement) => {
        if (component) app.widgets.set(key, { component, placement });
        else app.widgets.delete(key);
        app.renderWidgets();
      },
      setHeader: (component) => {
        put(app.headerSlot, component ?? app.defaultHeader);
        app.tui.requestRender();
      },
      setFooter: (component) => {
        put(app.footerSlot, component ?? app.footer);
        app.tui.requestRender();
      },
      setTitle: (title) => app.tui.terminal.setTitle(title),
      editorText: () => app.editor.getText(),
      setEditorText: (text) => {
        app.editor.setText(text);
        app.tui.requestRender();
      },
      insertIntoEditor: (text) => {
        app.editor.insertTextAtCursor(text);
        app.tui.requestRender();
      },
      setWorkingMessage: (message) => app.setWorkingMessage(message),
      setWorkingVisible: (visible) => {
        app.workingVisible = visible;
        if (!visible) put(app.workingSlot, undefined);
        else if (app.loader) put(app.workingSlot, app.loader);
        app.tui.requestRender();
      },
      setWorkingIndicator: (indicator) => {
        app.workingIndicator = indicator;
      },
      setHiddenThinkingLabel: (label) => {
        app.hiddenThinkingLabel = label ?? "Thinking…";
        app.conversation.root.invalidate();
        app.tui.requestRender();
      },
      toolsExpanded: () => app.toolsExpanded,
      setToolsExpanded: (expanded) => app.setToolsExpanded(expanded),
      replaceEditor: (component) => {
        put(app.editorSlot, component);
        app.tui.setFocus(component);
        app.tui.requestRender();
        return () => {
          put(app.editorSlot, app.editor);
          app.tui.setFocus(app.editor);
          app.tui.requestRender();
        };
      },
      addInputListener: (handler) => {
        app.inputListeners.add(handler);
        return () => app.inputListeners.delete(handler);
      },
      addAutocompleteProvider: () => {
        // Extension completion providers are not chained in yet; the built-in one stays.
      },
    };
  }
}

export async function runInteractiveMode(args: CliArgs, hostApi: () => Promise<Record<string, unknown>>): Promise<number> {
  const app = new InteractiveApp();
  const ui = new TuiExtensionUI(app.surface);
  const guard = guardTerminal(() => app.stop(), { crashesAreFatal: true });
  const restoreConsole = captureConsole((text, level) => app.say(text, "", level === "error" ? "error" : level === "warn" ? "warning" : "muted"));
  app.start();
  let extensions: ExtensionSystem | undefined;
  try {
    const created = await createSessionFromArgs(args, {
      requireApiKey: false,
      quietLoadWarnings: true,
      extensions: {
        mode: "tui",
        ui,
        hostApi,
        reportError: (report) => app.say(`✗ Extension ${shortenHome(report.extensionPath)} failed (${report.event})`, report.error, "error"),
        notice: (line) => app.say(line, "", "warning"),
        onShutdownRequested: () => app.exit(0),
      },
    });
    extensions = created.extensions;
    app.attach(created.session, extensions);
    for (const warning of created.session.sessionManager.getLoadWarnings()) app.say(`! ${warning}`, "", "warning");
    const first = created.args.messages.join(" ").trim();
    if (first) app.editor.onSubmit?.(first);
  } catch (error) {
    restoreConsole();
    guard.restore();
    guard.dispose();
    throw error;
  }
  const code = await app.exited;
  try {
    if (app.session.isStreaming) await app.session.abort();
    await extensions?.shutdown();
    // Key-release events still in flight must not reach the shell.
    await app.tui.terminal.drainInput(300, 50).catch(() => undefined);
  } finally {
    restoreConsole();
    guard.restore();
    guard.dispose();
  }
  process.exit(code);
}
