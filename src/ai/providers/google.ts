/**
 * The `google-generative-ai` API (Gemini) through the @google/genai SDK.
 * Gemini streams whole parts per chunk: text and thought parts extend the open
 * block, a function call arrives complete.
 */
import { notifyStreamEvent } from "../stream-event.ts";
import {
  ApiError,
  FunctionCallingConfigMode,
  GoogleGenAI,
  ThinkingLevel,
  type GenerateContentConfig,
  type GenerateContentParameters,
  type GenerateContentResponse,
  type GenerateContentResponseUsageMetadata,
  type Part,
  type PartialArg,
  type ThinkingConfig,
} from "@google/genai";
import type { ApiStreamFunction, ApiStreamSimpleFunction } from "../api-registry.ts";
import { traceModuleLoad } from "../load-trace.ts";
import { clampThinkingLevel, thinkingBudget } from "../thinking.ts";
import type { Model, ModelThinkingLevel, ProviderStreamOptions, StreamOptions, TextContent, ThinkingBudgets, ToolCall } from "../types.ts";
import { requestCredentials, resolveProviderApiKey } from "./api-key.ts";
import { convertMessages, convertSystemPrompt, convertTools, newLocalCallId, thinksByLevel } from "./google-convert.ts";
import { runProviderStream, type AssistantMessageBuilder } from "./message-builder.ts";

traceModuleLoad("@google/genai");

const GEMINI_LEVELS = ["MINIMAL", "LOW", "MEDIUM", "HIGH"] as const;
export type GoogleThinkingLevel = (typeof GEMINI_LEVELS)[number];

/** Gemini's thinking knobs: a token budget (Gemini 2.x) or a level (Gemini 3). */
export interface GoogleThinkingOptions {
  /** Whether thoughts are streamed back; a model that cannot stop thinking still thinks when false. */
  enabled: boolean;
  budgetTokens?: number;
  level?: GoogleThinkingLevel;
}

/** Options of this API, read as extra fields of the stream options. */
export interface GoogleOptions {
  toolChoice?: "auto" | "none" | "any";
  thinking?: GoogleThinkingOptions;
}

export type GoogleStreamOptions = StreamOptions & GoogleOptions;

// --- client -----------------------------------------------------------------

const DEFAULT_API_VERSION = "v1beta";

/**
 * A models.json baseUrl names the API version (`…/v1beta`, as the service's own
 * docs write it); the SDK wants the origin and the version apart. A baseUrl
 * without one (a gateway prefix) gets v1beta, where thinking and thought
 * signatures live, rather than the SDK's own default.
 */
export function splitBaseUrl(baseUrl: string): { baseUrl?: string; apiVersion: string } {
  const trimmed = baseUrl.replace(/\/+$/, "");
  const match = /^(.*)\/(v\d+(?:alpha|beta)?\d*)$/.exec(trimmed);
  if (match) return { baseUrl: match[1], apiVersion: match[2] };
  return trimmed ? { baseUrl: trimmed, apiVersion: DEFAULT_API_VERSION } : { apiVersion: DEFAULT_API_VERSION };
}

/** The SDK's request settings every client shares: headers, timeout, and retries (none unless asked). */
export function sdkHttpOptions(model: Model, options: GoogleStreamOptions | undefined) {
  const maxRetries = options?.maxRetries ?? 0;
  return {
    headers: { ...model.headers, ...options?.headers },
    timeout: options?.timeoutMs,
    // Without retryOptions the SDK sends exactly one request: retrying is the session's job.
    retryOptions:
      maxRetries > 0
        ? {
            attempts: maxRetries + 1,
            maxDelay: options?.maxRetryDelayMs !== undefined ? options.maxRetryDelayMs / 1000 : undefined,
          }
        : undefined,
  };
}

function createClient(model: Model, options: GoogleStreamOptions | undefined): GoogleGenAI {
  return new GoogleGenAI({
    apiKey: resolveProviderApiKey(model, options),
    // Never let GOOGLE_GENAI_USE_VERTEXAI in the environment reroute a Gemini API model.
    vertexai: false,
    httpOptions: { ...splitBaseUrl(model.baseUrl), ...sdkHttpOptions(model, options) },
  });
}

// --- request ----------------------------------------------------------------

function thinkingConfig(model: Model, thinking: GoogleThinkingOptions | undefined): ThinkingConfig | undefined {
  // A model without reasoning never gets thinking parameters.
  if (!model.reasoning || !thinking) return undefined;
  const config: ThinkingConfig = {};
  if (thinking.enabled) config.includeThoughts = true;
  if (thinking.budgetTokens !== undefined) config.thinkingBudget = thinking.budgetTokens;
  if (thinking.level) config.thinkingLevel = ThinkingLevel[thinking.level];
  return config;
}

