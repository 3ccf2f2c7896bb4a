/**
 * The provider index: every hosted provider xcsh knows by name, with what a request to
 * it needs — the environment variable that holds its key (the same names pi uses), its
 * endpoint, the API it speaks and the quirks of that API's dialect. This table is small
 * and loaded at start-up (the key look-up needs it); the providers' model lists are
 * generated into ./models/ (scripts/generate-catalog.ts, from pi 1.6.0's catalog) and
 * loaded only when asked for (../models.ts).
 *
 * Written by hand: these are facts about each service, not data a catalog publishes.
 * `modelsFrom` names the models.dev provider whose models `xcsh models update` takes
 * for it (./models-dev.ts).
 *
 * Quirks are `compat` switches of the openai-completions provider (the same switches
 * models.json's `compat` sets): they are read per request from here, so a provider keeps
 * its dialect when models.json points it at a proxy.
 */
import type { KnownApi, ModelCompat, ThinkingLevelMap } from "../types.ts";

export interface CatalogProviderInfo {
  id: string;
  /** How people call the service. */
  name: string;
  /** Environment variables holding the key, in order of preference. */
  envKeys: readonly string[];
  baseUrl: string;
  api: KnownApi;
  /** The dialect's compat switches, for every model of the provider. */
  compat?: ModelCompat;
  /** Extra switches for models whose id starts with a prefix (first match wins). */
  modelCompat?: readonly { idPrefix: string; compat: ModelCompat }[];
  /** Thinking levels of the provider's reasoning models, when they differ from the defaults. */
  thinkingLevelMap?: ThinkingLevelMap;
  /**
   * Offered (its models listed to the default-model search) even without a key: the
   * providers most people start with, so "set ANTHROPIC_API_KEY" is the hint they get.
   */
  offeredWithoutKey?: true;
  /** `xcsh models update` only: the models.dev provider whose models this provider serves. */
  modelsFrom?: string;
  /**
   * `xcsh models update` only: models served over another API or endpoint than the provider's
   * (by id prefix; models.dev's own per-model `provider.npm` wins where it has one).
   */
  modelApis?: readonly { idPrefix: string; api: KnownApi; baseUrl?: string }[];
  /** `xcsh models update` only: a model id must match this to be kept (drops stale ids a source still lists). */
  modelIdPattern?: string;
  /**
   * `xcsh models update` only: models also offered under prefixed ids, each before the plain one
   * (Bedrock's cross-region inference profiles: `us.anthropic.claude-…`, which newer
   * models need for on-demand use).
   */
  modelIdVariants?: readonly { idPrefix: string; prefixes: readonly string[] }[];
}

/** Switches shared by servers that only imitate OpenAI's API: no `store`, no `developer` role. */
const IMITATION: ModelCompat = { supportsStore: false, supportsDeveloperRole: false };
/** …and that want the older `max_tokens` field. */
const IMITATION_MAX_TOKENS: ModelCompat = { ...IMITATION, maxTokensField: "max_tokens" };
/** Servers whose reasoning models accept `reasoning_effort` low/medium/high but not "minimal". */
const EFFORT_WITHOUT_MINIMAL: ThinkingLevelMap = { minimal: "low" };

/**
 * In the order providers are offered: Anthropic, OpenAI and Google first (the
 * default-model search tries them in this order), then the rest.
 */
