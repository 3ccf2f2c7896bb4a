/**
 * The models Ctrl+P cycles through: the `enabledModels` setting (or what
 * /scoped-models chose for this session), as pi reads it — a list of patterns,
 * each an exact `provider/id` or id, a case-insensitive glob (`anthropic/*`,
 * `*sonnet*`), or else a part of an id or name; an optional `:<thinking level>`
 * suffix is allowed and ignored here. The cycle follows the list's order. No
 * list (or one that names none of the models with a key) means every model.
 */
import { isThinkingLevel } from "../../ai/thinking.ts";
import type { Model } from "../../ai/types.ts";

export const modelKey = (model: Model) => `${model.provider}/${model.id}`;

function globToRegExp(glob: string): RegExp {
  const source = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${source}$`, "i");
}

/** The models one pattern names, in the registry's order. */
export function modelsMatching(available: readonly Model[], rawPattern: string): Model[] {
  let pattern = rawPattern.trim();
  const colon = pattern.lastIndexOf(":");
  if (colon > 0 && isThinkingLevel(pattern.slice(colon + 1))) pattern = pattern.slice(0, colon);
  if (!pattern) return [];
  const lower = pattern.toLowerCase();
  if (/[*?]/.test(pattern)) {
    const glob = globToRegExp(pattern);
    return available.filter((model) => glob.test(modelKey(model)) || glob.test(model.id));
  }
  const exact = available.filter((model) => modelKey(model).toLowerCase() === lower || model.id.toLowerCase() === lower);
  if (exact.length > 0) return exact;
  const partial = available.find((model) => modelKey(model).toLowerCase().includes(lower) || (model.name ?? "").toLowerCase().includes(lower));
  return partial ? [partial] : [];
}

/** The models a list of patterns names, in the list's order, each once; undefined without a usable list. */
export function modelsInScope(available: readonly Model[], patterns: unknown): Model[] | undefined {
  if (!Array.isArray(patterns)) return undefined;
  const seen = new Set<string>();
  const scoped: Model[] = [];
  for (const pattern of patterns) {
    if (typeof pattern !== "string") continue;
    for (const model of modelsMatching(available, pattern)) {
      if (seen.has(modelKey(model))) continue;
      seen.add(modelKey(model));
      scoped.push(model);
    }
  }
  return scoped.length > 0 ? scoped : undefined;
}
