/**
 * AgentSession ties the agent to the session file and the user's settings:
 * every message is persisted as it completes, transient provider failures are
 * retried, a full context is compacted, and queued messages are reported.
 * Model switching and session navigation live in their own modules; this file
 * is the prompt lifecycle.
 */
import type { Agent } from "../agent/agent.ts";
import type { AgentMessage } from "../agent/types.ts";
import type { AssistantMessage, Context, ImageContent, Model, ModelThinkingLevel } from "../ai/types.ts";
import { fitContextToRoutedModel } from "./routed-compaction.ts";
import type { ModelRegistry } from "../config/model-registry.ts";
import type { Settings } from "../config/settings.ts";
import { imagePolicy } from "./image-policy.ts";
import { fitPromptImages } from "./prompt-images.ts";
import type { SessionManager } from "../session/session-manager.ts";
import { AutoRetry } from "./auto-retry.ts";
import { lastAssistantOf, RunRecovery } from "./run-recovery.ts";
import type { BashResult } from "./bash-executor.ts";
import { UserBash } from "./user-bash.ts";
import { SessionCompaction, type CompactionOverrides, type CompactionProgressListener } from "./session-compaction.ts";
import { ModelControl } from "./model-control.ts";
import type { AgentSessionEvent, AgentSessionListener, ReportedCompaction } from "./session-events.ts";
import { lastAssistantText, messageImages, messageText } from "./message-text.ts";
import { SessionNavigator } from "./session-navigation.ts";
import { routedLimits } from "./routed-limits.ts";
import { sessionStatsOf, type SessionStats } from "./session-stats.ts";
import { TodoPlan } from "./todos.ts";
import type { InputSource } from "../extensions/types.ts";
import type { SessionHooks } from "./session-hooks.ts";
import type { ToolSet } from "./tool-set.ts";
import { PromptStarts } from "./prompt-starts.ts";
import { RunSettlement } from "./run-settlement.ts";
import type { SessionResources } from "../resources/resource-loader.ts";
import type { McpSessionLink } from "../mcp/start.ts";
import { warmBashSandbox } from "../tools/bash-operations.ts";
import { CachePace } from "./cache-pace.ts";
import { warmCodemodeForScript } from "./codemode-warmup.ts";
import { endStartupJitPolicy } from "./startup-jit.ts";
import { CODEMODE_TOOL_NAME } from "../codemode/index.ts";

export interface AgentSessionOptions {
  cwd: string;
  agent: Agent;
  sessionManager: SessionManager;
  settings: Settings;
  registry: ModelRegistry;
  /** --api-key: used for the provider of the model the session started with. */
  apiKeyOverride?: string;
  /** The tools the session knows and the system prompt that lists them; it drives the agent's tool array. */
  toolSet: ToolSet;
  /** Skills and prompt templates: `/skill:name` and `/template` are expanded before sending or queueing. */
  resources?: SessionResources;
}

export interface PromptOptions {
  images?: ImageContent[];
  /** Required while the agent is working: queue as steering or as a follow-up. */
  streamingBehavior?: "steer" | "followUp";
  /** Who typed it, as extensions' `input` event reports it. */
  source?: InputSource;
  /**
   * Told once what became of the prompt, the moment that is known and before any run
   * starts: an RPC host's response carries it (pi 1.6.0's `data.disposition`).
   */
  onDisposition?: (disposition: PromptDisposition) => void;
}

/**
 * What became of a submitted prompt: `handled` — an extension command or `input`
 * handler consumed it, no run starts for it; `queued` — it waits in the steering or
 * follow-up queue of the run in progress; `started` — it was accepted to start a run.
 */
export type PromptDisposition = "started" | "queued" | "handled";

/** Messages persisted as session entries; summaries are written as their own entry types. */
const PERSISTED_ROLES = new Set(["user", "assistant", "toolResult", "bashExecution", "custom"]);

/** A message taken back out of a queue. */
export interface QueuedPrompt {
  text: string;
  images: ImageContent[];
}

export class AgentSession {
  readonly cwd: string;
  readonly agent: Agent;
  readonly sessionManager: SessionManager;
  readonly settings: Settings;
  readonly registry: ModelRegistry;
  readonly models: ModelControl;
  readonly navigation: SessionNavigator;
  readonly tools: ToolSet;
  readonly resources: SessionResources | undefined;
  /** Extensions' way in; undefined when none is configured. */
  hooks: SessionHooks | undefined;
  /** MCP servers' tools and prompts (src/mcp); undefined when no server is configured. */
  mcp: McpSessionLink | undefined;
  autoCompactionEnabled: boolean;
  /** The host's todo plan (set_todos, a todo tool). */
  readonly todos = new TodoPlan();

