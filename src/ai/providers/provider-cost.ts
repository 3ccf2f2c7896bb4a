/**
 * The cost a provider bills, read from its stream. OpenRouter adds `cost` (dollars) to the
 * usage it streams, over Chat Completions and over its Anthropic-compatible endpoint; the
 * catalog's prices are only an estimate of it, so where it is complete it becomes the
 * message's `cost.total` (with `totalFromProvider`, as pi 1.x reports it).
 *
 * Complete means: for a request OpenRouter paid for (`is_byok: false`), `cost` is the bill;
 * with the user's own upstream key (`is_byok: true`), `cost` is OpenRouter's fee and the
 * upstream provider's charge is in `cost_details` — without it the total is unknown and the
 * estimate stays. Without `is_byok` the figure is not trusted either.
 */
import type { Model } from "../types.ts";
import { isOpenRouterEndpoint } from "./session-affinity.ts";

interface ReportedCost {
  cost?: unknown;
  is_byok?: unknown;
  cost_details?: {
    upstream_inference_cost?: unknown;
    upstream_inference_prompt_cost?: unknown;
    upstream_inference_completions_cost?: unknown;
  } | null;
}

function dollars(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

/** The billed total in a usage object, or undefined when the provider reports none or only part of it. */
export function billedTotal(model: Pick<Model, "provider" | "baseUrl">, usage: unknown): number | undefined {
  if (!isOpenRouterEndpoint(model) || !usage || typeof usage !== "object") return undefined;
  const reported = usage as ReportedCost;
  if (!dollars(reported.cost)) return undefined;
  if (reported.is_byok === false) return reported.cost;
  if (reported.is_byok !== true) return undefined;
  const details = reported.cost_details;
  if (!details) return undefined;
  let upstream = details.upstream_inference_cost;
  if (upstream === null || upstream === undefined) {
    const prompt = details.upstream_inference_prompt_cost;
    const completion = details.upstream_inference_completions_cost;
    if (!dollars(prompt) || !dollars(completion)) return undefined;
    upstream = prompt + completion;
  }
  return dollars(upstream) ? reported.cost + upstream : undefined;
}
