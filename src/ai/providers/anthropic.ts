/**
 * The `anthropic-messages` API: Claude through the official SDK. Builds the
 * request (anthropic-convert.ts), streams the raw server events and translates
 * each into AssistantMessageBuilder calls.
 */
import { notifyStreamEvent } from "../stream-event.ts";
import Anthropic from "@anthropic-ai/sdk";
import type {
  MessageCreateParamsStreaming,
  RawMessageStreamEvent,
  StopReason as AnthropicStopReason,
} from "@anthropic-ai/sdk/resources/messages";
import type { ApiStreamFunction, ApiStreamSimpleFunction } from "../api-registry.ts";
import { traceModuleLoad } from "../load-trace.ts";
import { fitCacheBreakpoints } from "./anthropic-breakpoints.ts";
import { clampThinkingLevel, mappedThinkingValue, thinkingBudget } from "../thinking.ts";
import type { Context, Model, ProviderStreamOptions, StopReason, StreamOptions, ThinkingLevel } from "../types.ts";
import { cacheControlFor, convertMessages, convertSystemPrompt, convertTools, markLastUserMessage } from "./anthropic-convert.ts";
import { isEnvBearerToken } from "../env-api-keys.ts";
import { requestCredentials, resolveProviderApiKey } from "./api-key.ts";
import { billedTotal } from "./provider-cost.ts";
import { runProviderStream, type AssistantMessageBuilder } from "./message-builder.ts";

traceModuleLoad("@anthropic-ai/sdk");

export type AnthropicEffort = "low" | "medium" | "high" | "xhigh" | "max";

/** Options `stream()` understands beyond the common StreamOptions. */
export interface AnthropicOptions extends StreamOptions {
  /** Turns extended thinking on (budget mode) or adaptive thinking on newer models. */
  thinkingEnabled?: boolean;
  /** Token budget for budget-mode thinking; at least 1024. */
  thinkingBudgetTokens?: number;
  /** How hard an adaptive-thinking model works (`output_config.effort`). */
  effort?: AnthropicEffort;
  /** Lets budget-mode models think between tool calls (a beta). Default true. */
  interleavedThinking?: boolean;
  toolChoice?: "auto" | "any" | "none" | { type: "tool"; name: string };
}

/** Room kept for the visible answer when max_tokens is raised to fit a thinking budget. */
const ANSWER_ROOM_TOKENS = 4096;
const MIN_THINKING_BUDGET = 1024;
const FINE_GRAINED_TOOL_STREAMING_BETA = "fine-grained-tool-streaming-2025-05-14";
const INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14";

const DEFAULT_EFFORT: Record<ThinkingLevel, AnthropicEffort> = {
  minimal: "low",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "max",
};

/**
 * Models that take `thinking: {type: "adaptive"}` with an effort instead of a token
 * budget. The newest reject budgets outright. This is a fact of the catalog
 * (`compat.forceAdaptiveThinking`), which a models.json entry can set or clear; the
 * model's name decides nothing.
 */
export function usesAdaptiveThinking(model: Pick<Model, "compat">): boolean {
  return model.compat?.forceAdaptiveThinking === true;
}

// --- the request ------------------------------------------------------------

type RequestBody = MessageCreateParamsStreaming & { temperature?: number };

interface PreparedRequest {
  body: RequestBody;
  betas: string[];
}

function prepareRequest(model: Model, context: Context, options: AnthropicOptions): PreparedRequest {
  const cacheControl = cacheControlFor(model, options.cacheRetention);
  const messages = convertMessages(context, model);
  if (cacheControl) markLastUserMessage(messages, cacheControl);
  const compat = model.compat ?? {};

  const body: RequestBody = {
    model: model.id,
    max_tokens: options.maxTokens ?? model.maxTokens,
    messages,
    stream: true,
  };
  const system = convertSystemPrompt(context.systemPrompt, cacheControl);
  if (system) body.system = system;

  const betas: string[] = [];
  const hasTools = (context.tools?.length ?? 0) > 0;
  if (hasTools) {
    // The tool list is the same every turn: a breakpoint after it caches it, where the server takes one there.
    body.tools = convertTools(context.tools!, model, compat.supportsCacheControlOnTools === false ? undefined : cacheControl);
    if (compat.supportsEagerToolInputStreaming === false) betas.push(FINE_GRAINED_TOOL_STREAMING_BETA);
    if (options.toolChoice) body.tool_choice = typeof options.toolChoice === "string" ? { type: options.toolChoice } : options.toolChoice;
  }

  const thinking = applyThinking(body, model, options);
  if (thinking === "budget" && hasTools && options.interleavedThinking !== false) betas.push(INTERLEAVED_THINKING_BETA);
  // The API only accepts the default temperature while the model thinks; some models never take one.
  if (options.temperature !== undefined && thinking === "off" && compat.supportsTemperature !== false) body.temperature = options.temperature;

  const userId = options.metadata?.user_id;
  if (typeof userId === "string") body.metadata = { user_id: userId };
  return { body, betas };
}

