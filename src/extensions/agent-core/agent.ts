/**
 * pi-agent-core's `Agent` class (as of pi 0.87), for extensions that run an agent of
 * their own — a sub-agent behind a tool or command. It is an adapter over xcsh's
 * agent (src/agent/agent.ts): the transcript, queues, tool execution and events are
 * xcsh's; this class gives them pi's shape (`state` with accessors, `streamFunction`,
 * `steeringMode`, `peekQueuedMessages`, …) and pi's older setters (`setModel`,
 * `replaceMessages`, …) that published extensions still call.
 *
 * Streaming goes through xcsh's providers unless the extension passes `streamFn`;
 * without `getApiKey` the key (and headers) xcsh has configured for the model's
 * provider are used, so `new Agent({ initialState: { model: ctx.model } })` works.
 * Hooks are read when a run starts, so assigning `agent.getApiKey = …` later counts.
 * The sub-agent's events go only to its subscribers, never to xcsh's own output.
 */
import { Agent as CoreAgent } from "../../agent/agent.ts";
import { convertToLlm as defaultConvertToLlm } from "../../agent/messages.ts";
import type { AgentEvent, AgentMessage, AgentTool, QueueMode, StreamFn, ToolExecutionMode } from "../../agent/types.ts";
import type { ImageContent, Message, Model, SimpleStreamOptions } from "../../ai/types.ts";
import { hostHeaders, hostProviderEnv } from "../host-credentials.ts";
import {
  currentDefaultStreamFn,
  finishTurnAsStop,
  rejectUnsupportedHooks,
  splitLeadingSystemMessage,
  toCoreThinkingLevel,
  withHostKeys,
  type PiLoopConfig,
} from "./loop.ts";

type GetApiKey = (provider: string) => Promise<string | undefined> | string | undefined;
type Listener = (event: AgentEvent, signal: AbortSignal) => Promise<void> | void;

export interface PiAgentInitialState {
  systemPrompt?: string;
  model?: Model;
  thinkingLevel?: string;
  tools?: AgentTool<any>[];
  messages?: AgentMessage[];
}

export interface PiAgentOptions {
  initialState?: PiAgentInitialState;
  convertToLlm?: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  transformContext?: (messages: AgentMessage[], signal?: AbortSignal) => Promise<AgentMessage[]>;
  streamFn?: StreamFn;
  getApiKey?: GetApiKey;
  onPayload?: SimpleStreamOptions["onPayload"];
  onResponse?: SimpleStreamOptions["onResponse"];
  beforeToolCall?: CoreAgent["beforeToolCall"];
  afterToolCall?: CoreAgent["afterToolCall"];
  finishTurn?: PiLoopConfig["finishTurn"];
  steeringMode?: QueueMode;
  followUpMode?: QueueMode;
  sessionId?: string;
  thinkingBudgets?: SimpleStreamOptions["thinkingBudgets"];
  transport?: string;
  maxRetryDelayMs?: number;
  toolExecution?: ToolExecutionMode;
}

/** pi's `agent.state`: live accessors over the xcsh agent's state plus what a run is doing. */
export interface PiAgentState {
  systemPrompt: string;
  model: Model;
  thinkingLevel: string;
  tools: AgentTool<any>[];
  messages: AgentMessage[];
  readonly isStreaming: boolean;
  readonly streamingMessage?: AgentMessage;
  readonly pendingToolCalls: ReadonlySet<string>;
  readonly errorMessage?: string;
}

const QUEUE_MODES: readonly string[] = ["all", "one-at-a-time"];

function checkQueueMode(mode: unknown, name: string): QueueMode {
  if (typeof mode !== "string" || !QUEUE_MODES.includes(mode)) throw new TypeError(`${name} must be "all" or "one-at-a-time"`);
  return mode as QueueMode;
}

function checkMessages(messages: unknown, what: string): AgentMessage[] {
  if (!Array.isArray(messages)) throw new TypeError(`${what} must be an array of messages`);
  for (const message of messages) {
    if (!message || typeof message !== "object" || typeof (message as { role?: unknown }).role !== "string") {
      throw new TypeError(`${what} must hold messages (objects with a "role")`);
    }
  }
  return messages as AgentMessage[];
}

