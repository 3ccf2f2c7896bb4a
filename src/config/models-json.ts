/**
 * models.json: custom providers and models, and overrides of the built-in ones
 * (format: spec/reference/models.md). This module only reads and validates the file;
 * model-registry.ts turns it into models.
 */
import type { Static } from "typebox";
import { Type } from "../schema/type.ts";
import { getProviders } from "../ai/models.ts";
import { canonicalProvider } from "../ai/provider-aliases.ts";
import { SPOKEN_THINKING_FORMATS, THINKING_LEVELS, UNSPOKEN_THINKING_FORMATS, type KnownApi } from "../ai/types.ts";
import { ConfigError } from "./errors.ts";
import { assertMatchesSchema, formatPath, readJsonFile, toPointer } from "./json-file.ts";
import { noteConfigWarning, noteUnknownKeys } from "./unknown-keys.ts";
import { noteNotAppliedModelKeys } from "./models-json-not-applied.ts";

export const SUPPORTED_APIS: readonly KnownApi[] = [
  "openai-completions",
  "openai-responses",
  "anthropic-messages",
  "google-generative-ai",
  "azure-openai-responses",
  "google-vertex",
  "bedrock-converse-stream",
];

const MODELS_JSON_HINT = "Fix models.json and try again.";

const TokenCount = Type.Integer({ minimum: 1 });
const Price = Type.Number({ minimum: 0 });

const ApiSchema = Type.Enum(SUPPORTED_APIS);
/** The APIs xcsh runs classifier and image models with (ai/classify.ts, ai/generate-images.ts). */
export const TYPED_APIS = { classifier: ["typesafe-system-one", "openai-decisions"], image: ["openrouter-images"] } as const;
const ModelApiSchema = Type.Enum([...SUPPORTED_APIS, ...TYPED_APIS.classifier, ...TYPED_APIS.image]);
const InputSchema = Type.Array(Type.Enum(["text", "image"]));
const HeadersSchema = Type.Record(Type.String(), Type.String());
const CostSchema = Type.Object({
  input: Type.Optional(Price),
  output: Type.Optional(Price),
  cacheRead: Type.Optional(Price),
  cacheWrite: Type.Optional(Price),
});
const ThinkingLevelMapSchema = Type.Object(
  Object.fromEntries(THINKING_LEVELS.map((level) => [level, Type.Optional(Type.Union([Type.String(), Type.Null()]))])),
);
/** Known compat switches are type-checked; unknown ones pass through for newer providers. */
const CompatSchema = Type.Object({
  supportsStore: Type.Optional(Type.Boolean()),
  supportsDeveloperRole: Type.Optional(Type.Boolean()),
  supportsReasoningEffort: Type.Optional(Type.Boolean()),
  supportsUsageInStreaming: Type.Optional(Type.Boolean()),
  maxTokensField: Type.Optional(Type.Enum(["max_completion_tokens", "max_tokens"])),
  requiresToolResultName: Type.Optional(Type.Boolean()),
  requiresAssistantAfterToolResult: Type.Optional(Type.Boolean()),
  requiresThinkingAsText: Type.Optional(Type.Boolean()),
  requiresReasoningContentOnAssistantMessages: Type.Optional(Type.Boolean()),
  thinkingFormat: Type.Optional(Type.Enum([...SPOKEN_THINKING_FORMATS, ...UNSPOKEN_THINKING_FORMATS])),
  openRouterRouting: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  vercelGatewayRouting: Type.Optional(
    Type.Object({ only: Type.Optional(Type.Array(Type.String())), order: Type.Optional(Type.Array(Type.String())) }),
  ),
  supportsStrictMode: Type.Optional(Type.Boolean()),
  cacheControlFormat: Type.Optional(Type.Literal("anthropic")),
  supportsLongCacheRetention: Type.Optional(Type.Boolean()),
  sendSessionIdHeader: Type.Optional(Type.Boolean()),
  supportsEagerToolInputStreaming: Type.Optional(Type.Boolean()),
  // pi 1.x
  requiresNonNullAssistantContent: Type.Optional(Type.Boolean()),
  requiresToolsWithToolHistory: Type.Optional(Type.Boolean()),
  promptCacheKeyMode: Type.Optional(Type.Enum(["auto", "enabled", "disabled"])),
  sendSessionAffinityHeaders: Type.Optional(Type.Boolean()),
  sessionAffinityFormat: Type.Optional(Type.Enum(["openai", "openai-nosession", "openrouter"])),
  zaiToolStream: Type.Optional(Type.Boolean()),
  thinkingTokenBudgetField: Type.Optional(Type.Enum(["thinking_token_budget", "thinking_budget", "thinking_budget_tokens"])),
  vllmPriority: Type.Optional(Type.Number()),
  supportsThinkingTokenBudget: Type.Optional(Type.Boolean()),
  supportsFinishReason: Type.Optional(Type.Boolean()),
  chatTemplateArgs: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  chatTemplateKwargs: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  forceAdaptiveThinking: Type.Optional(Type.Boolean()),
  supportsTemperature: Type.Optional(Type.Boolean()),
  supportsCacheControlOnTools: Type.Optional(Type.Boolean()),
  allowEmptySignature: Type.Optional(Type.Boolean()),
  supportsStrictTools: Type.Optional(Type.Boolean()),
  supportsMaxOutputTokens: Type.Optional(Type.Boolean()),
  // pi 1.x, for features xcsh does not have: accepted, and named when set (models-json-not-applied.ts)
  supportsMidConvoSystemMessages: Type.Optional(Type.Boolean()),
  supportsMidConvoToolAdditions: Type.Optional(Type.Boolean()),
  supportsMidConvoToolChanges: Type.Optional(Type.Boolean()),
  supportsMidConvoEffort: Type.Optional(Type.Boolean()),
  supportsOpenAIGrammarTools: Type.Optional(Type.Boolean()),
  supportsAdditionalTools: Type.Optional(Type.Boolean()),
  supportsToolSearch: Type.Optional(Type.Boolean()),
  supportsExplicitPromptCacheMode: Type.Optional(Type.Boolean()),
  supportsMessageThreads: Type.Optional(Type.Boolean()),
  allowedFallbackModels: Type.Optional(Type.Array(Type.Unknown())),
  // pi 1.x, a classifier provider's (config/typed-models.ts)
  imageInput: Type.Optional(Type.Enum(["assets", "images", "state-image-urls"])),
  sendImageOptInHeader: Type.Optional(Type.Boolean()),
  // xcsh: Gemini's largest thinking budget; what a Bedrock model takes (Claude's cache points and thinking budget)
  maxThinkingBudget: Type.Optional(Type.Integer({ minimum: 1 })),
  supportsCachePoints: Type.Optional(Type.Boolean()),
  supportsBudgetThinking: Type.Optional(Type.Boolean()),
});

