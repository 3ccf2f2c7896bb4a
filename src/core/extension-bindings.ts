/**
 * Binds one extension runtime to an AgentSession, both ways: as the session's
 * hooks it turns agent and session moments into extension events (and applies
 * what handlers return); as the extensions' host it carries out what they ask
 * of the session. One instance per runtime generation: a session replacement
 * or a reload builds a new one (see extension-system.ts).
 */
import type { AgentEvent, AgentMessage } from "../agent/types.ts";
import type { ImageContent, Model, ModelThinkingLevel, TextContent } from "../ai/types.ts";
import type { ExtensionHost } from "../extensions/host.ts";
import type { ExtensionRunner } from "../extensions/runner.ts";
import type {
  BuildSystemPromptOptions,
  CompactOptions,
  CustomMessageInput,
  ForkOptions,
  NavigateTreeOptions,
  NewSessionOptions,
  ReplacementOptions,
  SendMessageOptions,
  SendUserMessageOptions,
  SlashCommandInfo,
} from "../extensions/types.ts";
import type { ExtensionMode, ExtensionUIContext } from "../extensions/ui-types.ts";
import type { AgentSession } from "./agent-session.ts";
import { estimateContextTokens } from "./compaction/index.ts";
import { scopeModels } from "../config/model-resolver.ts";
import { editsOf, offeredOf, withPromptSections } from "./prompt-option-edits.ts";
import { navigateTree } from "./tree-navigation.ts";
import { installAgentHooks } from "./extension-agent-hooks.ts";
import { routedLimits } from "./routed-limits.ts";
import { SessionBoundaries } from "./session-boundary.ts";
import type { CompactionFailure, CompactionMoment, RoutedInput, SessionHooks } from "./session-hooks.ts";

/** What the bindings need from the extension system that owns them. */
export interface ExtensionSystemLink {
  readonly mode: ExtensionMode;
  readonly ui: ExtensionUIContext;
  isProjectTrusted(): boolean;
  requestShutdown(): void;
  /** A `custom` entry was appended (for the mode to draw). */
  customEntryAppended(entry: import("../session/types.ts").CustomEntry): void;
  reload(): Promise<void>;
  /** The replacement-session context for withSession, from the runtime now live. */
  replacedContext(): import("../extensions/types.ts").ReplacedSessionContext;
  /** Runs after the session file changed: start the next runtime generation. */
  restart(reason: "new" | "resume" | "fork", previousSessionFile: string | undefined): Promise<void>;
  /** Shuts this generation down before a replacement. */
  shutdownRuntime(reason: "new" | "resume" | "fork", targetSessionFile: string | undefined): Promise<void>;
}

type Deliverable = Extract<AgentMessage, { role: "custom" }>;

export function customMessage(input: CustomMessageInput): Deliverable {
  // Content reaches the provider as a user message: text, or text and image blocks — nothing else.
  const content = Array.isArray(input.content)
    ? input.content.filter((block) => block?.type === "text" || block?.type === "image")
    : typeof input.content === "string"
      ? input.content
      : input.content === undefined
        ? ""
        : JSON.stringify(input.content);
  return {
    role: "custom",
    customType: String(input.customType),
    content,
    display: input.display ?? true,
    details: input.details,
    timestamp: Date.now(),
  } as Deliverable;
}

function splitContent(content: string | (TextContent | ImageContent)[]): RoutedInput {
  if (typeof content === "string") return { text: content };
  const parts = Array.isArray(content) ? content : [];
  const text = parts.flatMap((part) => (part?.type === "text" ? [part.text] : [])).join("\n");
  const images = parts.filter((part): part is ImageContent => part?.type === "image");
  return images.length ? { text, images } : { text };
}

export class ExtensionBindings implements SessionHooks, ExtensionHost {
  readonly cwd: string;
  private turnIndex = 0;
  /** sendMessage(…, {deliverAs: "nextTurn"}): added to the next prompt's messages. */
  private nextTurnMessages: AgentMessage[] = [];
  /** The before_agent_start event being dispatched, whose systemPrompt each handler updates. */
  private chainingPrompt: { systemPrompt: string } | undefined;
  private readonly boundaries: SessionBoundaries;

