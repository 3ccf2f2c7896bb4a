/**
 * Running the tool calls of one assistant message. Every call ends in a tool
 * result, whatever happens: an unknown tool, bad arguments, a block by a hook,
 * a throw, an abort or an interruption all become error results the model can
 * read. Calls run in parallel by default; results are delivered in the order
 * the model wrote the calls. runToolCall is the single path of one call, which
 * the calls a codemode script makes take too (Agent.runNestedToolCall).
 */
import type { AssistantMessage, ToolCall, ToolResultMessage } from "../ai/types.ts";
import type {
  AfterToolCallContext,
  AfterToolCallResult,
  AgentContext,
  AgentEvent,
  AgentTool,
  AgentToolResult,
  BeforeToolCallContext,
  BeforeToolCallResult,
  InterruptMode,
  ToolExecutionMode,
} from "./types.ts";
import { validateToolArguments } from "./validate-arguments.ts";

export interface ToolExecutionConfig {
  toolExecution?: ToolExecutionMode;
  interruptMode?: InterruptMode;
  /** True when steering is waiting (checked before each call in immediate mode). */
  hasPendingSteering?: () => boolean;
  /** Subscribes to steering arrivals (immediate mode interrupts running calls). */
  onSteeringQueued?: (listener: () => void) => () => void;
  beforeToolCall?: (context: BeforeToolCallContext, signal?: AbortSignal) => Promise<BeforeToolCallResult | undefined>;
  /**
   * The mode's own check, after beforeToolCall (unless that blocked): a client's
   * permission (ACP). Extensions replace beforeToolCall; they cannot replace this.
   */
  permissionGate?: (context: BeforeToolCallContext, signal?: AbortSignal) => Promise<BeforeToolCallResult | undefined>;
  afterToolCall?: (context: AfterToolCallContext, signal?: AbortSignal) => Promise<AfterToolCallResult | undefined>;
  /**
   * The host's last step on every result, after the tool_result hook so what a hook put in
   * passes it too (core scales images here). Not an extension's to replace; a failure keeps the result.
   */
  prepareToolResult?: (result: AgentToolResult<any>) => Promise<AgentToolResult<any>>;
}

export interface ToolBatchResult {
  results: ToolResultMessage[];
  /** Every result asked to stop after this batch. */
  terminate: boolean;
}

type Emit = (event: AgentEvent) => Promise<void>;

export interface ToolCallOutcome {
  result: AgentToolResult<any>;
  isError: boolean;
  /** How long the tool's execute() took (monotonic clock); absent when the tool never ran. */
  durationMs?: number;
  /** A hook or the permission gate refused the call. */
  blocked?: boolean;
}

const INTERRUPTED = "Interrupted: the user sent a new message, so this tool call was not completed.";
const SKIPPED = "Skipped: the user sent a new message before this tool call ran.";

function textResult(text: string): AgentToolResult<undefined> {
  return { content: [{ type: "text", text }], details: undefined };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** How one call is run: its place in a batch, or the tool call that made it. */
export interface ToolCallRun {
  /** The assistant message the call answers (for a nested call: the one whose tool made it). */
  assistant: AssistantMessage;
  context: AgentContext;
  /** The tools this call may name; the context's (the model's) by default. */
  tools?: readonly AgentTool<any>[];
  config: ToolExecutionConfig;
  signal: AbortSignal;
  emit: Emit;
  /** Set for a call a running tool made (a codemode script's): its events carry it. */
  parentToolCallId?: string;
  /** Also receives the tool's partial results (the calling tool's own listener, for a nested call). */
  onUpdate?: (partialResult: AgentToolResult<any>) => void;
  /** True once steering interrupted the batch (immediate mode): results say so. */
  interrupted?: () => boolean;
  /** True when the call is to be skipped before it starts (immediate mode, steering waiting). */
  skipNow?: () => boolean;
}

/**
 * The one path every tool call takes, the model's and a script's alike: lookup,
 * argument validation, the tool_call hook and the mode's permission gate, the
 * tool itself, the tool_result hook, and the tool_execution_start/end events.
 * Never throws: every failure is an error outcome.
 */
export async function runToolCall(call: ToolCall, run: ToolCallRun): Promise<ToolCallOutcome> {
  const parent = run.parentToolCallId === undefined ? {} : { parentToolCallId: run.parentToolCallId };
  await run.emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments, ...parent });
  const outcome = await prepareAndRun(call, run);
  await run.emit({
    type: "tool_execution_end",
    toolCallId: call.id,
    toolName: call.name,
    result: outcome.result,
    isError: outcome.isError,
    ...(outcome.durationMs === undefined ? {} : { durationMs: outcome.durationMs }),
    ...parent,
  });
  return outcome;
}

