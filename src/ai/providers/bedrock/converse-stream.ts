/**
 * Amazon Bedrock's ConverseStream API: `POST /model/<model id>/converse-stream` with a
 * Converse body (convert.ts), answered in AWS's binary event-stream (event-stream.ts).
 * Requests are signed with SigV4 (aws4fetch, WebCrypto, no SDK) or carry a Bedrock API
 * key as a bearer token (credentials.ts says which). This whole folder is imported only
 * when a Bedrock model is used (api-registry.ts), so start-up never pays for it.
 *
 * Events map onto the builder as the other providers' do: contentBlockStart (a tool
 * call's id and name) and contentBlockDelta (text, tool input JSON, reasoning text and
 * signature, redacted reasoning) open and grow blocks by their contentBlockIndex,
 * contentBlockStop closes one, messageStop gives the stop reason, metadata the usage.
 * An `exception` message is the service failing mid-stream: its type and message
 * become the turn's error.
 */
import { notifyStreamEvent } from "../../stream-event.ts";
import type { ApiStreamFunction, ApiStreamSimpleFunction } from "../../api-registry.ts";
import { AMBIENT_CREDENTIAL } from "../../env-api-keys.ts";
import { traceModuleLoad } from "../../load-trace.ts";
import { clampThinkingLevel, thinkingBudget } from "../../thinking.ts";
import type { Model, ProviderStreamOptions, StreamOptions } from "../../types.ts";
import { providerEnvReader } from "../provider-env.ts";
import { runProviderStream, type AssistantMessageBuilder } from "../message-builder.ts";
import { buildConverseRequest, thinksByBudget, type ConverseRequest } from "./convert.ts";
import { resolveBedrockAuth, resolveBedrockEndpoint, resolveBedrockRegion, type BedrockAuth } from "./credentials.ts";
import { readEventStream, type EventStreamMessage } from "./event-stream.ts";
import { signRequest } from "./sign.ts";

traceModuleLoad("bedrock");

/** Options of this API, read as extra fields of the stream options. */
export interface BedrockOptions {
  /** Claude's thinking budget in tokens. */
  thinkingBudget?: number;
}

type Options = StreamOptions & BedrockOptions;

const SIGNING_SERVICE = "bedrock";

/** The request as it goes on the wire: signed, or with a bearer token, or (a proxy that signs) bare. */
async function authorizedHeaders(url: string, body: string, auth: BedrockAuth, region: string, extra: Record<string, string>): Promise<Headers> {
  const base = { ...extra, "content-type": "application/json", accept: "application/vnd.amazon.eventstream" };
  if (auth.kind === "bearer") return new Headers({ ...base, authorization: `Bearer ${auth.token}` });
  if (auth.kind === "none") return new Headers(base);
  return signRequest({ method: "POST", url, headers: base, body, credentials: auth.credentials, region, service: SIGNING_SERVICE });
}

/**
 * A failed HTTP answer, as the shared rule reads every provider's (provider-errors.ts):
 * the status, the headers (a `retry-after` is honoured, as for the other clients) and the
 * body verbatim. AWS puts the error's type in a header and its message in JSON.
 */
async function httpError(response: Response): Promise<Error> {
  const text = await response.text().catch(() => "");
  let message = text.trim();
  try {
    const parsed = JSON.parse(text) as { message?: string; Message?: string };
    message = parsed.message ?? parsed.Message ?? message;
  } catch {
    // not JSON: the raw text is the message
  }
  const type = response.headers.get("x-amzn-errortype")?.split(":")[0];
  const error = new Error(`${response.status} ${type ? `${type}: ` : ""}${message || response.statusText}`);
  return Object.assign(error, { status: response.status, headers: response.headers, responseBody: text });
}

const STOP_REASONS: Record<string, "stop" | "length" | "toolUse"> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "toolUse",
  max_tokens: "length",
  model_context_window_exceeded: "length",
};

/** Translates ConverseStream events into builder calls; blocks are keyed by contentBlockIndex. */
class ConverseEventReader {
  private readonly blocks = new Map<number, number>();

  constructor(private readonly builder: AssistantMessageBuilder) {}

  handle(message: EventStreamMessage): void {
    const messageType = message.headers[":message-type"];
    const payload = message.payload.length > 0 ? JSON.parse(new TextDecoder().decode(message.payload)) : {};
    if (messageType === "exception" || messageType === "error") {
      const type = message.headers[":exception-type"] ?? message.headers[":error-code"] ?? "error";
      throw new Error(`${String(type)}: ${payload.message ?? payload.Message ?? message.headers[":error-message"] ?? "Bedrock reported an error"}`);
    }
    const builder = this.builder;
    switch (message.headers[":event-type"]) {
      case "contentBlockStart": {
        const toolUse = payload.start?.toolUse;
        if (toolUse) this.blocks.set(payload.contentBlockIndex, builder.startToolCall(toolUse.toolUseId, toolUse.name));
        break;
      }
      case "contentBlockDelta":
        this.delta(payload.contentBlockIndex, payload.delta ?? {});
        break;
      case "contentBlockStop": {
        const index = this.blocks.get(payload.contentBlockIndex);
        if (index === undefined) break;
        const block = builder.output.content[index];
        if (block.type === "text") builder.endText(index);
        else if (block.type === "thinking") builder.endThinking(index);
        else builder.endToolCall(index);
        break;
      }
      case "messageStop": {
        this.builder.markComplete();
        const reason = payload.stopReason as string;
        builder.setRawStopReason(reason);
        if (reason === "guardrail_intervened" || reason === "content_filtered") throw new Error(`Bedrock stopped the response: ${reason}`);
        builder.setStopReason(STOP_REASONS[reason] ?? "stop");
        break;
      }
      case "metadata": {
        const usage = payload.usage;
        if (usage) {
          builder.setUsage({
            input: usage.inputTokens ?? 0,
            output: usage.outputTokens ?? 0,
            cacheRead: usage.cacheReadInputTokens ?? 0,
            cacheWrite: usage.cacheWriteInputTokens ?? 0,
          });
        }
        break;
      }
    }
  }