  constructor(
    private readonly session: AgentSession,
    private readonly runner: ExtensionRunner,
    private readonly system: ExtensionSystemLink,
  ) {
    this.cwd = session.cwd;
    this.boundaries = new SessionBoundaries(session, runner, (entry) => system.customEntryAppended(entry));
  }

  // --- host: what extensions read ------------------------------------------------

  get mode(): ExtensionMode {
    return this.system.mode;
  }
  get ui(): ExtensionUIContext {
    return this.system.ui;
  }
  get hasUI(): boolean {
    return this.system.mode === "rpc" || this.system.mode === "tui";
  }
  get modelRegistry() {
    return this.session.registry;
  }
  sessionManager() {
    return this.session.sessionManager;
  }
  model(): Model | undefined {
    return this.session.model;
  }
  signal(): AbortSignal | undefined {
    return this.session.agent.signal;
  }
  isProjectTrusted(): boolean {
    return this.system.isProjectTrusted();
  }
  isIdle(): boolean {
    return !this.session.isStreaming;
  }
  abort(): void {
    void this.session.abort();
  }
  hasPendingMessages(): boolean {
    return this.session.pendingMessageCount > 0;
  }
  shutdown(): void {
    this.system.requestShutdown();
  }
  getContextUsage() {
    const model = this.session.model;
    if (!model) return undefined;
    const { tokens } = estimateContextTokens(this.session.messages);
    const contextWindow = routedLimits(model, this.session.messages, this.session.registry).contextWindow;
    return { tokens, contextWindow, percent: contextWindow > 0 ? (tokens / contextWindow) * 100 : 0 };
  }
  compact(options: CompactOptions = {}): void {
    this.session.compact(options.customInstructions).then(
      (result) => options.onComplete?.(result),
      (error) => options.onError?.(error instanceof Error ? error : new Error(String(error))),
    );
  }
  getSystemPrompt(): string {
    // Inside before_agent_start: the prompt as chained so far (seed 003).
    return this.chainingPrompt?.systemPrompt ?? this.session.agent.state.systemPrompt;
  }
  /** Active tools whose declarations the model does not get (codemode "only" stands in for them, or a prepareLoadout hid them). */
  private hiddenTools(): string[] {
    const hidden = new Set(this.session.tools.hiddenDeclarations());
    const declared = new Set(this.session.tools.declaredNames().filter((name) => !hidden.has(name)));
    return this.session.tools.activeNames().filter((name) => !declared.has(name));
  }
  getSystemPromptOptions(): BuildSystemPromptOptions {
    const base = this.session.tools.promptBase;
    const tools = this.session.tools.promptTools();
    return {
      ...(base.customPrompt ? { customPrompt: base.customPrompt } : {}),
      selectedTools: this.session.tools.activeNames(),
      hiddenTools: this.hiddenTools(),
      toolSnippets: Object.fromEntries(tools.filter((tool) => !tool.hidden).map((tool) => [tool.name, tool.promptSnippet ?? tool.description])),
      promptGuidelines: tools.flatMap((tool) => tool.promptGuidelines ?? []),
      // pi 1.x's view of the same rules by tool (read-only here: edit promptGuidelines to add rules).
      toolGuidelines: Object.fromEntries(tools.filter((tool) => tool.promptGuidelines?.length).map((tool) => [tool.name, [...tool.promptGuidelines!]])),
      ...(base.appendPrompt ? { appendSystemPrompt: base.appendPrompt } : {}),
      cwd: base.cwd,
      contextFiles: base.contextFiles.map((file) => ({ ...file })),
      // Custom XML-wrapped prompt sections by tag name (pi 1.x); a before_agent_start handler fills them for its run.
      sections: {},
      skills: (this.session.resources?.skills() ?? []).map((skill) => ({
        name: skill.name,
        description: skill.description,
        filePath: skill.filePath,
        baseDir: skill.baseDir,
        disableModelInvocation: skill.disableModelInvocation,
      })),
    };
  }

  // --- host: what extensions ask of the session -------------------------------------

