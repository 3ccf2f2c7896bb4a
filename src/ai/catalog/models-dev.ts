/**
 * models.dev's api.json (https://models.dev/api.json, MIT) as refreshed catalog rows:
 * what `xcsh models update` writes. Each catalog provider with `modelsFrom` takes the
 * models of that models.dev provider that call tools, read text and write text and have
 * a context window, newest first. Pure: the command fetches and writes.
 */
import type { KnownApi } from "../types.ts";
import type { CatalogModel } from "./model-types.ts";
import { CATALOG_PROVIDERS, type CatalogProviderInfo } from "./providers.ts";

/** The part of a models.dev model this reads. */
interface SourceModel {
  id?: unknown;
  name?: unknown;
  reasoning?: unknown;
  tool_call?: unknown;
  status?: unknown;
  release_date?: unknown;
  modalities?: { input?: unknown; output?: unknown };
  cost?: { input?: unknown; output?: unknown; cache_read?: unknown; cache_write?: unknown };
  limit?: { context?: unknown; output?: unknown };
  /** A model served by another SDK (API) or endpoint than its provider's. */
  provider?: { npm?: unknown; api?: unknown };
}

/** models.dev names a model's API by the AI SDK package that speaks it. */
const API_OF_SDK: Readonly<Record<string, KnownApi>> = {
  "@ai-sdk/anthropic": "anthropic-messages",
  "@ai-sdk/openai": "openai-responses",
  "@ai-sdk/openai-compatible": "openai-completions",
  "@ai-sdk/google": "google-generative-ai",
};

const price = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0);
const strings = (value: unknown, fallback: string[]): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : fallback);

function keeps(model: SourceModel, provider: CatalogProviderInfo): boolean {
  if (typeof model.id !== "string" || model.id === "") return false;
  const input = strings(model.modalities?.input, ["text"]);
  const output = strings(model.modalities?.output, ["text"]);
  if (model.tool_call !== true || !input.includes("text") || !output.includes("text")) return false;
  const context = model.limit?.context;
  if (model.status === "deprecated" || !(typeof context === "number" && context > 0)) return false;
  return provider.modelIdPattern === undefined || new RegExp(provider.modelIdPattern).test(model.id);
}

/** Where a model is served, when not over its provider's API at its provider's endpoint. */
function servedBy(model: SourceModel, provider: CatalogProviderInfo): { api?: KnownApi; baseUrl?: string } {
  const sdkApi = typeof model.provider?.npm === "string" ? API_OF_SDK[model.provider.npm] : undefined;
  if (sdkApi) {
    let baseUrl = typeof model.provider?.api === "string" ? model.provider.api : provider.baseUrl;
    // The Anthropic SDK adds /v1/messages itself.
    if (sdkApi === "anthropic-messages") baseUrl = baseUrl.replace(/\/v1\/?$/, "");
    return { api: sdkApi === provider.api ? undefined : sdkApi, baseUrl: baseUrl === provider.baseUrl ? undefined : baseUrl };
  }
  const rule = provider.modelApis?.find((candidate) => (model.id as string).startsWith(candidate.idPrefix));
  return rule ? { api: rule.api, baseUrl: rule.baseUrl } : {};
}

function toRow(model: SourceModel, provider: CatalogProviderInfo): CatalogModel {
  const contextWindow = model.limit!.context as number;
  const output = typeof model.limit?.output === "number" && model.limit.output > 0 ? model.limit.output : 16_384;
  const row: CatalogModel = {
    id: model.id as string,
    name: typeof model.name === "string" && model.name ? model.name : (model.id as string),
    reasoning: model.reasoning === true,
    input: strings(model.modalities?.input, []).includes("image") ? ["text", "image"] : ["text"],
    cost: { input: price(model.cost?.input), output: price(model.cost?.output), cacheRead: price(model.cost?.cache_read), cacheWrite: price(model.cost?.cache_write) },
    contextWindow,
    maxTokens: Math.min(output, contextWindow),
  };
  const served = servedBy(model, provider);
  if (served.api) row.api = served.api;
  if (served.baseUrl) row.baseUrl = served.baseUrl;
  return row;
}

/** A model under each prefixed id its provider also serves it by (modelIdVariants), then under its own. */
function withIdVariants(row: CatalogModel, provider: CatalogProviderInfo): CatalogModel[] {
  const rule = provider.modelIdVariants?.find((candidate) => row.id.startsWith(candidate.idPrefix));
  return [...(rule?.prefixes ?? []).map((prefix) => ({ ...row, id: `${prefix}${row.id}`, name: `${row.name} (${prefix.replace(/\.$/, "")})` })), row];
}

/** Catalog provider id → its rows, for every provider models.dev lists models for; an error when the data is not api.json. */
export function rowsFromModelsDev(data: unknown): { providers: Record<string, CatalogModel[]> } | { error: string } {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return { error: "the body is not a JSON object of providers" };
  const all = data as Record<string, { models?: unknown } | undefined>;
  const providers: Record<string, CatalogModel[]> = {};
  for (const provider of CATALOG_PROVIDERS as readonly CatalogProviderInfo[]) {
    const models = provider.modelsFrom ? all[provider.modelsFrom]?.models : undefined;
    if (typeof models !== "object" || models === null) continue;
    const seen = new Set<string>();
    const rows = (Object.values(models) as SourceModel[])
      .filter((model) => typeof model === "object" && model !== null && keeps(model, provider))
      .sort((a, b) => String(b.release_date ?? "").localeCompare(String(a.release_date ?? "")) || String(a.id).localeCompare(String(b.id)))
      .filter((model) => !seen.has(model.id as string) && seen.add(model.id as string))
      .flatMap((model) => withIdVariants(toRow(model, provider), provider));
    if (rows.length > 0) providers[provider.id] = rows;
  }
  if (Object.keys(providers).length === 0) return { error: "it lists no usable model of any provider xcsh knows" };
  return { providers };
}
