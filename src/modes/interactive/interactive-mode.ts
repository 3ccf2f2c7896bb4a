/**
 * `xcsh` on a terminal: the interactive session on pi-tui. The shell ties the
 * pieces together: the layout (layout.ts), the conversation, the editor place
 * (editor-host.ts), the footer, the built-in commands and the extension UI.
 * The first frame (header and a live editor) is drawn before the session, the
 * model registry or any extension is loaded; prompts typed meanwhile wait for
 * the session. Keys: Enter sends (steers while the agent works), Alt+Enter
 * queues a follow-up (sends at once when idle), Esc aborts and hands queued
 * messages back to the editor (twice on an empty idle editor: /tree), Ctrl+C
 * clears and twice exits, Ctrl+D on an empty editor exits; the others are in
 * app-keys.ts, and keybindings.json can move any of them (keymap.ts). Every
 * way out restores the terminal (terminal-restore.ts). The screen is inline or
 * fullscreen (fullscreen/: the alternate screen, the editor fixed at the
 * bottom), by --tui-mode or tuiMode; the components are the same in both.
 * Both report the program status (OSC 7501, program-status.ts).
 */
import { printResumeHint } from "./resume-hint.ts";
import type { KeybindingsManager, Text, TUI } from "@earendil-works/pi-tui";
import type { RunOptions } from "../../core/run-options.ts";
import { VERSION } from "../../cli/version.ts";
import type { ImageContent } from "../../ai/types.ts";
import type { AgentSession } from "../../core/agent-session.ts";
import type { ExtensionSystem } from "../../core/extension-system.ts";
import { loadPiTui, useHelperTheme } from "../../extensions/tui-helpers.ts";
import type { NotifyType } from "../../extensions/ui-types.ts";
import { createSessionFromArgs } from "../session-from-args.ts";
import { initialPrompts, readFileArguments } from "../initial-prompts.ts";
import type { App } from "./app.ts";
import { appActions } from "./app-keys.ts";
import { Attachments } from "./attachments.ts";
import { BUILTIN_COMMANDS, matchBuiltin, unknownCommand } from "./commands/index.ts";
import { commandNames } from "./commands/help-command.ts";
import { ProjectCompletion } from "./completion.ts";
import { ConversationView } from "./conversation.ts";
import { EditorHost, type EditorLike } from "./editor-host.ts";
import { entryRenderer, extensionSlashCommands, messageRenderer, runShortcut, toolRenderers, transformMarkdown } from "./extension-lookup.ts";
import { TuiExtensionUI, type Surface } from "./extension-ui.ts";
import { Footer, shortenHome } from "./footer.ts";
import { loadKeymap } from "./keymap.ts";
import { Layout } from "./layout.ts";
import { clampScreen } from "./safe-render.ts";
import { createFullscreenTui, LEAVE_FULLSCREEN, mountFullscreen, showLatest } from "./fullscreen/screen.ts";
import { adoptProgramStatusSwitch, ProgramStatusReporter } from "./program-status.ts";
import { chooseTuiMode, type TuiChoice } from "./fullscreen/tui-mode.ts";
import { appendHistory } from "./prompt-editor.ts";
import { captureConsole, guardTerminal } from "./terminal-restore.ts";
import type { UiTheme } from "./theme.ts";
import { ThemeController } from "./theme-controller.ts";
import { runBashLine } from "./bash-line.ts";
import { InterruptKeys } from "./interrupt-keys.ts";

class InteractiveApp implements App {
  session!: AgentSession;
  extensions: ExtensionSystem | undefined;
  readonly tui: TUI;
  private readonly tuiChoice: TuiChoice;
  private readonly programStatus: ProgramStatusReporter;
  readonly conversation: ConversationView;
  readonly footer: Footer;
  readonly layout: Layout;
  readonly editors: EditorHost;
  readonly surface: Surface;
  readonly cwd = process.cwd();
  readonly version = VERSION;
  keymap: KeybindingsManager;
  modelScope: string[] | undefined;
  private keymapWarnings: string[];