  async sendMessage(input: CustomMessageInput, options: SendMessageOptions = {}): Promise<void> {
    if (typeof input?.customType !== "string") throw new Error("sendMessage needs a message with a customType");
    const message = customMessage(input);
    const deliverAs = options.deliverAs ?? "steer";
    if (deliverAs === "nextTurn") {
      this.nextTurnMessages.push(message);
      return;
    }
    if (this.session.isStreaming) {
      if (deliverAs === "followUp") this.session.agent.followUp(message);
      else this.session.agent.steer(message);
      return;
    }
    if (options.triggerTurn) {
      await this.session.runMessages([message]);
      return;
    }
    this.session.recordMessage(message);
    await this.session.emit({ type: "message_start", message });
    await this.session.emit({ type: "message_end", message });
  }

  async sendUserMessage(content: string | (TextContent | ImageContent)[], options: SendUserMessageOptions = {}): Promise<void> {
    const { text, images } = splitContent(content);
    if (this.session.isStreaming && !options.deliverAs) {
      throw new Error('sendUserMessage while the agent is working needs { deliverAs: "steer" } or { deliverAs: "followUp" }');
    }
    await this.session.prompt(text, { images, streamingBehavior: options.deliverAs, source: "extension" });
  }

  appendEntry(customType: string, data?: unknown): void {
    const manager = this.session.sessionManager;
    const entry = manager.getEntry(manager.appendCustomEntry(customType, data));
    if (entry?.type === "custom") this.system.customEntryAppended(entry);
    if (entry) void this.session.emit({ type: "entry_appended", entry }); // pi 0.87.1: hosts see it as it is appended
  }
  setSessionName(name: string): void {
    this.session.setSessionName(name);
  }
  getSessionName(): string | undefined {
    return this.session.sessionName;
  }
  setLabel(entryId: string, label: string | undefined): void {
    this.session.setLabel(entryId, label);
  }
  upsertTool(...[tool, { activate, ...info }]: Parameters<ExtensionHost["upsertTool"]>): void {
    this.session.tools.upsert(tool, info, activate ?? true);
  }
  /** Tool changes made by `changes` take effect together, at its end. */
  batchToolChanges(changes: () => void): void {
    this.session.tools.batch(changes);
  }
  getActiveTools(): string[] {
    return this.session.tools.activeNames();
  }
  /** What an extension tool may call with ctx.executeTool: what a codemode script may. */
  callableTools() {
    return this.session.tools.callableByScripts().map(({ tool }) => tool);
  }
  runNestedTool(...[call, parentToolCallId, signal, onUpdate]: Parameters<ExtensionHost["runNestedTool"]>) {
    return this.session.agent.runNestedToolCall(call, parentToolCallId, this.callableTools(), signal, onUpdate);
  }
  scopedModels(): { model: Model; thinkingLevel?: ModelThinkingLevel }[] {
    const patterns = this.session.settings.enabledModels ?? [];
    return patterns.length > 0 ? scopeModels(this.session.models.availableModels(), patterns).scoped : [];
  }
  getSettings(): Record<string, unknown> {
    // A copy: what an extension changes in it is its own (pi 1.x).
    return structuredClone(this.session.settings) as Record<string, unknown>;
  }
  getAllTools() {
    return this.session.tools.all();
  }
  setActiveTools(names: string[]): void {
    this.session.tools.setActive(Array.isArray(names) ? names.map(String) : []);
  }
  /** Extension commands, then prompt templates, then skills: what get_commands lists. */
  getCommands(): SlashCommandInfo[] {
    const extensionCommands = this.runner.commands().map(({ invocation, command, extension }) => ({
      name: invocation,
      ...(command.description ? { description: command.description } : {}),
      path: extension.path,
      sourceInfo: extension.sourceInfo,
    }));
    if (this.session.resources) return this.session.resources.commands(extensionCommands);
    return extensionCommands.map(({ path: _path, ...command }) => ({ ...command, source: "extension" as const }));
  }
  async setModel(model: Model): Promise<boolean> {
    const known = model && this.session.registry.find(model.provider, model.id);
    if (!known) return false;
    try {
      await this.session.models.setModel(known);
      return true;
    } catch {
      return false;
    }
  }
  getThinkingLevel(): ModelThinkingLevel {
    return this.session.thinkingLevel;
  }
  setThinkingLevel(level: ModelThinkingLevel): void {
    this.session.models.setThinkingLevel(level);
  }

  // --- host: command-only session control ------------------------------------------

