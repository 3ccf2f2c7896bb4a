/**
 * The credentials xcsh has configured (models.json, registered providers, the
 * environment), for code an extension runs outside the session: a sub-agent made
 * with pi-agent-core's `Agent` and no `getApiKey` of its own still reaches the
 * provider with xcsh's key and headers, as `new Agent({ initialState: { model:
 * ctx.model } })` expects. The extension system hands over the model registry once
 * it has one; until then, and for providers it does not know, nothing is added and
 * the provider falls back to its environment variable.
 */
import type { RequestAuthSource } from "../config/registry-requests.ts";
import type { Model } from "../ai/types.ts";

let source: RequestAuthSource | undefined;

/** Called by the extension system when the session's model registry exists. */
export function useHostCredentials(next: RequestAuthSource): void {
  source = next;
}

/** The configured key for `provider`; undefined when none is configured or it cannot be resolved. */
export async function hostApiKey(provider: string): Promise<string | undefined> {
  try {
    return await source?.getApiKey({ provider });
  } catch {
    // A key command that fails is reported where the session uses it; here the request goes without.
    return undefined;
  }
}

/** The provider's configuration variables from its auth.json entry (`env`), for the request's `env`. */
export function hostProviderEnv(provider: string): Record<string, string> | undefined {
  return source?.getProviderEnv?.({ provider });
}

/** The configured request headers for `model` (models.json, registered providers, `authHeader`). */
export async function hostHeaders(model: Pick<Model, "provider" | "id" | "headers">, apiKey?: string): Promise<Record<string, string> | undefined> {
  try {
    const headers = await source?.getHeaders(model, apiKey);
    return headers && Object.keys(headers).length > 0 ? headers : undefined;
  } catch {
    return undefined;
  }
}