async function prepareAndRun(call: ToolCall, run: ToolCallRun): Promise<ToolCallOutcome> {
  if (run.skipNow?.()) return { result: textResult(SKIPPED), isError: true };
  const tools = run.tools ?? run.context.tools ?? [];
  const tool = findTool(tools, call.name);
  if (!tool) {
    const names = tools.map((candidate) => candidate.name).join(", ") || "none";
    return { result: textResult(`Tool "${call.name}" not found. Available tools: ${names}.`), isError: true };
  }
  const validation = validateToolArguments(tool, call);
  if (!validation.ok) return { result: textResult(validation.error), isError: true };
  const hookContext: BeforeToolCallContext = {
    assistantMessage: run.assistant,
    toolCall: call,
    args: validation.args,
    context: run.context,
    ...(run.parentToolCallId === undefined ? {} : { parentToolCallId: run.parentToolCallId }),
  };
  try {
    // A hook that never settles must not outlive an abort: the call is then blocked as aborted.
    for (const hook of [run.config.beforeToolCall, run.config.permissionGate]) {
      const verdict = await untilAborted(hook?.(hookContext, run.signal), run.signal);
      if (verdict?.block) return { result: textResult(verdict.reason ?? `Tool call "${call.name}" was blocked.`), isError: true, blocked: true };
    }
  } catch (error) {
    return { result: textResult(`Tool call "${call.name}" was blocked: ${errorText(error)}`), isError: true, blocked: true };
  }
  const executed = await execute(tool, call, validation.args, run);
  return prepare(await finalize(hookContext, executed, run), run);
}

async function prepare(outcome: ToolCallOutcome, run: ToolCallRun): Promise<ToolCallOutcome> {
  if (!run.config.prepareToolResult) return outcome;
  try {
    return { ...outcome, result: await run.config.prepareToolResult(outcome.result) };
  } catch {
    return outcome;
  }
}

async function execute(tool: AgentTool<any>, call: ToolCall, args: unknown, run: ToolCallRun): Promise<ToolCallOutcome> {
  const interrupted = () => run.interrupted?.() === true;
  if (run.signal.aborted) return { result: textResult(interrupted() ? SKIPPED : "Aborted before the tool ran."), isError: true };
  const began = performance.now();
  const took = () => Math.round(performance.now() - began);
  const parent = run.parentToolCallId === undefined ? {} : { parentToolCallId: run.parentToolCallId };
  try {
    const result = await tool.execute(call.id, args as never, run.signal, (partialResult) => {
      void run.emit({ type: "tool_execution_update", toolCallId: call.id, toolName: call.name, args: call.arguments, partialResult, ...parent });
      try {
        run.onUpdate?.(partialResult);
      } catch {
        // A caller's listener that throws must not end the tool it listens to.
      }
    });
    const durationMs = took();
    if (interrupted()) return { result: withNotice(result, INTERRUPTED), isError: true, durationMs };
    return { result, isError: result.isError === true, durationMs };
  } catch (error) {
    const text = interrupted() ? `${INTERRUPTED}\n${errorText(error)}` : errorText(error);
    return { result: textResult(text), isError: true, durationMs: took() };
  }
}

async function finalize(hookContext: BeforeToolCallContext, outcome: ToolCallOutcome, run: ToolCallRun): Promise<ToolCallOutcome> {
  if (!run.config.afterToolCall) return outcome;
  try {
    const patch = await untilAborted(run.config.afterToolCall({ ...hookContext, result: outcome.result, isError: outcome.isError }, run.signal), run.signal);
    if (!patch) return outcome;
    const { structuredContent: _kept, ...rest } = outcome.result;
    // New content without a structured result drops the old one, which may no longer match it.
    const structured = "structuredContent" in patch ? patch.structuredContent : patch.content ? undefined : outcome.result.structuredContent;
    return {
      result: {
        ...rest,
        ...(structured === undefined ? {} : { structuredContent: structured }),
        content: patch.content ?? outcome.result.content,
        details: patch.details !== undefined ? patch.details : outcome.result.details,
        terminate: patch.terminate ?? outcome.result.terminate,
        ...((patch.usage ?? outcome.result.usage) ? { usage: patch.usage ?? outcome.result.usage } : {}),
      },
      isError: patch.isError ?? outcome.isError,
      durationMs: outcome.durationMs,
    };
  } catch {
    return outcome;
  }
}

