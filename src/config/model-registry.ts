/**
 * All models xcsh can use: the built-in catalog merged with models.json, plus the
 * credentials and headers each needs at request time.
 *
 * Headers: the Model objects handed out never carry header values from models.json,
 * because those may be `!command`s or env-var names that must be resolved first (and
 * resolved secrets do not belong in objects that get listed and logged). Callers get the
 * request headers from `getHeaders(model)` and pass them as `StreamOptions.headers`.
 */
import { getEnvApiKey } from "../ai/env-api-keys.ts";
import { getModels, getProviders as getBuiltinProviders } from "../ai/models.ts";
import type { Api, Model, ModelCompat, ModelCost } from "../ai/types.ts";
import { loadModelsJson, type ModelConfig, type ModelOverride, type ProviderConfig } from "./models-json.ts";
import { getModelsJsonPath } from "./paths.ts";
import { isConfigValueConfigured, resolveConfigValue } from "./resolve-value.ts";

/** Defaults for fields a models.json model leaves out (models.md, "Model Configuration"). */
export const CUSTOM_MODEL_DEFAULTS = {
  reasoning: false,
  input: ["text"] as Model["input"],
  contextWindow: 128000,
  maxTokens: 16384,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } as ModelCost,
};

export interface ModelRegistryOptions {
  /** Defaults to `<agent dir>/models.json`. */
  modelsJsonPath?: string;
}

type RawHeaders = Record<string, string>;

export class ModelRegistry {
  private readonly models: Model[];
  /** Unresolved header values from models.json per model, keyed by `modelKey`. */
  private readonly modelHeaders: Map<string, RawHeaders>;

  private constructor(
    /** The models.json this registry was built from (it may not exist). */
    readonly modelsJsonPath: string,
    private readonly providerConfigs: Record<string, ProviderConfig>,
  ) {
    const built = buildModels(providerConfigs);
    this.models = built.models;
    this.modelHeaders = built.headers;
  }

  /** Builds the registry from the built-in catalog and models.json; throws ConfigError for a bad file. */
  static load(options: ModelRegistryOptions = {}): ModelRegistry {
    const path = options.modelsJsonPath ?? getModelsJsonPath();
    return new ModelRegistry(path, loadModelsJson(path).providers);
  }

  /** Every model, built-in providers first (anthropic, openai, google), then models.json's in file order. */
  getAll(): Model[] {
    return this.models.map((model) => structuredClone(model));
  }

  find(provider: string, id: string): Model | undefined {
    const model = this.models.find((candidate) => candidate.provider === provider && candidate.id === id);
    return model ? structuredClone(model) : undefined;
  }

  /** Providers that have at least one model, in the same order as `getAll()`. */
  getProviders(): string[] {
    return [...new Set(this.models.map((model) => model.provider))];
  }

  /**
   * Whether a credential is configured for the model's provider: an `apiKey` in
   * models.json or the provider's environment variable. Never runs a command.
   */
  hasAuth(model: Pick<Model, "provider">): boolean {
    if (isConfigValueConfigured(this.providerConfigs[model.provider]?.apiKey)) return true;
    return getEnvApiKey(model.provider) !== undefined;
  }

  /** Models whose provider has a credential configured. */
  getAvailable(): Model[] {
    return this.getAll().filter((model) => this.hasAuth(model));
  }

  /**
   * The API key for a request: `override` (e.g. --api-key) wins, then the provider's
   * models.json `apiKey` (resolved now: a `!command` runs on every call), then the
   * provider's environment variable. Undefined when none is set.
   */
  async getApiKey(model: Pick<Model, "provider">, override?: string): Promise<string | undefined> {
    if (override) return override;
    const configured = this.providerConfigs[model.provider]?.apiKey;
    if (isConfigValueConfigured(configured)) {
      return this.resolve(configured!, `"apiKey" of provider "${model.provider}"`);
    }
    return getEnvApiKey(model.provider);
  }

  /**
   * Request headers for the model, resolved: headers set on the model object itself,
   * then the provider's models.json headers, then the model's own (override or custom
   * model) headers, later ones winning; plus `Authorization: Bearer <key>` when the
   * provider sets `authHeader: true`. Pass `apiKey` when already resolved, so a
   * `!command` key does not run twice.
   */
  async getHeaders(model: Pick<Model, "provider" | "id" | "headers">, apiKey?: string): Promise<Record<string, string>> {
    const config = this.providerConfigs[model.provider];
    const raw: RawHeaders = { ...config?.headers, ...this.modelHeaders.get(modelKey(model)) };
    const entries = await Promise.all(
      Object.entries(raw).map(async ([name, value]) => [name, await this.resolve(value, `header "${name}" of provider "${model.provider}"`)] as const),
    );
    const headers: Record<string, string> = { ...model.headers, ...Object.fromEntries(entries) };
    if (config?.authHeader) {
      const key = apiKey ?? (await this.getApiKey(model));
      if (key) headers.Authorization = `Bearer ${key}`;
    }
    return headers;
  }

