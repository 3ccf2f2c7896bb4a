/**
 * Provider-neutral LLM types. Field names and shapes follow the spec (seed 000,
 * "类型") and the pi-ai API that extensions are written against: a message or event
 * produced here can be written to the wire or a session file as it is.
 */
import type { TSchema } from "typebox";
import type { CatalogProviderId } from "./catalog/providers.ts";

export type KnownApi =
  | "anthropic-messages"
  | "openai-completions"
  | "openai-responses"
  | "google-generative-ai"
  /** Cloud providers: Azure OpenAI's Responses API, Gemini on Vertex AI, Bedrock's ConverseStream. */
  | "azure-openai-responses"
  | "google-vertex"
  | "bedrock-converse-stream"
  /** The offline scripted model (src/ai/providers/faux.ts). */
  | "faux";
/** Extensions may register further APIs, so any string is accepted. */
export type Api = KnownApi | (string & {});

/** The providers of the built-in catalog (src/ai/catalog/providers.ts), and the offline faux. */
export type KnownProvider = CatalogProviderId | "faux";
export type Provider = KnownProvider | (string & {});

/** Levels a model can reason at; "off" is handled separately (no reasoning). */
export type ThinkingLevel = "minimal" | "low" | "medium" | "high" | "xhigh";
export type ModelThinkingLevel = "off" | ThinkingLevel;
export const THINKING_LEVELS: readonly ModelThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];
/** Per-model mapping of levels to provider values; `null` marks a level unsupported. */
export type ThinkingLevelMap = Partial<Record<ModelThinkingLevel, string | null>>;

/** Token budgets per thinking level for budget-based APIs (Anthropic, Gemini 2.x). */
export interface ThinkingBudgets {
  minimal?: number;
  low?: number;
  medium?: number;
  high?: number;
}

export interface TextContent {
  type: "text";
  text: string;
  /** Opaque provider id for the text block (OpenAI Responses message id). */
  textSignature?: string;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  /** Opaque signature the provider needs to accept the block back (Anthropic signature, OpenAI reasoning item). */
  thinkingSignature?: string;
  /** The provider redacted the reasoning; the payload is in `thinkingSignature`. */
  redacted?: boolean;
}

export interface ImageContent {
  type: "image";
  /** base64, no data: prefix */
  data: string;
  mimeType: string;
}

export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, any>;
  /** Gemini thought signature attached to a function call. */
  thoughtSignature?: string;
}

export interface UsageCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** The billed total when the provider reported it (`totalFromProvider`), else the sum of the catalog prices above. */
  total: number;
  /** pi 1.x: true when `total` is what the provider billed (OpenRouter's `usage.cost`); false or absent for a catalog estimate. */
  totalFromProvider?: boolean;
}

export interface Usage {
  input: number;
  /** Output tokens, reasoning tokens included. */
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** pi 1.x: the reasoning tokens among `output`, from APIs that count them apart (possibly 0); absent where the API does not say. */
  reasoning?: number;
  totalTokens: number;
  cost: UsageCost;
}

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
}

export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api: Api;
  provider: Provider;
  model: string;
  /** Model id the provider reports, when it differs from the requested one. */
  responseModel?: string;
  responseId?: string;
  usage: Usage;
  stopReason: StopReason;
  /** pi 1.x: the provider's own stop or finish reason, as it sent it ("end_turn", "tool_calls", "MAX_TOKENS", "incomplete.max_output_tokens"…). */
  rawStopReason?: string;
  errorMessage?: string;
  /** xcsh: how long the provider asked to wait before another request (retry-after, retryDelay); the session's retry honours it. */
  retryAfterMs?: number;
  /** xcsh: the provider asked for a retry (`x-should-retry: true`), so the session retries even a status it would not otherwise. */
  retryAdvised?: boolean;
  /** xcsh: the provider's error body as it arrived, for debugging (errorMessage holds only its message). */
  errorBody?: string;
  /** The thinking level the request was sent with (pi 1.x records it on every answer). */
  thinkingLevel?: ModelThinkingLevel;
  timestamp: number;
}