const TOOL_CHOICE_MODES = {
  auto: FunctionCallingConfigMode.AUTO,
  none: FunctionCallingConfigMode.NONE,
  any: FunctionCallingConfigMode.ANY,
} as const;

function buildParameters(model: Model, context: Parameters<ApiStreamFunction>[1], options: GoogleStreamOptions | undefined) {
  const config: GenerateContentConfig = { maxOutputTokens: options?.maxTokens ?? model.maxTokens };
  const systemInstruction = convertSystemPrompt(context);
  if (systemInstruction) config.systemInstruction = systemInstruction;
  if (options?.temperature !== undefined) config.temperature = options.temperature;
  const tools = convertTools(context);
  if (tools) {
    config.tools = tools;
    if (options?.toolChoice) config.toolConfig = { functionCallingConfig: { mode: TOOL_CHOICE_MODES[options.toolChoice] } };
  }
  const thinking = thinkingConfig(model, options?.thinking);
  if (thinking) config.thinkingConfig = thinking;
  return { model: model.id, contents: convertMessages(model, context), config } satisfies GenerateContentParameters;
}

// --- response ---------------------------------------------------------------

/** Which block the next text or thought part extends. */
interface OpenBlock {
  kind: "text" | "thinking";
  index: number;
}

/** A JSON path as Vertex writes it ("$.a.b[0].c", "$['a b']") as keys and indexes. */
function pathSteps(path: string): (string | number)[] {
  const steps: (string | number)[] = [];
  const pattern = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/g;
  for (const match of path.replace(/^\$/, "").matchAll(pattern)) {
    if (match[1] !== undefined) steps.push(match[1]);
    else if (match[2] !== undefined) steps.push(Number(match[2]));
    else steps.push((match[3] ?? match[4])!);
  }
  return steps;
}

/** Sets one streamed piece of a call's arguments; string pieces of one path are joined. */
function applyPartialArg(args: Record<string, any>, piece: PartialArg): void {
  const steps = pathSteps(piece.jsonPath ?? "");
  if (steps.length === 0) return;
  let target: any = args;
  for (let i = 0; i < steps.length - 1; i++) {
    const step = steps[i];
    if (target[step] === undefined || target[step] === null || typeof target[step] !== "object") target[step] = typeof steps[i + 1] === "number" ? [] : {};
    target = target[step];
  }
  const last = steps[steps.length - 1];
  if (piece.stringValue !== undefined) target[last] = (typeof target[last] === "string" ? target[last] : "") + piece.stringValue;
  else if (piece.numberValue !== undefined) target[last] = piece.numberValue;
  else if (piece.boolValue !== undefined) target[last] = piece.boolValue;
  else if (piece.nullValue !== undefined) target[last] = null;
}

/** Translates streamed chunks into builder calls; remembers what the last chunk said. */
class ChunkReader {
  private open: OpenBlock | undefined;
  /** A function call whose arguments are still arriving in pieces. */
  private streamedCall: { index: number; name: string; args: Record<string, any> } | undefined;
  finishReason: string | undefined;
  finishMessage: string | undefined;
  blockReason: string | undefined;

  constructor(private readonly builder: AssistantMessageBuilder) {}

