import type { AgentMessage } from "../agent/types.ts";

/** The plain text of a user or custom message (what queue_update and fork lists show). */
export function messageText(message: AgentMessage): string {
  if (message.role !== "user" && message.role !== "custom") return "";
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => (block as { text: string }).text)
    .join("");
}
