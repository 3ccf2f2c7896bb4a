/**
 * The built-in offline `faux` API: a deterministic model that replays scripted
 * responses (see faux-script.ts) through the same builder, events and usage
 * accounting as a real provider, so hosts can test their integration and CI can
 * smoke-test without credentials or network. The script file comes from
 * XCSH_FAUX_SCRIPT (set from `--faux-script` or the `fauxScript` setting);
 * without one, or once it is used up, a fixed friendly answer comes back.
 */
import type { ApiStreamFunction, ApiStreamSimpleFunction } from "../api-registry.ts";
import { fauxScriptCursor, type FauxBlock, type FauxError, type FauxReply, type FauxResponse } from "../faux-script.ts";
import { clampThinkingLevel } from "../thinking.ts";
import type { Context, Message, ProviderStreamOptions, StreamOptions } from "../types.ts";
import { runProviderStream, type AssistantMessageBuilder } from "./message-builder.ts";

/** The environment variable naming the script file. */
export const FAUX_SCRIPT_ENV = "XCSH_FAUX_SCRIPT";

/** The answer when no script is given. */
export const FAUX_GREETING = "Hello! I'm the faux model: xcsh is working. Pass --faux-script <file> to script my replies.";
/** The answer once every scripted response has been used. */
export const FAUX_SCRIPT_USED_UP = "Hello! I'm the faux model: my script has no replies left for this request, so this is my standard answer.";
/** The thinking shown before the fixed answer when reasoning is on. */
export const FAUX_THINKING = "Nothing is scripted for this request, so I give my standard answer.";

const DEFAULT_CHUNK_SIZE = 12;
/** Token estimate: about four characters per token, as a rough rule for English and code. */
const CHARS_PER_TOKEN = 4;
/** What an image counts for in the estimate (roughly a mid-sized screenshot). */
const IMAGE_TOKENS = 1200;

/** Options of this API, read as extra fields of the stream options. */
export interface FauxOptions {
  /** Emit a thinking block before the fixed answer (streamSimple sets it from the reasoning level). */
  thinking?: boolean;
}

type FauxStreamOptions = StreamOptions & FauxOptions;

/** What a request "sends": the payload hooks see, and may replace. */
export interface FauxPayload {
  model: string;
  systemPrompt?: string;
  messages: Message[];
  tools?: Context["tools"];
}

/** Responses answered in this process, for stable response and tool-call ids. */
let responseCount = 0;

// --- estimates --------------------------------------------------------------

function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

function messageTokens(message: Message): number {
  if (message.role === "user" && typeof message.content === "string") return estimateTokens(message.content.length);
  let chars = 0;
  let images = 0;
  for (const block of message.content as Exclude<Message["content"], string>) {
    if (block.type === "text") chars += block.text.length;
    else if (block.type === "thinking") chars += block.thinking.length;
    else if (block.type === "toolCall") chars += block.name.length + JSON.stringify(block.arguments).length;
    else if (block.type === "image") images++;
  }
  return estimateTokens(chars) + images * IMAGE_TOKENS;
}

/** Input tokens of a request, estimated from everything the model would read. */
function estimateInputTokens(payload: FauxPayload): number {
  const fixed = (payload.systemPrompt?.length ?? 0) + (payload.tools ? JSON.stringify(payload.tools).length : 0);
  return estimateTokens(fixed) + payload.messages.reduce((sum, message) => sum + messageTokens(message), 0);
}

function lastUserText(messages: Message[]): string {
  const last = messages.findLast((message) => message.role === "user");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return last.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}

// --- choosing the response ----------------------------------------------------

/** The next scripted response for this request, or the fixed answer. A bad script file throws. */
function nextResponse(payload: FauxPayload, thinking: boolean): FauxResponse {
  const file = process.env[FAUX_SCRIPT_ENV];
  const scripted = file ? fauxScriptCursor(file).next(lastUserText(payload.messages)) : undefined;
  if (scripted) return scripted;
  const text = file ? FAUX_SCRIPT_USED_UP : FAUX_GREETING;
  const content: FauxBlock[] = thinking ? [{ type: "thinking", thinking: FAUX_THINKING }, { type: "text", text }] : [{ type: "text", text }];
  return { kind: "reply", content };
}

// --- streaming ----------------------------------------------------------------

function abortError(): Error {
  return new Error("Request was aborted");
}