  readonly themes: ThemeController;
  private readonly theme: UiTheme;
  private thinkingShown = false;
  /** settings' quietStartup: no header of ours once the session is there (pi's quiet start). */
  private quietHeader = false;
  /** --verbose: the header despite quietStartup (pi), and raw provider error bodies. */
  private readonly verbose: boolean;
  private toolsExpanded = false;
  private hiddenThinkingLabel = "Thinking…";
  private readonly defaultHeader: Text;
  private readonly interrupts = new InterruptKeys({
    session: () => this.session as AgentSession | undefined,
    draft: () => this.editor.getText(),
    clearDraft: () => {
      this.editor.setText("");
      this.attachments.clear();
      this.tui.requestRender();
    },
    restoreQueued: () => this.attachments.restoreQueued(),
    showAborting: () => this.layout.setRunMessage("Aborting…"),
    hint: (text, ms) => this.conversation.transient(text, ms),
    runCommandLine: (text) => void this.runCommand(text),
    exit: (code) => this.exit(code),
  });
  private readonly attachments: Attachments;
  private readonly sessionReady: Promise<void>;
  private markReady!: () => void;
  private exitResolve!: (code: number) => void;
  readonly exited: Promise<number>;
  private exiting = false;
  private readonly inputListeners = new Set<(data: string) => unknown>();

  constructor(args: RunOptions) {
    this.verbose = args.verbose === true;
    const { ProcessTerminal, TuiMainScreen, Text, getCapabilities } = loadPiTui();
    this.themes = ThemeController.forTerminal(args, this.cwd, getCapabilities().trueColor, () => this.themeChanged());
    this.theme = this.themes.theme;
    useHelperTheme(this.theme);
    ({ manager: this.keymap, warnings: this.keymapWarnings } = loadKeymap());
    this.tuiChoice = chooseTuiMode(args.tuiMode, this.cwd);
    adoptProgramStatusSwitch();
    this.tui =
      this.tuiChoice.mode === "fullscreen"
        ? createFullscreenTui(new ProcessTerminal(), this.tuiChoice.fullscreen, () => this.theme)
        : new TuiMainScreen(new ProcessTerminal());
    clampScreen(this.tui);
    this.programStatus = new ProgramStatusReporter(this.tui);
    this.sessionReady = new Promise((resolve) => (this.markReady = resolve));
    this.exited = new Promise((resolve) => (this.exitResolve = resolve));
    this.conversation = new ConversationView({
      tui: this.tui,
      cwd: this.cwd,
      theme: () => this.theme,
      thinkingShown: () => this.thinkingShown,
      expanded: () => this.toolsExpanded,
      hiddenThinkingLabel: () => this.hiddenThinkingLabel,
      toolRenderers: (name) => toolRenderers(this.extensions, name),
      messageRenderer: (type) => messageRenderer(this.extensions, type),
      entryRenderer: (type) => entryRenderer(this.extensions, type),
      verbose: this.verbose,
      transformMarkdown: (markdown, context) => transformMarkdown(this.extensions, markdown, context),
    });
    const fullscreen = this.tuiChoice.mode === "fullscreen" ? this.tuiChoice.fullscreen : undefined;
    this.layout = new Layout(
      this.tui,
      () => this.theme,
      this.conversation.root,
      fullscreen && ((transcript, fixed) => mountFullscreen(this.tui, transcript, fixed, fullscreen, () => this.theme)),
    );
    this.defaultHeader = new Text("", 1, 0);
    this.footer = new Footer(undefined, this.cwd, () => this.theme);
    this.editors = new EditorHost({
      tui: this.tui,
      layout: this.layout,
      theme: () => this.theme,
      cwd: this.cwd,
      submit: (text) => void this.submit(text),
      completion: new ProjectCompletion(this.cwd, () => this.slashCommands(), () => this.session?.mcp?.resources() ?? []),
      report: (what, error) => this.say(`✗ Extension ${what} failed`, (error as Error)?.message ?? String(error), "error"),
      keys: {
        shortcut: (data) => runShortcut(this.extensions, data),
        keymap: () => this.keymap,
        actions: appActions(this, {
          interrupt: () => this.interrupts.escape(),
          clear: () => this.interrupts.ctrlC(),
          exit: () => this.exit(0),
          followUp: () => void this.submit(this.editors.submittedText(), "followUp"),
          toggleTools: () => this.setToolsExpanded(!this.toolsExpanded),
          toggleThinking: () => this.toggleThinking(),
          cycleThinking: () => this.cycleThinking(),
          pasteImage: () => void this.attachments.attachClipboard(),
          dequeue: () => this.attachments.restoreQueued(),
        }),
      },
    });
    this.attachments = new Attachments({
      cwd: this.cwd,
      session: () => this.session as AgentSession | undefined,
      editor: () => this.editor,
      insert: (text) => this.editors.insert(text),
      say: (label, detail, color) => this.say(label, detail, color),
      requestRender: () => this.tui.requestRender(),
    });
    this.surface = this.createSurface();
    this.layout.put(this.layout.header, this.defaultHeader);
    this.layout.put(this.layout.footer, this.footer);
    this.updateHeader();
    this.tui.addInputListener((data) => {
      for (const listener of this.inputListeners) {
        const result = listener(data) as { consume?: boolean; data?: string } | undefined;
        if (result?.consume) return { consume: true };
        if (typeof result?.data === "string") data = result.data;
      }
      return this.attachments.attachPasted(data) ? { consume: true } : { data };
    });
  }