  waitForIdle(): Promise<void> {
    return this.session.waitForIdle();
  }
  async newSession(options: NewSessionOptions = {}): Promise<{ cancelled: boolean }> {
    const outcome = await this.session.navigation.newSession({ parentSession: options.parentSession });
    if (outcome.cancelled) return outcome;
    if (options.setup) {
      await options.setup(this.session.sessionManager);
      this.session.agent.state.messages = this.session.sessionManager.buildSessionContext().messages;
    }
    await this.afterReplacement(options);
    return outcome;
  }
  async fork(entryId: string, options: ForkOptions = {}): Promise<{ cancelled: boolean }> {
    const outcome = options.position === "at" ? await this.session.navigation.clone(entryId) : await this.session.navigation.fork(entryId);
    if (!outcome.cancelled) await this.afterReplacement(options);
    return { cancelled: outcome.cancelled };
  }
  async switchSession(sessionPath: string, options: ReplacementOptions = {}): Promise<{ cancelled: boolean }> {
    const outcome = await this.session.navigation.switchSession(sessionPath);
    if (!outcome.cancelled) await this.afterReplacement(options);
    return outcome;
  }
  navigateTree(targetId: string, options: NavigateTreeOptions = {}): Promise<{ cancelled: boolean }> {
    return navigateTree(this.session, this.runner, targetId, options);
  }
  reload(): Promise<void> {
    return this.system.reload();
  }

  private async afterReplacement(options: ReplacementOptions): Promise<void> {
    if (options.withSession) await options.withSession(this.system.replacedContext());
  }

  // --- hooks: moments of the session that extensions see ----------------------------

  /** The agent's own hook points (extension-agent-hooks.ts); turn_end is dispatched there, before its frame. */
  installAgentHooks(): void {
    installAgentHooks(this.session, this.runner, this.boundaries, () => this.turnIndex);
  }

  async onAgentEvent(event: AgentEvent): Promise<void> {
    const runner = this.runner;
    switch (event.type) {
      case "agent_start":
        this.turnIndex = 0;
        if (runner.hasHandlers("agent_start")) await runner.emit("agent_start", { type: "agent_start" });
        return;
      case "turn_start":
        if (runner.hasHandlers("turn_start")) await runner.emit("turn_start", { type: "turn_start", turnIndex: this.turnIndex, timestamp: Date.now() });
        return;
      case "turn_end":
        // Extensions had turn_end in the agent's finishTurn, where they may still add to the turn.
        this.turnIndex++;
        return;
      case "message_end": {
        if (!runner.hasHandlers("message_end")) return;
        const extensionEvent = { type: "message_end" as const, message: event.message };
        event.message = await runner.emit("message_end", extensionEvent);
        return;
      }
      default:
        if (runner.hasHandlers(event.type)) await runner.emit(event.type, event as never);
    }
  }

  isCommand(text: string): boolean {
    return this.runner.matchCommand(text) !== undefined;
  }

  async routeInput(input: RoutedInput & { source: "interactive" | "rpc" | "extension"; streamingBehavior?: "steer" | "followUp" }) {
    const matched = this.runner.matchCommand(input.text);
    if (matched) {
      // A command an extension queued as a follow-up runs when the agent is done, as queued text would.
      if (input.source === "extension" && input.streamingBehavior === "followUp" && this.session.isStreaming) {
        void this.session.waitForIdle().then(() => this.runner.runCommand(matched.command, matched.args));
      } else {
        await this.runner.runCommand(matched.command, matched.args);
      }
      return undefined;
    }
    if (!this.runner.hasHandlers("input")) return input;
    const outcome = await this.runner.emit("input", { type: "input", ...input });
    if (outcome.action === "handled") return undefined;
    return outcome.images ? { text: outcome.text, images: outcome.images } : { text: outcome.text };
  }

