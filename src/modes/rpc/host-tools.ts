/**
 * Tools implemented by the RPC host (seed 001): the agent calls them like any
 * tool; xcsh sends `host_tool_call`, streams the host's `host_tool_update`s as
 * tool updates, finishes on `host_tool_result`, and sends `host_tool_cancel`
 * when the call is aborted.
 */
import type { AgentTool, AgentToolResult } from "../../agent/types.ts";
import type { ImageContent, TextContent } from "../../ai/types.ts";
import type { HostToolResultFrame, HostToolUpdateFrame, RpcHostToolDefinition } from "./rpc-types.ts";

interface PendingCall {
  resolve: (result: AgentToolResult<unknown>) => void;
  reject: (error: Error) => void;
  onUpdate?: (partial: AgentToolResult<unknown>) => void;
}

type Content = (TextContent | ImageContent)[];

function asContent(value: unknown): Content {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (block): block is TextContent | ImageContent =>
      typeof block === "object" && block !== null && ((block as { type?: string }).type === "text" || (block as { type?: string }).type === "image"),
  );
}

export class HostToolBridge {
  private readonly pending = new Map<string, PendingCall>();
  private callCounter = 0;
  private cancelCounter = 0;
  /** Set once the host has gone away (stdin closed): no call can be answered any more. */
  private closedReason: string | undefined;

  constructor(private readonly send: (frame: object) => void) {}

  /** Checks host definitions; returns agent tools or what is wrong. */
  createTools(definitions: unknown): { tools: AgentTool<any>[] } | { error: string } {
    if (!Array.isArray(definitions)) return { error: "tools must be an array of {name, description, parameters}" };
    const names = new Set<string>();
    const tools: AgentTool<any>[] = [];
    for (const [index, raw] of definitions.entries()) {
      const definition = raw as Partial<RpcHostToolDefinition>;
      if (typeof definition?.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(definition.name)) {
        return { error: `tools[${index}].name must be 1-64 letters, digits, "_" or "-"` };
      }
      if (names.has(definition.name)) return { error: `tools[${index}]: duplicate tool name "${definition.name}"` };
      if (typeof definition.parameters !== "object" || definition.parameters === null) {
        return { error: `tools[${index}].parameters must be a JSON Schema object` };
      }
      names.add(definition.name);
      tools.push(this.toolFor(definition as RpcHostToolDefinition));
    }
    return { tools };
  }

  private toolFor(definition: RpcHostToolDefinition): AgentTool<any> {
    return {
      name: definition.name,
      label: definition.label ?? definition.name,
      description: definition.description ?? "",
      parameters: definition.parameters as never,
      execute: (toolCallId, args, signal, onUpdate) => this.call(definition.name, toolCallId, args as Record<string, unknown>, signal, onUpdate),
    };
  }

  private call(
    toolName: string,
    toolCallId: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
    onUpdate: ((partial: AgentToolResult<unknown>) => void) | undefined,
  ): Promise<AgentToolResult<unknown>> {
    if (this.closedReason) return Promise.reject(new Error(this.closedReason));
    const id = `host_${++this.callCounter}`;
    return new Promise((resolve, reject) => {
      const cleanup = () => signal?.removeEventListener("abort", onAbort);
      const onAbort = () => {
        if (!this.pending.delete(id)) return;
        cleanup();
        this.send({ type: "host_tool_cancel", id: `host_cancel_${++this.cancelCounter}`, targetId: id });
        reject(new Error(`Host tool "${toolName}" was cancelled`));
      };
      if (signal?.aborted) return reject(new Error(`Host tool "${toolName}" was cancelled`));
      this.pending.set(id, {
        resolve: (result) => {
          cleanup();
          resolve(result);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
        onUpdate,
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.send({ type: "host_tool_call", id, toolCallId, toolName, arguments: args });
    });
  }

  /** A host_tool_update frame; false when no call has that id. */
  handleUpdate(frame: HostToolUpdateFrame): boolean {
    const pending = this.pending.get(frame.id);
    if (!pending) return false;
    pending.onUpdate?.({ content: asContent(frame.partialResult?.content), details: frame.partialResult?.details });
    return true;
  }

  /** A host_tool_result frame; false when no call has that id. */
  handleResult(frame: HostToolResultFrame): boolean {
    const pending = this.pending.get(frame.id);
    if (!pending) return false;
    this.pending.delete(frame.id);
    const content = asContent(frame.result?.content);
    if (frame.isError) {
      const text = content.map((block) => (block.type === "text" ? block.text : "")).join("\n") || "The host tool failed";
      pending.reject(new Error(text));
    } else {
      pending.resolve({ content, details: frame.result?.details });
    }
    return true;
  }

  /** The host went away: fails every waiting call now, and every later call at once. */
  close(reason: string): void {
    this.closedReason = reason;
    this.rejectAll(reason);
  }

  /** Fails every call still waiting (the host went away). */
  rejectAll(reason: string): void {
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      pending.reject(new Error(reason));
    }
  }
}