  get editor(): EditorLike {
    return this.editors.active;
  }

  // --- start and stop ------------------------------------------------------------

  start(): void {
    this.tui.start();
    // The system theme and the light/dark choice follow the terminal's colours once it answers
    // (never delays the first frame; a late answer, as over a slow SSH link, still counts).
    const adopt = (colors: Parameters<ThemeController["setTerminalColors"]>[0]) => this.themes.setTerminalColors(colors);
    const ask = () => void this.tui.queryTerminalColors({ timeoutMs: 300, onLateReply: adopt }).then(adopt).catch(() => undefined);
    ask();
    // A terminal that switches between light and dark says so (mode 2031): its colours are asked again.
    this.tui.onTerminalColorSchemeChange((scheme) => {
      this.themes.setColorScheme(scheme);
      ask();
    });
    this.tui.setTerminalColorSchemeNotifications(true);
  }

  attach(session: AgentSession, extensions: ExtensionSystem | undefined): void {
    this.session = session;
    this.extensions = extensions;
    // pi's display settings: hideThinkingBlock false shows thinking in full (folded is xcsh's
    // default, and what true asks); quietStartup drops the header (the footer names the model).
    if (session.settings.hideThinkingBlock === false) this.thinkingShown = true;
    this.quietHeader = session.settings.quietStartup === true && !this.verbose;
    this.footer.setSession(session);
    this.programStatus.follow(session);
    this.themes.useSession(this.extensions?.isProjectTrusted());
    session.onCompactionProgress(({ part, parts }) => this.conversation.status(`✻ Summarizing part ${part} of ${parts}…`));
    session.subscribe((event) => {
      this.conversation.handle(event);
      switch (event.type) {
        case "agent_start":
          this.layout.showWorking(true);
          break;
        case "agent_end":
          this.layout.showWorking(false);
          this.footer.refresh();
          break;
        case "message_end":
          this.footer.refresh();
          break;
        case "compaction_end":
          // As pi does: the transcript becomes what the context now holds (the summary and the
          // kept messages), so months of history are not held in the view.
          if (event.result) this.redraw();
          else this.footer.refresh();
          break;
        case "queue_update":
          this.showPending(event.steering, event.followUp);
          break;
        case "auto_retry_start":
          this.layout.setRunMessage(`Retrying (attempt ${event.attempt})…`);
          break;
      }
    });
    this.redraw();
    this.showThemeWarnings();
    this.markReady();
  }

