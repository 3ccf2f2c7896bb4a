/**
 * RpcClient: a typed client for hosts that embed xcsh. It runs
 * `xcsh --mode rpc`, sends commands with ids `req_<n>` and matches the
 * responses to them, delivers session events, answers extension UI dialogs
 * and runs host-implemented tools. A convenience over the protocol of seeds
 * 000/001, not its definition: `send()` reaches any command directly.
 * It spawns with Bun.spawn, so the host runs on Bun.
 *
 * Frames are handled synchronously in arrival order, so a hook that runs when
 * a response arrives sees exactly the events that follow it (promptAndWait
 * relies on this to collect a run's events from the prompt's acceptance on).
 */
import type { AgentSessionEvent } from "../../core/session-events.ts";
import type { ImageContent, ModelThinkingLevel } from "../../ai/types.ts";
import { dialogResponse, isDialog, isExtensionUiRequest } from "./rpc-client-extension-ui.ts";
import { isSessionEvent } from "./rpc-client-events.ts";
import { HostToolRunner, hostToolDefinition } from "./rpc-client-host-tools.ts";
import { RpcProcess } from "./rpc-client-process.ts";
import {
  RpcError,
  RpcProcessExitedError,
  type ExtensionUiHandler,
  type RpcClientOptions,
  type RpcCommandInput,
  type RpcExit,
  type RpcHostTool,
  type RpcResultOf,
  type TodoPhaseInput,
} from "./rpc-client-types.ts";
import type { HostToolCallFrame, HostToolCancelFrame, InterruptMode, QueueMode, RpcResponse } from "./rpc-types.ts";

export * from "./rpc-client-types.ts";
export type * from "./rpc-types.ts";
export type { AgentSessionEvent } from "../../core/session-events.ts";

type EventListener = (event: AgentSessionEvent) => void;
type FrameListener = (frame: Record<string, unknown>) => void;

interface PendingRequest {
  command: string;
  resolve(data: unknown): void;
  reject(error: Error): void;
  /** Runs synchronously when the response arrives, before any later frame is handled. */
  onResponse?(response: RpcResponse): void;
}

export interface PromptOptions {
  images?: ImageContent[];
  streamingBehavior?: "steer" | "followUp";
}

export interface PromptAndWaitOptions extends PromptOptions {
  /** Reject if the run has not ended after this long. No limit by default. */
  timeoutMs?: number;
  /**
   * The event that ends the wait: the first agent_end (the default, as in the seeds), or
   * agent_settled (pi 0.87.1), after retries, overflow recovery and queued messages are done.
   */
  until?: "agent_end" | "agent_settled";
}

/** Calls a host callback; its failure is reported but never breaks the client. */
function callSafely<T>(what: string, listener: (value: T) => unknown, value: T): void {
  try {
    const result = listener(value);
    if (result instanceof Promise) result.catch((error) => console.error(`RpcClient: ${what} failed:`, error));
  } catch (error) {
    console.error(`RpcClient: ${what} failed:`, error);
  }
}

export class RpcClient {
  private process: RpcProcess | undefined;
  private exit: RpcExit | undefined;
  private requestCounter = 0;
  private readonly pending = new Map<string, PendingRequest>();
  private readonly eventListeners = new Set<EventListener>();
  private readonly frameListeners = new Set<FrameListener>();
  /** Waits that are not requests (events, a run's end), failed when the process exits. */
  private readonly exitListeners = new Set<() => void>();
  private extensionUiHandler: ExtensionUiHandler | undefined;
  private readonly hostTools = new HostToolRunner((frame) => this.process?.write(frame));
  private resolveExited!: (code: number | null) => void;
  /** The process's exit code (null when a signal ended it), once it has exited and its output is read. */
  readonly exited: Promise<number | null> = new Promise((resolve) => {
    this.resolveExited = resolve;
  });

  constructor(private readonly options: RpcClientOptions = {}) {}

  /** Spawns `<command> --mode rpc <args>`. */
  async start(): Promise<void> {
    if (this.process) throw new Error("RpcClient.start() was already called");
    const argv = [...(this.options.command ?? ["xcsh"]), "--mode", "rpc", ...(this.options.args ?? [])];
    this.process = new RpcProcess({ argv, cwd: this.options.cwd, env: this.options.env, onFrame: (frame) => this.dispatch(frame) });
    void this.process.exited.then((exit) => this.handleExit(exit));
  }

