/**
 * Read access to the built-in model catalog: the models generated for the providers of
 * the provider index (catalog/, from pi 1.6.0's catalog), overlaid by the refreshed copy
 * `xcsh models update` writes (catalog/refreshed.ts) when there is one, and the offline
 * faux model, last.
 *
 * A provider's models are read (a JSON file embedded in the binary) the first time
 * someone asks for that provider, and kept. Every function hands out copies, so a caller
 * that adjusts a model (a proxy baseUrl, an override) never changes what the next caller sees.
 */
import { canonicalProvider } from "./provider-aliases.ts";
import { readFileSync } from "node:fs";
import { CATALOG_DATE, CATALOG_SOURCE, MODEL_FILES } from "./catalog/model-files.ts";
import type { CatalogModel } from "./catalog/model-types.ts";
import { CATALOG_PROVIDERS, catalogProvider, type CatalogProviderInfo } from "./catalog/providers.ts";
import { onRefreshedCatalogChange, readRefreshedCatalog, refreshedCatalogPath } from "./catalog/refreshed.ts";
import { getEnvApiKey } from "./env-api-keys.ts";
import { traceModuleLoad } from "./load-trace.ts";
import { FAUX_MODELS } from "./models-catalog.ts";
import type { KnownProvider, Model } from "./types.ts";

/** Providers with built-in models, in the order they are offered: the index's order, faux last. */
const PROVIDERS: readonly KnownProvider[] = [...CATALOG_PROVIDERS.filter((provider) => Object.hasOwn(MODEL_FILES, provider.id)).map((provider) => provider.id), "faux"];

const loaded = new Map<string, readonly Model[]>();
onRefreshedCatalogChange(() => loaded.clear());

/** What a refreshed row may change in a built-in one: the facts a catalog publishes, not the quirks. */
function overlay(row: CatalogModel, fresh: CatalogModel): CatalogModel {
  return { ...row, name: fresh.name || row.name, reasoning: fresh.reasoning, input: fresh.input, cost: row.cost.tiers ? { ...fresh.cost, tiers: row.cost.tiers } : fresh.cost, contextWindow: fresh.contextWindow, maxTokens: fresh.maxTokens };
}

/** The built-in rows with the refreshed catalog's changes, then the models only the refreshed catalog has. */
function withRefreshed(provider: string, rows: CatalogModel[]): CatalogModel[] {
  const fresh = readRefreshedCatalog()?.providers[provider];
  if (!fresh || fresh.length === 0) return rows;
  const freshById = new Map(fresh.map((row) => [row.id, row]));
  const builtInIds = new Set(rows.map((row) => row.id));
  return [...rows.map((row) => (freshById.has(row.id) ? overlay(row, freshById.get(row.id)!) : row)), ...fresh.filter((row) => !builtInIds.has(row.id))];
}

/** The provider's models (not copies), loading its list on first use; empty for unknown providers. */
function catalogModels(provider: string): readonly Model[] {
  const cached = loaded.get(provider);
  if (cached) return cached;
  let models: readonly Model[] = [];
  if (provider === "faux") {
    models = FAUX_MODELS;
  } else if (Object.hasOwn(MODEL_FILES, provider)) {
    traceModuleLoad(`catalog/${provider}`);
    const info = catalogProvider(provider)!;
    const rows = JSON.parse(readFileSync(MODEL_FILES[provider], "utf8")) as CatalogModel[];
    models = withRefreshed(provider, rows).map((row) => toModel(row, info));
  }
  loaded.set(provider, models);
  return models;
}

/**
 * A catalog row as a Model: the provider's endpoint, API and thinking levels fill what the
 * row leaves out. The row is fresh from JSON.parse and owned here, so its parts are taken
 * as they are.
 */
function toModel(row: CatalogModel, provider: CatalogProviderInfo): Model {
  const model: Model = {
    id: row.id,
    name: row.name,
    api: row.api ?? provider.api,
    provider: provider.id,
    baseUrl: row.baseUrl ?? provider.baseUrl,
    reasoning: row.reasoning,
    input: row.input,
    cost: row.cost,
    contextWindow: row.contextWindow,
    maxTokens: row.maxTokens,
  };
  const levels = row.thinkingLevelMap ?? (row.reasoning ? provider.thinkingLevelMap : undefined);
  if (levels) model.thinkingLevelMap = { ...levels };
  if (row.compat) model.compat = row.compat;
  if (row.headers) model.headers = row.headers;
  return model;
}

/**
 * A copy of a catalog model that shares nothing with it. Written out rather than
 * structuredClone: --list-models and start-up copy hundreds, and this is several times faster.
 */
function copyModel(model: Model): Model {
  const copy: Model = { ...model, input: [...model.input], cost: { ...model.cost } };
  if (model.cost.tiers) copy.cost.tiers = model.cost.tiers.map((tier) => ({ ...tier }));
  if (model.thinkingLevelMap) copy.thinkingLevelMap = { ...model.thinkingLevelMap };
  if (model.headers) copy.headers = { ...model.headers };
  // Quirks may hold lists and objects (routing, fallbacks): a deep copy.
  if (model.compat) copy.compat = JSON.parse(JSON.stringify(model.compat)) as Model["compat"];
  return copy;
}

/** Where the catalog in use comes from and how old it is: the refreshed copy when valid, else the built-in one. */
export function catalogAge(): { kind: "built-in" | "refreshed"; source: string; date: Date; path?: string } {
  const refreshed = readRefreshedCatalog();
  if (refreshed) return { kind: "refreshed", source: refreshed.source, date: new Date(refreshed.fetchedAt), path: refreshedCatalogPath() };
  return { kind: "built-in", source: CATALOG_SOURCE, date: new Date(`${CATALOG_DATE}T00:00:00Z`) };
}

/** The providers with built-in models, in the order they are offered by default. */
export function getProviders(): KnownProvider[] {
  return [...PROVIDERS];
}

/**
 * The providers whose built-in models a run offers without being told about them: those
 * the index offers without a key (Anthropic, OpenAI, Google: the default-model search
 * and its "set a key" hints name them), faux, and each other provider whose key is set
 * in the environment. The others cannot be used without a key, so their lists stay unread
 * until named (in models.json, or by --list-models): reading all of them at start-up
 * cost ~3.5 MB of peak memory (43.7 against 40.6 MiB in `bun run bench --only cold`).
 */
export function getProvidersToOffer(): KnownProvider[] {
  return PROVIDERS.filter((provider) => provider === "faux" || catalogProvider(provider)?.offeredWithoutKey === true || getEnvApiKey(provider) !== undefined);
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
  return catalogModels(canonicalProvider(provider)).map(copyModel);
}

/** One built-in model, or undefined when the provider or id is unknown. */
export function getModel(provider: string, id: string): Model | undefined {
  const model = catalogModels(canonicalProvider(provider)).find((candidate) => candidate.id === id);
  return model ? copyModel(model) : undefined;
}

/** Two models are the same model when provider and id agree; a missing model equals nothing. */
export function modelsAreEqual(a: Pick<Model, "provider" | "id"> | null | undefined, b: Pick<Model, "provider" | "id"> | null | undefined): boolean {
  if (!a || !b) return false;
  return a.provider === b.provider && a.id === b.id;
}
