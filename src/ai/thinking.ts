import { THINKING_LEVELS, type Model, type ModelThinkingLevel, type ThinkingBudgets, type ThinkingLevel } from "./types.ts";

/** Default token budgets for budget-based APIs (Anthropic, Gemini 2.x). */
export const DEFAULT_THINKING_BUDGETS: Required<ThinkingBudgets> & { xhigh: number } = {
  minimal: 1024,
  low: 4096,
  medium: 10240,
  high: 32768,
  xhigh: 32768,
};

export function isThinkingLevel(value: unknown): value is ModelThinkingLevel {
  return typeof value === "string" && (THINKING_LEVELS as readonly string[]).includes(value);
}

/**
 * Levels the model accepts, in order. A model without reasoning only has "off";
 * `xhigh` needs an explicit entry in the model's thinkingLevelMap; a `null` entry
 * removes a level.
 */
export function getSupportedThinkingLevels(model: Pick<Model, "reasoning" | "thinkingLevelMap">): ModelThinkingLevel[] {
  if (!model.reasoning) return ["off"];
  const map = model.thinkingLevelMap ?? {};
  return THINKING_LEVELS.filter((level) => {
    if (map[level] === null) return false;
    if (level === "xhigh") return map.xhigh !== undefined;
    return true;
  });
}

/**
 * The nearest supported level: the requested one if the model has it, otherwise
 * the closest lower one, otherwise the closest higher one.
 */
export function clampThinkingLevel(
  model: Pick<Model, "reasoning" | "thinkingLevelMap">,
  level: ModelThinkingLevel,
): ModelThinkingLevel {
  const supported = getSupportedThinkingLevels(model);
  if (supported.includes(level)) return level;
  const rank = THINKING_LEVELS.indexOf(level);
  for (let r = rank - 1; r >= 0; r--) if (supported.includes(THINKING_LEVELS[r])) return THINKING_LEVELS[r];
  for (let r = rank + 1; r < THINKING_LEVELS.length; r++) if (supported.includes(THINKING_LEVELS[r])) return THINKING_LEVELS[r];
  return supported[0] ?? "off";
}

/** Token budget for a level, honouring user overrides, never at or above maxTokens. */
export function thinkingBudget(level: ThinkingLevel, maxTokens: number, overrides?: ThinkingBudgets): number {
  const fromUser = level === "xhigh" ? overrides?.high : overrides?.[level];
  const budget = fromUser ?? DEFAULT_THINKING_BUDGETS[level];
  // Providers require budget < max_tokens; keep room for the visible answer.
  return Math.max(1024, Math.min(budget, maxTokens - 1024));
}

/** The provider value for a level: the model's map entry when it has one, else the default. */
export function mappedThinkingValue(model: Pick<Model, "thinkingLevelMap">, level: ModelThinkingLevel, fallback: string): string {
  const mapped = model.thinkingLevelMap?.[level];
  return typeof mapped === "string" ? mapped : fallback;
}
