import type { AssistantMessage, Model, Usage } from "./types.ts";

export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/**
 * Two usages added up (a tool's own and its nested calls'); undefined when neither
 * exists, so a tool that did no model work reports none.
 */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a || !b) return a ?? b;
  // A tool's own usage may leave fields out (an extension's); they count as zero, never NaN.
  const sum = (x: number | undefined, y: number | undefined) => (Number.isFinite(x) ? x! : 0) + (Number.isFinite(y) ? y! : 0);
  // Reasoning tokens are counted only where some part reported them; a billed total summed with an estimate is neither.
  const reasoning = a.reasoning !== undefined || b.reasoning !== undefined ? { reasoning: sum(a.reasoning, b.reasoning) } : {};
  return {
    input: sum(a.input, b.input),
    output: sum(a.output, b.output),
    cacheRead: sum(a.cacheRead, b.cacheRead),
    cacheWrite: sum(a.cacheWrite, b.cacheWrite),
    ...reasoning,
    totalTokens: sum(a.totalTokens, b.totalTokens),
    cost: {
      input: roundCost(sum(a.cost?.input, b.cost?.input)),
      output: roundCost(sum(a.cost?.output, b.cost?.output)),
      cacheRead: roundCost(sum(a.cost?.cacheRead, b.cost?.cacheRead)),
      cacheWrite: roundCost(sum(a.cost?.cacheWrite, b.cost?.cacheWrite)),
      total: roundCost(sum(a.cost?.total, b.cost?.total)),
    },
  };
}

/**
 * A dollar amount without binary floating-point noise: 3/1e6 × 5000 is
 * 0.015000000000000001 in doubles, and JSON output and sums show it as that.
 * Ten decimals keep every price per token exact and drop only the noise.
 */
export function roundCost(dollars: number): number {
  return Math.round(dollars * 1e10) / 1e10;
}

/**
 * The prices a request pays: the base ones, or those of the highest tier whose threshold
 * the request's whole prompt (fresh, cached and cache-written tokens) is above — the
 * long-context prices some providers charge.
 */
function pricesFor(cost: Model["cost"], usage: Usage): Omit<Model["cost"], "tiers"> {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  let prices: Omit<Model["cost"], "tiers"> = cost;
  let threshold = -1;
  for (const tier of cost.tiers ?? []) {
    if (prompt > tier.inputTokensAbove && tier.inputTokensAbove > threshold) {
      prices = tier;
      threshold = tier.inputTokensAbove;
    }
  }
  return prices;
}

/** Fills `usage.cost` from the model's per-million-token prices and returns it: an estimate, so `totalFromProvider` is false (as pi 1.x sets it). */
export function calculateCost(model: Pick<Model, "cost">, usage: Usage): Usage["cost"] {
  const perToken = (pricePerMillion: number, tokens: number) => roundCost((pricePerMillion / 1_000_000) * tokens);
  const prices = pricesFor(model.cost, usage);
  usage.cost.input = perToken(prices.input, usage.input);
  usage.cost.output = perToken(prices.output, usage.output);
  usage.cost.cacheRead = perToken(prices.cacheRead, usage.cacheRead);
  usage.cost.cacheWrite = perToken(prices.cacheWrite, usage.cacheWrite);
  usage.cost.total = roundCost(usage.cost.input + usage.cost.output + usage.cost.cacheRead + usage.cost.cacheWrite);
  usage.cost.totalFromProvider = false;
  return usage.cost;
}

/** An assistant message that failed before any content arrived (no provider, a throw before streaming). */
export function failedAssistantMessage(
  model: Pick<Model, "api" | "provider" | "id">,
  errorMessage: string,
  aborted = false,
): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason: aborted ? "aborted" : "error",
    errorMessage,
    timestamp: Date.now(),
  };
}