export async function executeToolCalls(
  assistant: AssistantMessage,
  context: AgentContext,
  config: ToolExecutionConfig,
  signal: AbortSignal | undefined,
  emit: Emit,
): Promise<ToolBatchResult> {
  const calls = assistant.content.filter((block): block is ToolCall => block.type === "toolCall");
  const immediate = config.interruptMode === "immediate";

  // Immediate mode: steering that arrives mid-batch interrupts the calls still running.
  const batch = new AbortController();
  const onOuterAbort = () => batch.abort(signal?.reason);
  signal?.addEventListener("abort", onOuterAbort, { once: true });
  let interrupted = false;
  const unsubscribe =
    immediate && config.onSteeringQueued
      ? config.onSteeringQueued(() => {
          interrupted = true;
          batch.abort(new Error(INTERRUPTED));
        })
      : undefined;

  const run: ToolCallRun = {
    assistant,
    context,
    config,
    signal: batch.signal,
    emit,
    interrupted: () => interrupted,
    skipNow: () => immediate && (interrupted || config.hasPendingSteering?.() === true),
  };
  const runOne = (call: ToolCall) => runToolCall(call, run);

  try {
    const outcomes = config.toolExecution === "sequential" ? await runSequential(calls, runOne) : await runParallel(calls, context, runOne);
    const results: ToolResultMessage[] = calls.map((call, index) => {
      const { result, isError, durationMs } = outcomes[index];
      return {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: result.content,
        details: result.details,
        isError,
        // The calls a tool made on the model's behalf (codemode), kept with its result.
        ...(result.nestedCalls ? { nestedCalls: result.nestedCalls } : {}),
        // structuredContent stays on tool_execution_end and the tool_result event, out of the transcript,
        // as in pi 1.6.0: bash's would keep every output twice in the session file.
        // pi 1.6.0: how long execute() took, kept with the result (absent when the tool did not run).
        ...(durationMs === undefined ? {} : { durationMs }),
        // Model work the tool did (codemode's models.*, nested calls, MCP sampling): counted in the session's cost.
        ...(result.usage ? { usage: result.usage } : {}),
        timestamp: Date.now(),
      };
    });
    const terminate = outcomes.length > 0 && outcomes.every((outcome) => outcome.result.terminate === true);
    return { results, terminate };
  } finally {
    unsubscribe?.();
    signal?.removeEventListener("abort", onOuterAbort);
  }
}

/** The promise's value, or a rejection as soon as the signal aborts. */
function untilAborted<T>(promise: Promise<T> | undefined, signal: AbortSignal): Promise<T | undefined> {
  if (!promise) return Promise.resolve(undefined);
  if (signal.aborted) return Promise.reject(new Error("Aborted"));
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => reject(new Error("Aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function withNotice(result: AgentToolResult<any>, notice: string): AgentToolResult<any> {
  return { ...result, content: [{ type: "text", text: notice }, ...result.content] };
}

async function runSequential(calls: ToolCall[], runOne: (call: ToolCall) => Promise<ToolCallOutcome>): Promise<ToolCallOutcome[]> {
  const outcomes: ToolCallOutcome[] = [];
  for (const call of calls) outcomes.push(await runOne(call));
  return outcomes;
}

/**
 * Starts calls in source order without waiting, except that a tool marked
 * "sequential" waits for everything before it and holds back everything after.
 */
async function runParallel(
  calls: ToolCall[],
  context: AgentContext,
  runOne: (call: ToolCall) => Promise<ToolCallOutcome>,
): Promise<ToolCallOutcome[]> {
  const running: Promise<ToolCallOutcome>[] = [];
  for (const call of calls) {
    const tool = findTool(context.tools ?? [], call.name);
    if (tool?.executionMode === "sequential") {
      await Promise.all(running);
      const outcome = runOne(call);
      running.push(outcome);
      await outcome;
    } else {
      running.push(runOne(call));
    }
  }
  return Promise.all(running);
}

/** The tool a call names: by its name, else by one of its aliases. */
function findTool(tools: readonly AgentTool<any>[], name: string): AgentTool<any> | undefined {
  return tools.find((candidate) => candidate.name === name) ?? tools.find((candidate) => candidate.aliases?.includes(name) === true);
}
