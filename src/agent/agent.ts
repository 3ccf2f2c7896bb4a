/**
 * The stateful agent: owns the transcript, the model and tools, the steering
 * and follow-up queues, and the abort controller of the run in progress.
 * Listeners receive every event in order; the run waits for async listeners,
 * so a listener that persists messages never falls behind.
 */
import type { ImageContent, Message, Model, ModelThinkingLevel, SimpleStreamOptions, ThinkingLevel } from "../ai/types.ts";
import { buildRequest, runAgentLoop, type AgentLoopConfig } from "./agent-loop.ts";
import { convertToLlm as defaultConvertToLlm } from "./messages.ts";
import { MessageQueue } from "./message-queue.ts";
import { runToolCall, type ToolCallOutcome, type ToolExecutionConfig } from "./tool-execution.ts";
import type { AgentContext, AgentEvent, AgentMessage, AgentTool, AgentToolResult, InterruptMode, QueueMode, StreamFn, ToolExecutionMode } from "./types.ts";
import type { AssistantMessage, ToolCall } from "../ai/types.ts";

export type AgentListener = (event: AgentEvent, signal: AbortSignal) => void | Promise<void>;

export interface AgentState {
  systemPrompt: string;
  model: Model;
  thinkingLevel: ModelThinkingLevel;
  tools: AgentTool<any>[];
  messages: AgentMessage[];
}

export interface AgentOptions extends Omit<ToolExecutionConfig, "hasPendingSteering" | "onSteeringQueued"> {
  initialState: Pick<AgentState, "model"> & Partial<AgentState>;
  convertToLlm?: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  transformContext?: AgentLoopConfig["transformContext"];
  getApiKey?: AgentLoopConfig["getApiKey"];
  getHeaders?: AgentLoopConfig["getHeaders"];
  getProviderEnv?: AgentLoopConfig["getProviderEnv"];
  streamFn?: StreamFn;
  /** Provider options passed on every call (headers, budgets, timeouts). */
  streamOptions?: Omit<SimpleStreamOptions, "reasoning" | "signal">;
  steeringMode?: QueueMode;
  followUpMode?: QueueMode;
}

export class Agent {
  readonly state: AgentState;
  readonly steeringQueue: MessageQueue;
  readonly followUpQueue: MessageQueue;
  toolExecution: ToolExecutionMode;
  interruptMode: InterruptMode;
  streamOptions: Omit<SimpleStreamOptions, "reasoning" | "signal">;
  /** The key for each call; replaceable, so a model switch brings its provider's key. */
  getApiKey: AgentLoopConfig["getApiKey"];
  /** Headers for each call, resolved then (a `!command` header runs per request). */
  getHeaders: AgentLoopConfig["getHeaders"];
  /** The provider's configuration variables for each call (auth.json's `env`), read then. */
  getProviderEnv: AgentLoopConfig["getProviderEnv"];
  /** Replaceable hooks, read at the start of each run (extensions install theirs after construction). */
  transformContext: AgentLoopConfig["transformContext"];
  transformRequest: AgentLoopConfig["transformRequest"];
  transformHeaders: AgentLoopConfig["transformHeaders"];
  finishTurn: AgentLoopConfig["finishTurn"];
  beforeToolCall: AgentLoopConfig["beforeToolCall"];
  afterToolCall: AgentLoopConfig["afterToolCall"];
  /** Ends the run after a turn (pi-agent-core's `finishTurn` returning "end", for extensions' own agents). */
  shouldStopAfterTurn: AgentLoopConfig["shouldStopAfterTurn"];
  /** A mode's permission check, after beforeToolCall; not an extension's to replace. */
  permissionGate: AgentLoopConfig["permissionGate"];
  /** The host's last step on each tool result (core scales images); not an extension's to replace. */
  prepareToolResult: AgentLoopConfig["prepareToolResult"];

  private readonly listeners: AgentListener[] = [];
  private controller: AbortController | undefined;
  private running: Promise<void> | undefined;
  /** Events are delivered one after another, even when emitted from a tool callback. */
  private eventChain: Promise<void> = Promise.resolve();

  constructor(private readonly options: AgentOptions) {
    const initial = options.initialState;
    this.state = {
      systemPrompt: initial.systemPrompt ?? "",
      model: initial.model,
      thinkingLevel: initial.thinkingLevel ?? "off",
      tools: initial.tools ?? [],
      messages: initial.messages ?? [],
    };
    this.steeringQueue = new MessageQueue(options.steeringMode ?? "one-at-a-time");
    this.followUpQueue = new MessageQueue(options.followUpMode ?? "one-at-a-time");
    this.toolExecution = options.toolExecution ?? "parallel";
    this.interruptMode = options.interruptMode ?? "wait";
    this.streamOptions = options.streamOptions ?? {};
    this.getApiKey = options.getApiKey;
    this.getHeaders = options.getHeaders;
    this.getProviderEnv = options.getProviderEnv;
    this.transformContext = options.transformContext;
    this.beforeToolCall = options.beforeToolCall;
    this.afterToolCall = options.afterToolCall;
  }