/** Sets the thinking knobs on the body and says which kind was used. */
function applyThinking(body: RequestBody, model: Model, options: AnthropicOptions): "off" | "budget" | "adaptive" {
  if (!model.reasoning || !options.thinkingEnabled) return "off";
  if (usesAdaptiveThinking(model)) {
    body.thinking = { type: "adaptive" };
    if (options.effort) body.output_config = { effort: options.effort };
    return "adaptive";
  }
  const requested = Math.max(MIN_THINKING_BUDGET, options.thinkingBudgetTokens ?? thinkingBudget("medium", model.maxTokens));
  // max_tokens covers thinking and answer, and must exceed the budget.
  const maxTokens = Math.min(model.maxTokens, Math.max(body.max_tokens, requested + ANSWER_ROOM_TOKENS));
  const budget = Math.min(requested, maxTokens - MIN_THINKING_BUDGET);
  if (budget < MIN_THINKING_BUDGET) return "off"; // the model's output limit leaves no room to think
  body.max_tokens = maxTokens;
  body.thinking = { type: "enabled", budget_tokens: budget };
  return "budget";
}

/** OpenRouter routes a session to one replica by a header; other servers only when their compat asks. */
function isOpenRouter(model: Model): boolean {
  return model.provider === "openrouter" || model.baseUrl.includes("openrouter.ai");
}

/**
 * Session affinity: servers that cache prompts per replica (Fireworks, OpenRouter) keep a
 * session on one replica when told its id, so the cache is found again. Only while caching.
 */
function sessionAffinityHeaders(model: Model, options: AnthropicOptions): Record<string, string> {
  const compat = model.compat ?? {};
  if (!options.sessionId || options.cacheRetention === "none") return {};
  if (!(compat.sendSessionAffinityHeaders ?? isOpenRouter(model))) return {};
  const format = compat.sessionAffinityFormat ?? (isOpenRouter(model) ? "openrouter" : undefined);
  return { [format === "openrouter" ? "x-session-id" : "x-session-affinity"]: options.sessionId };
}

function requestHeaders(model: Model, options: AnthropicOptions, betas: string[]): Record<string, string> {
  const headers: Record<string, string> = { ...sessionAffinityHeaders(model, options), ...model.headers, ...options.headers };
  if (betas.length === 0) return headers;
  const existingKey = Object.keys(headers).find((key) => key.toLowerCase() === "anthropic-beta");
  const existing = existingKey ? headers[existingKey].split(",").map((beta) => beta.trim()).filter(Boolean) : [];
  if (existingKey) delete headers[existingKey];
  headers["anthropic-beta"] = [...new Set([...existing, ...betas])].join(",");
  return headers;
}

// --- the response -------------------------------------------------------------

function mapStopReason(reason: AnthropicStopReason): StopReason | "refusal" {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
    case "pause_turn":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "toolUse";
    case "refusal":
      return "refusal";
    default:
      return "stop";
  }
}

interface WireBlock {
  index: number;
  kind: "text" | "thinking" | "toolCall";
  /** Arguments a tool_use block started with, used when no input_json_delta follows. */
  initialInput?: Record<string, unknown>;
  sawArguments?: boolean;
}

/** Translates one response's raw events into builder calls. */
class AnthropicEventReader {
  private readonly blocks = new Map<number, WireBlock>();
  private stopReason: StopReason | "refusal" | undefined;
  private refusalDetail = "";

  constructor(
    private readonly builder: AssistantMessageBuilder,
    private readonly model: Model,
  ) {}

