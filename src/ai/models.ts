/**
 * Read access to the built-in model catalog. Every function hands out copies, so a
 * caller that adjusts a model (a proxy baseUrl, an override) never changes what the
 * next caller sees.
 */
import { BUILTIN_MODELS } from "./models-catalog.ts";
import type { KnownProvider, Model } from "./types.ts";

function isKnownProvider(provider: string): provider is KnownProvider {
  return Object.hasOwn(BUILTIN_MODELS, provider);
}

/** The built-in providers, in the order they are offered by default. */
export function getProviders(): KnownProvider[] {
  return Object.keys(BUILTIN_MODELS) as KnownProvider[];
}

/** The built-in models of a provider (empty for a provider the catalog does not know). */
export function getModels(provider: string): Model[] {
  if (!isKnownProvider(provider)) return [];
  return BUILTIN_MODELS[provider].map((model) => structuredClone(model));
}

/** One built-in model, or undefined when the provider or id is unknown. */
export function getModel(provider: string, id: string): Model | undefined {
  if (!isKnownProvider(provider)) return undefined;
  const model = BUILTIN_MODELS[provider].find((candidate) => candidate.id === id);
  return model ? structuredClone(model) : undefined;
}

/** Two models are the same model when provider and id agree; a missing model equals nothing. */
export function modelsAreEqual(a: Pick<Model, "provider" | "id"> | null | undefined, b: Pick<Model, "provider" | "id"> | null | undefined): boolean {
  if (!a || !b) return false;
  return a.provider === b.provider && a.id === b.id;
}