/**
 * Waits `ms`, or rejects as soon as the signal aborts. Even a zero wait gives the
 * event loop a turn, so consumers handle each event while its partial message
 * still matches it, as they would with a network stream.
 */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError());
  return new Promise((resolve, reject) => {
    const done = () => {
      signal?.removeEventListener("abort", onAbort);
      if (signal?.aborted) reject(abortError());
      else resolve();
    };
    let cancel: () => void;
    if (ms > 0) {
      const timer = setTimeout(done, ms);
      cancel = () => clearTimeout(timer);
    } else {
      // Not setTimeout(0): its minimum delay would slow a long reply down chunk by chunk.
      const immediate = setImmediate(done);
      cancel = () => clearImmediate(immediate);
    }
    const onAbort = () => {
      cancel();
      reject(abortError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Splits text into chunks of `size` characters, never inside a surrogate pair. */
function chunks(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/** Streams one reply into the builder: blocks in chunks, then usage and stop reason. */
async function playReply(builder: AssistantMessageBuilder, reply: FauxReply, inputTokens: number, signal: AbortSignal | undefined) {
  const sequence = ++responseCount;
  builder.setResponseInfo({ id: `faux-${sequence}` });
  builder.setUsage({ input: reply.usage?.input ?? inputTokens, cacheRead: reply.usage?.cacheRead ?? 0, cacheWrite: reply.usage?.cacheWrite ?? 0 });
  const size = reply.chunkSize ?? DEFAULT_CHUNK_SIZE;
  let first = true;
  const each = async (pieces: string[], emit: (piece: string) => void) => {
    for (const piece of pieces) {
      // Before the first chunk only a turn of the event loop: delayMs was the wait for it.
      await pause(first ? 0 : (reply.chunkDelayMs ?? 0), signal);
      first = false;
      emit(piece);
    }
  };

  let toolCalls = 0;
  for (const block of reply.content) {
    if (block.type === "text") {
      const index = builder.startText();
      await each(chunks(block.text, size), (piece) => builder.appendText(index, piece));
      builder.endText(index);
    } else if (block.type === "thinking") {
      const index = builder.startThinking();
      await each(chunks(block.thinking, size), (piece) => builder.appendThinking(index, piece));
      builder.endThinking(index);
    } else {
      const index = builder.startToolCall(block.id ?? `faux_call_${sequence}_${++toolCalls}`, block.name);
      await each(chunks(JSON.stringify(block.arguments), size), (piece) => builder.appendToolArguments(index, piece));
      builder.endToolCall(index, structuredClone(block.arguments));
    }
  }

  const outputTokens = builder.output.content.reduce((sum, block) => {
    if (block.type === "text") return sum + estimateTokens(block.text.length);
    if (block.type === "thinking") return sum + estimateTokens(block.thinking.length);
    return sum + estimateTokens(block.name.length + JSON.stringify(block.arguments).length);
  }, 0);
  builder.setUsage({ output: reply.usage?.output ?? outputTokens });
  const hasToolCall = reply.content.some((block) => block.type === "toolCall");
  builder.setStopReason(reply.stopReason ?? (hasToolCall ? "toolUse" : "stop"));
}

/** A scripted failure, worded like an HTTP error ("529 overloaded") so errors.ts classifies it as for a real API. */
function scriptedError(response: FauxError): Error {
  return new Error(response.status !== undefined ? `${response.status} ${response.error}` : response.error);
}

// --- entry points -------------------------------------------------------------

export const stream: ApiStreamFunction = (model, context, rawOptions) => {
  const options = rawOptions as FauxStreamOptions | undefined;
  const signal = options?.signal;
  return runProviderStream(model, signal, async (builder) => {
    // No request goes out: the scripted model is answering from the start, and an abort says so (as pi's faux words it).
    builder.responseArrived();
    let payload: FauxPayload = { model: model.id, systemPrompt: context.systemPrompt, messages: context.messages, tools: context.tools };
    const replaced = await options?.onPayload?.(payload, model);
    if (replaced !== undefined) payload = replaced as FauxPayload;

    const response = nextResponse(payload, options?.thinking === true);
    await pause(response.delayMs ?? 0, signal);
    if (response.kind === "error") {
      await options?.onResponse?.({ status: response.status ?? 500, headers: {} }, model);
      throw scriptedError(response);
    }
    await options?.onResponse?.({ status: 200, headers: {} }, model);
    await playReply(builder, response, estimateInputTokens(payload), signal);
  });
};

export const streamSimple: ApiStreamSimpleFunction = (model, context, options) => {
  const level = clampThinkingLevel(model, options?.reasoning ?? "off");
  const { reasoning: _reasoning, thinkingBudgets: _budgets, ...rest } = options ?? {};
  const fauxOptions: FauxStreamOptions = { ...rest, thinking: level !== "off" };
  return stream(model, context, fauxOptions as ProviderStreamOptions);
};
