/**
 * Builders for session paths in compaction tests: entries linked by parentId,
 * with messages of a chosen size so token estimates are predictable
 * (4 characters = 1 token).
 */
import type { AgentMessage } from "../../../src/agent/types.ts";
import type { AssistantMessage, ToolCall, ToolResultMessage, Usage, UserMessage } from "../../../src/ai/types.ts";
import type { CompactionEntry, SessionEntry, SessionMessageEntry } from "../../../src/session/types.ts";
import "../../../src/agent/messages.ts";

export function usage(input: number, output = 0): Usage {
  return {
    input,
    output,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: input + output,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** Text that estimates to exactly `tokens` tokens. */
export function textOfTokens(tokens: number, fill = "x"): string {
  return fill.repeat(tokens * 4);
}

export function userMessage(text: string): UserMessage {
  return { role: "user", content: text, timestamp: 1 };
}

export function assistantMessage(
  content: AssistantMessage["content"] | string,
  options: { usage?: Usage; stopReason?: AssistantMessage["stopReason"]; errorMessage?: string } = {},
): AssistantMessage {
  return {
    role: "assistant",
    content: typeof content === "string" ? [{ type: "text", text: content }] : content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "test-model",
    usage: options.usage ?? usage(0),
    stopReason: options.stopReason ?? (typeof content !== "string" && content.some((b) => b.type === "toolCall") ? "toolUse" : "stop"),
    errorMessage: options.errorMessage,
    timestamp: 2,
  };
}

export function toolCall(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

export function toolResult(toolCallId: string, text: string, isError = false, toolName = "read"): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName, content: [{ type: "text", text }], isError, timestamp: 3 };
}

/** Appends entries to a path, linking each to the one before. */
export class PathBuilder {
  readonly entries: SessionEntry[] = [];
  private next = 0;

  private base(): { id: string; parentId: string | null; timestamp: string } {
    const id = (++this.next).toString(16).padStart(8, "0");
    const parentId = this.entries.length > 0 ? this.entries[this.entries.length - 1].id : null;
    return { id, parentId, timestamp: new Date(Date.UTC(2024, 0, 1, 0, 0, this.next)).toISOString() };
  }

  message(message: AgentMessage): SessionMessageEntry {
    const entry: SessionMessageEntry = { type: "message", ...this.base(), message };
    this.entries.push(entry);
    return entry;
  }

  user(text: string) {
    return this.message(userMessage(text));
  }

  assistant(...args: Parameters<typeof assistantMessage>) {
    return this.message(assistantMessage(...args));
  }

  toolResult(...args: Parameters<typeof toolResult>) {
    return this.message(toolResult(...args));
  }

  modelChange() {
    const entry: SessionEntry = { type: "model_change", ...this.base(), provider: "anthropic", modelId: "other" };
    this.entries.push(entry);
    return entry;
  }

  label(targetId: string) {
    const entry: SessionEntry = { type: "label", ...this.base(), targetId, label: "here" };
    this.entries.push(entry);
    return entry;
  }

  compaction(summary: string, firstKeptEntryId: string, details?: unknown) {
    const entry: CompactionEntry = { type: "compaction", ...this.base(), summary, firstKeptEntryId, tokensBefore: 1000, details };
    this.entries.push(entry);
    return entry;
  }
}