export interface ToolResultMessage<TDetails = any> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: TDetails;
  isError: boolean;
  /** pi 1.6.0: the tool calls a codemode script made, kept with its result (never sent to a model). */
  nestedCalls?: unknown;
  /** pi 1.x: a tool's machine-readable result (its outputSchema's); the model receives `content`. */
  structuredContent?: unknown;
  /** pi 1.x: the model work the tool did itself (codemode's models.*, nested model calls, sampling), its nested calls' included; counted in session totals. */
  usage?: Usage;
  timestamp: number;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

export interface Tool<TParameters extends TSchema = TSchema> {
  name: string;
  description: string;
  parameters: TParameters;
}

export interface Context {
  systemPrompt?: string;
  messages: Message[];
  tools?: Tool[];
}

/**
 * The streaming event model. A stream emits `start`, then block events, and ends
 * with exactly one `done` (final message) or `error` (message with stopReason
 * "error" | "aborted" and an errorMessage).
 */
export type AssistantMessageEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
  | { type: "done"; reason: Extract<StopReason, "stop" | "length" | "toolUse">; message: AssistantMessage }
  | { type: "error"; reason: Extract<StopReason, "aborted" | "error">; error: AssistantMessage };

/** Compatibility switches for OpenAI-compatible Chat Completions servers. */
export interface OpenAICompletionsCompat {
  supportsStore?: boolean;
  supportsDeveloperRole?: boolean;
  supportsReasoningEffort?: boolean;
  supportsUsageInStreaming?: boolean;
  maxTokensField?: "max_completion_tokens" | "max_tokens";
  requiresToolResultName?: boolean;
  requiresAssistantAfterToolResult?: boolean;
  requiresThinkingAsText?: boolean;
  requiresReasoningContentOnAssistantMessages?: boolean;
  /** pi 1.x: a replayed assistant message without text sends `content: ""`, not null. */
  requiresNonNullAssistantContent?: boolean;
  /** pi 1.x: a request without tools sends `tools: []` when the conversation holds tool calls or results. */
  requiresToolsWithToolHistory?: boolean;
  /** pi 1.x: when `prompt_cache_key` is sent. auto: xcsh's defaults; enabled: whenever caching is on; disabled: never. */
  promptCacheKeyMode?: "auto" | "enabled" | "disabled";
  thinkingFormat?: (typeof SPOKEN_THINKING_FORMATS)[number] | (typeof UNSPOKEN_THINKING_FORMATS)[number];
  openRouterRouting?: Record<string, unknown>;
  vercelGatewayRouting?: { only?: string[]; order?: string[] };
  supportsStrictMode?: boolean;
  cacheControlFormat?: "anthropic";
  supportsLongCacheRetention?: boolean;
  /** Tool-call ids the server accepts: "mistral" is exactly nine letters and digits. Default: OpenAI's. */
  toolCallIdFormat?: "openai" | "mistral";
  /** pi 1.x: send session-affinity headers from the session id (default: OpenRouter only). */
  sendSessionAffinityHeaders?: boolean;
  /** pi 1.x: which session-affinity headers: openai, openai-nosession, or openrouter's x-session-id. */
  sessionAffinityFormat?: "openai" | "openai-nosession" | "openrouter";
  /** pi 1.x: z.ai streams tool-call arguments only when asked with top-level `tool_stream`. */
  zaiToolStream?: boolean;
  /** pi 1.x: the top-level field that caps reasoning tokens (vLLM, Qwen/SGLang, llama.cpp). */
  thinkingTokenBudgetField?: "thinking_token_budget" | "thinking_budget" | "thinking_budget_tokens";
  /** pi 1.x: the older spelling of `thinkingTokenBudgetField: "thinking_token_budget"`. */
  supportsThinkingTokenBudget?: boolean;
  /** pi 1.x: vLLM's scheduler priority, sent as top-level `priority`. */
  vllmPriority?: number;
  /**
   * pi 1.x: the fields of `chat_template_args` (thinkingFormat "baseten") and
   * `chat_template_kwargs` ("chat-template"). A value `{"$var": "thinking.enabled"}`,
   * `"thinking.budget"` or `"thinking.effort"` is filled in per request; one with
   * `omitWhenOff` is left out while thinking is off.
   */
  chatTemplateArgs?: Record<string, unknown>;
  chatTemplateKwargs?: Record<string, unknown>;
  /** pi 1.x: false for servers that never send `finish_reason`: a stream that ends normally is then complete. Default true. */
  supportsFinishReason?: boolean;
}