function busyError(): Error {
  return new Error("The agent is already working: queue the message with steer() or followUp(), or wait for it (waitForIdle)");
}

export class Agent {
  convertToLlm: NonNullable<PiAgentOptions["convertToLlm"]>;
  transformContext?: PiAgentOptions["transformContext"];
  streamFunction: StreamFn;
  getApiKey?: GetApiKey;
  onPayload?: PiAgentOptions["onPayload"];
  onResponse?: PiAgentOptions["onResponse"];
  beforeToolCall?: PiAgentOptions["beforeToolCall"];
  afterToolCall?: PiAgentOptions["afterToolCall"];
  finishTurn?: PiAgentOptions["finishTurn"];
  sessionId?: string;
  thinkingBudgets?: PiAgentOptions["thinkingBudgets"];
  /** Accepted for pi's API; xcsh's providers always stream over HTTP. */
  transport: string;
  maxRetryDelayMs?: number;

  private readonly core: CoreAgent;
  private readonly view: PiAgentState;
  private streaming: AgentMessage | undefined;
  private readonly pendingCalls = new Set<string>();
  private lastError: string | undefined;
  private runStart = 0;

  constructor(options: PiAgentOptions = {}) {
    if (!options || typeof options !== "object") throw new TypeError("new Agent(options): options must be an object");
    rejectUnsupportedHooks(options, "new Agent()");
    const initial = options.initialState ?? {};
    const transcript = splitLeadingSystemMessage(checkMessages(initial.messages ?? [], "initialState.messages"), initial.systemPrompt);
    this.convertToLlm = options.convertToLlm ?? defaultConvertToLlm;
    this.transformContext = options.transformContext;
    this.streamFunction = options.streamFn ?? currentDefaultStreamFn();
    this.getApiKey = options.getApiKey;
    this.onPayload = options.onPayload;
    this.onResponse = options.onResponse;
    this.beforeToolCall = options.beforeToolCall;
    this.afterToolCall = options.afterToolCall;
    this.finishTurn = options.finishTurn;
    this.sessionId = options.sessionId;
    this.thinkingBudgets = options.thinkingBudgets;
    this.transport = options.transport ?? "sse";
    this.maxRetryDelayMs = options.maxRetryDelayMs;

    this.core = new CoreAgent({
      // The model is checked when a run starts: pi lets it be set after construction.
      initialState: {
        model: initial.model as Model,
        systemPrompt: transcript.systemPrompt,
        thinkingLevel: toCoreThinkingLevel(initial.thinkingLevel ?? "off"),
        tools: [...(initial.tools ?? [])],
        messages: transcript.messages,
      },
      convertToLlm: (messages) => this.convertToLlm(messages),
      streamFn: (model, context, streamOptions) => this.streamFunction(model, context, { ...streamOptions, ...this.providerOptions() }),
      steeringMode: options.steeringMode === undefined ? undefined : checkQueueMode(options.steeringMode, "steeringMode"),
      followUpMode: options.followUpMode === undefined ? undefined : checkQueueMode(options.followUpMode, "followUpMode"),
      toolExecution: options.toolExecution,
    });
    this.view = this.stateView();
    // First subscriber: the state is up to date before the extension's listeners run.
    this.core.subscribe((event) => this.track(event));
  }

  // --- state ------------------------------------------------------------------------------

  get state(): PiAgentState {
    return this.view;
  }