  private readonly listeners: AgentSessionListener[] = [];
  private readonly autoRetry: AutoRetry;
  private running: Promise<void> | undefined;
  /** agent_before_settle and agent_settled (run-settlement.ts). */
  private readonly settlement = new RunSettlement(this);
  private readonly promptStarts = new PromptStarts();
  private readonly compaction = new SessionCompaction(this);
  private readonly userBash = new UserBash(this);
  /** Retries, image and overflow recovery, threshold compaction after each run (run-recovery.ts). */
  private readonly recovery: RunRecovery;
  /** Set while takeQueued empties both queues, which it then reports as one queue_update. */
  private queuesBeingTaken = false;

  constructor(options: AgentSessionOptions) {
    this.cwd = options.cwd;
    this.agent = options.agent;
    this.sessionManager = options.sessionManager;
    this.settings = options.settings;
    this.registry = options.registry;
    this.autoRetry = new AutoRetry(options.settings.retry);
    this.recovery = new RunRecovery(this, this.autoRetry, (reason) => this.compactAutomatically(reason));
    this.autoCompactionEnabled = options.settings.compaction.enabled;
    this.models = new ModelControl(this, options.apiKeyOverride);
    this.navigation = new SessionNavigator(this);
    this.tools = options.toolSet;
    this.resources = options.resources;
    // Keys follow the current model; a missing key surfaces as the provider's clear error.
    this.agent.getApiKey = () => this.models.apiKeyFor(this.model).catch(() => undefined);
    this.agent.getHeaders = () => this.models.headersFor(this.model);
    this.agent.getProviderEnv = () => this.registry.getProviderEnv(this.model);

    // Without a chosen retention, a session that turns out slower than the short cache asks for the long one (cache-pace.ts).
    const pace = new CachePace(this.agent.streamOptions.cacheRetention, (retention) => {
      this.agent.streamOptions.cacheRetention = retention;
    });
    this.subscribe((event) => {
      if (event.type === "compaction_end" || event.type === "thinking_level_changed") pace.contextReplaced();
    });
    this.agent.subscribe(async (event, signal) => {
      if (event.type === "message_end" && event.message.role === "assistant") pace.observe(event.message as AssistantMessage, this.agent.state.messages);
      if (this.hooks) await this.hooks.onAgentEvent(event, signal);
      if (event.type === "message_end") this.persist(event.message);
      // The run's streaming and tool loops are worth the optimizing JIT that start-up held back.
      if (event.type === "agent_start") endStartupJitPolicy();
      // Under a sandbox, the first command's one starts while the model answers (after this turn's request is on its way).
      if (event.type === "agent_start" && this.tools.activeNames().includes("bash")) setTimeout(() => warmBashSandbox(this.cwd), 0);
      // With codemode, a script's worker starts once the model begins writing a script, while its code streams in.
      warmCodemodeForScript(event, () => this.tools.activeNames().includes(CODEMODE_TOOL_NAME));
      await this.emit(event.type === "agent_end" ? { ...event, willRetry: this.recovery.willRetry(event.messages) } : event);
    });
    const reportQueues = () => {
      if (!this.queuesBeingTaken) void this.emit({ type: "queue_update", ...this.queuedTexts() });
    };
    this.agent.steeringQueue.onChange(reportQueues);
    this.agent.followUpQueue.onChange(reportQueues);
  }

  // --- events ----------------------------------------------------------------