export interface OpenAIResponsesCompat {
  sendSessionIdHeader?: boolean;
  /** pi 1.x: auto and enabled send `prompt_cache_key` whenever caching is on; disabled never does. */
  promptCacheKeyMode?: "auto" | "enabled" | "disabled";
  supportsLongCacheRetention?: boolean;
  /** False for servers that refuse `max_output_tokens` (ChatGPT's Codex backend). Default true. */
  supportsMaxOutputTokens?: boolean;
}

/** Switches about a request as a whole, whatever its API. */
export interface RequestCompat {
  /**
   * Send GitHub Copilot's per-request headers: `X-Initiator` (whether the user or the agent
   * started the call, which Copilot counts premium requests by) and `Copilot-Vision-Request`.
   */
  copilotRequestHeaders?: boolean;
}

export interface AnthropicMessagesCompat {
  supportsEagerToolInputStreaming?: boolean;
  supportsLongCacheRetention?: boolean;
  /** Thinking is `{type: "adaptive"}` with an effort, never a token budget (the catalog sets it per model). */
  forceAdaptiveThinking?: boolean;
  /** False for models that refuse the `temperature` field. Default true. */
  supportsTemperature?: boolean;
  /** False for servers that refuse `cache_control` on tool definitions (Fireworks). Default true. */
  supportsCacheControlOnTools?: boolean;
  /** Replay thinking that has no signature as thinking with `signature: ""` instead of as text. */
  allowEmptySignature?: boolean;
  /** Whether the server takes strict tool schemas; xcsh's tools never ask for them (read, not acted on). */
  supportsStrictTools?: boolean;
}

/** pi 1.x switches that the catalog carries for features xcsh does not have; kept so a models.json with them loads and a model keeps them. */
export interface UnusedCompat {
  supportsMidConvoSystemMessages?: boolean;
  supportsMidConvoToolAdditions?: boolean;
  supportsMidConvoToolChanges?: boolean;
  supportsMidConvoEffort?: boolean;
  supportsOpenAIGrammarTools?: boolean;
  supportsAdditionalTools?: boolean;
  supportsToolSearch?: boolean;
  supportsExplicitPromptCacheMode?: boolean;
  supportsMessageThreads?: boolean;
  allowedFallbackModels?: unknown[];
}

/** Switches for Gemini's APIs (google-generative-ai, google-vertex). */
export interface GoogleCompat {
  /** xcsh: the largest thinking budget (tokens) the model accepts; a larger one is cut to it (Gemini 2.x Flash: 24,576). */
  maxThinkingBudget?: number;
}

/** Switches for Bedrock's ConverseStream API: what the model behind it accepts (the catalog sets them for Claude). */
export interface BedrockCompat {
  /** xcsh: the model takes `cachePoint` blocks: the system prompt and the last user turn are cached. */
  supportsCachePoints?: boolean;
  /** xcsh: the model reasons with Anthropic's `thinking: {type: "enabled", budget_tokens}` in additionalModelRequestFields. */
  supportsBudgetThinking?: boolean;
}

