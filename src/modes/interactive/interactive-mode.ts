/**
 * `xcsh` on a terminal: the interactive session on pi-tui. The shell ties the
 * pieces together: the layout (layout.ts), the conversation, the editor place
 * (editor-host.ts), header and footer, the built-in commands, the extension UI
 * (surface.ts) and the session's opening, closing and replacement (session-lifecycle.ts).
 * The first frame (header and a live editor) is drawn before the session, the
 * model registry or any extension is loaded; prompts typed meanwhile wait for
 * the session. Keys: Enter sends (steers while the agent works), Alt+Enter
 * queues a follow-up (sends at once when idle), Esc aborts and hands queued
 * messages back to the editor (twice on an empty idle editor: /tree), Ctrl+C
 * clears and twice exits, Ctrl+D on an empty editor exits; the others are in
 * app-keys.ts, and keybindings.json can move any of them (keymap.ts). Every
 * way out restores the terminal (terminal-restore.ts). The screen is fullscreen
 * (fullscreen/: the alternate screen, the editor fixed at the bottom; the default)
 * or inline, by --tui-mode or tuiMode; the components are the same in both.
 * Both report the program status (OSC 7501, program-status.ts).
 */
import { printResumeHint } from "./resume-hint.ts";
import type { Component, KeybindingsManager, TUI } from "@earendil-works/pi-tui";
import type { RunOptions } from "../../core/run-options.ts";
import { VERSION } from "../../cli/version.ts";
import type { ImageContent } from "../../ai/types.ts";
import type { AgentSession } from "../../core/agent-session.ts";
import type { ExtensionSystem } from "../../core/extension-system.ts";
import { loadPiTui, useHelperTheme } from "../../extensions/tui-helpers.ts";
import { initialPrompts, readFileArguments } from "../initial-prompts.ts";
import { appActions } from "./app-keys.ts";
import { Attachments } from "./attachments.ts";
import { BUILTIN_COMMANDS, matchBuiltin, unknownCommand } from "./commands/index.ts";
import { commandNames } from "./commands/help-command.ts";
import { ProjectCompletion } from "./completion.ts";
import { ConversationView } from "./conversation.ts";
import { EditorHost, type EditorLike } from "./editor-host.ts";
import { entryRenderer, messageRenderer, runShortcut, toolRenderers, transformMarkdown } from "./extension-lookup.ts";
import { TuiExtensionUI, type Surface } from "./extension-ui.ts";
import { Footer } from "./footer.ts";
import { SessionHeader } from "./header.ts";
import { loadKeymap } from "./keymap.ts";
import { Layout } from "./layout.ts";
import { clampScreen } from "./safe-render.ts";
import { createFullscreenTui, LEAVE_FULLSCREEN, mountFullscreen, showLatest } from "./fullscreen/screen.ts";
import { adoptProgramStatusSwitch, ProgramStatusReporter } from "./program-status.ts";
import { chooseTuiMode, type TuiChoice } from "./fullscreen/tui-mode.ts";
import { appendHistory, applyEditorSettings } from "./prompt-editor.ts";
import { readTerminalSettings } from "./terminal-settings.ts";
import { slashCommandList } from "./slash-command-list.ts";
import { captureConsole, guardTerminal } from "./terminal-restore.ts";
import type { UiTheme } from "./theme.ts";
import { ThemeController } from "./theme-controller.ts";
import { isShellLine, runBashLine } from "./bash-line.ts";
import { InterruptKeys } from "./interrupt-keys.ts";
import { createSurface, type SurfaceHost } from "./surface.ts";
import { closeSession, openFirstSession, resumeRecordedElsewhere, sessionOpener, showLoadWarnings, type OpenSession, type SessionOwner } from "./session-lifecycle.ts";

class InteractiveApp implements SessionOwner, SurfaceHost {
  session!: AgentSession;
  extensions: ExtensionSystem | undefined;
  readonly tui: TUI;
  private readonly tuiChoice: TuiChoice;
  readonly programStatus: ProgramStatusReporter;
  readonly conversation: ConversationView;
  readonly footer: Footer;
  readonly layout: Layout;
  readonly editors: EditorHost;
  readonly surface: Surface;
  /** Where xcsh was started: the folder until the session says its own (a resumed session's recorded one). */
  private readonly launchCwd = process.cwd();
  readonly version = VERSION;
  keymap: KeybindingsManager;
  modelScope: string[] | undefined;
  private keymapWarnings: string[];

