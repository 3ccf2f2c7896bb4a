/**
 * pi 1.x's read-only views of one provider, as extensions written for pi 1.x ask the
 * model registry for them: the provider with its models (getProvider), where its
 * credential comes from without the credential itself (getProviderAuthStatus), and its
 * key and headers as a request would send them (getProviderAuth). The registry answers
 * with these functions; they read the registry and change nothing.
 */
import type { Model } from "../ai/types.ts";
import type { ResolvedRequestAuth } from "./registry-requests.ts";

/** What the views read of a registry. */
export interface ProviderViewSource {
  getProviders(): string[];
  list(): readonly Readonly<Model>[];
  getAll(): Model[];
  hasAuth(model: Pick<Model, "provider">): boolean;
  getApiKeyAndHeaders(model: Model): Promise<ResolvedRequestAuth>;
}

export type ProviderAuthSource = "stored" | "runtime" | "environment" | "models_json_key" | "models_json_command";

export interface ProviderView {
  id: string;
  name: string;
  baseUrl?: string;
  getModels(): Model[];
}

/** The provider as a view (id, name, base URL, its models); undefined when no model has it. */
export function providerView(registry: ProviderViewSource, provider: string): ProviderView | undefined {
  if (!registry.getProviders().includes(provider)) return undefined;
  const models = () => registry.getAll().filter((model) => model.provider === provider);
  const baseUrl = registry.list().find((model) => model.provider === provider)?.baseUrl;
  return { id: provider, name: provider, ...(baseUrl ? { baseUrl } : {}), getModels: models };
}

/**
 * The provider's key and headers as a request would send them (what getApiKeyAndHeaders
 * gives for one of its models); undefined when it has none configured.
 */
export async function providerAuthView(
  registry: ProviderViewSource,
  provider: string,
): Promise<{ auth: { apiKey?: string; headers?: Record<string, string> }; env?: Record<string, string> } | undefined> {
  const model = registry.getAll().find((candidate) => candidate.provider === provider);
  if (!model || !registry.hasAuth(model)) return undefined;
  const resolved = await registry.getApiKeyAndHeaders(model);
  if (!resolved.ok) throw new Error(resolved.error);
  return {
    auth: { ...(resolved.apiKey ? { apiKey: resolved.apiKey } : {}), ...(resolved.headers ? { headers: resolved.headers } : {}) },
    ...(resolved.env ? { env: resolved.env } : {}),
  };
}