  private stateView(): PiAgentState {
    const core = this.core;
    const agent = this;
    return {
      get systemPrompt() {
        return core.state.systemPrompt;
      },
      set systemPrompt(prompt: string) {
        core.state.systemPrompt = String(prompt ?? "");
      },
      get model() {
        return core.state.model;
      },
      set model(model: Model) {
        core.state.model = model;
      },
      get thinkingLevel() {
        return core.state.thinkingLevel;
      },
      set thinkingLevel(level: string) {
        core.state.thinkingLevel = toCoreThinkingLevel(level);
      },
      get tools() {
        return core.state.tools;
      },
      set tools(tools: AgentTool<any>[]) {
        if (!Array.isArray(tools)) throw new TypeError("state.tools must be an array of tools");
        core.state.tools = [...tools];
      },
      get messages() {
        return core.state.messages;
      },
      set messages(messages: AgentMessage[]) {
        const transcript = splitLeadingSystemMessage(checkMessages(messages, "state.messages"));
        if (transcript.systemPrompt) core.state.systemPrompt = transcript.systemPrompt;
        core.state.messages = transcript.messages;
      },
      get isStreaming() {
        return core.isStreaming;
      },
      get streamingMessage() {
        return agent.streaming;
      },
      get pendingToolCalls() {
        return agent.pendingCalls;
      },
      get errorMessage() {
        return agent.lastError;
      },
    };
  }

  private track(event: AgentEvent): void {
    switch (event.type) {
      case "agent_start":
        this.lastError = undefined;
        break;
      case "message_start":
      case "message_update":
        if (event.message.role === "assistant") this.streaming = event.message;
        break;
      case "message_end":
        if (event.message.role === "assistant") {
          this.streaming = undefined;
          if (event.message.errorMessage) this.lastError = event.message.errorMessage;
        }
        break;
      case "tool_execution_start":
        this.pendingCalls.add(event.toolCallId);
        break;
      case "tool_execution_end":
        this.pendingCalls.delete(event.toolCallId);
        break;
      case "agent_end":
        this.streaming = undefined;
        this.pendingCalls.clear();
        break;
    }
  }

  /** Provider options the extension set on the agent, read for each request. */
  private providerOptions(): Partial<SimpleStreamOptions> {
    const options: Partial<SimpleStreamOptions> = {};
    if (this.sessionId !== undefined) options.sessionId = this.sessionId;
    if (this.thinkingBudgets !== undefined) options.thinkingBudgets = this.thinkingBudgets;
    if (this.maxRetryDelayMs !== undefined) options.maxRetryDelayMs = this.maxRetryDelayMs;
    if (this.onPayload !== undefined) options.onPayload = this.onPayload;
    if (this.onResponse !== undefined) options.onResponse = this.onResponse;
    return options;
  }

  // --- events -------------------------------------------------------------------------------

  /** Listeners run in order and are awaited; the agent is idle only once they settle. */
  subscribe(listener: Listener): () => void {
    if (typeof listener !== "function") throw new TypeError("subscribe(listener): listener must be a function");
    return this.core.subscribe(listener);
  }

  // --- queues ---------------------------------------------------------------------------------

  get steeringMode(): QueueMode {
    return this.core.steeringQueue.mode;
  }
  set steeringMode(mode: QueueMode) {
    this.core.steeringQueue.mode = checkQueueMode(mode, "steeringMode");
  }
  get followUpMode(): QueueMode {
    return this.core.followUpQueue.mode;
  }
  set followUpMode(mode: QueueMode) {
    this.core.followUpQueue.mode = checkQueueMode(mode, "followUpMode");
  }

  steer(message: AgentMessage): void {
    this.core.steer(checkMessages([message], "steer(message)")[0]!);
  }
  followUp(message: AgentMessage): void {
    this.core.followUp(checkMessages([message], "followUp(message)")[0]!);
  }
  clearSteeringQueue(): void {
    this.core.steeringQueue.clear();
  }
  clearFollowUpQueue(): void {
    this.core.followUpQueue.clear();
  }
  clearAllQueues(): void {
    this.core.clearQueues();
  }
  hasQueuedMessages(): boolean {
    return this.core.steeringQueue.length > 0 || this.core.followUpQueue.length > 0;
  }
  /** The messages the next delivery point would take (steering first), without taking them. */
  peekQueuedMessages(): AgentMessage[] {
    const queue = this.core.steeringQueue.length > 0 ? this.core.steeringQueue : this.core.followUpQueue;
    const waiting = [...queue.peek()];
    return queue.mode === "all" ? waiting : waiting.slice(0, 1);
  }

