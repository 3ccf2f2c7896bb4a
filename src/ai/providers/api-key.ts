/**
 * The key a provider request uses (given, else the provider's variable), and every
 * credential the request carries, so that error texts can be cleaned of them.
 */
import { getEnvApiKey, findEnvKeys } from "../env-api-keys.ts";
import type { Model, StreamOptions } from "../types.ts";

/** Header names whose values are credentials (Authorization, x-api-key, api-key, x-goog-api-key, *-token…). */
const CREDENTIAL_HEADER = /(authorization|api-?key|token|secret|cookie)/i;

/**
 * The credentials a request carries: the key in use and the values of credential-like
 * headers. Error texts are cleaned of them (a provider may echo a key back in its error).
 */
export function requestCredentials(model: Model, options: StreamOptions | undefined): string[] {
  const values = [options?.apiKey, getEnvApiKey(model.provider, options?.env)];
  for (const headers of [model.headers, options?.headers]) {
    for (const [name, value] of Object.entries(headers ?? {})) {
      // A header an extension removed is null here (before_provider_headers): nothing to hide.
      if (CREDENTIAL_HEADER.test(name) && typeof value === "string") values.push(value, value.replace(/^Bearer\s+/i, ""));
    }
  }
  return values.filter((value): value is string => typeof value === "string" && value !== "");
}

/** The key given in options, else the provider's environment variable; a clear error when neither is set. */
export function resolveProviderApiKey(model: Model, options: StreamOptions | undefined): string {
  const key = options?.apiKey ?? getEnvApiKey(model.provider, options?.env);
  if (key) return key;
  const vars = findEnvKeys(model.provider);
  const hint = vars ? `set ${vars[0]} or pass --api-key` : `set "apiKey" for provider "${model.provider}" in models.json or pass --api-key`;
  throw new Error(`No API key for provider "${model.provider}": ${hint}`);
}