  private async resolve(value: string, what: string): Promise<string> {
    try {
      return await resolveConfigValue(value);
    } catch (error) {
      throw new Error(`Cannot resolve the ${what} in ${this.modelsJsonPath}: ${(error as Error).message}`);
    }
  }
}

function modelKey(model: Pick<Model, "provider" | "id">): string {
  return `${model.provider}\u0000${model.id}`;
}

/**
 * The merge described in models.md: built-in models of a provider get the provider-level
 * baseUrl/api/compat, then its `modelOverrides`; then custom `models` are upserted by id
 * (replacing a built-in in place, or appended).
 */
function buildModels(providers: Record<string, ProviderConfig>): { models: Model[]; headers: Map<string, RawHeaders> } {
  const builtinProviders: string[] = getBuiltinProviders();
  const order = [...builtinProviders, ...Object.keys(providers).filter((name) => !builtinProviders.includes(name))];
  const models: Model[] = [];
  const headers = new Map<string, RawHeaders>();

  for (const providerName of order) {
    const config: ProviderConfig = providers[providerName] ?? {};
    const builtins = getModels(providerName);
    const providerModels = builtins.map((model) => withProviderSettings(model, config));

    for (const [id, override] of Object.entries(config.modelOverrides ?? {})) {
      const index = providerModels.findIndex((model) => model.id === id);
      if (index === -1) continue; // models.md: overrides of unknown ids are ignored
      providerModels[index] = applyOverride(providerModels[index], override);
      if (override.headers) headers.set(modelKey(providerModels[index]), override.headers);
    }

    // A custom model added to a built-in provider inherits that provider's endpoint and API.
    const fallback = builtins[0] ? { baseUrl: builtins[0].baseUrl, api: builtins[0].api } : undefined;
    for (const custom of config.models ?? []) {
      const model = customModel(providerName, custom, config, fallback);
      const index = providerModels.findIndex((existing) => existing.id === model.id);
      if (index === -1) providerModels.push(model);
      else providerModels[index] = model;
      // A replaced built-in loses its override headers along with the rest of the override.
      if (custom.headers) headers.set(modelKey(model), custom.headers);
      else headers.delete(modelKey(model));
    }
    models.push(...providerModels);
  }
  return { models, headers };
}

function withProviderSettings(model: Model, config: ProviderConfig): Model {
  const result: Model = { ...model };
  if (config.baseUrl !== undefined) result.baseUrl = config.baseUrl;
  if (config.api !== undefined) result.api = config.api;
  const compat = mergeCompat(model.compat, config.compat);
  if (compat) result.compat = compat;
  return result;
}

function applyOverride(model: Model, override: ModelOverride): Model {
  const result: Model = { ...model };
  if (override.name !== undefined) result.name = override.name;
  if (override.reasoning !== undefined) result.reasoning = override.reasoning;
  if (override.input !== undefined) result.input = [...override.input];
  if (override.contextWindow !== undefined) result.contextWindow = override.contextWindow;
  if (override.maxTokens !== undefined) result.maxTokens = override.maxTokens;
  if (override.cost !== undefined) result.cost = { ...model.cost, ...override.cost };
  const compat = mergeCompat(model.compat, override.compat);
  if (compat) result.compat = compat;
  return result;
}

function customModel(
  provider: string,
  custom: ModelConfig,
  config: ProviderConfig,
  fallback: { baseUrl: string; api: Api } | undefined,
): Model {
  // models-json.ts guarantees a baseUrl and an api for custom providers' models.
  const baseUrl = config.baseUrl ?? fallback?.baseUrl ?? "";
  const api = custom.api ?? config.api ?? fallback?.api ?? "";
  const model: Model = {
    id: custom.id,
    name: custom.name ?? custom.id,
    api,
    provider,
    baseUrl,
    reasoning: custom.reasoning ?? CUSTOM_MODEL_DEFAULTS.reasoning,
    input: [...(custom.input ?? CUSTOM_MODEL_DEFAULTS.input)],
    cost: { ...CUSTOM_MODEL_DEFAULTS.cost, ...custom.cost },
    contextWindow: custom.contextWindow ?? CUSTOM_MODEL_DEFAULTS.contextWindow,
    maxTokens: custom.maxTokens ?? CUSTOM_MODEL_DEFAULTS.maxTokens,
  };
  if (custom.thinkingLevelMap) model.thinkingLevelMap = { ...custom.thinkingLevelMap };
  const compat = mergeCompat(config.compat, custom.compat);
  if (compat) model.compat = compat;
  return model;
}

/** Later compat wins field by field; undefined when neither sets anything. */
function mergeCompat(base: ModelCompat | undefined, override: ModelCompat | undefined): ModelCompat | undefined {
  if (!base && !override) return undefined;
  return { ...base, ...override };
}
