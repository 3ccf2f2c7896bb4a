/**
 * API keys from the environment: each provider of the catalog's index names its
 * variables (pi's names), so a key set for any of them is found without models.json.
 */
import { CATALOG_PROVIDERS } from "./catalog/providers.ts";

/** Environment variables that hold API keys, by provider, in order of preference. */
const ENV_KEYS: ReadonlyMap<string, readonly string[]> = new Map(CATALOG_PROVIDERS.map((provider) => [provider.id, provider.envKeys]));

/**
 * Providers that run in this process and need no credential. Their "key" is this
 * placeholder, so every check for a key (registry, run setup, providers) passes.
 */
const KEYLESS_PROVIDERS: Record<string, string> = {
  faux: "faux",
};

export function findEnvKeys(provider: string): string[] | undefined {
  const names = ENV_KEYS.get(provider);
  return names ? [...names] : undefined;
}

/** The API key for a known provider from its environment variable (a placeholder for keyless ones), if set. */
export function getEnvApiKey(provider: string): string | undefined {
  if (Object.hasOwn(KEYLESS_PROVIDERS, provider)) return KEYLESS_PROVIDERS[provider];
  for (const name of ENV_KEYS.get(provider) ?? []) {
    const value = process.env[name];
    if (value) return value;
  }
  return undefined;
}