  subscribe(listener: AgentSessionListener): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index !== -1) this.listeners.splice(index, 1);
    };
  }

  async emit(event: AgentSessionEvent): Promise<void> {
    for (const listener of [...this.listeners]) {
      try {
        await listener(event);
      } catch (error) {
        process.stderr.write(`xcsh: session listener failed on ${event.type}: ${(error as Error).message}\n`);
      }
    }
  }

  // --- state -----------------------------------------------------------------

  get model(): Model {
    return this.agent.state.model;
  }

  get thinkingLevel(): ModelThinkingLevel {
    return this.agent.state.thinkingLevel;
  }

  get messages(): AgentMessage[] {
    return this.agent.state.messages;
  }

  /** Working on a prompt, including retry waits and the compaction that follows a run. */
  get isStreaming(): boolean {
    return this.running !== undefined || this.agent.isStreaming || this.promptStarts.count > 0;
  }

  get isCompacting(): boolean {
    return this.compaction.isRunning;
  }

  get isRetrying(): boolean {
    return this.autoRetry.isWaiting;
  }

  get autoRetryEnabled(): boolean {
    return this.autoRetry.enabled;
  }

  set autoRetryEnabled(enabled: boolean) {
    this.autoRetry.enabled = enabled;
  }

  get pendingMessageCount(): number {
    return this.agent.steeringQueue.length + this.agent.followUpQueue.length;
  }

  queuedTexts(): { steering: string[]; followUp: string[] } {
    return { steering: this.agent.steeringQueue.peek().map(messageText), followUp: this.agent.followUpQueue.peek().map(messageText) };
  }

  /** Takes every queued message out, undelivered, as text and images: an abort hands them back to the user. */
  takeQueued(): { steering: QueuedPrompt[]; followUp: QueuedPrompt[] } {
    this.queuesBeingTaken = true;
    let taken: ReturnType<Agent["clearQueues"]>;
    try {
      taken = this.agent.clearQueues();
    } finally {
      this.queuesBeingTaken = false;
    }
    void this.emit({ type: "queue_update", ...this.queuedTexts() });
    const { steering, followUp } = taken;
    const asPrompt = (message: AgentMessage): QueuedPrompt => ({ text: messageText(message), images: messageImages(message) });
    return { steering: steering.map(asPrompt), followUp: followUp.map(asPrompt) };
  }

  // --- prompting -------------------------------------------------------------

  /**
   * Runs a prompt to the end, including retries and compaction. While the agent
   * is working the prompt must say how to queue it (streamingBehavior).
   */
  async prompt(text: string, options: PromptOptions = {}): Promise<void> {
    if (this.settlement.deferWhileAnnouncing(() => this.prompt(text, options), reportDeferredFailure)) return;
    // A command runs at once, outside the start of a run (it may wait for the agent itself).
    if (this.isCommand(text)) {
      // Told once the handler is done, as pi does: a host that waits for the answer sees what the command did.
      try {
        await this.route(text, options.images, options.source ?? "rpc", this.isStreaming ? options.streamingBehavior : undefined);
      } finally {
        options.onDisposition?.("handled");
      }
      return;
    }
    if (this.isStreaming) {
      const source = options.source ?? "rpc";
      const queue = options.streamingBehavior === "steer" ? this.steer : options.streamingBehavior === "followUp" ? this.followUp : undefined;
      if (!queue) throw new Error('The agent is already working. Send the prompt with streamingBehavior "steer" or "followUp" to queue it, or abort first.');
      // Queued first, told after: `onDisposition?.(await …)` would skip the queueing when no one listens.
      const disposition = await queue.call(this, text, options.images, source);
      options.onDisposition?.(disposition);
      return;
    }
    // From here the session counts as working, though extensions are still being asked.
    const start = this.promptStarts.begin();
    let run: Promise<void> | undefined;
    try {
      const input = await this.route(text, options.images, options.source ?? "rpc", undefined);
      options.onDisposition?.(input ? "started" : "handled");
      if (!input) return;
      const before = this.hooks ? await this.hooks.beforeAgentStart(input) : undefined;
      // Each prompt starts from the base prompt; before_agent_start may change it for this run only.
      this.agent.state.systemPrompt = before?.systemPrompt ?? this.tools.baseSystemPrompt;
      // Fitted after before_agent_start, so a model an extension chose there decides the resize profile.
      const fitted = await this.fitImages(input.text, input.images);
      run = this.runToCompletion(() => this.agent.prompt([userMessage(fitted.text, fitted.images), ...(before?.messages ?? [])]));
    } finally {
      // The run (if any) is registered by now, so the session stays busy without a gap.
      start.end();
    }
    await run;
  }

  /** Queues a steering message; `handled` when an extension consumed it instead. */
  async steer(text: string, images?: ImageContent[], source: InputSource = "rpc"): Promise<"queued" | "handled"> {
    const input = await this.route(text, images, source, "steer");
    if (!input) return "handled";
    const fitted = await this.fitImages(input.text, input.images);
    this.agent.steer(userMessage(fitted.text, fitted.images));
    return "queued";
  }

  /** Queues a follow-up; `handled` when an extension consumed it instead. */
  async followUp(text: string, images?: ImageContent[], source: InputSource = "rpc"): Promise<"queued" | "handled"> {
    const input = await this.route(text, images, source, "followUp");
    if (!input) return "handled";
    const fitted = await this.fitImages(input.text, input.images);
    this.agent.followUp(userMessage(fitted.text, fitted.images));
    return "queued";
  }

  /** Starts a run from messages that need no routing (an extension's sendMessage with triggerTurn). */
  async runMessages(messages: AgentMessage[]): Promise<void> {
    if (this.settlement.deferWhileAnnouncing(() => this.runMessages(messages), reportDeferredFailure)) return;
    // Extensions see this start too (before_agent_start with messageType "custom"), as pi 1.x's do.
    const before = this.hooks && messages[0] ? await this.hooks.beforeAgentStart({ message: messages[0] }) : undefined;
    this.agent.state.systemPrompt = before?.systemPrompt ?? this.tools.baseSystemPrompt;
    await this.runToCompletion(() => this.agent.prompt([...messages, ...(before?.messages ?? [])]));
  }

  /** An extension command runs at once whatever the agent is doing. */
  isCommand(text: string): boolean {
    return this.hooks?.isCommand(text) === true;
  }

  /** A user message's images scaled for the current model (images.autoResize, inputLimits.images.resize), notes after its text. */
  private fitImages(text: string, images: ImageContent[] | undefined) {
    return fitPromptImages(text, images, imagePolicy(this.settings as unknown as Record<string, unknown>, this.agent.state.model));
  }

  /** Extension commands and the `input` event see every typed message first; then skills and templates expand. */
  private async route(text: string, images: ImageContent[] | undefined, source: InputSource, streamingBehavior?: "steer" | "followUp") {
    // MCP servers still connecting get their short wait (their tools and prompts may be what this asks
    // for); an extension command does not wait for them. Servers with direct tools only, unless
    // tool_search loaded tools on this branch that no server has brought yet: those must be declared too.
    if (this.mcp && !this.isCommand(text)) await (this.tools.awaitsLoadedTools() ? this.mcp.readyAll() : this.mcp.ready());
    const routed = this.hooks ? await this.hooks.routeInput({ text, images, source, streamingBehavior }) : { text, images };
    const input = routed && this.mcp ? await this.mcp.expandCommand(routed) : routed;
    return input && this.resources ? { ...input, text: this.resources.expand(input.text) } : input;
  }

  /** Skill and template paths extensions returned from resources_discover; the system prompt follows new skills. */
  useDiscoveredResources(paths: { skillPaths: string[]; promptPaths: string[] }): void {
    if (this.resources?.setExtensionPaths(paths)) this.tools.updatePromptBase({ skills: this.resources.promptSkills() });
  }

  /** Stops everything in progress: the model stream, tools, a retry wait, a compaction. */
  async abort(): Promise<void> {
    // A prompt still asking extensions is let begin its run, which is then stopped like any other.
    await this.promptStarts.settled();
    this.settlement.abortRequested();
    this.autoRetry.cancel();
    this.compaction.abort();
    this.agent.abort();
    await this.waitForIdle();
  }

  async waitForIdle(): Promise<void> {
    await this.promptStarts.settled();
    while (this.running) await this.running.catch(() => {});
    await this.agent.waitForIdle();
    await this.settlement.settled();
  }

  /** A session-level run: the agent loop, then whatever follows it until the run settles (agent_settled, once). */
  private async runToCompletion(start: () => Promise<void>): Promise<void> {
    this.settlement.runStarted();
    const run = (async () => {
      await start();
      await this.finishLoop();
      // agent_before_settle may ask for one more request, or queue messages; either runs before settling.
      while (!this.settlement.wasAborted) {
        const more = await this.settlement.continueBeforeSettling(lastAssistantOf(this.messages));
        if (more) await this.agent.continue();
        else if (this.pendingMessageCount === 0) break;
        await this.finishLoop();
      }
    })();
    this.running = run;
    try {
      await run;
    } finally {
      if (this.running === run) this.running = undefined;
      this.userBash.flushPending();
      await this.settlement.announce(lastAssistantOf(this.messages));
    }
  }

  /** After an agent loop: retries and recovery, then messages queued meanwhile, which nobody else will deliver. */
  private async finishLoop(): Promise<void> {
    await this.recovery.recover();
    while (this.pendingMessageCount > 0 && !this.agent.signal?.aborted) {
      const next = this.agent.steeringQueue.length > 0 ? this.agent.steeringQueue.drain() : this.agent.followUpQueue.drain();
      await this.agent.prompt(next);
      await this.recovery.recover();
    }
  }

  // --- compaction ------------------------------------------------------------

  /** Manual compaction; aborts a run in progress first. Throws with the reason when it fails. */
  async compact(customInstructions?: string, overrides: CompactionOverrides = {}): Promise<ReportedCompaction> {
    if (this.agent.isStreaming || this.running) await this.abort();
    const outcome = await this.compaction.run("manual", customInstructions, false, overrides);
    if ("error" in outcome) throw new Error(outcome.error);
    return outcome.result;
  }

  /** Each request of a compaction summarized in several parts (not a wire event: pi has none). */
  onCompactionProgress(listener: CompactionProgressListener): () => void {
    return this.compaction.onProgress(listener);
  }

  /**
   * The context a virtual model's request sends to the physical model its route chose:
   * compacted first when that model's window is too small for it (routed-compaction.ts).
   */
  fitContextToRoutedModel(physical: Model, context: Context, signal?: AbortSignal): Promise<Context> {
    return fitContextToRoutedModel(this, () => this.compactAutomatically("threshold"), physical, context, signal);
  }

  private async compactAutomatically(reason: "threshold" | "overflow"): Promise<boolean> {
    const outcome = await this.compaction.run(reason, undefined, reason === "overflow");
    return "result" in outcome;
  }

  // --- retry -----------------------------------------------------------------

  /** Cancels a retry wait in progress. */
  abortRetry(): void {
    this.autoRetry.cancel();
  }

  // --- user bash ---------------------------------------------------------------

  /** Runs a command for the user; its output reaches the model with the next prompt. */
  executeBash(command: string, options: { excludeFromContext?: boolean; onChunk?: (text: string) => void } = {}): Promise<BashResult> {
    return this.userBash.run(command, options);
  }

  abortBash(): void {
    this.userBash.abort();
  }

  get isBashRunning(): boolean {
    return this.userBash.isRunning;
  }

  /** Adds a message to the context and the session file without running the agent. */
  recordMessage(message: AgentMessage): void {
    this.messages.push(message);
    this.persist(message);
  }

  /** Writes a finished message to the session file; extensions' messages become custom_message entries. */
  private persist(message: AgentMessage): void {
    if (!PERSISTED_ROLES.has(message.role)) return;
    if (message.role === "custom") {
      this.sessionManager.appendCustomMessageEntry(message.customType, message.content, message.display, message.details);
      return;
    }
    this.sessionManager.appendMessage(message as Parameters<SessionManager["appendMessage"]>[0]);
  }

  // --- information ------------------------------------------------------------

  getSessionStats(): SessionStats {
    // A virtual model's context is held to the limits of the physical model that answered last.
    return sessionStatsOf(this.sessionManager, this.messages, routedLimits(this.model, this.messages, this.registry));
  }

  getLastAssistantText(): string | null {
    return lastAssistantText(this.messages);
  }

  get sessionName(): string | undefined {
    return this.sessionManager.getSessionName();
  }

  setSessionName(name: string): void {
    const trimmed = name.trim();
    if (!trimmed) throw new Error("Session name cannot be empty");
    this.sessionManager.appendSessionInfo(trimmed);
    const current = this.sessionManager.getSessionName();
    void this.emit({ type: "session_info_changed", ...(current ? { name: current } : {}) });
    void this.hooks?.sessionInfoChanged(trimmed);
  }

  setLabel(entryId: string, label: string | undefined): void {
    if (!this.sessionManager.getEntry(entryId)) throw new Error(`No entry with id ${entryId} in this session`);
    this.sessionManager.appendLabelChange(entryId, label?.trim() || undefined);
  }
}

function reportDeferredFailure(error: unknown): void {
  process.stderr.write(`xcsh: work started during agent_settled failed: ${error instanceof Error ? error.message : String(error)}\n`);
}

function userMessage(text: string, images?: ImageContent[]): AgentMessage {
  const content = images?.length ? [{ type: "text" as const, text }, ...images] : text;
  return { role: "user", content, timestamp: Date.now() };
}
