/**
 * The part every provider shares: growing an AssistantMessage block by block and
 * emitting the matching stream events, and turning any failure into a final
 * `error` event instead of a throw. A provider only translates its wire events
 * into calls on the builder.
 */
import { describeProviderFailure } from "../provider-errors.ts";
import { redactCredentials } from "../verbose-error-body.ts";
import { AssistantMessageEventStream } from "../event-stream.ts";
import { parseStreamingJson } from "../json-parse.ts";
import type { AssistantMessage, Model, StopReason, TextContent, ThinkingContent, ToolCall } from "../types.ts";
import { calculateCost, emptyUsage, roundCost } from "../usage.ts";

export interface TokenCounts {
  input?: number;
  /** Output tokens, reasoning included. */
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  /** The reasoning tokens among `output`, from APIs that count them apart. */
  reasoning?: number;
}

/**
 * What an aborted message says, as pi 1.x words it: "Request aborted" when the user
 * stopped the request before the provider answered (pi's request wrapper), "Request was
 * aborted" once the answer had begun to stream (pi's stream readers). The seeds name no
 * text; hosts should read `stopReason: "aborted"`, the text is for people.
 */
export const ABORTED_BEFORE_RESPONSE = "Request aborted";
export const ABORTED_DURING_RESPONSE = "Request was aborted";

/** Arguments this short are parsed on every delta: clients see them grow smoothly. */
const ALWAYS_PARSE_BELOW = 4096;

export class AssistantMessageBuilder {
  readonly output: AssistantMessage;
  /** Raw argument text of tool calls still streaming, by content index. */
  private readonly toolArgs = new Map<number, string>();
  /** How long the arguments' text was when last parsed, per open tool call. */
  private readonly parsedArgsLength = new Map<number, number>();
  private readonly open = new Set<number>();
  /** Set when the provider said the response is complete (a stop reason, `message_stop`, `[DONE]`…). */
  private completed = false;
  /** Set once the provider answered (its response headers arrived): an abort after it interrupts a streaming answer. */
  private answered = false;
  /** The billed total the provider reported; it outlives the estimate each new count recomputes. */
  private billedTotal: number | undefined;

