/**
 * Which stream implementation serves which API. Built-in providers are
 * registered as loaders so their SDKs are imported on first use, never at start.
 */
import { AssistantMessageEventStream } from "./event-stream.ts";
import { errorText } from "./errors.ts";
import { failedAssistantMessage } from "./usage.ts";
import type { Api, Context, Model, ProviderStreamOptions, SimpleStreamOptions } from "./types.ts";

export type ApiStreamFunction = (model: Model, context: Context, options?: ProviderStreamOptions) => AssistantMessageEventStream;
export type ApiStreamSimpleFunction = (model: Model, context: Context, options?: SimpleStreamOptions) => AssistantMessageEventStream;

export interface ApiProvider {
  api: Api;
  stream: ApiStreamFunction;
  streamSimple: ApiStreamSimpleFunction;
}

interface Registered {
  provider: ApiProvider;
  sourceId?: string;
}

/** What a built-in provider module exports. */
export interface ProviderModule {
  stream: ApiStreamFunction;
  streamSimple: ApiStreamSimpleFunction;
}

const registry = new Map<Api, Registered>();

export function registerApiProvider(provider: ApiProvider, sourceId?: string): void {
  registry.set(provider.api, { provider, sourceId });
}

export function getApiProvider(api: Api): ApiProvider | undefined {
  return registry.get(api)?.provider;
}

export function getApiProviders(): ApiProvider[] {
  return [...registry.values()].map((entry) => entry.provider);
}

export function unregisterApiProviders(sourceId: string): void {
  for (const [api, entry] of registry) if (entry.sourceId === sourceId) registry.delete(api);
  registerBuiltinApiProviders();
}

export function clearApiProviders(): void {
  registry.clear();
}

/**
 * A provider whose module is imported on first use. The returned stream exists at
 * once; events flow once the module has loaded. A module that fails to load ends
 * the stream with an error, like any provider failure.
 */
export function lazyApiProvider(api: Api, load: () => Promise<ProviderModule>): ApiProvider {
  const forward = (pick: (module: ProviderModule) => AssistantMessageEventStream, model: Model) => {
    const outer = new AssistantMessageEventStream();
    load()
      .then(async (module) => {
        for await (const event of pick(module)) outer.push(event);
        outer.end();
      })
      .catch((error) => {
        outer.push({
          type: "error",
          reason: "error",
          error: failedAssistantMessage(model, `Could not load the ${api} provider: ${errorText(error)}`),
        });
        outer.end();
      });
    return outer;
  };
  return {
    api,
    stream: (model, context, options) => forward((m) => m.stream(model, context, options), model),
    streamSimple: (model, context, options) => forward((m) => m.streamSimple(model, context, options), model),
  };
}

const BUILTIN_LOADERS: Record<string, () => Promise<ProviderModule>> = {
  "anthropic-messages": () => import("./providers/anthropic.ts"),
  "openai-completions": () => import("./providers/openai-completions.ts"),
  "openai-responses": () => import("./providers/openai-responses.ts"),
  "google-generative-ai": () => import("./providers/google.ts"),
  "azure-openai-responses": () => import("./providers/azure-openai-responses.ts"),
  "google-vertex": () => import("./providers/google-vertex.ts"),
  "bedrock-converse-stream": () => import("./providers/bedrock/converse-stream.ts"),
  "faux": () => import("./providers/faux.ts"),
};

/** (Re)registers the built-in APIs that are not taken by an extension. */
export function registerBuiltinApiProviders(): void {
  for (const [api, load] of Object.entries(BUILTIN_LOADERS)) {
    if (!registry.has(api)) registry.set(api, { provider: lazyApiProvider(api, load) });
  }
}

registerBuiltinApiProviders();