export type ModelCompat = OpenAICompletionsCompat &
  OpenAIResponsesCompat &
  AnthropicMessagesCompat &
  GoogleCompat &
  BedrockCompat &
  RequestCompat &
  UnusedCompat;

export interface ModelCost {
  /** USD per million tokens */
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Prices for a request whose whole prompt is above `inputTokensAbove` tokens (the highest such tier wins). */
  tiers?: ModelCostTier[];
}

export interface ModelCostTier {
  inputTokensAbove: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface Model<TApi extends Api = Api> {
  id: string;
  name: string;
  api: TApi;
  provider: Provider;
  baseUrl: string;
  reasoning: boolean;
  thinkingLevelMap?: ThinkingLevelMap;
  input: ("text" | "image")[];
  cost: ModelCost;
  contextWindow: number;
  maxTokens: number;
  headers?: Record<string, string>;
  compat?: ModelCompat;
  /** pi 1.x: fields merged into every request body (OpenAI-compatible APIs only). */
  samplingParams?: Record<string, unknown>;
  /** pi 1.x: samplingParams per thinking level (`off` … `xhigh`, `max`), merged over samplingParams. */
  samplingParamsByThinkingLevel?: Partial<Record<ModelThinkingLevel | "max", Record<string, unknown>>>;
  /** pi 1.x: what the endpoint takes; `images.resize` is how new images are scaled before they are stored. */
  inputLimits?: ModelInputLimits;
}

export interface ModelInputLimits {
  maxRequestBytes?: number;
  images?: {
    resize?: { maxWidth?: number; maxHeight?: number; maxBytes?: number; jpegQuality?: number };
    maxPerMessage?: number;
    maxPerRequest?: number;
  };
}

export type CacheRetention = "none" | "short" | "long";

export interface ProviderResponse {
  status: number;
  headers: Record<string, string>;
}

export interface StreamOptions {
  temperature?: number;
  maxTokens?: number;
  signal?: AbortSignal;
  apiKey?: string;
  cacheRetention?: CacheRetention;
  sessionId?: string;
  /** Inspect or replace the provider payload before it is sent; return undefined to keep it. */
  onPayload?: (payload: unknown, model: Model) => unknown | undefined | Promise<unknown | undefined>;
  onResponse?: (response: ProviderResponse, model: Model) => void | Promise<void>;
  /** Hears each stream event as the adapter parsed it, before it is turned into message events; awaited in order. */
  onStreamEvent?: (data: unknown, model: Model) => void | Promise<void>;
  headers?: Record<string, string>;
  /**
   * Provider-scoped configuration variables (pi-ai's `env`): the `env` object of the
   * provider's auth.json entry. Read before process.env by the providers that take
   * settings from variables (Azure, Vertex, Bedrock); never copied into process.env.
   */
  env?: Record<string, string>;
  timeoutMs?: number;
  /** SDK-level retries. Defaults to 0: retrying is the session's job, visibly. */
  maxRetries?: number;
  maxRetryDelayMs?: number;
  metadata?: Record<string, unknown>;
}

export type ProviderStreamOptions = StreamOptions & Record<string, unknown>;

export interface SimpleStreamOptions extends StreamOptions {
  /** Reasoning level; undefined means off. */
  reasoning?: ThinkingLevel;
  thinkingBudgets?: ThinkingBudgets;
}

/** The reasoning dialects of OpenAI-compatible servers that xcsh writes. */
export const SPOKEN_THINKING_FORMATS = [
  "openai",
  "openrouter",
  "deepseek",
  "zai",
  "qwen",
  "qwen-chat-template",
  "together",
  "baseten",
  "chat-template",
  "string-thinking",
  "ant-ling",
] as const;
/** Dialects a models.json may name that xcsh does not write: none left (pi 1.6.0's are all spoken). */
export const UNSPOKEN_THINKING_FORMATS = [] as const;
