/**
 * Which dialect of the Chat Completions API a server speaks: the compat switches,
 * decided from OpenAI's defaults, the catalog provider at the model's host, the
 * catalog's quirks for the model's provider, and `model.compat` last. Split from
 * openai-completions-convert.ts so the dialect decision stands apart from turning a
 * Context into a request body; the converter only reads the switches. SDK-free, so
 * loading it costs nothing.
 */
import type { Model, ModelCompat, OpenAICompletionsCompat } from "../types.ts";
import { CATALOG_PROVIDERS, catalogCompat } from "../catalog/providers.ts";
import { isOpenRouterEndpoint, type SessionAffinityFormat } from "./session-affinity.ts";

export type ThinkingFormat = NonNullable<OpenAICompletionsCompat["thinkingFormat"]>;
export type ToolCallIdFormat = NonNullable<OpenAICompletionsCompat["toolCallIdFormat"]>;

/** Every switch decided; `model.compat` wins over what the catalog and the host suggest. */
export interface ResolvedCompat {
  supportsStore: boolean;
  supportsDeveloperRole: boolean;
  supportsReasoningEffort: boolean;
  supportsUsageInStreaming: boolean;
  maxTokensField: "max_completion_tokens" | "max_tokens";
  requiresToolResultName: boolean;
  requiresAssistantAfterToolResult: boolean;
  requiresThinkingAsText: boolean;
  requiresReasoningContentOnAssistantMessages: boolean;
  thinkingFormat: ThinkingFormat;
  supportsStrictMode: boolean;
  supportsLongCacheRetention: boolean;
  toolCallIdFormat: ToolCallIdFormat;
  cacheControlFormat?: "anthropic";
  openRouterRouting?: Record<string, unknown>;
  vercelGatewayRouting?: { only?: string[]; order?: string[] };
  chatTemplateArgs?: Record<string, unknown>;
  chatTemplateKwargs?: Record<string, unknown>;
  /** OpenAI's own prompt cache is steered by `prompt_cache_key`; other hosts may reject it. */
  sendsPromptCacheKey: boolean;
  /** pi 1.x: enabled sends `prompt_cache_key` whenever caching is on, disabled never, auto as sendsPromptCacheKey says. */
  promptCacheKeyMode: "auto" | "enabled" | "disabled";
  /** pi 1.x: an assistant message without text replays as `content: ""` instead of null. */
  requiresNonNullAssistantContent: boolean;
  /** pi 1.x: `tools: []` on a request without tools once the conversation has tool calls (older LiteLLM). */
  requiresToolsWithToolHistory: boolean;
  /** pi 1.x: session-affinity headers from the session id (session-affinity.ts); default: OpenRouter only. */
  sendSessionAffinityHeaders: boolean;
  sessionAffinityFormat: SessionAffinityFormat;
  /** pi 1.x: z.ai streams tool arguments only when asked (`tool_stream: true`). */
  zaiToolStream: boolean;
  /** pi 1.x: the top-level field that caps reasoning tokens, when the server has one (vLLM, SGLang, llama.cpp). */
  thinkingTokenBudgetField?: "thinking_token_budget" | "thinking_budget" | "thinking_budget_tokens";
  /** pi 1.x: vLLM's scheduler priority (`priority`). */
  vllmPriority?: number;
  /** pi 1.x: false where the server never sends `finish_reason`; its streams are complete when they end. */
  supportsFinishReason: boolean;
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/** Hosts with a known dialect that no catalog provider is at (a catalog provider's host speaks its dialect). */
const HOST_DIALECTS: readonly { hostIncludes: string; compat: ModelCompat }[] = [{ hostIncludes: "dashscope", compat: { thinkingFormat: "qwen" } }];

/** The catalog's quirks for a model at this host: those of the provider at that host, if any. */
function hostCompat(baseUrl: string, modelId: string): ModelCompat | undefined {
  const host = hostOf(baseUrl);
  if (!host) return undefined;
  const provider = CATALOG_PROVIDERS.find((candidate) => "compat" in candidate && hostOf(candidate.baseUrl) === host);
  if (provider) return catalogCompat(provider.id, modelId);
  return HOST_DIALECTS.find((dialect) => host.includes(dialect.hostIncludes))?.compat;
}

function definedSwitches(compat: ModelCompat | undefined): ModelCompat {
  return Object.fromEntries(Object.entries(compat ?? {}).filter(([, value]) => value !== undefined));
}

/**
 * The dialect a model's server speaks. OpenAI itself gets the full feature set; any
 * other server starts from what nearly every compatible server accepts. On top come, in
 * order: the quirks of the catalog provider at the model's host (a models.json provider
 * pointed at api.deepseek.com speaks DeepSeek's dialect), those the catalog knows for the
 * model's provider (kept when models.json points it at a proxy), then `model.compat`.
 */
export function detectCompat(model: Pick<Model, "baseUrl" | "compat" | "provider" | "id">): ResolvedCompat {
  const isOpenAI = hostOf(model.baseUrl) === "api.openai.com";
  const isOpenRouter = isOpenRouterEndpoint(model);
  const defaults: ResolvedCompat = {
    supportsStore: isOpenAI,
    supportsDeveloperRole: isOpenAI,
    supportsReasoningEffort: true,
    supportsUsageInStreaming: true,
    maxTokensField: isOpenAI ? "max_completion_tokens" : "max_tokens",
    requiresToolResultName: false,
    requiresAssistantAfterToolResult: false,
    requiresThinkingAsText: false,
    requiresReasoningContentOnAssistantMessages: false,
    thinkingFormat: "openai",
    supportsStrictMode: isOpenAI,
    supportsLongCacheRetention: true,
    toolCallIdFormat: "openai",
    sendsPromptCacheKey: isOpenAI,
    promptCacheKeyMode: "auto",
    requiresNonNullAssistantContent: false,
    requiresToolsWithToolHistory: false,
    sendSessionAffinityHeaders: isOpenRouter,
    sessionAffinityFormat: isOpenRouter ? "openrouter" : "openai",
    zaiToolStream: false,
    supportsFinishReason: true,
  };
  const resolved = {
    ...defaults,
    ...definedSwitches(hostCompat(model.baseUrl, model.id)),
    ...definedSwitches(catalogCompat(model.provider, model.id)),
    ...definedSwitches(model.compat),
  } as ResolvedCompat & { supportsThinkingTokenBudget?: boolean };
  // pi's older spelling of the vLLM budget field.
  if (resolved.supportsThinkingTokenBudget && !resolved.thinkingTokenBudgetField) resolved.thinkingTokenBudgetField = "thinking_token_budget";
  return resolved;
}
