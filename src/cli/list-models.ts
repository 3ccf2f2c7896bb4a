/**
 * `xcsh --list-models [search]`: every model xcsh knows, as a table on stdout, with
 * whether its provider has a key configured; then the catalog's providers that have no
 * built-in models, with the variable their key goes in. A search narrows both.
 *
 * The registry offers a catalog provider's models only once its key is set (start-up
 * reads nothing else); a listing shows them all, so it reads the rest of the catalog.
 * Classifier and image models (pi 1.x's model types beside chat) follow in a table of their
 * own, with their type: they cannot be picked with --model, only run from codemode scripts.
 * The last line says which catalog that is and how old: the built-in one, or the copy
 * `xcsh models update` fetched.
 */
import { findEnvKeys } from "../ai/env-api-keys.ts";
import { catalogAge, getCatalogProviders, getModels, getProviders } from "../ai/models.ts";
import type { Model } from "../ai/types.ts";
import { ModelRegistry } from "../config/model-registry.ts";

function formatTokens(count: number): string {
  if (count >= 1_000_000) return `${+(count / 1_000_000).toFixed(1)}M`;
  if (count >= 1_000) return `${+(count / 1_000).toFixed(1)}K`;
  return String(count);
}

function matches(haystack: string, search: string): boolean {
  const text = haystack.toLowerCase();
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => text.includes(word));
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

/** The registry's models plus the catalog's keyless providers', in catalog order, then the rest. */
function everyModel(registry: ModelRegistry): Model[] {
  const known = registry.getAll();
  const offered = new Set(known.map((model) => model.provider));
  const order: string[] = [...getProviders(), ...offered].filter((provider, index, all) => all.indexOf(provider) === index);
  const byProvider = new Map<string, Model[]>();
  for (const model of known) byProvider.set(model.provider, [...(byProvider.get(model.provider) ?? []), model]);
  return order.flatMap((provider) => byProvider.get(provider) ?? (offered.has(provider) ? [] : getModels(provider)));
}

/** "Model catalog: …" — which catalog the listing shows and how old it is. */
function catalogAgeLine(now = Date.now()): string {
  const age = catalogAge();
  const days = Math.max(0, Math.floor((now - age.date.getTime()) / 86_400_000));
  const old = days === 0 ? "today" : days === 1 ? "1 day old" : `${days} days old`;
  const day = age.date.toISOString().slice(0, 10);
  return age.kind === "refreshed"
    ? `Model catalog: fetched from ${age.source} on ${day} (${old}), ${age.path}; refresh with \`xcsh models update\``
    : `Model catalog: built-in, ${age.source}, of ${day} (${old}); refresh with \`xcsh models update\``;
}

/** Lists the models of `registry` (with extensions' providers, when any loaded) and of the whole catalog. */
export function listModels(search: string, registry: ModelRegistry = ModelRegistry.load()): number {
  const models = everyModel(registry).filter((model) => matches(`${model.provider}/${model.id} ${model.name}`, search));
  const withModels = new Set<string>([...getProviders(), ...registry.getProviders()]);
  const withoutModels = getCatalogProviders().filter((provider) => !withModels.has(provider.id) && matches(`${provider.id} ${provider.name}`, search));
  const typed = (["classifier", "image"] as const)
    .flatMap((type) => registry.getModelsOfType(type))
    .filter((model) => matches(`${model.provider}/${model.id} ${model.name} ${model.type}`, search));
  if (models.length === 0 && withoutModels.length === 0 && typed.length === 0) {
    process.stderr.write(search ? `xcsh: no model matches "${search}"\n` : "xcsh: no models are configured\n");
    return 1;
  }
  let out = "";
  if (models.length > 0) {
    out += table(
      ["provider", "model", "context", "max-out", "thinking", "images", "key"],
      models.map((model) => [
        model.provider,
        model.id,
        formatTokens(model.contextWindow),
        formatTokens(model.maxTokens),
        model.reasoning ? "yes" : "no",
        model.input.includes("image") ? "yes" : "no",
        registry.hasAuth(model) ? "yes" : "no",
      ]),
    );
  }
  if (typed.length > 0) {
    if (out) out += "\n";
    out += "Classifier and image models (not for chat: codemode scripts run them with models.classify() and models.generateImages()):\n";
    out += table(
      ["provider", "model", "type", "context", "images", "key"],
      typed.map((model) => [
        model.provider,
        model.id,
        model.type,
        "contextWindow" in model && model.contextWindow ? formatTokens(model.contextWindow) : "-",
        model.input.includes("image") ? "yes" : "no",
        registry.hasAuth(model) ? "yes" : "no",
      ]),
    );
  }
  if (withoutModels.length > 0) {
    if (out) out += "\n";
    out += "Providers without built-in models (add their models in models.json; see docs/providers.md):\n";
    out += table(
      ["provider", "key variable", "key", "base URL", "api"],
      withoutModels.map((provider) => [
        provider.id,
        (findEnvKeys(provider.id) ?? []).join(", "),
        registry.hasAuth({ provider: provider.id }) ? "yes" : "no",
        provider.baseUrl,
        provider.api,
      ]),
    );
  }
  out += `\n${catalogAgeLine()}\n`;
  process.stdout.write(out);
  return 0;
}
