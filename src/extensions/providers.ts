/**
 * pi.registerProvider / pi.unregisterProvider: an extension's provider config (pi's
 * ProviderConfig, types.ts) becomes a runtime registration in the ModelRegistry, which
 * checks it and owns the models and credentials; its `streamSimple`, if any, becomes
 * an API provider in the api registry, serving that provider's models.
 *
 * Which API a custom stream serves: the config's `api` when it names an API of its own
 * ("my-custom-api"); when `api` is absent or names a built-in one ("openai-completions"…),
 * `ext:<provider>` instead, so that one provider's stream never takes over a built-in
 * API for every other provider. The stream still sees each model with the `api` the
 * extension declared, so it can delegate to pi-ai's stream functions.
 *
 * A custom stream is guarded: one that throws, returns something other than a stream,
 * emits a malformed event or stops without `done`/`error` ends the turn with stopReason
 * "error" and an errorMessage naming the provider, like any provider failure.
 *
 * `name` (a display name) and `oauth` are accepted and ignored: xcsh has no /login.
 */
import { registerApiProvider, unregisterApiProviders, type ApiProvider } from "../ai/api-registry.ts";
import { errorText } from "../ai/errors.ts";
import { AssistantMessageEventStream } from "../ai/event-stream.ts";
import { getProviders as getBuiltinProviders } from "../ai/models.ts";
import type { Api, AssistantMessage, AssistantMessageEvent, Context, Model, SimpleStreamOptions } from "../ai/types.ts";
import { failedAssistantMessage } from "../ai/usage.ts";
import type { ModelRegistry, RuntimeModelConfig, RuntimeProviderConfig } from "../config/model-registry.ts";
import { isTypedModelConfig } from "../config/registry-config.ts";
import type { TypedImplementations } from "../config/typed-models.ts";
import { SUPPORTED_APIS } from "../config/models-json.ts";
import type { ProviderConfig } from "./types.ts";

/** APIs xcsh serves itself; a custom stream declared for one of them gets an `ext:` API of its own. */
const BUILTIN_APIS: readonly string[] = [...SUPPORTED_APIS, "faux"];

type CustomStream = (model: Model, context: Context, options?: SimpleStreamOptions) => unknown;

/** Per registry: the api-registry sourceId of each provider's custom stream. */
const streamSources = new WeakMap<ModelRegistry, Map<string, string>>();

/**
 * Registers (or changes) provider `name` for the extension identified by `sourceId`.
 * Throws an Error naming the provider and the bad field; nothing changes then.
 */
export function registerExtensionProvider(registry: ModelRegistry, name: string, config: ProviderConfig, sourceId: string): void {
  const runtime = toRuntimeConfig(registry, name, config);
  registry.registerProvider(name, runtime, typedImplementations(name, config));
  // A registration that leaves models and api alone keeps the provider's current stream.
  if (config.models === undefined && config.streamSimple === undefined && config.api === undefined) return;
  removeStream(registry, name);
  if (config.streamSimple === undefined) return;
  const streamSourceId = `${sourceId}#provider:${name}`;
  registerApiProvider(guardedApiProvider(name, runtime.api!, config.api, config.streamSimple as CustomStream), streamSourceId);
  sourcesOf(registry).set(name, streamSourceId);
}

/** Removes what extensions registered for provider `name`; built-in and models.json models come back. Unknown names: no effect. */
export function unregisterExtensionProvider(registry: ModelRegistry, name: string): void {
  registry.unregisterProvider(name);
  removeStream(registry, name);
}

function sourcesOf(registry: ModelRegistry): Map<string, string> {
  let sources = streamSources.get(registry);
  if (!sources) streamSources.set(registry, (sources = new Map()));
  return sources;
}

function removeStream(registry: ModelRegistry, name: string): void {
  const sourceId = sourcesOf(registry).get(name);
  if (sourceId === undefined) return;
  // Removes nothing when another provider has since taken the same API name.
  unregisterApiProviders(sourceId);
  sourcesOf(registry).delete(name);
}

// --- from the extension's config to the registry's ---------------------------------------

/** Checks what only the extension API has (streamSimple, the apiKey rule) and converts; the registry checks the rest. */
function toRuntimeConfig(registry: ModelRegistry, name: string, config: ProviderConfig): RuntimeProviderConfig {
  const fail = (problem: string): never => {
    throw new Error(`Invalid provider "${name}": ${problem}`);
  };
  if (typeof config !== "object" || config === null || Array.isArray(config)) fail("expected a config object");
  const { streamSimple, models } = config;
  if (streamSimple !== undefined && typeof streamSimple !== "function") fail("streamSimple: expected a function");
  // Seed 003: apiKey is required when defining models unless oauth is given. A built-in
  // provider has its environment variable, and models.json may hold a key already.
  const needsKey = models !== undefined && config.oauth === undefined && !(getBuiltinProviders() as string[]).includes(name);
  if (needsKey && config.apiKey === undefined && !registry.hasAuth({ provider: name })) {
    fail('apiKey: is required when defining models (a key, an environment variable as "$NAME", or "!command")');
  }

  const api = streamSimple === undefined ? config.api : streamApiName(name, config.api);
  const runtime: RuntimeProviderConfig = definedOnly({
    baseUrl: config.baseUrl,
    api,
    apiKey: config.apiKey,
    headers: config.headers,
    authHeader: config.authHeader,
  });
  if (models !== undefined) {
    runtime.models = Array.isArray(models) ? models.map((model) => toRuntimeModel(model, config.api, api)) : (models as never);
  }
  return runtime;
}

