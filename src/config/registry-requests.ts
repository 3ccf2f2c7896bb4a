/**
 * Requests through the model registry, as extensions for later pi versions (0.8x)
 * make them: `ctx.modelRegistry.complete(model, context, options)` with the key and
 * headers the registry has for the model filled in, so an extension never handles
 * credentials itself. Options the caller gives win over the configured ones.
 */
import { failedAssistantMessage } from "../ai/usage.ts";
import { createAssistantMessageEventStream, type AssistantMessageEventStream } from "../ai/event-stream.ts";
import type { Model, StreamOptions } from "../ai/types.ts";

export interface RequestAuthSource {
  getApiKey(model: Pick<Model, "provider">): Promise<string | undefined>;
  getHeaders(model: Pick<Model, "provider" | "id" | "headers">, apiKey?: string): Promise<Record<string, string>>;
  /** The provider's variables from its auth.json entry (`StreamOptions.env`). */
  getProviderEnv?(model: Pick<Model, "provider">): Record<string, string> | undefined;
}

export type ResolvedRequestAuth =
  | { ok: true; apiKey?: string; headers?: Record<string, string>; env?: Record<string, string> }
  | { ok: false; error: string };

export async function resolveRequestAuth(source: RequestAuthSource, model: Model): Promise<ResolvedRequestAuth> {
  try {
    const apiKey = await source.getApiKey(model);
    const env = source.getProviderEnv?.(model);
    return { ok: true, apiKey, headers: await source.getHeaders(model, apiKey), ...(env ? { env } : {}) };
  } catch (error) {
    return { ok: false, error: (error as Error)?.message ?? String(error) };
  }
}

/** `options` with the configured key, headers and provider variables under the caller's own. */
export async function withRequestAuth<T extends StreamOptions>(source: RequestAuthSource, model: Model, options: T): Promise<T> {
  const auth = await resolveRequestAuth(source, model);
  if (!auth.ok) throw new Error(`${model.provider}/${model.id}: ${auth.error}`);
  const env = auth.env || options.env ? { ...auth.env, ...options.env } : undefined;
  return { ...options, apiKey: options.apiKey ?? auth.apiKey, headers: { ...auth.headers, ...options.headers }, ...(env ? { env } : {}) };
}

/** A stream that starts once the credentials are resolved; a failure to resolve them ends it with an error. */
export function streamWithRequestAuth<T extends StreamOptions>(
  source: RequestAuthSource,
  model: Model,
  options: T,
  start: (options: T) => AssistantMessageEventStream,
): AssistantMessageEventStream {
  const out = createAssistantMessageEventStream();
  void (async () => {
    try {
      const inner = start(await withRequestAuth(source, model, options));
      for await (const event of inner) out.push(event);
      out.end(await inner.result());
    } catch (error) {
      out.push({ type: "error", reason: "error", error: failedAssistantMessage(model, (error as Error)?.message ?? String(error)) });
    }
  })();
  return out;
}
