/**
 * The OpenAI Responses API (`POST /responses`, streamed). Requests are stateless
 * (`store: false`): reasoning comes back encrypted and is replayed from the
 * thinking block's signature on the next turn; see openai-responses-convert.ts.
 */
import { notifyStreamEvent } from "../stream-event.ts";
import { applySamplingParams, samplingParamsFor } from "./sampling-params.ts";
import { APIError, type OpenAI } from "openai";
import type {
  Response as OpenAIResponse,
  ResponseCreateParamsStreaming,
  ResponseOutputItem,
  ResponseStreamEvent,
  ResponseUsage,
} from "openai/resources/responses/responses";
import type { ApiStreamFunction, ApiStreamSimpleFunction } from "../api-registry.ts";
import { traceModuleLoad } from "../load-trace.ts";
import { clampThinkingLevel, mappedThinkingValue } from "../thinking.ts";
import type { Context, Model, Tool, ToolCall, ProviderStreamOptions, StreamOptions, ThinkingLevel, ModelThinkingLevel } from "../types.ts";
import { createOpenAIClient } from "./openai-client.ts";
import { requestCredentials } from "./api-key.ts";
import { convertInput, convertTools, customInputParameter, customToolCallId } from "./openai-responses-convert.ts";
import { CustomInputJson } from "./openai-responses-custom-input.ts";
import { runProviderStream, type AssistantMessageBuilder } from "./message-builder.ts";
import { isOpenRouterEndpoint, sessionAffinityHeaders } from "./session-affinity.ts";

traceModuleLoad("openai");

/** Responses-specific options, read from the extra fields of ProviderStreamOptions. */
export interface OpenAIResponsesOptions {
  /** `reasoning.effort` (e.g. "minimal" … "xhigh"); absent means no reasoning parameters. */
  reasoningEffort?: string;
  /** `reasoning.summary`; defaults to "auto" whenever an effort is sent. */
  reasoningSummary?: "auto" | "concise" | "detailed";
  /** `service_tier`, e.g. "flex" or "priority". */
  serviceTier?: "auto" | "default" | "flex" | "scale" | "priority";
  /** The effective thinking level (samplingParamsByThinkingLevel); set by the simple stream. */
  samplingLevel?: ModelThinkingLevel;
}

type Options = StreamOptions & OpenAIResponsesOptions;

function buildPayload(model: Model, context: Context, options: Options | undefined): ResponseCreateParamsStreaming {
  const payload: ResponseCreateParamsStreaming = {
    model: model.id,
    input: convertInput(context, model),
    stream: true,
    store: false,
  };
  if (model.compat?.supportsMaxOutputTokens !== false) payload.max_output_tokens = options?.maxTokens ?? model.maxTokens;
  if (context.systemPrompt) payload.instructions = context.systemPrompt;
  if (context.tools?.length) payload.tools = convertTools(context.tools, model.compat?.supportsStrictMode !== false);
  if (options?.temperature !== undefined) payload.temperature = options.temperature;
  if (options?.serviceTier) payload.service_tier = options.serviceTier;

  if (model.reasoning) {
    if (options?.reasoningEffort) {
      payload.reasoning = {
        effort: options.reasoningEffort as NonNullable<ResponseCreateParamsStreaming["reasoning"]>["effort"],
        summary: options.reasoningSummary ?? "auto",
      };
    }
    // A reasoning model may reason even at its default effort; with store: false
    // its reasoning items can only be replayed next turn with their encrypted content.
    payload.include = ["reasoning.encrypted_content"];
  }

  // pi 1.x's promptCacheKeyMode: "disabled" is for compatible proxies that reject the field.
  if (options?.cacheRetention !== "none" && options?.sessionId && model.compat?.promptCacheKeyMode !== "disabled") {
    payload.prompt_cache_key = options.sessionId;
    if (options.cacheRetention === "long" && takesLongRetention(model)) payload.prompt_cache_retention = "24h";
  }
  applySamplingParams(payload, samplingParamsFor(model, options?.samplingLevel));
  return payload;
}

