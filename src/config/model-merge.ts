/**
 * How the registry's model list is built: the built-in models of each provider with the
 * provider-level settings of models.json or a registration, then `modelOverrides`, then
 * custom models upserted by id (models.md, "Model Configuration"). Pure: it returns the
 * models and the unresolved header values of each, and the registry keeps them.
 */
import type { Api, Model, ModelCompat, ModelCost } from "../ai/types.ts";
import type { ModelConfig, ModelOverride, ProviderConfig } from "./models-json.ts";
import { configuredValues, isTypedModelConfig, type ConfiguredValue, type RuntimeModelConfig, type RuntimeProviderConfig } from "./registry-config.ts";

/** Defaults for fields a models.json model leaves out (models.md, "Model Configuration"). */
export const CUSTOM_MODEL_DEFAULTS = {
  reasoning: false,
  input: ["text"] as Model["input"],
  contextWindow: 128000,
  maxTokens: 16384,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } as ModelCost,
};

/** The key of a model's header values in the map buildModels returns. */
export function modelKey(model: Pick<Model, "provider" | "id">): string {
  return `${model.provider}\u0000${model.id}`;
}

/**
 * The merge described in models.md: built-in models of a provider get the provider-level
 * baseUrl/api/compat, then its `modelOverrides`; then custom `models` are upserted by id
 * (replacing a built-in in place, or appended). Providers in `replaced` keep only their
 * custom models (a runtime registration with models).
 */
export function buildModels(
  providers: Record<string, ProviderConfig | RuntimeProviderConfig>,
  replaced: ReadonlySet<string>,
  /** Providers whose built-in models are offered (catalog providers without a key stay unread: start-up cost). */
  builtinProviders: readonly string[],
  builtinModels: (provider: string) => Model[],
): { models: Model[]; headers: Map<string, Record<string, ConfiguredValue>> } {
  const order = [...builtinProviders, ...Object.keys(providers).filter((name) => !builtinProviders.includes(name))];
  const models: Model[] = [];
  const headers = new Map<string, Record<string, ConfiguredValue>>();

  for (const providerName of order) {
    const config: ProviderConfig | RuntimeProviderConfig = providers[providerName] ?? {};
    const builtins = builtinModels(providerName);
    const providerModels = replaced.has(providerName) ? [] : builtins.map((model) => withProviderSettings(model, config));

    const overrides = "modelOverrides" in config ? config.modelOverrides : undefined;
    for (const [id, override] of Object.entries(overrides ?? {})) {
      const index = providerModels.findIndex((model) => model.id === id);
      if (index === -1) continue; // models.md: overrides of unknown ids are ignored
      providerModels[index] = applyOverride(providerModels[index], override);
      if (override.headers) headers.set(modelKey(providerModels[index]), configuredValues(override.headers, false));
    }

    // A custom model added to a built-in provider inherits that provider's endpoint and API.
    const fallback = builtins[0] ? { baseUrl: builtins[0].baseUrl, api: builtins[0].api } : undefined;
    for (const custom of config.models ?? []) {
      // Classifier and image models are listed apart (typed-models.ts): never a chat model.
      if (isTypedModelConfig(custom)) continue;
      const model = customModel(providerName, custom, config, fallback);
      const index = providerModels.findIndex((existing) => existing.id === model.id);
      if (index === -1) providerModels.push(model);
      else providerModels[index] = model;
      // A replaced built-in loses its override headers along with the rest of the override.
      if (custom.headers) headers.set(modelKey(model), configuredValues(custom.headers, replaced.has(providerName)));
      else headers.delete(modelKey(model));
    }
    models.push(...providerModels);
  }
  return { models, headers };
}

function withProviderSettings(model: Model, config: ProviderConfig | RuntimeProviderConfig): Model {
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
  // An object field: merged level by level over the model's (pi 1.x's modelOverrides rule).
  if (override.thinkingLevelMap !== undefined) result.thinkingLevelMap = { ...model.thinkingLevelMap, ...override.thinkingLevelMap };
  if (override.input !== undefined) result.input = [...override.input];
  if (override.contextWindow !== undefined) result.contextWindow = override.contextWindow;
  if (override.maxTokens !== undefined) result.maxTokens = override.maxTokens;
  if (override.cost !== undefined) result.cost = { ...model.cost, ...override.cost };
  const compat = mergeCompat(model.compat, override.compat);
  if (compat) result.compat = compat;
  if (override.inputLimits !== undefined) result.inputLimits = structuredClone(override.inputLimits);
  withSampling(result, override);
  return result;
}

/**
 * pi 1.x's samplingParams: an override's merge key by key over the model's, and each
 * level's entry key by key over the model's entry for that level.
 */
export function withSampling(model: Model, from: Pick<ModelOverride, "samplingParams" | "samplingParamsByThinkingLevel">): void {
  if (from.samplingParams) model.samplingParams = { ...model.samplingParams, ...from.samplingParams };
  if (from.samplingParamsByThinkingLevel) {
    const levels: NonNullable<Model["samplingParamsByThinkingLevel"]> = { ...model.samplingParamsByThinkingLevel };
    for (const [level, params] of Object.entries(from.samplingParamsByThinkingLevel)) {
      const key = level as keyof typeof levels;
      if (params) levels[key] = { ...levels[key], ...params };
    }
    model.samplingParamsByThinkingLevel = levels;
  }
}

export function customModel(
  provider: string,
  custom: ModelConfig | RuntimeModelConfig,
  config: ProviderConfig | RuntimeProviderConfig,
  fallback: { baseUrl: string; api: Api } | undefined,
): Model {
  // models-json.ts and assertValidRuntimeProvider guarantee an api, and a baseUrl where one is needed.
  const baseUrl = ("baseUrl" in custom ? custom.baseUrl : undefined) ?? config.baseUrl ?? fallback?.baseUrl ?? "";
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
  if ("samplingParams" in custom || "samplingParamsByThinkingLevel" in custom) withSampling(model, custom as ModelConfig);
  if ("inputLimits" in custom && custom.inputLimits) model.inputLimits = structuredClone(custom.inputLimits);
  return model;
}

/** Later compat wins field by field; undefined when neither sets anything. */
function mergeCompat(base: ModelCompat | undefined, override: ModelCompat | undefined): ModelCompat | undefined {
  if (!base && !override) return undefined;
  return { ...base, ...override };
}
