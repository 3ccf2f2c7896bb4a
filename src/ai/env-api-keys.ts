/**
 * API keys from the environment: each provider of the catalog's index names its
 * variables (pi's names), so a key set for any of them is found without models.json.
 */
import { CATALOG_PROVIDERS } from "./catalog/providers.ts";

/** Environment variables that hold API keys, by provider, as shown to the user (the usual one first). */
const ENV_KEYS: ReadonlyMap<string, readonly string[]> = new Map(CATALOG_PROVIDERS.map((provider) => [provider.id, provider.envKeys]));

/**
 * Anthropic's token variables, as pi 0.87.1 reads them. ANTHROPIC_AUTH_TOKEN is a bearer
 * token (sent as `Authorization: Bearer`, without `x-api-key`: what gateways in front of
 * Claude expect) and wins over the key variables; ANTHROPIC_OAUTH_TOKEN is a key like
 * ANTHROPIC_API_KEY and wins over it.
 */
const ANTHROPIC_AUTH_TOKEN = "ANTHROPIC_AUTH_TOKEN";
const EXTRA_ENV_KEYS: Record<string, readonly string[]> = { anthropic: ["ANTHROPIC_OAUTH_TOKEN", ANTHROPIC_AUTH_TOKEN] };
/** Where the order of preference differs from the order shown. */
const PREFERENCE: Record<string, readonly string[]> = { anthropic: [ANTHROPIC_AUTH_TOKEN, "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"] };

/**
 * Providers that run in this process and need no credential. Their "key" is this
 * placeholder, so every check for a key (registry, run setup, providers) passes.
 */
const KEYLESS_PROVIDERS: Record<string, string> = {
  faux: "faux",
};

export function findEnvKeys(provider: string): string[] | undefined {
  const names = ENV_KEYS.get(provider);
  return names ? [...new Set([...names, ...(EXTRA_ENV_KEYS[provider] ?? [])])] : undefined;
}

/** The API key for a known provider from its environment variable (a placeholder for keyless ones), if set. */
export function getEnvApiKey(provider: string): string | undefined {
  if (Object.hasOwn(KEYLESS_PROVIDERS, provider)) return KEYLESS_PROVIDERS[provider];
  const names = Object.hasOwn(PREFERENCE, provider) ? PREFERENCE[provider] : (ENV_KEYS.get(provider) ?? []);
  for (const name of names) {
    const value = process.env[name];
    if (value) return value;
  }
  return undefined;
}

/**
 * Whether `key`, about to be sent to `provider`, is the bearer token of ANTHROPIC_AUTH_TOKEN
 * (reached through the usual order: --api-key, auth.json and models.json come first, and
 * any of them gives a key of its own). The key carries no mark of where it came from, so
 * this compares values: a key equal to the token is the token.
 */
export function isEnvBearerToken(provider: string, key: string): boolean {
  return provider === "anthropic" && key !== "" && process.env[ANTHROPIC_AUTH_TOKEN] === key;
}
