/**
 * Session events as ACP `session/update`s: streamed text and thinking become
 * message and thought chunks; a tool call is announced (`tool_call`, pending)
 * when it is about to run and finished (`tool_call_update`, completed or failed,
 * with its content) when it ends. `replayUpdates` turns a stored conversation
 * into the same updates, each tool call once with its final status (a codemode
 * script's calls after it, from its stored `nestedCalls`), for `session/load`.
 */
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk";
import type { AgentMessage } from "../../agent/types.ts";
import type { AssistantMessage, ImageContent, TextContent, ToolResultMessage } from "../../ai/types.ts";
import type { AgentSessionEvent } from "../../core/session-events.ts";
import { diffContent, resultContent, toolKind, toolLocations, toolTitle } from "./tool-calls.ts";
import { nestedCallOutcome, storedNestedCalls } from "../nested-calls.ts";

/** The diff an edit or write made, when the whole file was read before and after it. */
export type DiffLookup = (toolCallId: string) => { oldText: string | null; newText: string } | undefined;

export function toolCallStart(toolCallId: string, toolName: string, args: Record<string, unknown>, cwd: string): SessionUpdate {
  return {
    sessionUpdate: "tool_call",
    toolCallId,
    title: toolTitle(toolName, args),
    kind: toolKind(toolName),
    status: "pending",
    locations: toolLocations(toolName, args, cwd),
    rawInput: args,
  };
}

function finishedContent(toolName: string, args: Record<string, unknown>, cwd: string, blocks: (TextContent | ImageContent)[] | undefined, isError: boolean, whole: ReturnType<DiffLookup>): ToolCallContent[] {
  // A failed edit shows why it failed; a successful one shows what changed.
  if (!isError && (toolName === "edit" || toolName === "write")) {
    const diff = diffContent(toolName, args, cwd, whole);
    if (diff.length > 0) return diff;
  }
  return resultContent(blocks);
}

/** Live updates for one session; keeps the arguments of calls in flight for their final update. */
export class UpdateTranslator {
  private readonly args = new Map<string, Record<string, unknown>>();
  /** Calls whose output is a client terminal: their streamed output is not repeated as text. */
  private readonly terminalCalls = new Set<string>();

  constructor(
    private readonly cwd: string,
    private readonly diffOf: DiffLookup,
  ) {}

  /** The arguments of a call in flight (until its end is translated). */
  argsOf(toolCallId: string): Record<string, unknown> | undefined {
    return this.args.get(toolCallId);
  }

  markTerminal(toolCallId: string): void {
    this.terminalCalls.add(toolCallId);
  }

  translate(event: AgentSessionEvent): SessionUpdate[] {
    switch (event.type) {
      case "message_update": {
        const delta = event.assistantMessageEvent;
        if (delta.type === "text_delta" && delta.delta) return [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: delta.delta } }];
        if (delta.type === "thinking_delta" && delta.delta) return [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: delta.delta } }];
        return [];
      }
      case "tool_execution_start": {
        const args = (event.args ?? {}) as Record<string, unknown>;
        this.args.set(event.toolCallId, args);
        const start = toolCallStart(event.toolCallId, event.toolName, args, this.cwd);
        // A codemode script's call is a tool call of its own (it may need permission); _meta names the script's call, so a client can group them.
        return [event.parentToolCallId === undefined ? start : ({ ...start, _meta: { parentToolCallId: event.parentToolCallId } } as SessionUpdate)];
      }
      case "tool_execution_update": {
        if (this.terminalCalls.has(event.toolCallId)) return [];
        const content = resultContent(event.partialResult?.content);
        return content.length > 0 ? [{ sessionUpdate: "tool_call_update", toolCallId: event.toolCallId, status: "in_progress", content }] : [];
      }
      case "tool_execution_end": {
        const args = this.args.get(event.toolCallId) ?? {};
        this.args.delete(event.toolCallId);
        const terminal = this.terminalCalls.delete(event.toolCallId);
        const status = event.isError ? "failed" : "completed";
        const rawOutput = event.result?.content;
        if (terminal && !event.isError) return [{ sessionUpdate: "tool_call_update", toolCallId: event.toolCallId, status, rawOutput }];
        const content = finishedContent(event.toolName, args, this.cwd, event.result?.content, event.isError, this.diffOf(event.toolCallId));
        return [{ sessionUpdate: "tool_call_update", toolCallId: event.toolCallId, status, content, rawOutput }];
      }
      default:
        return [];
    }
  }
}

function userChunks(content: string | (TextContent | ImageContent)[]): SessionUpdate[] {
  if (typeof content === "string") return content ? [{ sessionUpdate: "user_message_chunk", content: { type: "text", text: content } }] : [];
  return content.map((block): SessionUpdate =>
    block.type === "text"
      ? { sessionUpdate: "user_message_chunk", content: { type: "text", text: block.text } }
      : { sessionUpdate: "user_message_chunk", content: { type: "image", data: block.data, mimeType: block.mimeType } },
  );
}

/** A stored conversation as the updates a client needs to show it again. */
export function replayUpdates(messages: readonly AgentMessage[], cwd: string): SessionUpdate[] {
  const results = new Map<string, ToolResultMessage>();
  for (const message of messages) if (message.role === "toolResult") results.set((message as ToolResultMessage).toolCallId, message as ToolResultMessage);
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    if (message.role === "user") updates.push(...userChunks((message as { content: string | (TextContent | ImageContent)[] }).content));
    else if (message.role === "assistant") {
      for (const block of (message as AssistantMessage).content) {
        if (block.type === "text" && block.text) updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: block.text } });
        else if (block.type === "thinking" && block.thinking) updates.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: block.thinking } });
        else if (block.type === "toolCall") {
          const result = results.get(block.id);
          const start = toolCallStart(block.id, block.name, block.arguments ?? {}, cwd);
          // No result: the run was cut off before the tool finished.
          const status = !result || result.isError ? "failed" : "completed";
          const content = result ? finishedContent(block.name, block.arguments ?? {}, cwd, result.content, result.isError, undefined) : [];
          updates.push({ ...start, status, content, ...(result ? { rawOutput: result.content } : {}) } as SessionUpdate);
          // A script's calls, each naming the script's call in _meta as they did live.
          for (const call of result ? storedNestedCalls(result) : []) {
            const args = (call.arguments ?? {}) as Record<string, unknown>;
            const outcome = nestedCallOutcome(call);
            const content = outcome.text ? finishedContent(call.name, args, cwd, [{ type: "text", text: outcome.text }], outcome.isError, undefined) : [];
            const nested = { ...toolCallStart(call.id, call.name, args, cwd), status: outcome.isError ? "failed" : "completed", content, _meta: { parentToolCallId: block.id } };
            updates.push(nested as SessionUpdate);
          }
        }
      }
    } else if (message.role === "bashExecution") {
      const run = message as unknown as { command: string; output: string };
      updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text: `!${run.command}\n${run.output ?? ""}` } });
    }
  }
  return updates;
}