  /** Closes stdin so xcsh finishes and exits; kills it if it has not exited after `timeoutMs`. */
  async stop(timeoutMs = 5_000): Promise<number | null> {
    if (!this.process) return null;
    this.process.closeInput();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const first = await Promise.race([this.exited, timedOut]);
    clearTimeout(timer);
    if (first === "timeout") this.process.kill("SIGKILL");
    return this.exited;
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** The tail of the process's stderr (at most 64 KiB). */
  get stderr(): string {
    return this.process?.stderrText() ?? "";
  }

  /* ---------- Requests ---------- */

  /** Sends any command and resolves with its response's data; rejects with RpcError on `success: false`. */
  send<C extends RpcCommandInput>(command: C): Promise<RpcResultOf<C["type"]>>;
  send(command: { type: string; [field: string]: unknown }): Promise<unknown>;
  send(command: { type: string; [field: string]: unknown }): Promise<unknown> {
    return this.request(command);
  }

  private request<T>(command: { type: string; [field: string]: unknown }, onResponse?: (response: RpcResponse) => void): Promise<T> {
    const child = this.process;
    if (!child) return Promise.reject(new Error("RpcClient.start() has not been called"));
    if (this.exit) return Promise.reject(this.exitError(`answering "${command.type}"`));
    const id = `req_${++this.requestCounter}`;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { command: command.type, resolve: resolve as (data: unknown) => void, reject, onResponse });
      if (!child.write({ ...command, id })) {
        this.pending.delete(id);
        reject(new Error(`Could not send "${command.type}": stop() has closed the xcsh RPC process's stdin`));
      }
    });
  }

  private settle(response: RpcResponse): void {
    const id = typeof response.id === "string" ? response.id : this.oldestPendingFor(response.command);
    const pending = id === undefined ? undefined : this.pending.get(id);
    if (!pending || id === undefined) return;
    this.pending.delete(id);
    if (pending.onResponse) callSafely("a response hook", pending.onResponse, response);
    if (response.success) pending.resolve(response.data);
    else pending.reject(new RpcError(response.command, response.error));
  }

  /** xcsh answers an unknown command without echoing its id (seed 001); match it by command name. */
  private oldestPendingFor(command: string): string | undefined {
    for (const [id, pending] of this.pending) if (pending.command === command) return id;
    return undefined;
  }

  /* ---------- One method per command ---------- */

  /** Resolves with the prompt's disposition: `started`, `queued`, or `handled` (no run starts for it). */
  prompt(message: string, options: PromptOptions = {}): Promise<RpcResultOf<"prompt">> {
    return this.send({ type: "prompt", message, ...options });
  }
  steer(message: string, images?: ImageContent[]): Promise<RpcResultOf<"steer">> {
    return this.send({ type: "steer", message, ...(images ? { images } : {}) });
  }
  followUp(message: string, images?: ImageContent[]): Promise<RpcResultOf<"follow_up">> {
    return this.send({ type: "follow_up", message, ...(images ? { images } : {}) });
  }
  abort(): Promise<undefined> {
    return this.send({ type: "abort" });
  }
  /** Takes the queued steering and follow-up messages out, undelivered, and returns their texts. */
  clearQueue(): Promise<RpcResultOf<"clear_queue">> {
    return this.send({ type: "clear_queue" });
  }
  abortAndPrompt(message: string, images?: ImageContent[]): Promise<undefined> {
    return this.send({ type: "abort_and_prompt", message, ...(images ? { images } : {}) });
  }
  newSession(parentSession?: string): Promise<RpcResultOf<"new_session">> {
    return this.send({ type: "new_session", ...(parentSession === undefined ? {} : { parentSession }) });
  }
  getState(): Promise<RpcResultOf<"get_state">> {
    return this.send({ type: "get_state" });
  }
  getMessages(): Promise<RpcResultOf<"get_messages">> {
    return this.send({ type: "get_messages" });
  }
  setModel(provider: string, modelId: string): Promise<RpcResultOf<"set_model">> {
    return this.send({ type: "set_model", provider, modelId });
  }
  cycleModel(): Promise<RpcResultOf<"cycle_model">> {
    return this.send({ type: "cycle_model" });
  }
  getAvailableModels(): Promise<RpcResultOf<"get_available_models">> {
    return this.send({ type: "get_available_models" });
  }
  /** "max" is the model's highest level. */
  setThinkingLevel(level: ModelThinkingLevel | "max"): Promise<undefined> {
    return this.send({ type: "set_thinking_level", level });
  }
  cycleThinkingLevel(): Promise<RpcResultOf<"cycle_thinking_level">> {
    return this.send({ type: "cycle_thinking_level" });
  }
  getAvailableThinkingLevels(): Promise<RpcResultOf<"get_available_thinking_levels">> {
    return this.send({ type: "get_available_thinking_levels" });
  }
  setSteeringMode(mode: QueueMode): Promise<undefined> {
    return this.send({ type: "set_steering_mode", mode });
  }
  setFollowUpMode(mode: QueueMode): Promise<undefined> {
    return this.send({ type: "set_follow_up_mode", mode });
  }
  setInterruptMode(mode: InterruptMode): Promise<undefined> {
    return this.send({ type: "set_interrupt_mode", mode });
  }
  compact(customInstructions?: string, options: { reserveTokens?: number; keepRecentTokens?: number } = {}): Promise<RpcResultOf<"compact">> {
    return this.send({ type: "compact", ...(customInstructions === undefined ? {} : { customInstructions }), ...options });
  }
  setAutoCompaction(enabled: boolean): Promise<undefined> {
    return this.send({ type: "set_auto_compaction", enabled });
  }
  setAutoRetry(enabled: boolean): Promise<undefined> {
    return this.send({ type: "set_auto_retry", enabled });
  }
  abortRetry(): Promise<undefined> {
    return this.send({ type: "abort_retry" });
  }
  /** Output chunks arrive as bash_execution_update events carrying this request's id. */
  bash(command: string, options: { excludeFromContext?: boolean } = {}): Promise<RpcResultOf<"bash">> {
    return this.send({ type: "bash", command, ...options });
  }
  abortBash(): Promise<undefined> {
    return this.send({ type: "abort_bash" });
  }
  getSessionStats(): Promise<RpcResultOf<"get_session_stats">> {
    return this.send({ type: "get_session_stats" });
  }
  exportHtml(outputPath?: string): Promise<RpcResultOf<"export_html">> {
    return this.send({ type: "export_html", ...(outputPath === undefined ? {} : { outputPath }) });
  }
  switchSession(sessionPath: string): Promise<RpcResultOf<"switch_session">> {
    return this.send({ type: "switch_session", sessionPath });
  }
  fork(entryId: string): Promise<RpcResultOf<"fork">> {
    return this.send({ type: "fork", entryId });
  }
  branch(entryId: string): Promise<RpcResultOf<"branch">> {
    return this.send({ type: "branch", entryId });
  }
  clone(): Promise<RpcResultOf<"clone">> {
    return this.send({ type: "clone" });
  }
  getForkMessages(): Promise<RpcResultOf<"get_fork_messages">> {
    return this.send({ type: "get_fork_messages" });
  }
  getBranchMessages(): Promise<RpcResultOf<"get_branch_messages">> {
    return this.send({ type: "get_branch_messages" });
  }
  /** Session entries in append order; with `since`, only those after that entry id. */
  getEntries(since?: string): Promise<RpcResultOf<"get_entries">> {
    return this.send({ type: "get_entries", ...(since === undefined ? {} : { since }) });
  }
  getTree(): Promise<RpcResultOf<"get_tree">> {
    return this.send({ type: "get_tree" });
  }
  getLastAssistantText(): Promise<RpcResultOf<"get_last_assistant_text">> {
    return this.send({ type: "get_last_assistant_text" });
  }
  setSessionName(name: string): Promise<undefined> {
    return this.send({ type: "set_session_name", name });
  }
  getCommands(): Promise<RpcResultOf<"get_commands">> {
    return this.send({ type: "get_commands" });
  }
  setTodos(phases: TodoPhaseInput[]): Promise<RpcResultOf<"set_todos">> {
    return this.send({ type: "set_todos", phases });
  }

  /**
   * Offers the host's tools to the model (replacing any set before) and runs
   * their `execute` when the model calls them. Until the server accepts the
   * new set, calls keep going to the previous one.
   */
  setHostTools(tools: RpcHostTool[]): Promise<RpcResultOf<"set_host_tools">> {
    const command = { type: "set_host_tools", tools: tools.map(hostToolDefinition) } as const;
    return this.request(command, (response) => {
      if (response.success) this.hostTools.replace(tools);
    });
  }

  /* ---------- Events ---------- */

  /** Every session event, in order. Returns the unsubscribe function. */
  onEvent(listener: EventListener): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Every frame xcsh writes, responses and sub-protocol frames included (for logging and frames this client does not model). */
  onFrame(listener: FrameListener): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  /** The next event that satisfies `predicate`. */
  waitForEvent<E extends AgentSessionEvent = AgentSessionEvent>(predicate: (event: AgentSessionEvent) => boolean, timeoutMs?: number): Promise<E> {
    return this.waitUntil<E>(`an awaited event arrived`, timeoutMs, (resolve) =>
      this.onEvent((event) => {
        if (predicate(event)) resolve(event as E);
      }),
    );
  }

  /**
   * Sends a prompt and resolves with the events of its run: from the prompt's
   * acceptance up to and including the first agent_end after it (or, with
   * `until: "agent_settled"`, the agent_settled that ends the whole chain).
   * Rejects with RpcError when the prompt is refused.
   */
  async promptAndWait(message: string, options: PromptAndWaitOptions = {}): Promise<AgentSessionEvent[]> {
    const { timeoutMs, until = "agent_end", ...promptOptions } = options;
    const events: AgentSessionEvent[] = [];
    let accepted = false;
    let noRun = () => {};
    const runEnded = this.waitUntil<AgentSessionEvent[]>(`the prompt's run ended`, timeoutMs, (resolve) => {
      noRun = () => resolve([]);
      return this.onEvent((event) => {
        if (!accepted) return;
        events.push(event);
        if (event.type === until) resolve(events);
      });
    });
    // If the prompt is refused, nobody awaits the run; its later failure must not be unhandled.
    runEnded.catch(() => {});
    const answer = await this.request<RpcResultOf<"prompt"> | undefined>({ type: "prompt", message, ...promptOptions }, (response) => {
      accepted = response.success;
    });
    // An extension consumed the prompt: no run follows (pi 1.6.0's disposition).
    if (answer?.disposition === "handled") noRun();
    return runEnded;
  }

  /**
   * A promise settled by `subscribe`'s resolve, by the timeout, or by the
   * process exiting; the subscription is removed whichever comes first.
   */
  private waitUntil<T>(what: string, timeoutMs: number | undefined, subscribe: (resolve: (value: T) => void) => () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        unsubscribe();
        this.exitListeners.delete(onExit);
        clearTimeout(timer);
      };
      const onExit = () => {
        done();
        reject(this.exitError(what));
      };
      const unsubscribe = subscribe((value) => {
        done();
        resolve(value);
      });
      if (this.exit) return onExit();
      this.exitListeners.add(onExit);
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          done();
          reject(new Error(`Timed out after ${timeoutMs} ms waiting until ${what}`));
        }, timeoutMs);
      }
    });
  }

  /* ---------- Extension UI ---------- */

  /**
   * Sets the handler of extension UI requests (replacing any previous one).
   * For dialogs its answer is sent back; with no handler, dialogs are cancelled.
   */
  onExtensionUiRequest(handler: ExtensionUiHandler): () => void {
    this.extensionUiHandler = handler;
    return () => {
      if (this.extensionUiHandler === handler) this.extensionUiHandler = undefined;
    };
  }

  private async answerExtensionUi(request: Parameters<ExtensionUiHandler>[0]): Promise<void> {
    const handler = this.extensionUiHandler;
    if (!isDialog(request)) {
      if (handler) callSafely("the extension UI handler", handler, request);
      return;
    }
    let answer;
    try {
      answer = handler ? await handler(request) : undefined;
    } catch (error) {
      console.error("RpcClient: the extension UI handler failed; cancelling the dialog:", error);
      answer = undefined;
    }
    this.process?.write(dialogResponse(request, answer));
  }

  /* ---------- Frames and exit ---------- */

  private dispatch(frame: Record<string, unknown>): void {
    for (const listener of [...this.frameListeners]) callSafely("a frame listener", listener, frame);
    switch (frame.type) {
      case "response":
        return this.settle(frame as unknown as RpcResponse);
      case "host_tool_call":
        return this.hostTools.handleCall(frame as unknown as HostToolCallFrame);
      case "host_tool_cancel":
        return this.hostTools.handleCancel(frame as unknown as HostToolCancelFrame);
    }
    if (isExtensionUiRequest(frame)) {
      void this.answerExtensionUi(frame);
    } else if (isSessionEvent(frame)) {
      for (const listener of [...this.eventListeners]) callSafely("an event listener", listener, frame);
    }
  }

  private handleExit(exit: RpcExit): void {
    this.exit = exit;
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.reject(this.exitError(`answering "${pending.command}"`));
    }
    for (const onExit of [...this.exitListeners]) onExit();
    this.hostTools.abortAll(this.exitError("the host tool finished"));
    this.resolveExited(exit.exitCode);
  }

  private exitError(waitingFor: string): RpcProcessExitedError {
    const exit = this.exit ?? { exitCode: null, signal: null };
    return new RpcProcessExitedError(exit.exitCode, exit.signal, this.process?.stderrTail() ?? "", waitingFor);
  }
}
