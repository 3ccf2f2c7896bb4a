/**
 * GitHub Copilot's per-request headers, which depend on the conversation and so cannot
 * be configured once: `X-Initiator` tells Copilot whether the user started this call
 * (the last message is the user's) or the agent did (a follow-up after tool results),
 * which decides whether it counts as a premium request; `Copilot-Vision-Request` must
 * accompany any image. Models ask for them with `compat.copilotRequestHeaders`.
 */
import type { Context, Model } from "../types.ts";

export function conversationHeaders(model: Model, context: Context): Record<string, string> | undefined {
  if (!model.compat?.copilotRequestHeaders) return undefined;
  const last = context.messages[context.messages.length - 1];
  const headers: Record<string, string> = { "X-Initiator": last && last.role !== "user" ? "agent" : "user" };
  const hasImage = context.messages.some(
    (message) => message.role !== "assistant" && Array.isArray(message.content) && message.content.some((part) => part.type === "image"),
  );
  if (hasImage) headers["Copilot-Vision-Request"] = "true";
  return headers;
}