/** pi 1.x's `inputLimits`: what the endpoint takes of images and request size (models-json-not-applied.ts says what xcsh does with it). */
const InputLimitsSchema = Type.Object({
  maxRequestBytes: Type.Optional(TokenCount),
  images: Type.Optional(
    Type.Object({
      resize: Type.Optional(
        Type.Object({
          maxWidth: Type.Optional(TokenCount),
          maxHeight: Type.Optional(TokenCount),
          maxBytes: Type.Optional(TokenCount),
          jpegQuality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        }),
      ),
      maxPerMessage: Type.Optional(TokenCount),
      maxPerRequest: Type.Optional(TokenCount),
    }),
  ),
});

/** pi 1.x's `promptCache`: the provider's cache lifetime in seconds per retention tier, for cache warming. */
const PromptCacheSchema = Type.Object({
  short: Type.Optional(Type.Number({ minimum: 0 })),
  long: Type.Optional(Type.Number({ minimum: 0 })),
});

/** pi 1.x: free-form request fields, and per thinking level (pi's level names, `max` included). */
const SamplingParamsSchema = Type.Record(Type.String(), Type.Unknown());
const SamplingByLevelSchema = Type.Object(
  Object.fromEntries([...THINKING_LEVELS, "max"].map((level) => [level, Type.Optional(SamplingParamsSchema)])),
  { additionalProperties: false },
);

