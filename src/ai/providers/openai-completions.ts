/**
 * The `openai-completions` API: OpenAI Chat Completions and the many servers that
 * imitate it (OpenRouter, DeepSeek, vLLM, llama.cpp, Ollama, …). The request is
 * shaped by `openai-completions-convert.ts`; this file streams the reply chunks
 * into the neutral event model.
 */
import { notifyStreamEvent } from "../stream-event.ts";
import { APIError } from "openai";
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import type { ApiStreamFunction, ApiStreamSimpleFunction } from "../api-registry.ts";
import { traceModuleLoad } from "../load-trace.ts";
import { clampThinkingLevel, mappedThinkingValue, thinkingBudget } from "../thinking.ts";
import type { Model, ModelThinkingLevel, ProviderStreamOptions, StopReason, StreamOptions, ThinkingLevel, ToolCall } from "../types.ts";
import type { AssistantMessageBuilder } from "./message-builder.ts";
import { runProviderStream } from "./message-builder.ts";
import { createOpenAIClient } from "./openai-client.ts";
import { buildPayload, detectCompat, fitCompletionsCacheBreakpoints, REASONING_FIELDS } from "./openai-completions-convert.ts";
import { sessionAffinityHeaders } from "./session-affinity.ts";
import { requestCredentials } from "./api-key.ts";
import { billedTotal } from "./provider-cost.ts";

traceModuleLoad("openai");

export interface OpenAICompletionsOptions extends StreamOptions {
  /** The provider's value for the reasoning level ("low", "high", …); undefined turns thinking off. */
  reasoningEffort?: string;
  toolChoice?: "auto" | "none" | "required" | { type: "function"; function: { name: string } };
  /** The effective thinking level (samplingParamsByThinkingLevel); set by streamSimple. */
  samplingLevel?: ModelThinkingLevel;
  /** Reasoning tokens for the level; sent only where compat.thinkingTokenBudgetField names a field. */
  thinkingBudget?: number;
}

/** Fields compatible servers add to a streamed delta or chunk beyond OpenAI's own. */
type Delta = ChatCompletionChunk.Choice.Delta & Partial<Record<(typeof REASONING_FIELDS)[number], string | null>>;
type Usage = CompletionUsage & {
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  /** DeepSeek reports its cache hits here. */
  prompt_cache_hit_tokens?: number;
  /** Some compatible servers count reasoning tokens at the top level instead of in completion_tokens_details. */
  reasoning_tokens?: number;
};
type Choice = ChatCompletionChunk.Choice & { usage?: Usage | null; message?: Delta };

/**
 * A content part as Mistral's reasoning models send it: `delta.content` is then an array
 * of `{type:"text",text}` and `{type:"thinking",thinking:[{type:"text",text}]}` parts.
 */
type ContentPart = { type?: string; text?: unknown; thinking?: unknown };

/** The text of a thinking part's `thinking` (an array of text parts, or a plain string). */
function thinkingText(thinking: unknown): string {
  if (typeof thinking === "string") return thinking;
  if (!Array.isArray(thinking)) return "";
  return thinking.map((part) => (typeof part === "string" ? part : typeof part?.text === "string" ? part.text : "")).join("");
}
type Chunk = Omit<ChatCompletionChunk, "choices" | "usage"> & { choices?: Choice[]; usage?: Usage | null };

function stopReasonOf(finishReason: string): StopReason {
  switch (finishReason) {
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "toolUse";
    case "content_filter":
      return "error";
    default:
      return "stop";
  }
}

/**
 * Translates chunks into builder calls. Text and thinking arrive as one running
 * block at a time; tool calls are keyed by their `index` because several can be
 * in flight at once.
 *
 * Blocks are closed when the stream ends, all together and in content order, as pi 1.x
 * does for this API: a server may go back to text or reasoning after a tool call has
 * begun, so no block is known to be finished before the end (a text block's `text_end`
 * comes after a following call's `toolcall_start`). The usage chunk has arrived by then,
 * so the `*_end` events carry the final counts.
 */
class ChunkReader {
  private current: { kind: "text" | "thinking"; index: number } | undefined;
  /** Content index of each tool call, by the call's wire index. */
  private readonly toolCalls = new Map<number, number>();