  read(chunk: GenerateContentResponse): void {
    this.builder.setResponseInfo({ id: chunk.responseId, model: chunk.modelVersion });
    if (chunk.usageMetadata) this.setUsage(chunk.usageMetadata);
    if (chunk.promptFeedback?.blockReason) {
      this.blockReason = [chunk.promptFeedback.blockReason, chunk.promptFeedback.blockReasonMessage].filter(Boolean).join(": ");
    }
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) this.readPart(part);
    if (candidate?.finishReason) {
      this.finishReason = candidate.finishReason;
      this.builder.setRawStopReason(candidate.finishReason);
      this.builder.markComplete();
    }
    if (candidate?.finishMessage) this.finishMessage = candidate.finishMessage;
  }

  closeOpenBlock(): void {
    if (!this.open) return;
    if (this.open.kind === "text") this.builder.endText(this.open.index);
    else this.builder.endThinking(this.open.index);
    this.open = undefined;
  }

  private readPart(part: Part): void {
    if (part.functionCall) {
      this.readFunctionCall(part);
      return;
    }
    this.endStreamedCall();
    if (part.text === undefined && !part.thoughtSignature) return; // inline data, code execution: not ours
    const kind = part.thought ? "thinking" : "text";
    const text = part.text ?? "";
    // An empty part only matters when it carries a signature to keep.
    if (!text && !part.thoughtSignature) return;
    const index = this.blockFor(kind);
    if (kind === "thinking") {
      this.builder.appendThinking(index, text);
      if (part.thoughtSignature) this.builder.setThinkingSignature(index, part.thoughtSignature);
    } else {
      this.builder.appendText(index, text);
      if (part.thoughtSignature) (this.builder.output.content[index] as TextContent).textSignature = part.thoughtSignature;
    }
  }

  /**
   * A function call, whole (`args`) or streamed in pieces (Vertex's streamFunctionCallArguments:
   * a first part with the name and `willContinue`, then parts whose `partialArgs` set values by
   * JSON path, the last without `willContinue`): the pieces make one call.
   */
  private readFunctionCall(part: Part): void {
    const call = part.functionCall!;
    const streaming = this.streamedCall;
    // A part naming another function starts another call.
    if (streaming && call.name && call.name !== streaming.name) this.endStreamedCall();
    if (!this.streamedCall && !call.willContinue && !call.partialArgs?.length) {
      this.closeOpenBlock();
      const args = call.args ?? {};
      const index = this.builder.startToolCall(call.id || newLocalCallId(), call.name ?? "", part.thoughtSignature);
      this.builder.appendToolArguments(index, JSON.stringify(args));
      this.builder.endToolCall(index, args);
      return;
    }
    if (!this.streamedCall) {
      this.closeOpenBlock();
      const index = this.builder.startToolCall(call.id || newLocalCallId(), call.name ?? "", part.thoughtSignature);
      this.streamedCall = { index, name: call.name ?? "", args: {} };
    }
    const open = this.streamedCall!;
    if (call.args) Object.assign(open.args, call.args);
    for (const piece of call.partialArgs ?? []) applyPartialArg(open.args, piece);
    if (part.thoughtSignature) (this.builder.output.content[open.index] as ToolCall).thoughtSignature = part.thoughtSignature;
    (this.builder.output.content[open.index] as ToolCall).arguments = structuredClone(open.args);
    if (!call.willContinue) this.endStreamedCall();
  }

  /** Closes a call whose arguments were streaming. */
  endStreamedCall(): void {
    const open = this.streamedCall;
    if (!open) return;
    this.streamedCall = undefined;
    this.builder.endToolCall(open.index, open.args);
  }

  private blockFor(kind: OpenBlock["kind"]): number {
    if (this.open?.kind === kind) return this.open.index;
    this.closeOpenBlock();
    const index = kind === "text" ? this.builder.startText() : this.builder.startThinking();
    this.open = { kind, index };
    return index;
  }

  private setUsage(usage: GenerateContentResponseUsageMetadata): void {
    // promptTokenCount includes the cached tokens; they are priced apart. A built-in tool's
    // prompt (URL context, Search results) is counted outside it and is input too: Gemini's
    // totalTokenCount is prompt + candidates + toolUsePrompt + thoughts.
    const cached = usage.cachedContentTokenCount ?? 0;
    this.builder.setUsage({
      input: (usage.promptTokenCount ?? 0) - cached + (usage.toolUsePromptTokenCount ?? 0),
      output: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
      cacheRead: cached,
      cacheWrite: 0,
      reasoning: usage.thoughtsTokenCount ?? 0,
    });
  }

  /** Sets the stop reason, or throws when the service ended the turn with a failure. */
  finish(): void {
    this.closeOpenBlock();
    this.endStreamedCall();
    if (this.blockReason && !this.finishReason) throw new Error(`Gemini blocked the prompt: ${this.blockReason}`);
    switch (this.finishReason) {
      case "STOP":
        this.builder.setStopReason("stop"); // the builder turns it into toolUse when calls were made
        return;
      case "MAX_TOKENS":
      case "CONTINUATION": // output cut at a per-request limit; automatic continuation is off
        this.builder.setStopReason("length");
        return;
      case undefined:
        return; // a cut stream: runProviderStream's rule reports it
      default: {
        const detail = this.finishMessage ? `: ${this.finishMessage}` : "";
        throw new Error(`Gemini stopped the response (finishReason ${this.finishReason})${detail}`);
      }
    }
  }
}

// --- errors -----------------------------------------------------------------

/**
 * The SDK's error message is the service's JSON body without the HTTP status;
 * errors.ts classifies by status and text, so both go in.
 */
function describeError(error: unknown, userSignal: AbortSignal | undefined, timeoutMs: number | undefined): unknown {
  if (error instanceof ApiError) {
    const message = error.message.startsWith(String(error.status)) ? error.message : `${error.status} ${error.message}`;
    return new Error(message);
  }
  // The SDK enforces its timeout by aborting the request, which looks like an abort.
  const aborted = error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
  if (aborted && !userSignal?.aborted && timeoutMs !== undefined) return new Error(`Request timed out after ${timeoutMs} ms`);
  return error;
}

// --- entry points -----------------------------------------------------------

