import type { AgentMessage } from "../agent/types.ts";
import type { ImageContent } from "../ai/types.ts";

/** The plain text of a user or custom message (what queue_update and fork lists show). */
export function messageText(message: AgentMessage): string {
  if (message.role !== "user" && message.role !== "custom") return "";
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => (block as { text: string }).text)
    .join("");
}

/** The images a user message carries, in order. */
export function messageImages(message: AgentMessage): ImageContent[] {
  if (message.role !== "user" || typeof message.content === "string") return [];
  return message.content.filter((block): block is ImageContent => block.type === "image");
}

/** The text of the newest assistant message that has any; null when none has. */
export function lastAssistantText(messages: readonly AgentMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role !== "assistant") continue;
    const text = message.content
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("");
    if (text) return text;
  }
  return null;
}