  readonly themes: ThemeController;
  private readonly theme: UiTheme;
  private thinkingShown = false;
  /** --verbose: the header despite quietStartup (pi), and raw provider error bodies. */
  private readonly verbose: boolean;
  toolsExpanded = false;
  hiddenThinkingLabel = "Thinking…";
  private readonly header: SessionHeader;
  readonly defaultHeader: Component;
  /** Opens a session of another folder (/resume); set once the first session is being opened. */
  openSession: OpenSession | undefined;
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
  readonly inputListeners = new Set<(data: string) => unknown>();

  constructor(args: RunOptions) {
    this.verbose = args.verbose === true;
    const { ProcessTerminal, TuiMainScreen, getCapabilities, setCapabilityOverrides } = loadPiTui();
    const terminalSettings = readTerminalSettings(this.launchCwd);
    setCapabilityOverrides(terminalSettings.capabilities);
    this.themes = ThemeController.forTerminal(args, this.launchCwd, getCapabilities().trueColor, () => this.themeChanged());
    this.theme = this.themes.theme;
    useHelperTheme(this.theme);
    ({ manager: this.keymap, warnings: this.keymapWarnings } = loadKeymap());
    this.tuiChoice = chooseTuiMode(args.tuiMode, this.launchCwd);
    adoptProgramStatusSwitch();
    this.tui =
      this.tuiChoice.mode === "fullscreen"
        ? createFullscreenTui(new ProcessTerminal(), this.tuiChoice.fullscreen, () => this.theme)
        : new TuiMainScreen(new ProcessTerminal());
    clampScreen(this.tui);
    this.tui.setShowHardwareCursor(terminalSettings.hardwareCursor);
    this.tui.setClearOnShrink(terminalSettings.clearOnShrink);
    this.programStatus = new ProgramStatusReporter(this.tui, terminalSettings.tabProgress);
    this.sessionReady = new Promise((resolve) => (this.markReady = resolve));
    this.exited = new Promise((resolve) => (this.exitResolve = resolve));
    this.conversation = new ConversationView({
      tui: this.tui,
      cwd: () => this.cwd,
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
    this.header = new SessionHeader({ tui: this.tui, theme: () => this.theme, version: this.version, cwd: () => this.cwd, session: () => this.session as AgentSession | undefined });
    this.defaultHeader = this.header.component;
    this.footer = new Footer(undefined, this.cwd, () => this.theme);
    this.editors = new EditorHost({
      tui: this.tui,
      layout: this.layout,
      theme: () => this.theme,
      // Prompt history is the launch folder's for the whole run, even after /resume moves elsewhere.
      cwd: this.launchCwd,
      submit: (text) => void this.submit(text),
      completion: new ProjectCompletion(() => this.cwd, () => this.slashCommands(), () => this.session?.mcp?.resources() ?? []),
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
    const app = this;
    this.attachments = new Attachments({
      get cwd() {
        return app.cwd;
      },
      session: () => this.session as AgentSession | undefined,
      editor: () => this.editor,
      insert: (text) => this.editors.insert(text),
      say: (label, detail, color) => this.say(label, detail, color),
      requestRender: () => this.tui.requestRender(),
    });
    this.surface = createSurface(this);
    this.layout.put(this.layout.header, this.defaultHeader);
    this.layout.put(this.layout.footer, this.footer);
    this.header.update();
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

  /** The folder the session works in (tools, @files, the footer). */
  get cwd(): string {
    return (this.session as AgentSession | undefined)?.cwd ?? this.launchCwd;
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
    this.header.quiet = session.settings.quietStartup === true && !this.verbose;
    applyEditorSettings(this.editors.prompt, session.settings);
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
        case "auto_retry_start": {
          // The failed run has ended (agent_end hid the spinner), but the session is still at
          // work: the spinner stays through the wait, counting it down, until the attempt starts.
          const attempt = `(attempt ${event.attempt} of ${event.maxAttempts})`;
          this.layout.showCountdown(event.delayMs, (msLeft) =>
            msLeft >= 1000 ? `Retrying in ${Math.ceil(msLeft / 1000)} s ${attempt}… (esc to cancel)` : `Retrying ${attempt}… (esc to cancel)`,
          );
          break;
        }
        case "auto_retry_end":
          // Sent between runs only: cancelled in its wait, the retry leaves nothing running (after an attempt, agent_end already hid it).
          this.layout.showWorking(false);
          break;
      }
    });
    this.redraw(true);
    this.showThemeWarnings();
    this.markReady();
  }

  resumeElsewhere(path: string, recordedCwd: string): Promise<void> {
    return resumeRecordedElsewhere(this, this.openSession!, path, recordedCwd);
  }

  exit(code = 0): void {
    if (this.exiting) return;
    this.exiting = true;
    this.exitResolve(code);
  }

  stop(): void {
    this.layout.stop();
    this.programStatus.stop();
    // Fullscreen: the transcript is printed on the main screen as it leaves, unless only the resume hint is wanted.
    this.tui.stop(this.tuiChoice.mode === "fullscreen" && this.tuiChoice.fullscreen.exitOutput === "resume-hint" ? { preserveScreen: true } : undefined);
  }

  // --- drawing ---------------------------------------------------------------------

  refreshHeader(): void {
    this.header.update();
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

  sessionOpening(): void {
    this.conversation.forgetRecentNotices();
  }

  /** `opening`: a session was just attached, and what was said while it opened stays under its history. */
  redraw(opening = false): void {
    this.conversation.rebuild(this.session.sessionManager.buildDisplayItems(), { keepNotices: opening });
    this.header.update();
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

  setToolsExpanded(expanded: boolean): void {
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
    this.header.update();
    this.tui.invalidate();
    this.tui.requestRender();
  }

  // --- input -----------------------------------------------------------------------

  private slashCommands() {
    return slashCommandList(this.session, this.extensions);
  }

  /** `images`: besides the attached ones (the command line's @files). */
  async submit(raw: string, behavior: "steer" | "followUp" = "steer", images: ImageContent[] = []): Promise<void> {
    const text = raw.trim();
    if (!text && this.attachments.count === 0 && images.length === 0) return;
    this.editors.addToHistory(text);
    appendHistory(this.launchCwd, text);
    this.editor.setText("");
    showLatest(this.tui);
    this.tui.requestRender();
    images = [...this.attachments.take(), ...images];
    await this.sessionReady;
    try {
      if (text.startsWith("/") && ((await this.runCommand(text)) || (await this.refuseUnknownCommand(text)))) return;
      if (isShellLine(text)) return await runBashLine(text, this.session, this);
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
    this.header.update();
    this.tui.requestRender();
    return true;
  }

  currentTheme(): UiTheme {
    return this.theme;
  }
}

export async function runInteractiveMode(args: RunOptions, hostApi: () => Promise<Record<string, unknown>>): Promise<number> {
  const app = new InteractiveApp(args);
  const ui = new TuiExtensionUI(app.surface);
  const guard = guardTerminal(() => app.stop(), { crashesAreFatal: true, undoOnFailure: app.tui.mode === "fullscreen" ? LEAVE_FULLSCREEN : undefined });
  const restoreConsole = captureConsole((text, level) => app.say(text, "", level === "error" ? "error" : level === "warn" ? "warning" : "muted"));
  app.start();
  app.openSession = sessionOpener(args, app, ui, hostApi);
  try {
    const opened = await openFirstSession(app, app.openSession, args);
    // Cancelled (the session's folder is gone): nothing was opened, nothing to resume.
    if (!opened) {
      await app.tui.terminal.drainInput(300, 50).catch(() => undefined);
      restoreConsole();
      guard.restore();
      guard.dispose();
      process.exit(0);
    }
    const { created } = opened;
    app.attach(created.session, created.extensions);
    showLoadWarnings(app, created);
    if (opened.said) app.say(opened.said, "", "accent");
    app.showKeymapWarnings();
    if (created.setup.noKeyHint) app.say(`! ${created.setup.noKeyHint}`, "", "warning");
    // The command line's prompts, one after another (the @files' text and images with the first).
    const prompts = initialPrompts(created.args.messages, readFileArguments(created.args.fileArgs, created.session.cwd, created.session.settings as unknown as Record<string, unknown>));
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
    // The session shown now: /resume may have replaced the first one.
    await closeSession(app.session, app.extensions);
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