export const CATALOG_PROVIDERS = [
  {
    id: "anthropic",
    name: "Anthropic",
    envKeys: ["ANTHROPIC_API_KEY"],
    baseUrl: "https://api.anthropic.com",
    api: "anthropic-messages",
    offeredWithoutKey: true,
    modelsFrom: "anthropic",
  },
  {
    id: "openai",
    name: "OpenAI",
    envKeys: ["OPENAI_API_KEY"],
    baseUrl: "https://api.openai.com/v1",
    api: "openai-responses",
    offeredWithoutKey: true,
    modelsFrom: "openai",
  },
  {
    id: "google",
    name: "Google Gemini",
    envKeys: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    baseUrl: "https://generativelanguage.googleapis.com/v1beta",
    api: "google-generative-ai",
    offeredWithoutKey: true,
    modelsFrom: "google",
  },
  {
    id: "openrouter",
    name: "OpenRouter",
    envKeys: ["OPENROUTER_API_KEY"],
    baseUrl: "https://openrouter.ai/api/v1",
    api: "openai-completions",
    compat: { ...IMITATION, thinkingFormat: "openrouter" },
    // OpenRouter passes Anthropic's cache breakpoints through to Claude.
    modelCompat: [{ idPrefix: "anthropic/", compat: { cacheControlFormat: "anthropic" } }],
    modelsFrom: "openrouter",
  },
  {
    id: "vercel-ai-gateway",
    name: "Vercel AI Gateway",
    envKeys: ["AI_GATEWAY_API_KEY"],
    baseUrl: "https://ai-gateway.vercel.sh/v1",
    api: "openai-completions",
    compat: IMITATION,
    modelsFrom: "vercel",
  },
  {
    id: "groq",
    name: "Groq",
    envKeys: ["GROQ_API_KEY"],
    baseUrl: "https://api.groq.com/openai/v1",
    api: "openai-completions",
    compat: IMITATION,
    thinkingLevelMap: EFFORT_WITHOUT_MINIMAL,
    modelsFrom: "groq",
  },
  {
    id: "cerebras",
    name: "Cerebras",
    envKeys: ["CEREBRAS_API_KEY"],
    baseUrl: "https://api.cerebras.ai/v1",
    api: "openai-completions",
    compat: IMITATION,
    thinkingLevelMap: EFFORT_WITHOUT_MINIMAL,
    modelsFrom: "cerebras",
  },
  {
    id: "deepseek",
    name: "DeepSeek",
    envKeys: ["DEEPSEEK_API_KEY"],
    baseUrl: "https://api.deepseek.com",
    api: "openai-completions",
    // Thinking is switched with `thinking: {type}`, and the reasoning of earlier tool-call steps must be sent back.
    compat: { ...IMITATION_MAX_TOKENS, thinkingFormat: "deepseek", requiresReasoningContentOnAssistantMessages: true },
    modelsFrom: "deepseek",
  },
  {
    id: "mistral",
    name: "Mistral",
    envKeys: ["MISTRAL_API_KEY"],
    baseUrl: "https://api.mistral.ai/v1",
    api: "openai-completions",
    // Mistral takes tool-call ids of exactly nine letters and digits, wants the tool's name on
    // its result, and has no reasoning_effort; earlier reasoning goes back as text.
    compat: {
      ...IMITATION_MAX_TOKENS,
      supportsReasoningEffort: false,
      requiresToolResultName: true,
      requiresThinkingAsText: true,
      toolCallIdFormat: "mistral",
    },
    modelsFrom: "mistral",
  },
  {
    id: "xai",
    name: "xAI",
    envKeys: ["XAI_API_KEY"],
    baseUrl: "https://api.x.ai/v1",
    api: "openai-completions",
    // Grok 4 reasons on its own and rejects reasoning_effort.
    compat: { ...IMITATION, supportsReasoningEffort: false },
    modelsFrom: "xai",
  },
  {
    id: "together",
    name: "Together AI",
    envKeys: ["TOGETHER_API_KEY"],
    baseUrl: "https://api.together.ai/v1",
    api: "openai-completions",
    compat: { ...IMITATION_MAX_TOKENS, supportsReasoningEffort: false, supportsLongCacheRetention: false },
    modelsFrom: "togetherai",
  },
  {
    id: "fireworks",
    name: "Fireworks",
    envKeys: ["FIREWORKS_API_KEY"],
    baseUrl: "https://api.fireworks.ai/inference/v1",
    api: "openai-completions",
    compat: IMITATION_MAX_TOKENS,
    thinkingLevelMap: EFFORT_WITHOUT_MINIMAL,
    modelsFrom: "fireworks-ai",
  },
  {
    id: "huggingface",
    name: "Hugging Face",
    envKeys: ["HF_TOKEN"],
    baseUrl: "https://router.huggingface.co/v1",
    api: "openai-completions",
    compat: IMITATION,
    modelsFrom: "huggingface",
  },
  {
    id: "nvidia",
    name: "NVIDIA NIM",
    envKeys: ["NVIDIA_API_KEY"],
    baseUrl: "https://integrate.api.nvidia.com/v1",
    api: "openai-completions",
    compat: { ...IMITATION_MAX_TOKENS, supportsReasoningEffort: false, supportsLongCacheRetention: false },
    modelsFrom: "nvidia",
    // NIM ids name the publisher ("qwen/qwen3-coder-480b-a35b-instruct"); older catalog rows lack it.
    modelIdPattern: "^[^/]+/[^/]+$",
  },
  {
    id: "baseten",
    name: "Baseten",
    envKeys: ["BASETEN_API_KEY"],
    baseUrl: "https://inference.baseten.co/v1",
    api: "openai-completions",
    compat: IMITATION_MAX_TOKENS,
    modelsFrom: "baseten",
  },
  {
    id: "zai",
    name: "Z.AI Coding Plan",
    envKeys: ["ZAI_API_KEY"],
    baseUrl: "https://api.z.ai/api/coding/paas/v4",
    api: "openai-completions",
    compat: { ...IMITATION_MAX_TOKENS, thinkingFormat: "zai" },
    modelsFrom: "zai-coding-plan",
  },
  {
    id: "zai-coding-cn",
    name: "Z.AI Coding Plan (China)",
    envKeys: ["ZAI_CODING_CN_API_KEY"],
    baseUrl: "https://open.bigmodel.cn/api/coding/paas/v4",
    api: "openai-completions",
    compat: { ...IMITATION_MAX_TOKENS, thinkingFormat: "zai" },
    modelsFrom: "zai-coding-plan",
  },
  {
    id: "moonshotai",
    name: "Moonshot AI",
    envKeys: ["MOONSHOT_API_KEY"],
    baseUrl: "https://api.moonshot.ai/v1",
    api: "openai-completions",
    compat: { ...IMITATION_MAX_TOKENS, supportsReasoningEffort: false },
    modelsFrom: "moonshotai",
  },
  {
    id: "moonshotai-cn",
    name: "Moonshot AI (China)",
    envKeys: ["MOONSHOT_API_KEY"],
    baseUrl: "https://api.moonshot.cn/v1",
    api: "openai-completions",
    compat: { ...IMITATION_MAX_TOKENS, supportsReasoningEffort: false },
    modelsFrom: "moonshotai-cn",
  },
  {
    id: "opencode",
    name: "OpenCode Zen",
    envKeys: ["OPENCODE_API_KEY"],
    baseUrl: "https://opencode.ai/inference/openai/v1",
    api: "openai-completions",
    compat: IMITATION_MAX_TOKENS,
    // Zen serves Claude over Anthropic's Messages API and GPT over OpenAI's Responses API.
    modelApis: [
      { idPrefix: "claude-", api: "anthropic-messages", baseUrl: "https://opencode.ai/inference/anthropic" },
      { idPrefix: "gpt-", api: "openai-responses" },
    ],
    modelsFrom: "opencode",
  },
  // Cloud providers: a key is one way in, their cloud's own credentials another
  // (env-api-keys.ts); where the endpoint depends on the account, baseUrl is a template.
  {
    id: "amazon-bedrock",
    name: "Amazon Bedrock",
    // A Bedrock API key; access keys and profiles are AWS's own credentials, not xcsh's.
    envKeys: ["AWS_BEARER_TOKEN_BEDROCK"],
    // The region is the account's: AWS_REGION replaces the one in this endpoint.
    baseUrl: "https://bedrock-runtime.us-east-1.amazonaws.com",
    api: "bedrock-converse-stream",
    modelsFrom: "amazon-bedrock",
    // Claude is served on demand through the geographies' inference profiles.
    modelIdVariants: [{ idPrefix: "anthropic.claude-", prefixes: ["us.", "eu.", "apac."] }],
  },
  {
    id: "google-vertex",
    name: "Google Vertex AI",
    envKeys: ["GOOGLE_CLOUD_API_KEY"],
    // The SDK picks the host from GOOGLE_CLOUD_LOCATION (or the global express endpoint).
    baseUrl: "https://{location}-aiplatform.googleapis.com",
    api: "google-vertex",
    modelsFrom: "google-vertex",
  },
  {
    id: "azure-openai-responses",
    name: "Azure OpenAI",
    envKeys: ["AZURE_OPENAI_API_KEY"],
    // Filled from AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME per request.
    baseUrl: "https://{resource}.openai.azure.com/openai/v1",
    api: "azure-openai-responses",
    modelsFrom: "azure",
  },
  // Providers models.dev does not list: their models come from pi's catalog alone (or
  // from models.json, docs/providers.md shows how).
  {
    id: "opencode-go",
    name: "OpenCode Go",
    envKeys: ["OPENCODE_API_KEY"],
    baseUrl: "https://opencode.ai/inference/go/openai/v1",
    api: "openai-completions",
    compat: IMITATION_MAX_TOKENS,
  },
  {
    id: "kimi-coding",
    name: "Kimi For Coding",
    envKeys: ["KIMI_API_KEY"],
    baseUrl: "https://api.kimi.com/coding",
    api: "anthropic-messages",
  },
  {
    id: "minimax",
    name: "MiniMax",
    envKeys: ["MINIMAX_API_KEY"],
    baseUrl: "https://api.minimax.io/anthropic",
    api: "anthropic-messages",
  },
  {
    id: "minimax-cn",
    name: "MiniMax (China)",
    envKeys: ["MINIMAX_CN_API_KEY"],
    baseUrl: "https://api.minimaxi.com/anthropic",
    api: "anthropic-messages",
  },
  {
    id: "qwen-token-plan",
    name: "Qwen Token Plan",
    envKeys: ["QWEN_TOKEN_PLAN_API_KEY"],
    baseUrl: "https://token-plan.maas.qwencloudapi.com/compatible-mode/v1",
    api: "openai-completions",
    compat: { ...IMITATION, thinkingFormat: "qwen" },
  },
  {
    id: "qwen-token-plan-individual",
    name: "Qwen Token Plan (Individual)",
    envKeys: ["QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"],
    baseUrl: "https://token-plan.maas.qwencloudapi.com/compatible-mode/v1",
    api: "openai-completions",
    compat: { ...IMITATION, thinkingFormat: "qwen" },
  },
  {
    id: "qwen-token-plan-individual-cn",
    name: "Qwen Token Plan (Individual, China)",
    envKeys: ["QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"],
    baseUrl: "https://token-plan.maas.qianwenaiapi.com/compatible-mode/v1",
    api: "openai-completions",
    compat: { ...IMITATION, thinkingFormat: "qwen" },
  },
  {
    id: "qwen-token-plan-cn",
    name: "Qwen Token Plan (China)",
    envKeys: ["QWEN_TOKEN_PLAN_CN_API_KEY"],
    baseUrl: "https://token-plan.maas.qianwenaiapi.com/compatible-mode/v1",
    api: "openai-completions",
    compat: { ...IMITATION, thinkingFormat: "qwen" },
  },
  {
    id: "xiaomi",
    name: "Xiaomi MiMo",
    envKeys: ["XIAOMI_API_KEY"],
    baseUrl: "https://api.xiaomimimo.com/v1",
    api: "openai-completions",
    compat: { ...IMITATION, thinkingFormat: "deepseek", requiresReasoningContentOnAssistantMessages: true },
  },
  {
    id: "xiaomi-token-plan-cn",
    name: "Xiaomi MiMo Token Plan (China)",
    envKeys: ["XIAOMI_TOKEN_PLAN_CN_API_KEY"],
    baseUrl: "https://token-plan-cn.xiaomimimo.com/v1",
    api: "openai-completions",
    compat: { ...IMITATION, thinkingFormat: "deepseek", requiresReasoningContentOnAssistantMessages: true },
  },
  {
    id: "xiaomi-token-plan-ams",
    name: "Xiaomi MiMo Token Plan (Amsterdam)",
    envKeys: ["XIAOMI_TOKEN_PLAN_AMS_API_KEY"],
    baseUrl: "https://token-plan-ams.xiaomimimo.com/v1",
    api: "openai-completions",
    compat: { ...IMITATION, thinkingFormat: "deepseek", requiresReasoningContentOnAssistantMessages: true },
  },
  {
    id: "xiaomi-token-plan-sgp",
    name: "Xiaomi MiMo Token Plan (Singapore)",
    envKeys: ["XIAOMI_TOKEN_PLAN_SGP_API_KEY"],
    baseUrl: "https://token-plan-sgp.xiaomimimo.com/v1",
    api: "openai-completions",
    compat: { ...IMITATION, thinkingFormat: "deepseek", requiresReasoningContentOnAssistantMessages: true },
  },
  {
    id: "ant-ling",
    name: "Ant Ling",
    envKeys: ["ANT_LING_API_KEY"],
    baseUrl: "https://api.ant-ling.com/v1",
    api: "openai-completions",
    compat: { ...IMITATION_MAX_TOKENS, supportsReasoningEffort: false, supportsLongCacheRetention: false },
  },
  {
    id: "meta",
    name: "Meta",
    envKeys: ["META_API_KEY"],
    baseUrl: "https://api.meta.ai/v1",
    api: "openai-responses",
  },
] as const satisfies readonly CatalogProviderInfo[];