  private delta(blockIndex: number, delta: Record<string, any>): void {
    const builder = this.builder;
    if (typeof delta.text === "string") {
      builder.appendText(this.open(blockIndex, () => builder.startText()), delta.text);
    } else if (delta.toolUse) {
      const index = this.blocks.get(blockIndex);
      if (index !== undefined) builder.appendToolArguments(index, delta.toolUse.input ?? "");
    } else if (delta.reasoningContent) {
      const reasoning = delta.reasoningContent;
      if (typeof reasoning.redactedContent === "string") {
        const index = this.open(blockIndex, () => builder.startThinking({ redacted: true }));
        builder.setThinkingSignature(index, reasoning.redactedContent, true);
        return;
      }
      const index = this.open(blockIndex, () => builder.startThinking());
      if (typeof reasoning.text === "string") builder.appendThinking(index, reasoning.text);
      if (typeof reasoning.signature === "string") builder.setThinkingSignature(index, reasoning.signature, true);
    }
  }

  private open(blockIndex: number, start: () => number): number {
    let index = this.blocks.get(blockIndex);
    if (index === undefined) {
      index = start();
      this.blocks.set(blockIndex, index);
    }
    return index;
  }
}

/** The bearer key given for Bedrock, if any (AWS secrets are in credential variables, which redaction reads itself). */
function apiKeyOf(options: Options | undefined): string[] {
  return options?.apiKey && options.apiKey !== AMBIENT_CREDENTIAL ? [options.apiKey] : [];
}

export const stream: ApiStreamFunction = (model, context, rawOptions?: ProviderStreamOptions) => {
  const options = rawOptions as Options | undefined;
  const signal = options?.signal;
  return runProviderStream(model, signal, async (builder) => {
    const apiKey = options?.apiKey && options.apiKey !== AMBIENT_CREDENTIAL ? options.apiKey : undefined;
    const env = providerEnvReader(options?.env);
    const auth = await resolveBedrockAuth(apiKey, env);
    const region = resolveBedrockRegion(model.id, model.baseUrl, env);
    const url = `${resolveBedrockEndpoint(model.baseUrl, region)}/model/${encodeURIComponent(model.id)}/converse-stream`;

    let request: ConverseRequest = buildConverseRequest(model, context, {
      maxTokens: options?.maxTokens ?? model.maxTokens,
      temperature: options?.temperature,
      thinkingBudget: options?.thinkingBudget,
      cacheRetention: options?.cacheRetention,
    });
    const replaced = await options?.onPayload?.(request, model);
    if (replaced !== undefined) request = replaced as ConverseRequest;
    const body = JSON.stringify(request);

    const headers = await authorizedHeaders(url, body, auth, region, { ...model.headers, ...options?.headers });
    const timeout = options?.timeoutMs !== undefined ? AbortSignal.timeout(options.timeoutMs) : undefined;
    const requestSignal = signal && timeout ? AbortSignal.any([signal, timeout]) : (signal ?? timeout);
    const response = await fetch(url, { method: "POST", headers, body, signal: requestSignal });
    builder.responseArrived();
    await options?.onResponse?.({ status: response.status, headers: Object.fromEntries(response.headers) }, model);
    if (!response.ok) throw await httpError(response);
    if (!response.body) throw new Error("Bedrock answered without a body");
    builder.setResponseInfo({ id: response.headers.get("x-amzn-requestid") ?? undefined });

    const reader = new ConverseEventReader(builder);
    for await (const message of readEventStream(response.body)) {
      const listened = notifyStreamEvent(options, message, model);
      if (listened) await listened;
      reader.handle(message);
    }
  }, { requiresCompletion: "Bedrock", secrets: apiKeyOf(options) });
};

/** Models that reason by budget (Claude) get one; other Bedrock models take no thinking parameters. */
function budgetFor(model: Model, options: Parameters<ApiStreamSimpleFunction>[2]): number | undefined {
  if (!thinksByBudget(model) || !options?.reasoning) return undefined;
  const level = clampThinkingLevel(model, options.reasoning);
  if (level === "off") return undefined;
  return thinkingBudget(level, options.maxTokens ?? model.maxTokens, options.thinkingBudgets);
}

export const streamSimple: ApiStreamSimpleFunction = (model, context, options) => {
  const { reasoning: _reasoning, thinkingBudgets: _budgets, ...rest } = options ?? {};
  const budget = budgetFor(model, options);
  return stream(model, context, { ...rest, ...(budget !== undefined ? { thinkingBudget: budget } : {}) });
};
