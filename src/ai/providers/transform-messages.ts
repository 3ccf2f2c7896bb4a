/**
 * Makes a conversation acceptable to the API about to receive it. History may
 * come from another provider or model (signatures that API cannot verify), may
 * hold a failed or aborted reply, or a tool call whose result never came (an
 * abort between call and result). APIs reject all of these, so they are mended
 * here, the same way for every provider.
 */
import type { AssistantMessage, Message, Model, ToolCall, ToolResultMessage } from "../types.ts";

export interface TransformOptions {
  /** Rewrites tool-call ids into a form the API accepts; applied to calls and results alike. */
  normalizeToolCallId?: (id: string) => string;
}

function sameModel(message: AssistantMessage, model: Model): boolean {
  return message.provider === model.provider && message.api === model.api && message.model === model.id;
}

/** Assistant content as this model may see it: foreign signatures dropped, foreign thinking made text. */
function adaptAssistant(message: AssistantMessage, model: Model, normalizeId: (id: string) => string): AssistantMessage {
  const own = sameModel(message, model);
  const content: AssistantMessage["content"] = [];
  for (const block of message.content) {
    if (block.type === "thinking") {
      if (own) content.push(block);
      else if (!block.redacted && block.thinking.trim()) content.push({ type: "text", text: block.thinking });
    } else if (block.type === "text") {
      content.push(own ? block : { type: "text", text: block.text });
    } else {
      const call: ToolCall = { type: "toolCall", id: normalizeId(block.id), name: block.name, arguments: block.arguments };
      if (own && block.thoughtSignature) call.thoughtSignature = block.thoughtSignature;
      content.push(call);
    }
  }
  return { ...message, content };
}

function missingResult(call: ToolCall): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: "No result was recorded for this tool call (it was interrupted)." }],
    isError: true,
    timestamp: Date.now(),
  };
}

export function transformMessages(messages: Message[], model: Model, options: TransformOptions = {}): Message[] {
  const normalizeId = options.normalizeToolCallId ?? ((id: string) => id);
  const out: Message[] = [];
  let awaiting: ToolCall[] = [];

  const flushMissing = () => {
    for (const call of awaiting) out.push(missingResult(call));
    awaiting = [];
  };

  for (const message of messages) {
    // A session written by pi 0.87 holds role "system" messages (its prompt and
    // tools). xcsh sends its own system prompt, so one that slipped through a
    // custom convertToLlm must not reach the API as a conversation message.
    if ((message as { role: string }).role === "system") continue;
    if (message.role === "assistant") {
      flushMissing();
      // A failed or aborted reply carries no answer the model should build on.
      if (message.stopReason === "error" || message.stopReason === "aborted") continue;
      const adapted = adaptAssistant(message, model, normalizeId);
      out.push(adapted);
      awaiting = adapted.content.filter((block): block is ToolCall => block.type === "toolCall");
    } else if (message.role === "toolResult") {
      const id = normalizeId(message.toolCallId);
      const index = awaiting.findIndex((call) => call.id === id);
      // A result whose call was dropped (failed reply) would be rejected as orphaned.
      if (index === -1) continue;
      awaiting.splice(index, 1);
      out.push({ ...message, toolCallId: id });
    } else {
      flushMissing();
      out.push(message);
    }
  }
  flushMissing();
  return out;
}
