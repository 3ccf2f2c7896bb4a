import { getApiProvider } from "./api-registry.ts";
import { AssistantMessageEventStream } from "./event-stream.ts";
import type { AssistantMessage, Context, Model, ProviderStreamOptions, SimpleStreamOptions } from "./types.ts";
import { failedAssistantMessage } from "./usage.ts";
import { conversationHeaders } from "./providers/copilot-headers.ts";

function providerFor(model: Model) {
  return getApiProvider(model.api);
}

/** A stream that fails at once, for a model whose API nobody serves. */
function unknownApiStream(model: Model): AssistantMessageEventStream {
  const stream = new AssistantMessageEventStream();
  const message = failedAssistantMessage(model, `No provider is registered for API "${model.api}" (model ${model.provider}/${model.id})`);
  stream.push({ type: "error", reason: "error", error: message });
  stream.end();
  return stream;
}

/** Headers that depend on the conversation (compat switches ask for them), under the caller's own. */
function withConversationHeaders<T extends ProviderStreamOptions | SimpleStreamOptions>(model: Model, context: Context, options: T | undefined): T | undefined {
  const headers = conversationHeaders(model, context);
  return headers ? ({ ...options, headers: { ...headers, ...options?.headers } } as T) : options;
}

/** Streams a response using the API's own options. */
export function stream(model: Model, context: Context, options?: ProviderStreamOptions): AssistantMessageEventStream {
  const provider = providerFor(model);
  return provider ? provider.stream(model, context, withConversationHeaders(model, context, options)) : unknownApiStream(model);
}

export async function complete(model: Model, context: Context, options?: ProviderStreamOptions): Promise<AssistantMessage> {
  return stream(model, context, options).result();
}

/** Streams a response with provider-neutral options (a reasoning level instead of API knobs). */
export function streamSimple(model: Model, context: Context, options?: SimpleStreamOptions): AssistantMessageEventStream {
  const provider = providerFor(model);
  return provider ? provider.streamSimple(model, context, withConversationHeaders(model, context, options)) : unknownApiStream(model);
}

export async function completeSimple(model: Model, context: Context, options?: SimpleStreamOptions): Promise<AssistantMessage> {
  return streamSimple(model, context, options).result();
}