  async beforeAgentStart(start: RoutedInput | { message: AgentMessage }): Promise<{ systemPrompt?: string; messages: AgentMessage[] }> {
    const queued = this.nextTurnMessages.splice(0);
    if (!this.runner.hasHandlers("before_agent_start")) return { messages: queued };
    const base = this.session.tools.baseSystemPrompt;
    const systemPromptOptions = this.getSystemPromptOptions();
    const offered = offeredOf(systemPromptOptions);
    // pi 1.x: a union on messageType — a prompt carries its text and images, an extension's message itself.
    const started =
      "message" in start
        ? { messageType: "custom" as const, message: start.message }
        : { messageType: "user" as const, prompt: start.text, ...(start.images ? { images: start.images } : {}) };
    const event = { type: "before_agent_start" as const, ...started, systemPrompt: base, systemPromptOptions };
    this.chainingPrompt = event;
    let outcome;
    try {
      outcome = await this.runner.emit("before_agent_start", event);
    } finally {
      this.chainingPrompt = undefined;
    }
    // What the handlers did to the options (pi 1.x); a prompt a handler returned wins over the rules.
    const edits = editsOf(offered, event.systemPromptOptions);
    if (edits.selectedTools) this.setActiveTools(edits.selectedTools);
    let prompt = outcome.systemPrompt;
    if (prompt === base) prompt = edits.addedGuidelines.length > 0 ? this.session.tools.systemPromptWith(edits.addedGuidelines) : this.session.tools.baseSystemPrompt;
    const systemPrompt = withPromptSections(prompt, event.systemPromptOptions?.sections);
    return {
      ...(systemPrompt !== base ? { systemPrompt } : {}),
      messages: [...queued, ...outcome.messages.map(customMessage)],
    };
  }

  async userBash(command: string, excludeFromContext: boolean) {
    if (!this.runner.hasHandlers("user_bash")) return undefined;
    return this.runner.emit("user_bash", { type: "user_bash", command, excludeFromContext, cwd: this.cwd });
  }

  async beforeCompact(input: Parameters<SessionHooks["beforeCompact"]>[0]) {
    if (!this.runner.hasHandlers("session_before_compact")) return undefined;
    return this.runner.emit("session_before_compact", { type: "session_before_compact", ...input });
  }

  async compacted(compactionEntry: Parameters<SessionHooks["compacted"]>[0], fromExtension: boolean, moment: CompactionMoment): Promise<void> {
    await this.runner.emit("session_compact", { type: "session_compact", compactionEntry, fromExtension, ...moment });
  }

  async compactionFailed(failure: CompactionFailure): Promise<void> {
    await this.runner.emit("session_compact_failed", { type: "session_compact_failed", ...failure });
  }

  beforeSettle(outcome: Parameters<SessionHooks["beforeSettle"]>[0]): Promise<boolean> {
    return this.boundaries.beforeSettle(outcome);
  }

  async settled(aborted: boolean): Promise<void> {
    this.boundaries.runSettled();
    await this.runner.emit("agent_settled", { type: "agent_settled", aborted });
  }

  async sessionInfoChanged(name: string | undefined): Promise<void> {
    await this.runner.emit("session_info_changed", { type: "session_info_changed", name });
  }

  async modelSelected(model: Model, previousModel: Model | undefined, source: "set" | "cycle" | "restore"): Promise<void> {
    await this.runner.emit("model_select", { type: "model_select", model, ...(previousModel ? { previousModel } : {}), source });
  }

  async thinkingLevelSelected(level: ModelThinkingLevel, previousLevel: ModelThinkingLevel): Promise<void> {
    await this.runner.emit("thinking_level_select", { type: "thinking_level_select", level, previousLevel });
  }

  async beforeSwitch(reason: "new" | "resume", targetSessionFile?: string): Promise<boolean> {
    const outcome = await this.runner.emit("session_before_switch", { type: "session_before_switch", reason, ...(targetSessionFile ? { targetSessionFile } : {}) });
    return outcome?.cancel === true;
  }

  async beforeFork(entryId: string, position: "before" | "at"): Promise<boolean> {
    const outcome = await this.runner.emit("session_before_fork", { type: "session_before_fork", entryId, position });
    return outcome?.cancel === true;
  }

  sessionWillBeReplaced(reason: "new" | "resume" | "fork", targetSessionFile: string | undefined): Promise<void> {
    return this.system.shutdownRuntime(reason, targetSessionFile);
  }

  sessionReplaced(reason: "new" | "resume" | "fork", previousSessionFile: string | undefined): Promise<void> {
    return this.system.restart(reason, previousSessionFile);
  }
}
