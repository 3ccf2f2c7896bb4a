/**
 * The host side of the host-tool sub-protocol (seed 001): runs the host's
 * `execute` for each host_tool_call, streams its update() calls as
 * host_tool_update, answers with host_tool_result, and aborts the call's
 * signal on host_tool_cancel.
 */
import type { HostToolResult, RpcHostTool } from "./rpc-client-types.ts";
import type { HostToolCallFrame, HostToolCancelFrame, HostToolResultFrame, RpcHostToolDefinition } from "./rpc-types.ts";

/** What the model sees of a host tool: everything but the code. */
export function hostToolDefinition(tool: RpcHostTool): RpcHostToolDefinition {
  return {
    name: tool.name,
    ...(tool.label === undefined ? {} : { label: tool.label }),
    description: tool.description,
    parameters: tool.parameters,
  };
}

function asResult(outcome: HostToolResult | string): HostToolResultFrame["result"] {
  if (typeof outcome === "string") return { content: [{ type: "text", text: outcome }] };
  return outcome.details === undefined ? { content: outcome.content } : { content: outcome.content, details: outcome.details };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}

export class HostToolRunner {
  private tools = new Map<string, RpcHostTool>();
  /** Calls whose execute is still running, by the server's call id. */
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly send: (frame: object) => void) {}

  /** Replaces the whole set, as set_host_tools does on the server. */
  replace(tools: readonly RpcHostTool[]): void {
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
  }

  handleCall(frame: HostToolCallFrame): void {
    void this.run(frame);
  }

  handleCancel(frame: HostToolCancelFrame): void {
    const controller = this.running.get(frame.targetId);
    if (!controller) return;
    // The server has already settled the call; nothing more is sent for it.
    this.running.delete(frame.targetId);
    controller.abort(new Error("The host tool call was cancelled"));
  }

  /** The server went away: every running execute is told to stop. */
  abortAll(reason: Error): void {
    for (const controller of this.running.values()) controller.abort(reason);
    this.running.clear();
  }

  private async run(frame: HostToolCallFrame): Promise<void> {
    const tool = this.tools.get(frame.toolName);
    if (!tool) {
      this.send({
        type: "host_tool_result",
        id: frame.id,
        result: { content: [{ type: "text", text: `This host has no tool named "${frame.toolName}"` }] },
        isError: true,
      } satisfies HostToolResultFrame);
      return;
    }
    const controller = new AbortController();
    this.running.set(frame.id, controller);
    const stillWanted = () => this.running.get(frame.id) === controller;
    let result: HostToolResultFrame;
    try {
      const outcome = await tool.execute(frame.arguments ?? {}, {
        signal: controller.signal,
        toolCallId: frame.toolCallId,
        update: (partial) => {
          if (stillWanted()) this.send({ type: "host_tool_update", id: frame.id, partialResult: asResult(partial) });
        },
      });
      result = { type: "host_tool_result", id: frame.id, result: asResult(outcome) };
    } catch (error) {
      result = { type: "host_tool_result", id: frame.id, result: { content: [{ type: "text", text: errorText(error) }] }, isError: true };
    }
    if (!stillWanted()) return;
    this.running.delete(frame.id);
    this.send(result);
  }
}