  exit(code = 0): void {
    if (this.exiting) return;
    this.exiting = true;
    this.exitResolve(code);
  }

  stop(): void {
    this.layout.stop();
    // Fullscreen: the transcript is printed on the main screen as it leaves, unless only the resume hint is wanted.
    this.tui.stop(this.tuiChoice.mode === "fullscreen" && this.tuiChoice.fullscreen.exitOutput === "resume-hint" ? { preserveScreen: true } : undefined);
  }

  // --- drawing ---------------------------------------------------------------------

  refreshHeader(): void {
    this.updateHeader();
    this.footer.refresh();
  }

  /** keybindings.json again (/reload): the new keys apply at once; its problems are shown. */
  reloadKeymap(): void {
    ({ manager: this.keymap, warnings: this.keymapWarnings } = loadKeymap());
    this.showKeymapWarnings();
  }

  showKeymapWarnings(): void {
    for (const warning of this.keymapWarnings) this.say(warning, "", "warning");
  }

  /** Theme files and the theme setting again (/reload): a changed file is drawn at once, its problems shown. */
  reloadThemes(): void {
    this.themes.reload(this.extensions?.isProjectTrusted());
    this.showThemeWarnings();
  }

  private showThemeWarnings(): void {
    if (!this.session) return; // said once the session is there
    for (const warning of this.themes.takeWarnings()) this.say(`! ${warning}`, "", "warning");
  }

  private updateHeader(): void {
    if (this.quietHeader) {
      this.defaultHeader.setText("");
      this.tui.requestRender();
      return;
    }
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
    this.conversation.rebuild(this.session.sessionManager.buildDisplayItems());
    this.updateHeader();
    this.footer.refresh();
    this.showPending([], []);
    this.tui.requestRender();
  }

  say(label: string, detail = "", color = "muted"): void {
    this.conversation.notice(label, detail, color);
  }