export type CatalogProviderId = (typeof CATALOG_PROVIDERS)[number]["id"];

/** A provider that serves only classifier and image models: no chat API, so not in the index above. */
export interface TypedOnlyProviderInfo {
  id: string;
  name: string;
  envKeys: readonly string[];
  baseUrl: string;
}

/**
 * pi 1.6.0's providers of classifiers alone (TypeSafe's own API, with `jev-latest`): their
 * key variable and endpoint, so their models work with the key alone, and the sandbox
 * keeps the key from the commands it runs. Nothing offers them for chat.
 */
export const TYPED_ONLY_PROVIDERS: readonly TypedOnlyProviderInfo[] = [
  { id: "typesafe", name: "TypeSafe", envKeys: ["TYPESAFE_API_KEY"], baseUrl: "https://api.typesafe.ai/v1/" },
];

const BY_ID: ReadonlyMap<string, CatalogProviderInfo> = new Map(CATALOG_PROVIDERS.map((provider) => [provider.id, provider]));

/** The index entry of a provider, or undefined for a name the catalog does not know. */
export function catalogProvider(id: string): CatalogProviderInfo | undefined {
  return BY_ID.get(id);
}

/**
 * The quirks the catalog knows for a model of a provider: the provider's switches, then
 * those of the first model rule whose prefix the id has. Undefined for unknown providers.
 */
export function catalogCompat(provider: string, modelId: string): ModelCompat | undefined {
  const info = BY_ID.get(provider);
  if (!info?.compat && !info?.modelCompat) return undefined;
  const rule = info.modelCompat?.find((candidate) => modelId.startsWith(candidate.idPrefix));
  return rule ? { ...info.compat, ...rule.compat } : info.compat;
}
