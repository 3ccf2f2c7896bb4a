/**
 * The limits a conversation is held to (virtual-models.md, "Selection and dispatch"): a
 * physical model's own; for a virtual model, those of the physical model that produced
 * the latest response (even one from before the switch to the virtual model), else the
 * limits the virtual model declared. Context usage (get_session_stats, the footer,
 * ctx.getContextUsage) and automatic compaction read them.
 */
import { isVirtualModel } from "../ai/virtual-api.ts";
import type { AssistantMessage, Model } from "../ai/types.ts";
import type { ModelRegistry } from "../config/model-registry.ts";

export function routedLimits<M extends Pick<Model, "api" | "contextWindow" | "maxTokens">>(
  model: M,
  messages: readonly { role: string }[],
  registry: Pick<ModelRegistry, "find"> | undefined,
): M {
  if (!isVirtualModel(model) || !registry) return model;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as AssistantMessage;
    if (message.role !== "assistant" || message.stopReason === "error" || message.stopReason === "aborted") continue;
    const physical = registry.find(message.provider, message.model);
    if (!physical || isVirtualModel(physical)) continue;
    return { ...model, contextWindow: physical.contextWindow, maxTokens: physical.maxTokens };
  }
  return model;
}
