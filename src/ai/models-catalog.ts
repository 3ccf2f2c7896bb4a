/**
 * The part of the built-in catalog that is not generated: the offline faux model, and
 * the table of each provider's default model (the generated defaults of pi 1.6.0's
 * catalog, catalog/model-files.ts, plus faux's). Every hosted provider's models are
 * generated (scripts/generate-catalog.ts) and read through models.ts.
 */
import { GENERATED_DEFAULT_MODELS } from "./catalog/model-files.ts";
import type { Model } from "./types.ts";

/**
 * The offline model (providers/faux.ts): replays a script, needs no key or network.
 * Listed last and never picked as a default on its own (model-resolver.ts).
 */
export const FAUX_MODELS: readonly Model<"faux">[] = [
  {
    id: "faux-1",
    name: "Faux (offline)",
    api: "faux",
    provider: "faux",
    baseUrl: "faux://local",
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 16_384,
  },
];

/**
 * The model picked for a provider when no model is named, as the source catalog picks
 * it; a provider without one (or whose default is missing) falls back to its first model.
 */
export const DEFAULT_MODEL_IDS: Readonly<Record<string, string>> = {
  ...GENERATED_DEFAULT_MODELS,
  faux: "faux-1",
};
