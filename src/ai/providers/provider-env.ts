/**
 * The configuration variables a provider reads (AZURE_OPENAI_BASE_URL, AWS_REGION,
 * GOOGLE_CLOUD_PROJECT, …), looked up in the request's own `env` first — the `env` object
 * of the provider's auth.json entry, handed over as `StreamOptions.env` — then in the
 * process environment. Those values never go into process.env: child processes (the bash
 * tool) and other providers would see them there.
 */

/** A variable's value, or undefined when unset or blank. */
export type EnvReader = (name: string) => string | undefined;

export function providerEnvReader(env?: Readonly<Record<string, string>>): EnvReader {
  return (name) => (typeof env?.[name] === "string" ? env[name].trim() : "") || process.env[name]?.trim() || undefined;
}

/** The process environment alone, for callers given no request env. */
export const processEnv: EnvReader = providerEnvReader(undefined);