/** pi 1.6.0: `classifiers` and `images`, each `{ [api]: { classify | generateImages } }`, run the provider's typed models. */
function typedImplementations(name: string, config: ProviderConfig): TypedImplementations | undefined {
  const check = (field: "classifiers" | "images", method: string) => {
    const value = config[field];
    if (value === undefined) return undefined;
    const entries = typeof value === "object" && value !== null && !Array.isArray(value) ? Object.entries(value) : undefined;
    const bad = entries?.find(([, each]) => typeof (each as Record<string, unknown> | null)?.[method] !== "function");
    if (!entries || bad) throw new Error(`Invalid provider "${name}": ${field}${bad ? `["${bad[0]}"]` : ""}: expected { [api]: { ${method}(model, context, options) } }`);
    return value;
  };
  const classifiers = check("classifiers", "classify");
  const images = check("images", "generateImages");
  if (!classifiers && !images) return undefined;
  return { ...(classifiers ? { classifiers } : {}), ...(images ? { images } : {}) } as TypedImplementations;
}

function streamApiName(provider: string, declared: string | undefined): Api {
  return declared === undefined || BUILTIN_APIS.includes(declared) ? `ext:${provider}` : declared;
}

/** A model declaring the provider's api follows the provider's (possibly renamed) one; anything odd is left for the registry to report. */
function toRuntimeModel(model: unknown, declaredApi: string | undefined, api: string | undefined): RuntimeModelConfig {
  if (typeof model !== "object" || model === null) return model as RuntimeModelConfig;
  const copy = { ...model } as RuntimeModelConfig;
  // A classifier or image model keeps its own api: its implementation is found by it.
  if (isTypedModelConfig(copy)) return copy;
  if (copy.api === undefined || (copy.api === declaredApi && api !== declaredApi)) delete copy.api;
  return copy;
}

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

// --- the guarded custom stream ---------------------------------------------------------

function guardedApiProvider(provider: string, api: Api, declaredApi: Api | undefined, custom: CustomStream): ApiProvider {
  const run = (model: Model, context: Context, options?: SimpleStreamOptions): AssistantMessageEventStream => {
    const seen = declaredApi !== undefined && declaredApi !== api ? { ...model, api: declaredApi } : model;
    const outer = new AssistantMessageEventStream();
    void pipeCustomStream(provider, () => custom(seen, context, options), outer, seen, options?.signal);
    return outer;
  };
  return { api, stream: run, streamSimple: run };
}

/** Forwards the custom stream's events to `outer`, which always ends with exactly one `done` or `error`. */
async function pipeCustomStream(
  provider: string,
  start: () => unknown,
  outer: AssistantMessageEventStream,
  model: Model,
  signal: AbortSignal | undefined,
): Promise<void> {
  const fail = (problem: string) => {
    const aborted = signal?.aborted === true;
    outer.push({ type: "error", reason: aborted ? "aborted" : "error", error: failedAssistantMessage(model, problem, aborted) });
    outer.end();
  };
  try {
    // Awaited: a synchronous throw lands in the catch, and an async streamSimple works too.
    const inner = await start();
    if (!isAsyncIterable(inner)) {
      return fail(`The streamSimple of provider "${provider}" returned ${describe(inner)} instead of an AssistantMessageEventStream`);
    }
    for await (const event of inner) {
      if (!isStreamEvent(event)) return fail(`The stream of provider "${provider}" emitted ${describe(event)}, which is not a stream event`);
      outer.push(event.type === "error" ? withErrorMessage(event, provider) : event);
      if (event.type === "done" || event.type === "error") return outer.end();
    }
    fail(`The stream of provider "${provider}" ended without a "done" or "error" event`);
  } catch (error) {
    fail(`The stream of provider "${provider}" failed: ${errorText(error)}`);
  }
}

const EVENT_TYPES = new Set<string>([
  "start",
  "text_start",
  "text_delta",
  "text_end",
  "thinking_start",
  "thinking_delta",
  "thinking_end",
  "toolcall_start",
  "toolcall_delta",
  "toolcall_end",
  "done",
  "error",
]);

function isStreamEvent(value: unknown): value is AssistantMessageEvent {
  if (typeof value !== "object" || value === null) return false;
  const event = value as { type?: unknown; message?: unknown; error?: unknown };
  if (typeof event.type !== "string" || !EVENT_TYPES.has(event.type)) return false;
  if (event.type === "done") return isAssistantMessage(event.message);
  if (event.type === "error") return isAssistantMessage(event.error);
  return true;
}

function isAssistantMessage(value: unknown): value is AssistantMessage {
  return typeof value === "object" && value !== null && (value as AssistantMessage).role === "assistant" && Array.isArray((value as AssistantMessage).content);
}

/** The wire promises an errorMessage on every failed message. */
function withErrorMessage(event: Extract<AssistantMessageEvent, { type: "error" }>, provider: string): AssistantMessageEvent {
  if (event.error.errorMessage) return event;
  return { ...event, error: { ...event.error, errorMessage: `The stream of provider "${provider}" reported an error without a message` } };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function";
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}
