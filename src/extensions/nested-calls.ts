/**
 * `ctx.executeTool()` and `ctx.tools` for an extension tool's execute (pi 1.x's
 * ExtensionToolContext). A nested call goes through the agent's one tool path
 * (validation, tool_call/tool_result hooks, the permission gate, the sandbox
 * the tool itself applies), with the id `<caller id>/<n>` and events that name
 * the caller. It never reaches the transcript: a bounded record of the calls is
 * kept as `nestedCalls` on the calling tool's result, as codemode's are, and the
 * usage the calls report is added to that result's `usage` (pi 1.x's roll-up).
 */
import type { ToolCall, Usage } from "../ai/types.ts";
import { addUsage } from "../ai/usage.ts";
import type { AgentTool, AgentToolResult, NestedCallRecord, NestedCalls } from "../agent/types.ts";
import type { ToolCallOutcome } from "../agent/tool-execution.ts";
import type { ExtensionContext } from "./types.ts";

/** What the host offers a tool that calls other tools. */
export interface NestedToolRunner {
  /** The tools a nested call may name. */
  callableTools(): AgentTool<any>[];
  runNestedTool(
    call: ToolCall,
    parentToolCallId: string,
    signal: AbortSignal,
    onUpdate?: (partial: AgentToolResult<any>) => void,
  ): Promise<ToolCallOutcome>;
}

export interface ExecuteToolOptions {
  signal?: AbortSignal;
  onUpdate?: (partial: AgentToolResult<any>) => void;
}

/** pi's AgentToolCallOutcome: the call as run, its result, and whether it failed. */
export interface ToolCallOutcomeForExtension {
  toolCall: ToolCall;
  result: AgentToolResult<any>;
  isError: boolean;
  durationMs?: number;
}

// The session keeps a bounded record: arguments are dropped past these sizes, calls past this count.
const MAX_CALL_ARGS_BYTES = 8 * 1024;
const MAX_RECORD_ARGS_BYTES = 32 * 1024;
const MAX_CALLS = 256;

/** The calls one execution of a tool made, as its result message keeps them. */
export class NestedCallLog {
  private readonly calls: NestedCallRecord[] = [];
  private argsBytes = 0;
  private complete = true;
  private count = 0;
  private used: Usage | undefined;

  /** Adds a nested call's usage (its own nested calls' are in it already). */
  addUsage(usage: Usage | undefined): void {
    this.used = addUsage(this.used, usage);
  }

  /** The nested calls' usage, added up; undefined when none reported any. */
  usage(): Usage | undefined {
    return this.used;
  }

  nextId(parentId: string): string {
    this.count += 1;
    return `${parentId}/${this.count}`;
  }

  add(record: NestedCallRecord): void {
    if (this.calls.length >= MAX_CALLS) {
      this.complete = false;
      return;
    }
    const size = byteLength(record.arguments);
    if (size > MAX_CALL_ARGS_BYTES || this.argsBytes + size > MAX_RECORD_ARGS_BYTES) {
      this.complete = false;
      const { arguments: _dropped, ...rest } = record;
      this.calls.push(rest as NestedCallRecord);
      return;
    }
    this.argsBytes += size;
    this.calls.push(record);
  }

  record(): NestedCalls | undefined {
    return this.count === 0 ? undefined : { calls: [...this.calls], complete: this.complete };
  }
}

/** The first text of a failed result, kept short: the record holds no results. */
function errorText(result: AgentToolResult<any>): string {
  const text = result.content?.find((block) => block.type === "text")?.text ?? "";
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

function byteLength(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? "");
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * The context one execution of a tool receives: the extension context with
 * `tools` and `executeTool` added (the rest of the context is reached through
 * its prototype, so its getters stay live).
 */
export function toolExecutionContext(
  base: ExtensionContext,
  runner: NestedToolRunner,
  parentToolCallId: string,
  callerSignal: AbortSignal | undefined,
  log: NestedCallLog,
): ExtensionContext {
  const context = Object.create(base) as ExtensionContext & {
    tools: readonly AgentTool<any>[];
    executeTool(name: string, args: unknown, options?: ExecuteToolOptions): Promise<ToolCallOutcomeForExtension>;
  };
  Object.defineProperty(context, "tools", { get: () => runner.callableTools(), enumerable: true });
  context.executeTool = async (name, args, options = {}) => {
    const toolCall: ToolCall = { type: "toolCall", id: log.nextId(parentToolCallId), name: String(name), arguments: (args ?? {}) as Record<string, any> };
    const signal = options.signal ?? callerSignal ?? new AbortController().signal;
    let outcome: ToolCallOutcome;
    try {
      outcome = await runner.runNestedTool(toolCall, parentToolCallId, signal, options.onUpdate);
    } catch (error) {
      // The path never throws; this is a last guard so the caller always gets a result.
      outcome = { result: { content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }], details: undefined }, isError: true };
    }
    const status = outcome.blocked ? "blocked" : signal.aborted ? "cancelled" : outcome.isError ? "error" : "ok";
    log.addUsage(outcome.result.usage);
    log.add({
      id: toolCall.id,
      name: toolCall.name,
      status,
      arguments: toolCall.arguments,
      ...(outcome.durationMs === undefined ? {} : { durationMs: outcome.durationMs }),
      ...(status === "ok" ? {} : { error: errorText(outcome.result) }),
    });
    return { toolCall, result: outcome.result, isError: outcome.isError, ...(outcome.durationMs === undefined ? {} : { durationMs: outcome.durationMs }) };
  };
  return context;
}