  constructor(
    private readonly builder: AssistantMessageBuilder,
    private readonly model: Model,
  ) {}

  read(chunk: Chunk): void {
    this.builder.setResponseInfo({ id: chunk.id, model: chunk.model });
    if (chunk.usage) this.readUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    if (choice.usage) this.readUsage(choice.usage);
    // A few servers answer a streamed request with whole `message`s instead of deltas.
    const delta = (choice.delta ?? choice.message ?? {}) as Delta;

    // Servers name the reasoning field differently and some send two names for the same text: take one.
    const field = REASONING_FIELDS.find((name) => typeof delta[name] === "string" && delta[name] !== "");
    if (field) this.appendRunning("thinking", delta[field]!, field);
    const content = delta.content as unknown;
    if (typeof content === "string" && content !== "") this.appendRunning("text", content);
    else if (Array.isArray(content)) this.readContentParts(content as ContentPart[]);
    delta.tool_calls?.forEach((call, position) => this.readToolCall(call, position));

    if (choice.finish_reason) this.finish(choice.finish_reason);
  }

  private readContentParts(parts: ContentPart[]): void {
    for (const part of parts) {
      if (part?.type === "thinking") {
        const text = thinkingText(part.thinking);
        if (text) this.appendRunning("thinking", text);
      } else if (typeof part?.text === "string" && part.text !== "") {
        this.appendRunning("text", part.text);
      }
    }
  }

  private appendRunning(kind: "text" | "thinking", delta: string, signature?: string): void {
    if (this.current?.kind !== kind) {
      // The running block stays open (closed at the stream's end); the new one runs from here.
      const index = kind === "text" ? this.builder.startText() : this.builder.startThinking({ signature });
      this.current = { kind, index };
    }
    if (kind === "text") this.builder.appendText(this.current.index, delta);
    else this.builder.appendThinking(this.current.index, delta);
  }

  private readToolCall(call: ChatCompletionChunk.Choice.Delta.ToolCall, position: number): void {
    // A few servers leave out `index`; their calls then arrive one per array slot.
    const wireIndex = call.index ?? position;
    let contentIndex = this.toolCalls.get(wireIndex);
    const block = contentIndex === undefined ? undefined : (this.builder.output.content[contentIndex] as ToolCall);
    // Some servers reuse index 0 for every call, each with its own id.
    if (block && call.id && block.id !== call.id && this.builder.isOpen(contentIndex!)) {
      this.builder.endToolCall(contentIndex!);
      contentIndex = undefined;
    }
    if (contentIndex === undefined) {
      // Text after the call is a new block, not more of the one before it.
      this.current = undefined;
      const id = call.id || `call_${this.toolCalls.size + 1}`;
      contentIndex = this.builder.startToolCall(id, call.function?.name ?? "");
      this.toolCalls.set(wireIndex, contentIndex);
    } else if (call.function?.name) {
      const open = this.builder.output.content[contentIndex] as ToolCall;
      if (!open.name) open.name = call.function.name;
    }
    const args = call.function?.arguments;
    if (args) this.builder.appendToolArguments(contentIndex, args);
  }

  private finish(finishReason: string): void {
    this.builder.setRawStopReason(finishReason);
    const reason = stopReasonOf(finishReason);
    this.builder.setStopReason(reason);
    this.builder.markComplete();
    if (reason === "error") this.builder.output.errorMessage = `The provider's content filter stopped the response (finish_reason: ${finishReason})`;
  }

  private readUsage(usage: Usage): void {
    const cacheRead = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0;
    const cacheWrite = usage.prompt_tokens_details?.cache_write_tokens ?? 0;
    // prompt_tokens counts cached tokens too; input is what was processed fresh.
    this.builder.setUsage({
      input: Math.max(0, (usage.prompt_tokens ?? 0) - cacheRead - cacheWrite),
      output: usage.completion_tokens ?? 0,
      cacheRead,
      cacheWrite,
      reasoning: usage.completion_tokens_details?.reasoning_tokens || usage.reasoning_tokens || 0,
    });
    const billed = billedTotal(this.model, usage);
    if (billed !== undefined) this.builder.setBilledTotal(billed);
  }
}