  subscribe(listener: AgentListener): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index !== -1) this.listeners.splice(index, 1);
    };
  }

  get isStreaming(): boolean {
    return this.running !== undefined;
  }

  get signal(): AbortSignal | undefined {
    return this.controller?.signal;
  }

  /** Starts a run from a prompt. Rejects if a run is already going: queue with steer/followUp instead. */
  prompt(input: string | AgentMessage | AgentMessage[], images?: ImageContent[]): Promise<void> {
    const messages = typeof input === "string" ? [userMessage(input, images)] : Array.isArray(input) ? input : [input];
    return this.start(messages);
  }

  /** Runs again from the transcript as it is (after an error, or when the last message is a tool result). */
  /**
   * The system prompt and messages a request would carry for `messages`, built as the loop
   * builds them (buildRequest: the context and request transforms, then the conversion).
   * A virtual model's route that compacts the conversation first sends these
   * (core/routed-compaction.ts).
   */
  requestFor(messages: AgentMessage[], signal?: AbortSignal): Promise<{ systemPrompt: string; messages: Message[] }> {
    const hooks = { transformContext: this.transformContext, transformRequest: this.transformRequest, convertToLlm: this.options.convertToLlm ?? defaultConvertToLlm };
    return buildRequest(this.state.systemPrompt, messages, hooks, signal);
  }

  continue(): Promise<void> {
    return this.start([]);
  }

  steer(message: AgentMessage): void {
    this.steeringQueue.enqueue(message);
  }

  followUp(message: AgentMessage): void {
    this.followUpQueue.enqueue(message);
  }

  clearQueues(): { steering: AgentMessage[]; followUp: AgentMessage[] } {
    return { steering: this.steeringQueue.clear(), followUp: this.followUpQueue.clear() };
  }

  abort(): void {
    this.controller?.abort();
  }

  /** Resolves when no run is in progress (immediately if idle). */
  async waitForIdle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Forgets the transcript and queues. */
  reset(): void {
    this.abort();
    this.state.messages = [];
    this.clearQueues();
  }

  private start(messages: AgentMessage[]): Promise<void> {
    if (this.running) {
      return Promise.reject(new Error("The agent is already working. Queue the message with steer() or followUp(), or abort first."));
    }
    const controller = new AbortController();
    this.controller = controller;
    const run = this.run(messages, controller.signal).finally(() => {
      if (this.controller === controller) this.controller = undefined;
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async run(prompts: AgentMessage[], signal: AbortSignal): Promise<void> {
    const context: AgentContext = {
      systemPrompt: this.state.systemPrompt,
      messages: this.state.messages,
      tools: this.state.tools,
    };
    const level = this.state.thinkingLevel;
    const config: AgentLoopConfig = {
      ...this.streamOptions,
      model: this.state.model,
      reasoning: level === "off" ? undefined : (level as ThinkingLevel),
      convertToLlm: this.options.convertToLlm ?? defaultConvertToLlm,
      transformContext: this.transformContext,
      transformRequest: this.transformRequest,
      transformHeaders: this.transformHeaders,
      finishTurn: this.finishTurn,
      getApiKey: this.getApiKey,
      getHeaders: this.getHeaders,
      getProviderEnv: this.getProviderEnv,
      streamFn: this.options.streamFn,
      getSteeringMessages: () => this.steeringQueue.drain(),
      getFollowUpMessages: () => this.followUpQueue.drain(),
      toolExecution: this.toolExecution,
      interruptMode: this.interruptMode,
      hasPendingSteering: () => this.steeringQueue.length > 0,
      onSteeringQueued: (listener) => this.steeringQueue.onEnqueue(listener),
      beforeToolCall: this.beforeToolCall,
      afterToolCall: this.afterToolCall,
      shouldStopAfterTurn: this.shouldStopAfterTurn,
      permissionGate: this.permissionGate,
      prepareToolResult: this.prepareToolResult,
    };
    // Read at each request, not once per run: the session may ask for a longer cache mid-run (core/cache-pace.ts).
    Object.defineProperty(config, "cacheRetention", { enumerable: true, get: () => this.streamOptions.cacheRetention });
    await runAgentLoop(prompts, context, config, (event) => this.emit(event, signal), signal);
    await this.eventChain;
  }

  /**
   * Runs one call that a running tool makes on the model's behalf (a codemode
   * script's) through the same path as the model's own calls: the tool_call hook,
   * the permission gate, the tool, the tool_result hook, and tool_execution events
   * that name the parent call. `tools` are the ones the caller may reach.
   */
  runNestedToolCall(
    call: ToolCall,
    parentToolCallId: string,
    tools: readonly AgentTool<any>[],
    signal: AbortSignal,
    onUpdate?: (partialResult: AgentToolResult<any>) => void,
  ): Promise<ToolCallOutcome> {
    const runSignal = this.controller?.signal ?? signal;
    const messages = this.state.messages;
    const assistant = [...messages].reverse().find((message): message is AssistantMessage => (message as AssistantMessage).role === "assistant");
    return runToolCall(call, {
      assistant: assistant ?? ({ role: "assistant", content: [call] } as unknown as AssistantMessage),
      context: { systemPrompt: this.state.systemPrompt, messages, tools: this.state.tools },
      tools,
      config: {
        beforeToolCall: this.beforeToolCall,
        permissionGate: this.permissionGate,
        afterToolCall: this.afterToolCall,
        prepareToolResult: this.prepareToolResult,
      },
      signal,
      emit: (event) => this.emit(event, runSignal),
      parentToolCallId,
      ...(onUpdate ? { onUpdate } : {}),
    });
  }

  private emit(event: AgentEvent, signal: AbortSignal): Promise<void> {
    this.eventChain = this.eventChain.then(async () => {
      for (const listener of [...this.listeners]) {
        try {
          await listener(event, signal);
        } catch (error) {
          // A failing listener must not break the run or starve the others.
          process.stderr.write(`xcsh: event listener failed on ${event.type}: ${(error as Error).message}\n`);
        }
      }
    });
    return this.eventChain;
  }
}

function userMessage(text: string, images?: ImageContent[]): AgentMessage {
  const content = images?.length ? [{ type: "text" as const, text }, ...images] : text;
  return { role: "user", content, timestamp: Date.now() };
}