  constructor(
    private readonly model: Model,
    private readonly stream: AssistantMessageEventStream,
    /** The credentials of this request (the key, auth headers): never part of an error the user sees. */
    private readonly secrets: readonly (string | undefined)[] = [],
  ) {
    this.output = {
      role: "assistant",
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
  }

  start(): void {
    // A snapshot: consumers may read this event after content has already arrived,
    // and a client that starts from message_start then appends deltas must not see text twice.
    this.stream.push({ type: "start", partial: { ...this.output, content: [] } });
  }

  // --- text -------------------------------------------------------------

  startText(textSignature?: string): number {
    const block: TextContent = { type: "text", text: "" };
    if (textSignature) block.textSignature = textSignature;
    const index = this.add(block);
    this.stream.push({ type: "text_start", contentIndex: index, partial: this.output });
    return index;
  }

  appendText(index: number, delta: string): void {
    if (!delta) return;
    const block = this.output.content[index] as TextContent;
    block.text += delta;
    this.stream.push({ type: "text_delta", contentIndex: index, delta, partial: this.output });
  }

  endText(index: number, textSignature?: string): void {
    if (!this.open.delete(index)) return;
    const block = this.output.content[index] as TextContent;
    if (textSignature) block.textSignature = textSignature;
    this.stream.push({ type: "text_end", contentIndex: index, content: block.text, partial: this.output });
  }

  // --- thinking ---------------------------------------------------------

  startThinking(options: { signature?: string; redacted?: boolean } = {}): number {
    const block: ThinkingContent = { type: "thinking", thinking: "" };
    if (options.signature) block.thinkingSignature = options.signature;
    if (options.redacted) block.redacted = true;
    const index = this.add(block);
    this.stream.push({ type: "thinking_start", contentIndex: index, partial: this.output });
    return index;
  }

  appendThinking(index: number, delta: string): void {
    if (!delta) return;
    const block = this.output.content[index] as ThinkingContent;
    block.thinking += delta;
    this.stream.push({ type: "thinking_delta", contentIndex: index, delta, partial: this.output });
  }

  setThinkingSignature(index: number, signature: string, append = false): void {
    const block = this.output.content[index] as ThinkingContent;
    block.thinkingSignature = append ? (block.thinkingSignature ?? "") + signature : signature;
  }

  endThinking(index: number): void {
    if (!this.open.delete(index)) return;
    const block = this.output.content[index] as ThinkingContent;
    this.stream.push({ type: "thinking_end", contentIndex: index, content: block.thinking, partial: this.output });
  }

  // --- tool calls -------------------------------------------------------

  startToolCall(id: string, name: string, thoughtSignature?: string): number {
    const block: ToolCall = { type: "toolCall", id, name, arguments: {} };
    if (thoughtSignature) block.thoughtSignature = thoughtSignature;
    const index = this.add(block);
    this.toolArgs.set(index, "");
    this.stream.push({ type: "toolcall_start", contentIndex: index, partial: this.output });
    return index;
  }

  /**
   * Appends a fragment of the arguments' JSON; the parsed arguments follow progressively.
   * Re-parsing the whole text on every delta would be quadratic in its size (a 200 KB
   * `write` arrives in thousands of deltas), so past a small size the partial arguments
   * are refreshed only when the text has grown by a quarter since the last parse: the
   * work stays linear, and `endToolCall` parses the complete text.
   */
  appendToolArguments(index: number, delta: string): void {
    if (!delta) return;
    const raw = (this.toolArgs.get(index) ?? "") + delta;
    this.toolArgs.set(index, raw);
    const parsedAt = this.parsedArgsLength.get(index) ?? 0;
    if (raw.length <= ALWAYS_PARSE_BELOW || raw.length - parsedAt >= parsedAt / 4) {
      (this.output.content[index] as ToolCall).arguments = parseStreamingJson(raw);
      this.parsedArgsLength.set(index, raw.length);
    }
    this.stream.push({ type: "toolcall_delta", contentIndex: index, delta, partial: this.output });
  }

  /**
   * Closes a tool call. `finalArguments` is for APIs that deliver the arguments
   * whole (Gemini); otherwise the streamed text is parsed one last time.
   */
  endToolCall(index: number, finalArguments?: Record<string, any>): void {
    if (!this.open.delete(index)) return;
    const block = this.output.content[index] as ToolCall;
    if (finalArguments) {
      block.arguments = finalArguments;
    } else {
      const raw = this.toolArgs.get(index) ?? "";
      block.arguments = parseStreamingJson(raw);
    }
    this.toolArgs.delete(index);
    this.parsedArgsLength.delete(index);
    this.stream.push({ type: "toolcall_end", contentIndex: index, toolCall: block, partial: this.output });
  }

  /** Closes whatever is still open, in order (a stream that ended without block stops). */
  endOpenBlocks(): void {
    for (const index of [...this.open].sort((a, b) => a - b)) {
      const block = this.output.content[index];
      if (block.type === "text") this.endText(index);
      else if (block.type === "thinking") this.endThinking(index);
      else this.endToolCall(index);
    }
  }

  isOpen(index: number): boolean {
    return this.open.has(index);
  }

  // --- usage and end ----------------------------------------------------

  /** Sets the token counts the provider reported (fields given replace the old ones). */
  setUsage(counts: TokenCounts): void {
    const usage = this.output.usage;
    if (counts.input !== undefined) usage.input = counts.input;
    if (counts.output !== undefined) usage.output = counts.output;
    if (counts.cacheRead !== undefined) usage.cacheRead = counts.cacheRead;
    if (counts.cacheWrite !== undefined) usage.cacheWrite = counts.cacheWrite;
    if (counts.reasoning !== undefined) usage.reasoning = counts.reasoning;
    usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
    calculateCost(this.model, usage);
    this.applyBilledTotal();
  }

  /**
   * The cost the provider billed for this response (OpenRouter's `usage.cost`): it replaces
   * the catalog estimate as `cost.total`, marked `totalFromProvider`. The per-kind parts stay
   * the catalog's, as pi 1.x keeps them.
   */
  setBilledTotal(dollars: number): void {
    if (!Number.isFinite(dollars) || dollars < 0) return;
    this.billedTotal = dollars;
    this.applyBilledTotal();
  }

  private applyBilledTotal(): void {
    if (this.billedTotal === undefined) return;
    this.output.usage.cost.total = roundCost(this.billedTotal);
    this.output.usage.cost.totalFromProvider = true;
  }

  /** The provider's own stop or finish reason, kept verbatim beside the mapped `stopReason`. */
  setRawStopReason(reason: string | null | undefined): void {
    if (typeof reason === "string" && reason !== "") this.output.rawStopReason = reason;
  }

  /** The provider answered (headers arrived); from now on an abort interrupts the answer. */
  responseArrived(): void {
    this.answered = true;
  }

  /**
   * The provider said the response is complete. A stream that ends without this was cut
   * (a dropped connection, a proxy's timeout): see `endOfStream`.
   */
  markComplete(): void {
    this.completed = true;
  }

  get isComplete(): boolean {
    return this.completed;
  }

  setStopReason(reason: StopReason): void {
    this.output.stopReason = reason;
  }

  setResponseInfo(info: { id?: string; model?: string }): void {
    if (info.id) this.output.responseId = info.id;
    if (info.model && info.model !== this.model.id) this.output.responseModel = info.model;
  }

  hasToolCalls(): boolean {
    return this.output.content.some((block) => block.type === "toolCall");
  }

  /** Successful end: closes open blocks and emits `done`. */
  finish(): void {
    this.endOpenBlocks();
    let reason = this.output.stopReason;
    // Some APIs say "stop" even when the turn ends in tool calls.
    if (reason === "stop" && this.hasToolCalls()) reason = this.output.stopReason = "toolUse";
    if (reason === "error" || reason === "aborted") {
      this.fail(new Error(this.output.errorMessage ?? "The provider ended the response with an error"));
      return;
    }
    this.stream.push({ type: "done", reason, message: this.output });
    this.stream.end();
  }

  /** Failed end: the message keeps what streamed so far, with stopReason and errorMessage. */
  fail(error: unknown, signal?: AbortSignal): void {
    const aborted = signal?.aborted === true;
    this.output.stopReason = aborted ? "aborted" : "error";
    if (aborted) {
      this.output.errorMessage = this.answered ? ABORTED_DURING_RESPONSE : ABORTED_BEFORE_RESPONSE;
    } else if (this.output.errorMessage === undefined) {
      const failure = describeProviderFailure(error, this.model.provider, this.model.baseUrl, this.secrets);
      this.output.errorMessage = failure.message;
      // For the session's retry (the wait the provider asked for) and for whoever debugs (the raw body).
      if (failure.retryAfterMs !== undefined) this.output.retryAfterMs = failure.retryAfterMs;
      if (failure.retryAdvised) this.output.retryAdvised = true;
      if (failure.rawBody !== undefined) this.output.errorBody = failure.rawBody;
    } else {
      // A message the stream reader set from the provider's own words may echo a credential too.
      this.output.errorMessage = redactCredentials(this.output.errorMessage, this.secrets);
    }
    // Drop the partial-JSON bookkeeping; blocks stay as they were streamed.
    this.open.clear();
    this.toolArgs.clear();
    this.stream.push({ type: "error", reason: this.output.stopReason as "aborted" | "error", error: this.output });
    this.stream.end();
  }

  private add(block: TextContent | ThinkingContent | ToolCall): number {
    this.output.content.push(block);
    const index = this.output.content.length - 1;
    this.open.add(index);
    return index;
  }
}

/**
 * The one rule every client keeps: a reply is complete only when the provider said so.
 * A stream that simply stops (the connection closed, no stop reason, no `[DONE]`) is a
 * failure worth retrying, never half an answer passed off as a whole one.
 */
export class StreamCutError extends Error {
  constructor(api: string, received: number) {
    super(`${api} stream ended before the provider said it finished (connection closed after ${received} characters of reply); the reply is incomplete`);
    this.name = "StreamCutError";
  }
}

/** How much reply had arrived, for the cut-stream message. */
function receivedCharacters(output: AssistantMessage): number {
  let total = 0;
  for (const block of output.content) {
    if (block.type === "text") total += block.text.length;
    else if (block.type === "thinking") total += block.thinking.length;
    else total += JSON.stringify(block.arguments ?? {}).length;
  }
  return total;
}

/**
 * A connection that closed in the middle of an event leaves the SDK half a JSON text, which
 * it reports as malformed: before the provider said it finished, that is a cut stream too.
 */
function isTornEvent(error: unknown, builder: AssistantMessageBuilder): boolean {
  if (builder.isComplete) return false;
  const message = error instanceof Error ? error.message : "";
  return error instanceof SyntaxError || /malformed server-sent event|Incomplete JSON segment|Unexpected end of JSON/i.test(message);
}

export interface ProviderStreamRules {
  /** Name of the API in messages ("Anthropic", "OpenAI Chat Completions"…); set, the provider must call `markComplete`. */
  requiresCompletion?: string;
  /** The request's credentials (requestCredentials in api-key.ts), taken out of any error text. */
  secrets?: readonly (string | undefined)[];
}

/**
 * Runs a provider's request in the background and returns its event stream at
 * once. Whatever `run` throws, including an abort, ends the stream with an
 * `error` event: consumers never see an exception from a provider.
 */
export function runProviderStream(
  model: Model,
  signal: AbortSignal | undefined,
  run: (builder: AssistantMessageBuilder) => Promise<void>,
  rules: ProviderStreamRules = {},
): AssistantMessageEventStream {
  const stream = new AssistantMessageEventStream();
  const builder = new AssistantMessageBuilder(model, stream, rules.secrets);
  builder.start();
  (async () => {
    try {
      if (signal?.aborted) throw new Error("Request was aborted");
      await run(builder);
      if (signal?.aborted) throw new Error("Request was aborted");
      if (rules.requiresCompletion && !builder.isComplete) throw new StreamCutError(rules.requiresCompletion, receivedCharacters(builder.output));
      builder.finish();
    } catch (error) {
      builder.fail(rules.requiresCompletion && !signal?.aborted && isTornEvent(error, builder) ? new StreamCutError(rules.requiresCompletion, receivedCharacters(builder.output)) : error, signal);
    }
  })();
  return stream;
}
