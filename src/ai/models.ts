/**
 * Read access to the built-in model catalog: the hand-written models of Anthropic,
 * OpenAI and Google (models-catalog.ts), the models generated for the other providers
 * of the provider index (catalog/), and the offline faux model, last.
 *
 * A generated provider's models are read (a JSON file embedded in the binary) the first
 * time someone asks for that provider, and kept. Every function hands out copies, so a caller that adjusts a model
 * (a proxy baseUrl, an override) never changes what the next caller sees.
 */
import { canonicalProvider } from "./provider-aliases.ts";
import { readFileSync } from "node:fs";
import { MODEL_FILES } from "./catalog/model-files.ts";
import type { CatalogModel } from "./catalog/model-types.ts";
import { CATALOG_PROVIDERS, catalogProvider, type CatalogProviderInfo } from "./catalog/providers.ts";
import { getEnvApiKey } from "./env-api-keys.ts";
import { traceModuleLoad } from "./load-trace.ts";
import { HAND_WRITTEN_MODELS } from "./models-catalog.ts";
import type { KnownProvider, Model } from "./types.ts";

/** Providers with built-in models, in the order they are offered: the index's order, faux last. */
const PROVIDERS: readonly KnownProvider[] = [
  ...CATALOG_PROVIDERS.filter((provider) => Object.hasOwn(HAND_WRITTEN_MODELS, provider.id) || Object.hasOwn(MODEL_FILES, provider.id)).map(
    (provider) => provider.id,
  ),
  "faux",
];

const loaded = new Map<string, readonly Model[]>();

/** The provider's models (not copies), loading a generated list on first use; empty for unknown providers. */
function catalogModels(provider: string): readonly Model[] {
  const cached = loaded.get(provider);
  if (cached) return cached;
  let models: readonly Model[] = [];
  if (Object.hasOwn(HAND_WRITTEN_MODELS, provider)) {
    models = HAND_WRITTEN_MODELS[provider as keyof typeof HAND_WRITTEN_MODELS];
  } else if (Object.hasOwn(MODEL_FILES, provider)) {
    traceModuleLoad(`catalog/${provider}`);
    const info = catalogProvider(provider)!;
    const rows = JSON.parse(readFileSync(MODEL_FILES[provider], "utf8")) as CatalogModel[];
    models = rows.map((row) => toModel(row, info));
  }
  loaded.set(provider, models);
  return models;
}

/** A generated row as a Model: the provider's endpoint, API and thinking levels fill what the row leaves out. */
function toModel(row: CatalogModel, provider: CatalogProviderInfo): Model {
  const model: Model = {
    id: row.id,
    name: row.name,
    api: row.api ?? provider.api,
    provider: provider.id,
    baseUrl: row.baseUrl ?? provider.baseUrl,
    reasoning: row.reasoning,
    input: [...row.input],
    cost: { ...row.cost },
    contextWindow: row.contextWindow,
    maxTokens: row.maxTokens,
  };
  if (row.reasoning && provider.thinkingLevelMap) model.thinkingLevelMap = { ...provider.thinkingLevelMap };
  return model;
}

/** The providers with built-in models, in the order they are offered by default. */
export function getProviders(): KnownProvider[] {
  return [...PROVIDERS];
}

/**
 * The providers whose built-in models a run offers without being told about them: the
 * hand-written ones, faux, and each generated provider whose key is set in the
 * environment. The others cannot be used without a key, so their lists stay unread
 * until named (in models.json, or by --list-models): reading all of them at start-up
 * cost ~3.5 MB of peak memory (43.7 against 40.6 MiB in `bun run bench --only cold`).
 */
export function getProvidersToOffer(): KnownProvider[] {
  return PROVIDERS.filter((provider) => !Object.hasOwn(MODEL_FILES, provider) || getEnvApiKey(provider) !== undefined);
}

/**
 * Every provider the catalog knows, with its key variables, endpoint and API — including
 * those without built-in models, whose models come from models.json.
 */
export function getCatalogProviders(): CatalogProviderInfo[] {
  return CATALOG_PROVIDERS.map((provider) => structuredClone(provider) as CatalogProviderInfo);
}

/** The built-in models of a provider (empty for a provider the catalog does not know). */
export function getModels(provider: string): Model[] {
  return catalogModels(canonicalProvider(provider)).map((model) => structuredClone(model));
}

/** One built-in model, or undefined when the provider or id is unknown. */
export function getModel(provider: string, id: string): Model | undefined {
  const model = catalogModels(canonicalProvider(provider)).find((candidate) => candidate.id === id);
  return model ? structuredClone(model) : undefined;
}

/** Two models are the same model when provider and id agree; a missing model equals nothing. */
export function modelsAreEqual(a: Pick<Model, "provider" | "id"> | null | undefined, b: Pick<Model, "provider" | "id"> | null | undefined): boolean {
  if (!a || !b) return false;
  return a.provider === b.provider && a.id === b.id;
}
