import { getEnvApiKey, findEnvKeys } from "../env-api-keys.ts";
import type { Model, StreamOptions } from "../types.ts";

/** The key given in options, else the provider's environment variable; a clear error when neither is set. */
export function resolveProviderApiKey(model: Model, options: StreamOptions | undefined): string {
  const key = options?.apiKey ?? getEnvApiKey(model.provider, options?.env);
  if (key) return key;
  const vars = findEnvKeys(model.provider);
  const hint = vars ? `set ${vars[0]} or pass --api-key` : `set "apiKey" for provider "${model.provider}" in models.json or pass --api-key`;
  throw new Error(`No API key for provider "${model.provider}": ${hint}`);
}