const ModelConfigSchema = Type.Object({
  id: Type.String({ minLength: 1 }),
  /** pi 1.x's model types: "chat" (the default), or a classifier or image model (config/typed-models.ts). */
  type: Type.Optional(Type.Enum(["chat", "classifier", "image"])),
  name: Type.Optional(Type.String()),
  api: Type.Optional(ModelApiSchema),
  reasoning: Type.Optional(Type.Boolean()),
  thinkingLevelMap: Type.Optional(ThinkingLevelMapSchema),
  input: Type.Optional(InputSchema),
  contextWindow: Type.Optional(TokenCount),
  maxTokens: Type.Optional(TokenCount),
  cost: Type.Optional(CostSchema),
  headers: Type.Optional(HeadersSchema),
  compat: Type.Optional(CompatSchema),
  samplingParams: Type.Optional(SamplingParamsSchema),
  samplingParamsByThinkingLevel: Type.Optional(SamplingByLevelSchema),
  inputLimits: Type.Optional(InputLimitsSchema),
  promptCache: Type.Optional(PromptCacheSchema),
  /** An image model's outputs (default ["image"]). */
  output: Type.Optional(InputSchema),
});

/** The fields models.md allows in `modelOverrides` (cost may be partial). */
const ModelOverrideSchema = Type.Object({
  name: Type.Optional(Type.String()),
  reasoning: Type.Optional(Type.Boolean()),
  thinkingLevelMap: Type.Optional(ThinkingLevelMapSchema),
  input: Type.Optional(InputSchema),
  cost: Type.Optional(CostSchema),
  contextWindow: Type.Optional(TokenCount),
  maxTokens: Type.Optional(TokenCount),
  headers: Type.Optional(HeadersSchema),
  compat: Type.Optional(CompatSchema),
  samplingParams: Type.Optional(SamplingParamsSchema),
  samplingParamsByThinkingLevel: Type.Optional(SamplingByLevelSchema),
  inputLimits: Type.Optional(InputLimitsSchema),
  promptCache: Type.Optional(PromptCacheSchema),
});

const ProviderConfigSchema = Type.Object({
  baseUrl: Type.Optional(Type.String({ minLength: 1 })),
  api: Type.Optional(ApiSchema),
  apiKey: Type.Optional(Type.String()),
  headers: Type.Optional(HeadersSchema),
  authHeader: Type.Optional(Type.Boolean()),
  compat: Type.Optional(CompatSchema),
  models: Type.Optional(Type.Array(ModelConfigSchema)),
  modelOverrides: Type.Optional(Type.Record(Type.String(), ModelOverrideSchema)),
});

export const ModelsJsonSchema = Type.Object({
  /** An editor's schema reference (schemas/models.schema.json, or pi's URL); xcsh does not read it. */
  $schema: Type.Optional(Type.String()),
  providers: Type.Optional(Type.Record(Type.String(), ProviderConfigSchema)),
});

export type ModelConfig = Static<typeof ModelConfigSchema>;
export type ModelOverride = Static<typeof ModelOverrideSchema>;
export type ProviderConfig = Static<typeof ProviderConfigSchema>;
export interface ModelsJson {
  providers: Record<string, ProviderConfig>;
}

/**
 * Reads and validates models.json. A missing file means no custom configuration.
 * Throws ConfigError for invalid JSON (with line and column), schema violations (with
 * the field path and what was expected) and inconsistent providers.
 */
export function loadModelsJson(file: string): ModelsJson {
  const content = readJsonFile(file, MODELS_JSON_HINT);
  if (content === undefined) return { providers: {} };
  return parseModelsJson(content, file);
}

/** Validates already-parsed models.json content; `file` is used in error messages. */
export function parseModelsJson(content: unknown, file: string): ModelsJson {
  if (typeof content !== "object" || content === null || Array.isArray(content)) {
    throw new ConfigError(file, 'expected a JSON object with a "providers" object at the top level', MODELS_JSON_HINT);
  }
  assertMatchesSchema<Static<typeof ModelsJsonSchema>>(ModelsJsonSchema, content, file, MODELS_JSON_HINT);
  noteUnknownKeys(ModelsJsonSchema, content, file);
  const modelsJson: ModelsJson = { providers: withCanonicalKeys(content.providers ?? {}) };
  noteUnspokenThinkingFormats(modelsJson, file);
  noteNotAppliedModelKeys(modelsJson, file);
  const problems = findProviderProblems(modelsJson);
  if (problems.length > 0) throw new ConfigError(file, problems, MODELS_JSON_HINT);
  return modelsJson;
}