  handle(event: RawMessageStreamEvent): void {
    const builder = this.builder;
    switch (event.type) {
      case "message_start": {
        const { id, model, usage } = event.message;
        builder.setResponseInfo({ id, model });
        builder.setUsage({
          input: usage.input_tokens,
          output: usage.output_tokens,
          cacheRead: usage.cache_read_input_tokens ?? 0,
          cacheWrite: usage.cache_creation_input_tokens ?? 0,
        });
        // A message can arrive whole in message_start, followed only by message_stop: the API
        // answers so when code it runs calls a tool (a recorded stream shows it). Its blocks and
        // stop reason count as if streamed; negative wire indexes keep clear of streamed ones.
        event.message.content.forEach((block, position) => {
          this.startBlock(-1 - position, block);
          this.stopBlock(-1 - position);
        });
        if (event.message.stop_reason) this.stopReason = mapStopReason(event.message.stop_reason);
        break;
      }
      case "content_block_start":
        this.startBlock(event.index, event.content_block);
        break;
      case "content_block_delta":
        this.applyDelta(event.index, event.delta);
        break;
      case "content_block_stop":
        this.stopBlock(event.index);
        break;
      case "message_delta": {
        if (event.delta.stop_reason) {
          this.builder.setRawStopReason(event.delta.stop_reason);
          this.stopReason = mapStopReason(event.delta.stop_reason);
          // Some Anthropic-compatible servers stop here without a message_stop.
          builder.markComplete();
        }
        const details = event.delta.stop_details;
        if (details?.type === "refusal") {
          this.refusalDetail = [details.category, details.explanation].filter(Boolean).join(": ");
        }
        const usage = event.usage as typeof event.usage & { output_tokens_details?: { thinking_tokens?: number | null } | null };
        // message_delta counts are cumulative; the input side may be absent or null.
        builder.setUsage({
          output: usage.output_tokens ?? undefined,
          input: usage.input_tokens ?? undefined,
          cacheRead: usage.cache_read_input_tokens ?? undefined,
          cacheWrite: usage.cache_creation_input_tokens ?? undefined,
          // Reasoning tokens among the output, where the server counts them apart.
          reasoning: usage.output_tokens_details?.thinking_tokens ?? undefined,
        });
        // OpenRouter's Anthropic-compatible endpoint adds what it billed.
        const billed = billedTotal(this.model, usage);
        if (billed !== undefined) builder.setBilledTotal(billed);
        break;
      }
      case "message_stop":
        builder.markComplete();
        break;
    }
  }

  /** Settles the stop reason once the stream is over; throws for a refusal (a cut stream is runProviderStream's rule). */
  finish(): void {
    if (!this.builder.isComplete) return;
    if (this.stopReason === "refusal") {
      const detail = this.refusalDetail ? ` (${this.refusalDetail})` : "";
      throw new Error(`The model refused to continue (stop_reason: refusal)${detail}`);
    }
    this.builder.setStopReason(this.stopReason ?? "stop");
  }

  private startBlock(wireIndex: number, block: Extract<RawMessageStreamEvent, { type: "content_block_start" }>["content_block"]): void {
    const builder = this.builder;
    switch (block.type) {
      case "text": {
        const index = builder.startText();
        this.blocks.set(wireIndex, { index, kind: "text" });
        if (block.text) builder.appendText(index, block.text);
        break;
      }
      case "thinking": {
        const index = builder.startThinking({ signature: block.signature || undefined });
        this.blocks.set(wireIndex, { index, kind: "thinking" });
        if (block.thinking) builder.appendThinking(index, block.thinking);
        break;
      }
      case "redacted_thinking": {
        // The reasoning is encrypted; keep the data so it can be sent back unchanged.
        const index = builder.startThinking({ redacted: true, signature: block.data });
        this.blocks.set(wireIndex, { index, kind: "thinking" });
        builder.appendThinking(index, "[Reasoning redacted]");
        break;
      }
      case "tool_use": {
        const index = builder.startToolCall(block.id, block.name);
        const input = block.input;
        const initialInput =
          input && typeof input === "object" && Object.keys(input).length > 0 ? (input as Record<string, unknown>) : undefined;
        this.blocks.set(wireIndex, { index, kind: "toolCall", initialInput });
        break;
      }
      default:
        // Server-side tool blocks (web search, code execution) are not requested by xcsh.
        break;
    }
  }

