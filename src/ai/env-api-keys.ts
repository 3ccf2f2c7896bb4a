/** Environment variables that hold API keys for the built-in providers, in order of preference. */
const ENV_KEYS: Record<string, string[]> = {
  anthropic: ["ANTHROPIC_API_KEY"],
  openai: ["OPENAI_API_KEY"],
  google: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
};

/**
 * Providers that run in this process and need no credential. Their "key" is this
 * placeholder, so every check for a key (registry, run setup, providers) passes.
 */
const KEYLESS_PROVIDERS: Record<string, string> = {
  faux: "faux",
};

export function findEnvKeys(provider: string): string[] | undefined {
  return ENV_KEYS[provider];
}

/** The API key for a built-in provider from its environment variable (a placeholder for keyless ones), if set. */
export function getEnvApiKey(provider: string): string | undefined {
  if (Object.hasOwn(KEYLESS_PROVIDERS, provider)) return KEYLESS_PROVIDERS[provider];
  for (const name of ENV_KEYS[provider] ?? []) {
    const value = process.env[name];
    if (value) return value;
  }
  return undefined;
}