/** Makes the SDK client for a request: the Gemini API's, or Vertex AI's (google-vertex.ts). */
export type GoogleClientFactory = (model: Model, options: GoogleStreamOptions | undefined) => GoogleGenAI;

/** A generateContent stream over the clients a factory makes. */
export function geminiStream(makeClient: GoogleClientFactory): ApiStreamFunction {
  return (model, context, rawOptions) => {
    const options = rawOptions as GoogleStreamOptions | undefined;
    const userSignal = options?.signal;
    return runProviderStream(model, userSignal, async (builder) => {
      const client = makeClient(model, options);
      let payload: GenerateContentParameters = buildParameters(model, context, options);
      const replaced = await options?.onPayload?.(payload, model);
      if (replaced !== undefined) payload = replaced as GenerateContentParameters;

      // Our own controller as well as the caller's: whenever reading stops early
      // (an exception here), the HTTP request is cancelled instead of left open.
      const stop = new AbortController();
      const abortSignal = userSignal ? AbortSignal.any([userSignal, stop.signal]) : stop.signal;
      try {
        const chunks = await client.models.generateContentStream({
          ...payload,
          // The SDK would silently re-request a dropped stream; the session retries visibly instead.
          config: { ...payload.config, abortSignal, automaticContinuation: false },
        });
        const reader = new ChunkReader(builder);
        let first = true;
        for await (const chunk of chunks) {
          if (first) {
            first = false;
            builder.responseArrived();
            await options?.onResponse?.({ status: 200, headers: chunk.sdkHttpResponse?.headers ?? {} }, model);
          }
          const listened = notifyStreamEvent(options, chunk, model);
          if (listened) await listened;
          reader.read(chunk);
        }
        reader.finish();
      } catch (error) {
        throw describeError(error, userSignal, options?.timeoutMs);
      } finally {
        stop.abort();
      }
    }, { requiresCompletion: "Gemini", secrets: requestCredentials(model, options) });
  };
}

export const stream: ApiStreamFunction = geminiStream(createClient);

/**
 * The per-model thinking decision, from the model's data only. A model whose
 * thinkingLevelMap names levels (Gemini 3 and later) takes a level and cannot stop
 * thinking; a budget model (Gemini 2.x) takes a token budget. For a budget model the
 * map's numbers are the budgets: `off` is the budget that stands for "off" (the catalog
 * gives 0, or 128 for 2.5 Pro, which cannot stop thinking), and without one "off" sends
 * nothing and the model keeps its own default. `compat.maxThinkingBudget` caps the
 * budgets computed from the level (Flash: 24,576); a budget the map names is sent as is.
 */
export function geminiThinking(
  model: Model,
  level: ModelThinkingLevel,
  maxTokens: number,
  budgets?: ThinkingBudgets,
): GoogleThinkingOptions | undefined {
  if (!model.reasoning) return undefined;
  const mapped = model.thinkingLevelMap?.[level] ?? undefined;

  if (thinksByLevel(model)) {
    const fallback: GoogleThinkingLevel = level === "off" || level === "minimal" || level === "low" ? "LOW" : "HIGH";
    const named = mapped?.toUpperCase();
    const chosen = GEMINI_LEVELS.find((value) => value === named) ?? fallback;
    return { enabled: level !== "off", level: chosen };
  }

  const mappedBudget = mapped !== undefined && /^-?\d+$/.test(mapped) ? Number(mapped) : undefined;
  if (level === "off") return mappedBudget !== undefined ? { enabled: false, budgetTokens: mappedBudget } : undefined;
  if (mappedBudget !== undefined) return { enabled: true, budgetTokens: mappedBudget };
  const budget = thinkingBudget(level, maxTokens, budgets);
  const cap = model.compat?.maxThinkingBudget;
  return { enabled: true, budgetTokens: typeof cap === "number" && cap > 0 ? Math.min(budget, cap) : budget };
}

/** The simple form of a Gemini stream: the thinking level becomes Gemini's thinking knobs. */
export function geminiStreamSimple(streamFunction: ApiStreamFunction): ApiStreamSimpleFunction {
  return (model, context, options) => {
    const level = clampThinkingLevel(model, options?.reasoning ?? "off");
    const maxTokens = options?.maxTokens ?? model.maxTokens;
    const thinking = geminiThinking(model, level, maxTokens, options?.thinkingBudgets);
    const { reasoning: _reasoning, thinkingBudgets: _budgets, ...rest } = options ?? {};
    const googleOptions: GoogleStreamOptions = { ...rest, thinking };
    return streamFunction(model, context, googleOptions as ProviderStreamOptions);
  };
}

export const streamSimple: ApiStreamSimpleFunction = geminiStreamSimple(stream);