/**
 * A failure reported inside the stream (OpenRouter sends `{"error":{"code":502,…}}`
 * as a chunk) reaches us without an HTTP status; its code takes the status's
 * place so the error can be classified like an HTTP one.
 */
function withStreamErrorCode(error: unknown): unknown {
  if (!(error instanceof APIError) || error.status !== undefined || error.code == null) return error;
  const code = String(error.code);
  return error.message.startsWith(code) ? error : new Error(`${code} ${error.message}`);
}

export const stream: ApiStreamFunction = (model, context, rawOptions) => {
  const options = rawOptions as OpenAICompletionsOptions | undefined;
  return runProviderStream(model, options?.signal, async (builder) => {
    const watch = { sawDone: false };
    const compat = detectCompat(model);
    const affinity =
      compat.sendSessionAffinityHeaders && options?.sessionId
        ? sessionAffinityHeaders(compat.sessionAffinityFormat, options.sessionId, { sessionHeader: "session_id", affinityHeader: true })
        : undefined;
    const client = createOpenAIClient(model, affinity ? { ...options, headers: { ...affinity, ...options?.headers } } : options, watch);
    let payload: unknown = buildPayload(model, context, compat, {
      maxTokens: options?.maxTokens,
      temperature: options?.temperature,
      reasoningEffort: options?.reasoningEffort,
      toolChoice: options?.toolChoice,
      cacheRetention: options?.cacheRetention,
      sessionId: options?.sessionId,
      samplingLevel: options?.samplingLevel,
      thinkingBudget: options?.thinkingBudget,
    });
    const replaced = await options?.onPayload?.(payload, model);
    // An extension's own cache_control beside xcsh's four would be refused: xcsh's give way.
    if (replaced !== undefined) payload = replaced;
    if (replaced !== undefined && compat.cacheControlFormat === "anthropic") fitCompletionsCacheBreakpoints(payload);

    const { data: chunks, response } = await client.chat.completions
      .create(payload as ChatCompletionCreateParamsStreaming, { signal: options?.signal })
      .withResponse();
    builder.responseArrived();
    await options?.onResponse?.({ status: response.status, headers: Object.fromEntries(response.headers) }, model);

    const reader = new ChunkReader(builder, model);
    try {
      for await (const chunk of chunks) {
        const listened = notifyStreamEvent(options, chunk, model);
        if (listened) await listened;
        reader.read(chunk as Chunk);
      }
    } catch (error) {
      throw withStreamErrorCode(error);
    }
    // `data: [DONE]` says the server finished, even from one that sends no finish_reason. A server
    // that sends neither (compat.supportsFinishReason: false) has finished when its stream ends
    // normally: a cut there cannot be told from an end, which the switch accepts.
    if (watch.sawDone || !compat.supportsFinishReason) builder.markComplete();
  }, { requiresCompletion: "OpenAI Chat Completions", secrets: requestCredentials(model, options) });
};

/** The provider value for a level, or undefined when the model will not reason. */
function reasoningEffortFor(model: Model, level: ThinkingLevel | undefined): string | undefined {
  if (!model.reasoning || !level) return undefined;
  const clamped = clampThinkingLevel(model, level);
  if (clamped === "off") return undefined;
  return mappedThinkingValue(model, clamped, clamped);
}

export const streamSimple: ApiStreamSimpleFunction = (model, context, options) => {
  const { reasoning, thinkingBudgets, ...rest } = options ?? {};
  // Chat Completions reasons by effort level; a budget goes along only for servers with a budget field.
  const samplingLevel = model.reasoning && reasoning ? clampThinkingLevel(model, reasoning) : "off";
  const budget = samplingLevel !== "off" ? thinkingBudget(samplingLevel, options?.maxTokens ?? model.maxTokens, thinkingBudgets) : undefined;
  const providerOptions: ProviderStreamOptions = { ...rest, reasoningEffort: reasoningEffortFor(model, reasoning), samplingLevel, thinkingBudget: budget };
  return stream(model, context, providerOptions);
};