  // --- runs -------------------------------------------------------------------------------------

  get signal(): AbortSignal | undefined {
    return this.core.signal;
  }

  abort(): void {
    this.core.abort();
  }

  waitForIdle(): Promise<void> {
    return this.core.waitForIdle();
  }

  /** Forgets the transcript, queues and run state; the system prompt and tools stay. */
  reset(): void {
    if (this.core.isStreaming) throw new Error("The agent is working; wait for it (waitForIdle) before reset()");
    this.core.state.messages = [];
    this.core.clearQueues();
    this.streaming = undefined;
    this.pendingCalls.clear();
    this.lastError = undefined;
  }

  /** A run from text (with optional images), one message, or several. */
  prompt(input: string | AgentMessage | AgentMessage[], images?: ImageContent[]): Promise<void> {
    if (typeof input === "string") return this.start(() => this.core.prompt(input, images));
    const messages = checkMessages(Array.isArray(input) ? input : [input], "prompt(messages)");
    return this.start(() => this.core.prompt(messages));
  }

  /** Runs again from the transcript; after an assistant message only queued messages can start a run. */
  continue(): Promise<void> {
    if (this.core.isStreaming) return Promise.reject(busyError());
    const messages = this.core.state.messages;
    const last = messages[messages.length - 1];
    if (!last) return Promise.reject(new Error("No messages to continue from"));
    if (last.role === "assistant") {
      const queued = this.core.steeringQueue.drain();
      const next = queued.length > 0 ? queued : this.core.followUpQueue.drain();
      if (next.length === 0) return Promise.reject(new Error("Cannot continue from message role: assistant"));
      return this.start(() => this.core.prompt(next));
    }
    return this.start(() => this.core.continue());
  }

  private start(run: () => Promise<void>): Promise<void> {
    if (this.core.isStreaming) return Promise.reject(busyError());
    if (!this.core.state.model || typeof this.core.state.model !== "object") {
      return Promise.reject(new Error("The agent has no model: pass initialState.model (e.g. ctx.model) or set agent.state.model"));
    }
    this.installHooks();
    this.runStart = this.core.state.messages.length;
    return run();
  }

  /** The hooks as the extension has them now (pi's fields are assignable at any time). */
  private installHooks(): void {
    const core = this.core;
    core.transformContext = this.transformContext;
    core.beforeToolCall = this.beforeToolCall;
    core.afterToolCall = this.afterToolCall;
    core.getApiKey = withHostKeys(this.getApiKey);
    core.getHeaders = this.getApiKey ? undefined : () => hostHeaders(core.state.model);
    core.getProviderEnv = this.getApiKey ? undefined : hostProviderEnv;
    core.shouldStopAfterTurn = finishTurnAsStop(
      this.finishTurn,
      () => ({ systemPrompt: core.state.systemPrompt, messages: core.state.messages, tools: core.state.tools }),
      () => core.state.messages.slice(this.runStart),
      () => core.signal,
    );
  }

  // --- pi's older setters, still called by published extensions ----------------------------------

  setSystemPrompt(prompt: string): void {
    this.view.systemPrompt = prompt;
  }
  setModel(model: Model): void {
    this.view.model = model;
  }
  setThinkingLevel(level: string): void {
    this.view.thinkingLevel = level;
  }
  setTools(tools: AgentTool<any>[]): void {
    this.view.tools = tools;
  }
  setSteeringMode(mode: QueueMode): void {
    this.steeringMode = mode;
  }
  getSteeringMode(): QueueMode {
    return this.steeringMode;
  }
  setFollowUpMode(mode: QueueMode): void {
    this.followUpMode = mode;
  }
  getFollowUpMode(): QueueMode {
    return this.followUpMode;
  }
  replaceMessages(messages: AgentMessage[]): void {
    this.view.messages = messages;
  }
  appendMessage(message: AgentMessage): void {
    this.core.state.messages = [...this.core.state.messages, ...checkMessages([message], "appendMessage(message)")];
  }
  clearMessages(): void {
    this.core.state.messages = [];
  }
}
