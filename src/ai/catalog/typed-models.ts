/**
 * Read access to the built-in classifier and image models (./models/typed.json, from pi
 * 1.6.0's catalog): the file is embedded in the binary and parsed the first time a
 * typed model is asked for, never at start-up and never for a chat-only run. Copies are
 * handed out, so a caller may adjust one (a proxy baseUrl) freely.
 */
import { readFileSync } from "node:fs";
import { traceModuleLoad } from "../load-trace.ts";
import { TYPED_MODELS_FILE } from "./model-files.ts";
import type { TypedCatalog, TypedModel } from "./model-types.ts";
import { catalogProvider, TYPED_ONLY_PROVIDERS } from "./providers.ts";

/** The endpoint of a provider of the index or of the typed-only ones. */
function providerOf(id: string): { baseUrl: string } | undefined {
  return catalogProvider(id) ?? TYPED_ONLY_PROVIDERS.find((provider) => provider.id === id);
}

let catalog: readonly TypedModel[] | undefined;

function load(): readonly TypedModel[] {
  if (catalog) return catalog;
  traceModuleLoad("catalog/typed");
  const rows = JSON.parse(readFileSync(TYPED_MODELS_FILE, "utf8")) as TypedCatalog;
  catalog = Object.entries(rows).flatMap(([provider, models]) => {
    const info = providerOf(provider);
    if (!info) return [];
    return models.map((row) => ({ ...row, provider, baseUrl: row.baseUrl ?? info.baseUrl }) as TypedModel);
  });
  return catalog;
}

/** The built-in classifier and image models, of one provider or of all, in catalog order. */
export function getTypedModels(provider?: string): TypedModel[] {
  return load()
    .filter((model) => provider === undefined || model.provider === provider)
    .map((model) => structuredClone(model));
}

/** The catalog endpoint of a provider's chat models, against which a typed model's baseUrl is compared. */
export function providerCatalogBaseUrl(provider: string): string | undefined {
  return providerOf(provider)?.baseUrl;
}