/**
 * Provider keys in the catalog's spelling: pi 1.x's `azure` is xcsh's `azure-openai-responses`
 * (provider-aliases.ts). When a file has both, they are one provider: the later key's
 * settings win field by field, models and modelOverrides are joined.
 */
function withCanonicalKeys(providers: Record<string, ProviderConfig>): Record<string, ProviderConfig> {
  const result: Record<string, ProviderConfig> = {};
  for (const [name, config] of Object.entries(providers)) {
    const id = canonicalProvider(name);
    const earlier = result[id];
    result[id] = earlier
      ? {
          ...earlier,
          ...config,
          ...(earlier.models || config.models ? { models: [...(earlier.models ?? []), ...(config.models ?? [])] } : {}),
          ...(earlier.modelOverrides || config.modelOverrides ? { modelOverrides: { ...earlier.modelOverrides, ...config.modelOverrides } } : {}),
        }
      : config;
  }
  return result;
}

/**
 * pi 0.87.1's thinking formats that xcsh does not speak yet: a models.json naming one
 * still loads (with one warning), and such a model is asked without reasoning fields.
 */
function noteUnspokenThinkingFormats(modelsJson: ModelsJson, file: string): void {
  for (const [name, provider] of Object.entries(modelsJson.providers)) {
    const formats = [provider.compat?.thinkingFormat, ...(provider.models ?? []).map((model) => model.compat?.thinkingFormat)];
    for (const format of formats) {
      if (format === undefined || !(UNSPOKEN_THINKING_FORMATS as readonly string[]).includes(format)) continue;
      noteConfigWarning(
        `thinking-format:${file}:${name}:${format}`,
        `${file}: provider "${name}": thinkingFormat "${format}" is not supported by xcsh yet; its models are asked without reasoning settings`,
      );
    }
  }
}

/** What the schema cannot express: rules that depend on whether a provider is built in. */
function findProviderProblems(modelsJson: ModelsJson): string[] {
  const builtIn = new Set<string>(getProviders());
  const problems: string[] = [];
  for (const [name, provider] of Object.entries(modelsJson.providers)) {
    const at = (...segments: (string | number)[]) => formatPath(toPointer(["providers", name, ...segments]));
    if (provider.baseUrl !== undefined && !URL.canParse(provider.baseUrl)) {
      problems.push(`${at("baseUrl")}: ${JSON.stringify(provider.baseUrl)} is not a URL (expected e.g. "http://localhost:11434/v1")`);
    }
    const models = provider.models ?? [];
    models.forEach((model, index) => {
      const type = model.type === "classifier" || model.type === "image" ? model.type : "chat";
      const typedApis: readonly string[] = type === "chat" ? [] : TYPED_APIS[type];
      if (type !== "chat" && !typedApis.includes(model.api ?? "")) {
        problems.push(`${at("models", index, "api")}: a ${type} model names the API that runs it: one of ${typedApis.join(", ")}`);
      } else if (type === "chat" && model.api !== undefined && !(SUPPORTED_APIS as readonly string[]).includes(model.api)) {
        problems.push(`${at("models", index, "api")}: "${model.api}" runs ${model.api === "openrouter-images" ? "image" : "classifier"} models; give the model "type" too, or a chat API (one of ${SUPPORTED_APIS.join(", ")})`);
      }
    });
    if (builtIn.has(name) || models.length === 0) continue;
    if (provider.baseUrl === undefined) {
      problems.push(`${at()}: "baseUrl" is required for a custom provider that defines models (e.g. "http://localhost:11434/v1")`);
    }
    if (provider.api === undefined) {
      models.forEach((model, index) => {
        if (model.api === undefined) {
          problems.push(`${at("models", index)}: "api" is required, on the provider or on the model (one of ${SUPPORTED_APIS.join(", ")})`);
        }
      });
    }
  }
  return problems;
}
