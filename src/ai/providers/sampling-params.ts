/**
 * pi 1.x's `samplingParams` and `samplingParamsByThinkingLevel` (models.json): free-form
 * fields merged into the request body of OpenAI-compatible APIs — the model's defaults,
 * then the entry of the effective (clamped) thinking level over them, key by key. Keys
 * are pi's level names (`off` … `xhigh`, and `max` for the highest, which is xhigh here).
 * The fields that carry the request itself (model, messages, input, tools, stream) are
 * never replaced: a typo must not send a different conversation.
 */
import type { Model, ModelThinkingLevel } from "../types.ts";

const PROTECTED = new Set(["model", "messages", "input", "instructions", "tools", "stream"]);

/** The fields to merge for a request at `level` (undefined: the model's defaults only). */
export function samplingParamsFor(model: Model, level: ModelThinkingLevel | undefined): Record<string, unknown> | undefined {
  const byLevel = model.samplingParamsByThinkingLevel;
  const levelParams = level === undefined || !byLevel ? undefined : (byLevel[level] ?? (level === "xhigh" ? byLevel.max : undefined));
  if (!model.samplingParams && !levelParams) return undefined;
  return { ...model.samplingParams, ...levelParams };
}

/** Merges the fields into a request body, leaving the protected ones alone. */
export function applySamplingParams(payload: object, params: Record<string, unknown> | undefined): void {
  if (!params) return;
  for (const [key, value] of Object.entries(params)) {
    if (!PROTECTED.has(key)) (payload as Record<string, unknown>)[key] = value;
  }
}
