/**
 * Running the tool calls of one assistant message. Every call ends in a tool
 * result, whatever happens: an unknown tool, bad arguments, a block by a hook,
 * a throw, an abort or an interruption all become error results the model can
 * read. Calls run in parallel by default; results are delivered in the order
 * the model wrote the calls.
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
}

export interface ToolBatchResult {
  results: ToolResultMessage[];
  /** Every result asked to stop after this batch. */
  terminate: boolean;
}

type Emit = (event: AgentEvent) => Promise<void>;

interface Outcome {
  result: AgentToolResult<any>;
  isError: boolean;
  /** How long `execute()` took; absent when the tool never ran (not found, invalid, blocked). */
  durationMs?: number;
}

const INTERRUPTED = "Interrupted: the user sent a new message, so this tool call was not completed.";
const SKIPPED = "Skipped: the user sent a new message before this tool call ran.";

function textResult(text: string): AgentToolResult<undefined> {
  return { content: [{ type: "text", text }], details: undefined };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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

  const runOne = async (call: ToolCall): Promise<Outcome> => {
    await emit({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments });
    const outcome = await prepareAndRun(call);
    await emit({
      type: "tool_execution_end",
      toolCallId: call.id,
      toolName: call.name,
      result: outcome.result,
      isError: outcome.isError,
      ...(outcome.durationMs !== undefined ? { durationMs: outcome.durationMs } : {}),
    });
    return outcome;
  };

  const prepareAndRun = async (call: ToolCall): Promise<Outcome> => {
    if (immediate && (interrupted || config.hasPendingSteering?.())) return { result: textResult(SKIPPED), isError: true };
    const tool = context.tools?.find((candidate) => candidate.name === call.name);
    if (!tool) {
      const names = context.tools?.map((candidate) => candidate.name).join(", ") || "none";
      return { result: textResult(`Tool "${call.name}" not found. Available tools: ${names}.`), isError: true };
    }
    const validation = validateToolArguments(tool, call);
    if (!validation.ok) return { result: textResult(validation.error), isError: true };
    const hookContext: BeforeToolCallContext = { assistantMessage: assistant, toolCall: call, args: validation.args, context };
    try {
      // A hook that never settles must not outlive an abort: the call is then blocked as aborted.
      for (const hook of [config.beforeToolCall, config.permissionGate]) {
        const verdict = await untilAborted(hook?.(hookContext, batch.signal), batch.signal);
        if (verdict?.block) return { result: textResult(verdict.reason ?? `Tool call "${call.name}" was blocked.`), isError: true };
      }
    } catch (error) {
      return { result: textResult(`Tool call "${call.name}" was blocked: ${errorText(error)}`), isError: true };
    }
    const executed = await run(tool, call, validation.args);
    return finalize(hookContext, executed);
  };

  const run = async (tool: AgentTool<any>, call: ToolCall, args: unknown): Promise<Outcome> => {
    if (batch.signal.aborted) return { result: textResult(interrupted ? SKIPPED : "Aborted before the tool ran."), isError: true };
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      const result = await tool.execute(call.id, args as never, batch.signal, (partialResult) => {
        void emit({ type: "tool_execution_update", toolCallId: call.id, toolName: call.name, args: call.arguments, partialResult });
      });
      if (interrupted) return { result: withNotice(result, INTERRUPTED), isError: true, durationMs: took() };
      return { result, isError: false, durationMs: took() };
    } catch (error) {
      const text = interrupted ? `${INTERRUPTED}\n${errorText(error)}` : errorText(error);
      return { result: textResult(text), isError: true, durationMs: took() };
    }
  };

  const finalize = async (hookContext: BeforeToolCallContext, outcome: Outcome): Promise<Outcome> => {
    if (!config.afterToolCall) return outcome;
    try {
      const patch = await untilAborted(config.afterToolCall({ ...hookContext, result: outcome.result, isError: outcome.isError }, batch.signal), batch.signal);
      if (!patch) return outcome;
      return {
        result: {
          content: patch.content ?? outcome.result.content,
          details: patch.details !== undefined ? patch.details : outcome.result.details,
          terminate: patch.terminate ?? outcome.result.terminate,
        },
        isError: patch.isError ?? outcome.isError,
        ...(outcome.durationMs !== undefined ? { durationMs: outcome.durationMs } : {}),
      };
    } catch {
      return outcome;
    }
  };

  try {
    const outcomes = config.toolExecution === "sequential" ? await runSequential(calls, runOne) : await runParallel(calls, context, runOne);
    const results: ToolResultMessage[] = calls.map((call, index) => ({
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: outcomes[index].result.content,
      details: outcomes[index].result.details,
      isError: outcomes[index].isError,
      timestamp: Date.now(),
    }));
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

async function runSequential(calls: ToolCall[], runOne: (call: ToolCall) => Promise<Outcome>): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
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
  runOne: (call: ToolCall) => Promise<Outcome>,
): Promise<Outcome[]> {
  const running: Promise<Outcome>[] = [];
  for (const call of calls) {
    const tool = context.tools?.find((candidate) => candidate.name === call.name);
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