/** api.openai.com takes 24-hour cache retention; another host only when its compat says so (Azure, for one, may not). */
function takesLongRetention(model: Model): boolean {
  if (model.compat?.supportsLongCacheRetention !== undefined) return model.compat.supportsLongCacheRetention;
  try {
    return new URL(model.baseUrl).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

/** Token counts as the builder wants them: `input_tokens` includes the cached ones, `output_tokens` the reasoning ones. */
function applyUsage(builder: AssistantMessageBuilder, usage: ResponseUsage | null | undefined): void {
  if (!usage) return;
  const cached = usage.input_tokens_details?.cached_tokens ?? 0;
  builder.setUsage({
    input: Math.max(0, usage.input_tokens - cached),
    cacheRead: cached,
    output: usage.output_tokens,
    reasoning: usage.output_tokens_details?.reasoning_tokens || 0,
  });
}

/** The response's status as its own stop reason: "completed", "failed", or "incomplete.<reason>" (as pi 1.x records it). */
function rawStatus(response: OpenAIResponse): string | undefined {
  const reason = response.incomplete_details?.reason;
  return reason ? `${response.status}.${reason}` : response.status;
}

function failureText(response: OpenAIResponse): string {
  const error = response.error;
  if (!error) return `The response failed (status ${response.status ?? "failed"})`;
  return streamFailureText(error);
}

/**
 * A failure reported inside the stream, in one line: its code (or, when the code is null, its
 * type) before the message, so the user learns what kind of failure it was.
 */
function streamFailureText(error: { code?: string | null; type?: string | null; message?: string | null }): string {
  const message = error.message ?? "";
  const kind = error.code || error.type;
  // `server_error` (OpenAI's 500, "retry after a brief wait") leads the line, so it is
  // retried as the HTTP error would be (errors.ts); no status is claimed, the stream began with 200.
  return kind && !message.includes(kind) ? `${kind}: ${message}` : message || "The response failed";
}

/** The JSON a thinking block keeps so the reasoning item can be replayed (see the converter). */
function reasoningSignature(item: Extract<ResponseOutputItem, { type: "reasoning" }>): string {
  return JSON.stringify({ type: "reasoning", id: item.id, encrypted_content: item.encrypted_content, summary: item.summary });
}

function parseArguments(raw: string): Record<string, any> | undefined {
  try {
    const value = JSON.parse(raw);
    return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Translates the Responses event stream into builder calls. Output items are
 * keyed by `output_index`, which every item-level event carries.
 */
class ResponsesEventReader {
  private readonly blocks = new Map<number, number>();
  /** Custom (free-form) tool calls: their raw input so far, by output index. */
  private readonly customInputs = new Map<number, CustomInputJson>();
  /** Function calls whose arguments arrived as deltas (so `.done` must not repeat them). */
  private readonly streamedArguments = new Set<number>();
  constructor(
    private readonly builder: AssistantMessageBuilder,
    private readonly tools: readonly Tool[] = [],
  ) {}

  handle(event: ResponseStreamEvent): void {
    const builder = this.builder;
    switch (event.type) {
      case "response.created":
        builder.setResponseInfo({ id: event.response.id, model: event.response.model });
        break;

      case "response.output_item.added": {
        const item = event.item;
        if (item.type === "reasoning") {
          this.blocks.set(event.output_index, builder.startThinking());
        } else if (item.type === "message") {
          this.blocks.set(event.output_index, builder.startText(item.id));
        } else if (item.type === "function_call") {
          const id = item.id ? `${item.call_id}|${item.id}` : item.call_id;
          const index = builder.startToolCall(id, item.name);
          this.blocks.set(event.output_index, index);
          if (item.arguments) {
            builder.appendToolArguments(index, item.arguments);
            this.streamedArguments.add(event.output_index);
          }
        } else if (item.type === "custom_tool_call") {
          // A free-form call: its input is raw text, not JSON (customToolCallId marks it for the way back).
          const index = builder.startToolCall(customToolCallId(item.call_id, item.id), item.name);
          this.blocks.set(event.output_index, index);
          const tool = this.tools.find((candidate) => candidate.name === item.name);
          this.customInputs.set(event.output_index, new CustomInputJson(customInputParameter(tool)));
          this.streamCustomInput(event.output_index, item.input ?? "");
        }
        break;
      }

      case "response.custom_tool_call_input.delta": {
        const input = this.customInputs.get(event.output_index);
        if (input) this.streamCustomInput(event.output_index, input.input + event.delta);
        break;
      }

      case "response.custom_tool_call_input.done":
        this.streamCustomInput(event.output_index, event.input);
        break;

      case "response.reasoning_summary_part.added": {
        const index = this.blocks.get(event.output_index);
        // Summary parts are separate paragraphs of one thinking block.
        if (index !== undefined && event.summary_index > 0) builder.appendThinking(index, "\n\n");
        break;
      }

      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const index = this.blocks.get(event.output_index);
        if (index !== undefined) builder.appendThinking(index, event.delta);
        break;
      }

      case "response.output_text.delta":
      case "response.refusal.delta": {
        const index = this.blocks.get(event.output_index);
        if (index !== undefined) builder.appendText(index, event.delta);
        break;
      }

      case "response.function_call_arguments.delta": {
        const index = this.blocks.get(event.output_index);
        if (index === undefined) break;
        builder.appendToolArguments(index, event.delta);
        this.streamedArguments.add(event.output_index);
        break;
      }

      case "response.function_call_arguments.done": {
        const index = this.blocks.get(event.output_index);
        if (index === undefined || this.streamedArguments.has(event.output_index)) break;
        builder.appendToolArguments(index, event.arguments);
        this.streamedArguments.add(event.output_index);
        break;
      }

      case "response.output_item.done":
        this.finishItem(event.output_index, event.item);
        break;

      case "response.completed":
        builder.setRawStopReason(rawStatus(event.response));
        applyUsage(builder, event.response.usage);
        builder.setStopReason("stop");
        builder.markComplete();
        break;

      case "response.incomplete": {
        builder.setRawStopReason(rawStatus(event.response));
        applyUsage(builder, event.response.usage);
        const reason = event.response.incomplete_details?.reason;
        if (reason && reason !== "max_output_tokens") throw new Error(`The response is incomplete: ${reason}`);
        builder.setStopReason("length");
        builder.markComplete();
        break;
      }

      case "response.failed":
        builder.setRawStopReason(rawStatus(event.response));
        applyUsage(builder, event.response.usage);
        throw new Error(failureText(event.response));

      case "error": {
        // The API nests the failure in `error`; the SDK's type puts its fields on the event.
        const nested = (event as { error?: { code?: string | null; type?: string | null; message?: string | null } }).error;
        throw new Error(streamFailureText(nested ?? event));
      }
    }
  }

  /**
   * Shows a custom call's input so far as its arguments, and sends the new text on as a
   * `toolcall_delta` (the arguments' JSON, as a function call's deltas are).
   */
  private streamCustomInput(outputIndex: number, next: string, close = false): void {
    const input = this.customInputs.get(outputIndex);
    const index = this.blocks.get(outputIndex);
    if (!input || index === undefined) return;
    const fragment = input.advance(next, close);
    if (fragment) this.builder.appendToolArguments(index, fragment);
    // The text itself, not the builder's parse of the joined fragments (which lags on a long
    // input, and is stale when the API restated the input differently).
    (this.builder.output.content[index] as ToolCall).arguments = input.arguments;
  }

  /** The item's final form: fills in anything the deltas missed and closes its block. */
  private finishItem(outputIndex: number, item: ResponseOutputItem): void {
    const builder = this.builder;
    const index = this.blocks.get(outputIndex);
    if (index === undefined) return;
    const block = builder.output.content[index];
    if (item.type === "reasoning" && block.type === "thinking") {
      if (!block.thinking) {
        const summary = item.summary.map((part) => part.text).join("\n\n");
        builder.appendThinking(index, summary || (item.content ?? []).map((part) => part.text).join("\n\n"));
      }
      builder.setThinkingSignature(index, reasoningSignature(item));
      builder.endThinking(index);
    } else if (item.type === "message" && block.type === "text") {
      if (!block.text) {
        const text = item.content.map((part) => (part.type === "output_text" ? part.text : part.refusal)).join("");
        builder.appendText(index, text);
      }
      builder.endText(index, item.id);
    } else if (item.type === "custom_tool_call" && block.type === "toolCall") {
      this.streamCustomInput(outputIndex, item.input, true);
      builder.endToolCall(index, this.customInputs.get(outputIndex)?.arguments);
      this.customInputs.delete(outputIndex);
    } else if (item.type === "function_call" && block.type === "toolCall") {
      if (!this.streamedArguments.has(outputIndex)) builder.appendToolArguments(index, item.arguments);
      builder.endToolCall(index, parseArguments(item.arguments));
    }
  }
}

/**
 * The session's id in the headers, so the service routes the conversation to where its
 * prompt cache is: in compat.sessionAffinityFormat's form (by default OpenRouter's for
 * OpenRouter, OpenAI's elsewhere); `sendSessionAffinityHeaders: false` sends none, and
 * the older `sendSessionIdHeader` adds `session_id`.
 */
function sessionHeaders(model: Model, sessionId: string | undefined): Record<string, string> {
  const compat = model.compat ?? {};
  if (!sessionId || compat.sendSessionAffinityHeaders === false) return {};
  const format = compat.sessionAffinityFormat ?? (isOpenRouterEndpoint(model) ? "openrouter" : "openai");
  const headers = sessionAffinityHeaders(format, sessionId, { sessionHeader: "session-id", affinityHeader: false });
  if (compat.sendSessionIdHeader) headers.session_id = sessionId;
  return headers;
}

/** Errors from an `error` event inside the stream carry no HTTP status; keep the provider's code or type. */
function describeStreamError(error: unknown): unknown {
  // Connection failures and aborts are APIErrors without a status too; they name no kind.
  if (!(error instanceof APIError) || error.status !== undefined || !(error.code || error.type)) return error;
  const text = streamFailureText(error);
  return text === error.message ? error : new Error(text);
}

/**
 * How a request reaches the service: the SDK client, and the model name the service
 * knows (Azure's deployment name rather than the model's id).
 */
export type ResponsesConnector = (model: Model, options: StreamOptions) => { client: OpenAI; modelName?: string };

/** A Responses stream over the clients a connector makes (OpenAI's own, or Azure's). */
export function responsesStream(connect: ResponsesConnector): ApiStreamFunction {
  return (model, context, options?: ProviderStreamOptions) => {
    const opts = options as Options | undefined;
    return runProviderStream(model, opts?.signal, async (builder) => {
      const { client, modelName } = connect(model, { ...opts, headers: { ...sessionHeaders(model, opts?.sessionId), ...opts?.headers } });

      let payload = buildPayload(model, context, opts);
      if (modelName) payload.model = modelName;
      const replaced = await opts?.onPayload?.(payload, model);
      if (replaced !== undefined) payload = replaced as ResponseCreateParamsStreaming;

      const { data: events, response } = await client.responses.create(payload, { signal: opts?.signal }).withResponse();
      builder.responseArrived();
      await opts?.onResponse?.({ status: response.status, headers: Object.fromEntries(response.headers) }, model);

      const reader = new ResponsesEventReader(builder, context.tools);
      try {
        for await (const event of events) {
          const listened = notifyStreamEvent(opts, event, model);
          if (listened) await listened;
          reader.handle(event);
        }
      } catch (error) {
        throw describeStreamError(error);
      }
      // A stream that ends before response.completed is runProviderStream's rule (an abort too).
    }, { requiresCompletion: "OpenAI Responses", secrets: requestCredentials(model, opts) });
  };
}

export const stream: ApiStreamFunction = responsesStream((model, options) => ({ client: createOpenAIClient(model, options) }));

/** The effort for a level: the model's own mapping when it has one, else the level's name. */
function reasoningEffort(model: Model, level: ThinkingLevel | undefined): string | undefined {
  if (!model.reasoning) return undefined;
  if (level === undefined) {
    // "Off" only becomes a parameter when the model says how to ask for it (e.g. "none").
    const off = model.thinkingLevelMap?.off;
    return typeof off === "string" ? off : undefined;
  }
  const clamped = clampThinkingLevel(model, level);
  if (clamped === "off") return undefined;
  return mappedThinkingValue(model, clamped, clamped);
}

/** The simple form of a Responses stream: the thinking level becomes a reasoning effort. */
export function responsesStreamSimple(streamFunction: ApiStreamFunction): ApiStreamSimpleFunction {
  return (model, context, options) => {
    const { reasoning, thinkingBudgets: _budgets, ...rest } = options ?? {};
    const effort = reasoningEffort(model, reasoning);
    const samplingLevel = model.reasoning && reasoning ? clampThinkingLevel(model, reasoning) : "off";
    return streamFunction(model, context, { ...rest, ...(effort ? { reasoningEffort: effort } : {}), samplingLevel });
  };
}

export const streamSimple: ApiStreamSimpleFunction = responsesStreamSimple(stream);