  private showPending(steering: readonly string[], followUp: readonly string[]): void {
    this.layout.showPending(steering, followUp);
    this.footer.invalidate();
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

  /** The theme draws with other colours now: everything drawn before is drawn again. */
  private themeChanged(): void {
    if (!this.editors) return; // the first choice, made while the screen is being built
    this.editors.themeChanged();
    this.updateHeader();
    this.tui.invalidate();
    this.tui.requestRender(true);
  }

  // --- input -----------------------------------------------------------------------

  private slashCommands() {
    const builtins = BUILTIN_COMMANDS.map((command) => ({ name: command.name, description: command.description, argumentHint: command.argumentHint }));
    if (!this.session) return builtins;
    const extensionCommands = this.extensions?.commandEntries() ?? [];
    const others = this.session.resources?.commands(extensionCommands) ?? extensionCommands;
    const taken = new Set(builtins.map((command) => command.name));
    return [...builtins, ...extensionSlashCommands(this.extensions, others.filter((command) => !taken.has(command.name)))];
  }

  /** `images`: besides the attached ones (the command line's @files). */
  async submit(raw: string, behavior: "steer" | "followUp" = "steer", images: ImageContent[] = []): Promise<void> {
    const text = raw.trim();
    if (!text && this.attachments.count === 0 && images.length === 0) return;
    this.editors.addToHistory(text);
    appendHistory(this.cwd, text);
    this.editor.setText("");
    showLatest(this.tui);
    this.tui.requestRender();
    images = [...this.attachments.take(), ...images];
    await this.sessionReady;
    try {
      if (text.startsWith("/") && ((await this.runCommand(text)) || (await this.refuseUnknownCommand(text)))) return;
      if (text.startsWith("!")) return await runBashLine(text, this.session, this);
      const session = this.session;
      const message = await this.attachments.withResources(text);
      if (session.isStreaming) {
        await session.prompt(message, { images, streamingBehavior: behavior, source: "interactive" });
      } else {
        await session.prompt(message, { images, source: "interactive" });
      }
    } catch (error) {
      this.say("✗ " + ((error as Error).message || String(error)), "", "error");
    } finally {
      this.footer.refresh();
    }
  }

  /**
   * An unknown `/word` is said and put back in the editor to fix, never sent to the
   * model as a message. With an extension listening to `input` it goes on: that
   * extension may take it, as in pi.
   */
  private async refuseUnknownCommand(text: string): Promise<boolean> {
    if (this.extensions?.currentRunner.hasHandlers("input")) return false;
    const word = unknownCommand(text, await commandNames(this, BUILTIN_COMMANDS));
    if (word === undefined) return false;
    this.say(`✗ Unknown command /${word} — /help lists them`, "", "error");
    if (this.editor.getText() === "") this.editor.setText(text);
    return true;
  }

  /** Runs a built-in command; false when the line is not one (it goes to the session). */
  async runCommand(text: string): Promise<boolean> {
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

  // --- what extensions may change ------------------------------------------------------

  private createSurface(): Surface {
    const app = this;
    const { layout, editors } = this;
    return {
      get tui() {
        return app.tui;
      },
      theme: () => app.theme,
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
    };
  }
}

export async function runInteractiveMode(args: RunOptions, hostApi: () => Promise<Record<string, unknown>>): Promise<number> {
  const app = new InteractiveApp(args);
  const ui = new TuiExtensionUI(app.surface);
  const guard = guardTerminal(() => app.stop(), { crashesAreFatal: true, undoOnFailure: app.tui.mode === "fullscreen" ? LEAVE_FULLSCREEN : undefined });
  const restoreConsole = captureConsole((text, level) => app.say(text, "", level === "error" ? "error" : level === "warn" ? "warning" : "muted"));
  app.start();
  let extensions: ExtensionSystem | undefined;
  try {
    const created = await createSessionFromArgs(args, {
      requireApiKey: false,
      openWithoutAnyKey: true,
      quietLoadWarnings: true,
      extensions: {
        mode: "tui",
        ui,
        hostApi,
        reportError: (report) => app.say(`✗ Extension ${shortenHome(report.extensionPath)} failed (${report.event})`, report.error, "error"),
        notice: (line) => app.say(line, "", "warning"),
        onShutdownRequested: () => app.exit(0),
        onCustomEntry: (entry) => app.conversation.addCustomEntry(entry),
      },
    });
    extensions = created.extensions;
    app.attach(created.session, extensions);
    for (const warning of created.session.sessionManager.getLoadWarnings()) app.say(`! ${warning}`, "", "warning");
    app.showKeymapWarnings();
    if (created.setup.noKeyHint) app.say(`! ${created.setup.noKeyHint}`, "", "warning");
    // The command line's prompts, one after another (the @files' text and images with the first).
    const prompts = initialPrompts(created.args.messages, readFileArguments(created.args.fileArgs, created.session.cwd));
    void (async () => {
      // -r: the /resume picker first; the prompts then go to the session picked.
      if (created.args.resume) await app.runCommand("/resume");
      for (const prompt of prompts) await app.submit(prompt.text, "steer", prompt.images);
    })();
  } catch (error) {
    // The terminal's answers to the start-up queries may still be on their way: read them
    // here, or the shell gets them as typed text (`1;2c` at the prompt).
    await app.tui.terminal.drainInput(300, 50).catch(() => undefined);
    restoreConsole();
    guard.restore();
    guard.dispose();
    throw error;
  }
  const code = await app.exited;
  try {
    if (app.session.isStreaming) await app.session.abort();
    await extensions?.shutdown();
    await app.session.mcp?.close();
    // Key-release events still in flight must not reach the shell.
    await app.tui.terminal.drainInput(300, 50).catch(() => undefined);
  } finally {
    restoreConsole();
    guard.restore();
    guard.dispose();
  }
  // A quit (not a failure): say how to come back to this session.
  if (code === 0) printResumeHint(app.session.sessionManager);
  process.exit(code);
}