  private applyDelta(wireIndex: number, delta: Extract<RawMessageStreamEvent, { type: "content_block_delta" }>["delta"]): void {
    const block = this.blocks.get(wireIndex);
    if (!block) return;
    switch (delta.type) {
      case "text_delta":
        if (block.kind === "text") this.builder.appendText(block.index, delta.text);
        break;
      case "thinking_delta":
        if (block.kind === "thinking") this.builder.appendThinking(block.index, delta.thinking);
        break;
      case "signature_delta":
        if (block.kind === "thinking") this.builder.setThinkingSignature(block.index, delta.signature, true);
        break;
      case "input_json_delta":
        if (block.kind === "toolCall" && delta.partial_json) {
          block.sawArguments = true;
          this.builder.appendToolArguments(block.index, delta.partial_json);
        }
        break;
      default:
        break;
    }
  }

  private stopBlock(wireIndex: number): void {
    const block = this.blocks.get(wireIndex);
    if (!block) return;
    this.blocks.delete(wireIndex);
    if (block.kind === "text") this.builder.endText(block.index);
    else if (block.kind === "thinking") this.builder.endThinking(block.index);
    else this.builder.endToolCall(block.index, block.sawArguments ? undefined : block.initialInput);
  }
}

// --- entry points ---------------------------------------------------------------

export const stream: ApiStreamFunction = (model, context, rawOptions?: ProviderStreamOptions) => {
  const options = (rawOptions ?? {}) as AnthropicOptions;
  return runProviderStream(model, options.signal, async (builder) => {
    const apiKey = resolveProviderApiKey(model, options);
    const { body, betas } = prepareRequest(model, context, options);
    const headers = requestHeaders(model, options, betas);
    const client = new Anthropic({
      // ANTHROPIC_AUTH_TOKEN is a bearer token only: a gateway given it as x-api-key would refuse it.
      // A key goes both ways: this SDK sends it as a Bearer token, Anthropic-compatible proxies read x-api-key.
      ...(isEnvBearerToken(model.provider, apiKey, options.env)
        ? { authToken: apiKey, defaultHeaders: headers }
        : { apiKey, defaultHeaders: { "x-api-key": apiKey, ...headers } }),
      baseURL: model.baseUrl,
      // Retrying is the session's job, where the user can see and abort it.
      maxRetries: options.maxRetries ?? 0,
      timeout: options.timeoutMs,
      dangerouslyAllowBrowser: true,
    });

    const replaced = await options.onPayload?.(body, model);
    const payload = (replaced === undefined ? body : { ...(replaced as object), stream: true }) as MessageCreateParamsStreaming;
    // An extension's own cache_control beside xcsh's four would be refused: xcsh's give way.
    if (replaced !== undefined) fitCacheBreakpoints(payload);

    const { data: events, response } = await client.messages.create(payload, { signal: options.signal }).withResponse();
    builder.responseArrived();
    await options.onResponse?.({ status: response.status, headers: Object.fromEntries(response.headers) }, model);

    const reader = new AnthropicEventReader(builder, model);
    for await (const event of events) {
      const listened = notifyStreamEvent(options, event, model);
      if (listened) await listened;
      reader.handle(event);
    }
    // An abort ends the SDK's iteration quietly; runProviderStream reports it.
    if (options.signal?.aborted) return;
    reader.finish();
  }, { requiresCompletion: "Anthropic", secrets: requestCredentials(model, options) });
};

export const streamSimple: ApiStreamSimpleFunction = (model, context, options) => {
  const native: AnthropicOptions = { ...options, thinkingEnabled: false };
  const level = options?.reasoning && model.reasoning ? clampThinkingLevel(model, options.reasoning) : "off";
  if (level !== "off") {
    native.thinkingEnabled = true;
    if (usesAdaptiveThinking(model)) {
      native.effort = mappedThinkingValue(model, level, DEFAULT_EFFORT[level]) as AnthropicEffort;
    } else {
      native.thinkingBudgetTokens = thinkingBudget(level, model.maxTokens, options?.thinkingBudgets);
    }
  }
  return stream(model, context, native as ProviderStreamOptions);
};
