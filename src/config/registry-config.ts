/**
 * The configuration a ModelRegistry merges, apart from the models themselves: the
 * provider shapes an extension registers at runtime, how a registration without models
 * layers over an earlier one, and each provider's credential and headers as configured
 * (unresolved: a `!command` runs, and a `$VAR` is read, only when a request needs it).
 */
import type { Api } from "../ai/types.ts";
import type { ModelConfig, ProviderConfig } from "./models-json.ts";
import { interpolateEnv, isConfigValueConfigured, isInterpolated, resolveConfigValue } from "./resolve-value.ts";

/** A models.json or registered model entry that is a classifier or an image model (pi 1.x), not a chat model. */
export function isTypedModelConfig<T extends { type?: unknown }>(model: T): model is T & { type: "classifier" | "image" } {
  return model.type === "classifier" || model.type === "image";
}

/** A model as an extension defines it: models.json's fields, any API name, and its own endpoint. */
export interface RuntimeModelConfig extends Omit<ModelConfig, "api"> {
  api?: Api;
  baseUrl?: string;
}

/**
 * A provider registered at runtime: models.json's provider shape, except that `api` may
 * name any API (one an extension serves with its own stream) and there are no
 * `modelOverrides` (a registration with models replaces them all).
 */
export interface RuntimeProviderConfig extends Omit<ProviderConfig, "api" | "models" | "modelOverrides"> {
  api?: Api;
  models?: RuntimeModelConfig[];
}

export type RawHeaders = Record<string, string>;

/**
 * A credential or header value as configured. Values registered at runtime follow the
 * extension syntax (`$VAR` / `${VAR}` interpolation, see `resolveRuntimeValue`), those
 * from models.json the file's (resolve-value.ts).
 */
export interface ConfiguredValue {
  text: string;
  runtime: boolean;
}

/** What a request to a provider needs besides the model: its credential and headers. */
export interface ProviderAuth {
  apiKey?: ConfiguredValue;
  headers: Record<string, ConfiguredValue>;
  authHeader: boolean;
}

/** The provider-level settings a registration without models changes; unset ones keep their value. */
const PROVIDER_SETTINGS = ["baseUrl", "api", "apiKey", "authHeader", "compat"] as const;

export function definedSettings(config: RuntimeProviderConfig): RuntimeProviderConfig {
  const settings: Record<string, unknown> = {};
  for (const key of PROVIDER_SETTINGS) if (config[key] !== undefined) settings[key] = config[key];
  return settings as RuntimeProviderConfig;
}

/** A registration without models on top of an earlier one: its settings win, headers merge. */
export function layerSettings(previous: RuntimeProviderConfig, config: RuntimeProviderConfig): RuntimeProviderConfig {
  const layered: RuntimeProviderConfig = { ...previous, ...definedSettings(config) };
  if (config.headers) layered.headers = { ...previous.headers, ...config.headers };
  return layered;
}

/** Runtime settings win over models.json's; headers merge name by name. */
export function providerAuth(file: ProviderConfig | undefined, runtime: RuntimeProviderConfig | undefined): ProviderAuth {
  const apiKey =
    runtime?.apiKey !== undefined
      ? { text: runtime.apiKey, runtime: true }
      : file?.apiKey !== undefined
        ? { text: file.apiKey, runtime: false }
        : undefined;
  return {
    apiKey,
    headers: { ...configuredValues(file?.headers, false), ...configuredValues(runtime?.headers, true) },
    authHeader: runtime?.authHeader ?? file?.authHeader ?? false,
  };
}

export function configuredValues(raw: RawHeaders | undefined, runtime: boolean): Record<string, ConfiguredValue> {
  return Object.fromEntries(Object.entries(raw ?? {}).map(([name, text]) => [name, { text, runtime }]));
}

export function isValueConfigured(value: ConfiguredValue): boolean {
  if (value.runtime && isInterpolated(value.text)) return interpolateEnv(value.text) !== "";
  return isConfigValueConfigured(value.text);
}

// --- the value syntax of runtime registrations ------------------------------------

/**
 * Resolves an `apiKey` or header value an extension registered (seed 003,
 * pi.registerProvider): as in models.json, except that a `$VAR` left unset becomes
 * empty rather than an error (a registration without its variable has no credential,
 * and the provider's environment key applies).
 */
export async function resolveRuntimeValue(text: string): Promise<string> {
  return isInterpolated(text) ? interpolateEnv(text) : resolveConfigValue(text);
}
