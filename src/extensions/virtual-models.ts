/**
 * pi.registerVirtualModel / pi.unregisterVirtualModel (pi 1.x, docs/extensions.md
 * "Virtual models"): a model the user selects like any other, whose extension picks
 * a physical model and thinking level for every request.
 *
 * It rides on the provider path: the virtual models of one provider id become one
 * extension provider (providers.ts) whose models are the virtual ones and whose
 * stream routes. So they are listed, selected, queued before the registry exists and
 * dropped on reload exactly as registered providers are. The stream asks `route()`,
 * checks the answer (a physical model with credentials), stores returned router
 * state as a `pi.virtual-model-state` custom entry on the branch, and sends the
 * request to the physical model with that model's own key and headers. The
 * assistant message therefore names the physical model, as pi's do, and carries the
 * thinking level it was sent with.
 *
 * Under a provider id that has physical models (`openai/auto`), the virtual models are a
 * layer of the registry instead (ModelRegistry.setVirtualModels): listed after that
 * provider's models, hiding a physical one with the same id, available when the provider
 * has credentials, and left alone by pi.unregisterProvider(); the table serves their
 * stream itself. The kind is fixed by the provider's first virtual model.
 *
 * The conversation's limits (context window, output) while a virtual model is selected are
 * those of the physical model that answered last (core/routed-limits.ts), as pi's are; each
 * assistant message names its physical model, so its usage is priced at that model's rates.
 * When the routed model's window is too small for the conversation, the session is
 * compacted before the request is sent (the host's fitContext), and the route stays.
 * A request outside the agent loop (a compaction summary, an extension's own call) is
 * "direct": no state in or out; the first request of an automatic retry is "retry", with
 * the failed answer.
 */
import { registerApiProvider, unregisterApiProviders } from "../ai/api-registry.ts";
import { isVirtualModel, VIRTUAL_API_PREFIX } from "../ai/virtual-api.ts";
import { AssistantMessageEventStream } from "../ai/event-stream.ts";
import { clampThinkingLevel } from "../ai/thinking.ts";
import { THINKING_LEVELS, type AssistantMessage, type Context, type Model, type ModelThinkingLevel, type SimpleStreamOptions, type ThinkingLevel } from "../ai/types.ts";
import { failedAssistantMessage } from "../ai/usage.ts";
import { isAgentLoopRequest, takeRetriedFailure } from "../agent/loop-requests.ts";
import type { ModelRegistry } from "../config/model-registry.ts";
import type { ExtensionContext, ProviderConfig } from "./types.ts";

/** The customType of the session entries that keep router state (pi's name). */
export const VIRTUAL_MODEL_STATE_ENTRY = "pi.virtual-model-state";

/** The provider's "key": virtual models need none, and the stream never sends it anywhere. */
const NO_KEY = "xcsh-virtual-model";
/** Virtual models have no endpoint: the stream routes to a physical model's. */
const VIRTUAL_BASE_URL = "about:virtual-model";

/** The api-registry source of a layer's stream. */
function layerSource(provider: string): string {
  return `virtual-models:${provider}`;
}

export interface VirtualModelDefinition<TState = unknown> {
  provider: string;
  id: string;
  name?: string;
  thinkingLevels?: ModelThinkingLevel[];
  contextWindow?: number;
  maxTokens?: number;
  input?: ("text" | "image")[];
  route(request: ModelRouteRequest<TState>, ctx: ExtensionContext): ModelRoute<TState> | Promise<ModelRoute<TState>>;
}

export interface ModelRoute<TState = unknown> {
  model: Model;
  thinkingLevel?: ModelThinkingLevel;
  state?: TState;
}

export interface ModelRouteRequest<TState = unknown> {
  model: Model;
  thinkingLevel: ModelThinkingLevel;
  reason: "user" | "continuation" | "retry" | "direct";
  previous?: { model: Model; thinkingLevel?: ModelThinkingLevel };
  failed?: { model: Model; thinkingLevel?: ModelThinkingLevel; message: AssistantMessage };
  state?: TState;
  messages: Context["messages"];
  signal?: AbortSignal;
}

/** What routing needs of the session, given by the extension system. */
export interface VirtualModelHost {
  registry(): ModelRegistry | undefined;
  context(): ExtensionContext;
  appendEntry(customType: string, data: unknown): void;
  /** The context to send to the routed model: compacted first when its window is too small (core/routed-compaction.ts). */
  fitContext?(physical: Model, context: Context, signal?: AbortSignal): Promise<Context>;
}

export { isVirtualModel };

/** The virtual models of each provider id, for one runtime generation. */
export class VirtualModelTable {
  private readonly byProvider = new Map<string, Map<string, VirtualModelDefinition>>();
  /** Providers with physical models whose virtual models are a registry layer (the others are providers of their own). */
  private readonly layered = new Set<string>();
  /** Providers whose first virtual model came before the registry: whether they are physical is decided by attach(). */
  private readonly provisional = new Set<string>();

  constructor(private readonly host: VirtualModelHost) {}

  /** A reload: the reloaded extensions register theirs again. Layers are removed here; own providers by the caller. */
  clear(): void {
    for (const provider of this.layered) this.dropLayer(provider);
    this.layered.clear();
    this.provisional.clear();
    this.byProvider.clear();
  }

  /**
   * Adds or replaces a definition. Returns the provider config to (re)register for a
   * provider of its own; undefined under a physical provider, whose layer is applied here.
   * `physicalProviders` is undefined while extensions load (no registry yet): the model is
   * then registered as a provider of its own, and attach() moves it to a layer once the
   * registry shows its provider has physical models. Throws on a bad definition.
   */
  add(definition: VirtualModelDefinition, physicalProviders: readonly string[] | undefined): { provider: string; config: ProviderConfig } | undefined {
    checkDefinition(definition);
    const { provider, id } = definition;
    if (!this.byProvider.has(provider)) {
      if (physicalProviders === undefined) this.provisional.add(provider);
      else if (physicalProviders.includes(provider)) this.layered.add(provider);
    }
    const models = this.byProvider.get(provider) ?? new Map<string, VirtualModelDefinition>();
    models.set(id, definition);
    this.byProvider.set(provider, models);
    if (!this.layered.has(provider)) return { provider, config: this.providerConfig(provider) };
    this.applyLayer(provider);
    return undefined;
  }

  /**
   * Removes one. Returns, for a provider of its own, its remaining config, or undefined
   * config when none is left (unregister it then); undefined when there was no such model
   * or the provider's layer took the change.
   */
  remove(provider: string, id: string): { provider: string; config: ProviderConfig | undefined } | undefined {
    const models = this.byProvider.get(provider);
    if (!models?.delete(id)) return undefined;
    if (models.size === 0) this.byProvider.delete(provider);
    if (this.layered.has(provider)) {
      if (models.size > 0) this.applyLayer(provider);
      else {
        this.dropLayer(provider);
        this.layered.delete(provider);
      }
      return undefined;
    }
    return { provider, config: models.size > 0 ? this.providerConfig(provider) : undefined };
  }

  /**
   * The registry exists now. The virtual models registered while extensions loaded under a
   * provider that has physical models become its layer; returns those providers, whose
   * queued provider registration (the virtual config) the caller drops.
   */
  attach(physicalProviders: readonly string[]): Set<string> {
    const moved = new Set<string>();
    for (const provider of this.provisional) {
      if (!physicalProviders.includes(provider) || !this.byProvider.has(provider)) continue;
      this.layered.add(provider);
      moved.add(provider);
    }
    this.provisional.clear();
    for (const provider of this.layered) this.applyLayer(provider);
    return moved;
  }

  private applyLayer(provider: string): void {
    const registry = this.host.registry();
    if (!registry) return;
    const api = `${VIRTUAL_API_PREFIX}${provider}`;
    const stream = (model: Model, context: Context, options?: SimpleStreamOptions) => this.stream(provider, model, context, options);
    registerApiProvider({ api, stream, streamSimple: stream }, layerSource(provider));
    const models = this.modelConfigs(provider).map((model) => ({ ...model, api, baseUrl: VIRTUAL_BASE_URL }));
    registry.setVirtualModels(provider, models as Parameters<ModelRegistry["setVirtualModels"]>[1]);
  }

  private dropLayer(provider: string): void {
    unregisterApiProviders(layerSource(provider));
    this.host.registry()?.setVirtualModels(provider, undefined);
  }

  private providerConfig(provider: string): ProviderConfig {
    return {
      api: `${VIRTUAL_API_PREFIX}${provider}`,
      apiKey: NO_KEY,
      baseUrl: VIRTUAL_BASE_URL,
      models: this.modelConfigs(provider) as ProviderConfig["models"],
      streamSimple: (model: Model, context: Context, options?: SimpleStreamOptions) => this.stream(provider, model, context, options),
    };
  }

  private modelConfigs(provider: string) {
    const definitions = [...(this.byProvider.get(provider)?.values() ?? [])];
    return definitions.map((definition) => {
        const levels = definition.thinkingLevels ?? ["off"];
        return {
          id: definition.id,
          name: definition.name ?? definition.id,
          reasoning: levels.some((level) => level !== "off"),
          // Only the levels offered can be selected: the others are mapped away.
          thinkingLevelMap: Object.fromEntries(THINKING_LEVELS.map((level) => [level, levels.includes(level) ? level : null])),
          input: definition.input ?? ["text", "image"],
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
          // Unset limits get the registry's defaults for a custom model.
          ...(definition.contextWindow !== undefined ? { contextWindow: definition.contextWindow } : {}),
          ...(definition.maxTokens !== undefined ? { maxTokens: definition.maxTokens } : {}),
        };
    });
  }

  private stream(provider: string, model: Model, context: Context, options: SimpleStreamOptions = {}): AssistantMessageEventStream {
    const outer = new AssistantMessageEventStream();
    // Read now, while the caller's request is starting: the loop marks only that moment.
    const direct = !isAgentLoopRequest();
    const retried = direct ? undefined : takeRetriedFailure();
    void this.routeAndSend(provider, model, context, options, outer, direct, retried).catch((error) => {
      const aborted = options.signal?.aborted === true;
      const message = `Virtual model "${provider}/${model.id}" could not route the request: ${(error as Error)?.message ?? String(error)}`;
      outer.push({ type: "error", reason: aborted ? "aborted" : "error", error: failedAssistantMessage(model, message, aborted) });
      outer.end();
    });
    return outer;
  }

  private async routeAndSend(
    provider: string,
    model: Model,
    context: Context,
    options: SimpleStreamOptions,
    outer: AssistantMessageEventStream,
    direct: boolean,
    retried: AssistantMessage | undefined,
  ): Promise<void> {
    const definition = this.byProvider.get(provider)?.get(model.id);
    const registry = this.host.registry();
    if (!definition || !registry) throw new Error("it is no longer registered");
    const ctx = this.host.context();
    // A request outside the agent loop has no router state, and what it returns is not kept (pi's rule).
    const state = direct ? undefined : latestState(ctx, provider, model.id);
    const request: ModelRouteRequest = {
      model,
      thinkingLevel: options.reasoning ?? "off",
      reason: direct ? "direct" : retried ? "retry" : context.messages.at(-1)?.role === "user" ? "user" : "continuation",
      ...previousOf(context.messages, registry),
      ...(retried ? failedOf(retried, registry) : {}),
      ...(state !== undefined ? { state } : {}),
      messages: context.messages,
      ...(options.signal ? { signal: options.signal } : {}),
    };
    const route = await definition.route(request, ctx);
    const physical = checkRoute(route, registry);
    // A new object is new state, stored before the request is sent (pi's rule), even if the request then fails.
    if (!direct && route.state !== undefined && route.state !== state) {
      this.host.appendEntry(VIRTUAL_MODEL_STATE_ENTRY, { provider, id: model.id, state: route.state });
    }
    const level = clampThinkingLevel(physical, route.thinkingLevel ?? request.thinkingLevel);
    // pi 1.6.0: a conversation too big for the routed model is compacted before the request; the route stays.
    const sent = direct || !this.host.fitContext ? context : await this.host.fitContext(physical, context, options.signal);
    const { apiKey: _virtualKey, headers: _virtualHeaders, reasoning: _virtualLevel, ...rest } = options;
    const inner = registry.streamSimple(physical, sent, { ...rest, ...(level !== "off" ? { reasoning: level as ThinkingLevel } : {}) });
    for await (const event of inner) {
      if (event.type === "done") outer.push({ ...event, message: withLevel(event.message, level) });
      else if (event.type === "error") outer.push({ ...event, error: withLevel(event.error, level) });
      else outer.push(event);
      if (event.type === "done" || event.type === "error") return outer.end();
    }
    throw new Error(`the stream of ${physical.provider}/${physical.id} ended without a result`);
  }
}

function checkDefinition(definition: VirtualModelDefinition): void {
  const where = `Virtual model "${definition?.provider}/${definition?.id}"`;
  if (typeof definition !== "object" || definition === null) throw new Error("pi.registerVirtualModel() needs a definition object");
  if (typeof definition.provider !== "string" || !definition.provider) throw new Error(`${where}: provider must be a non-empty string`);
  if (typeof definition.id !== "string" || !definition.id) throw new Error(`${where}: id must be a non-empty string`);
  if (typeof definition.route !== "function") throw new Error(`${where}: route must be a function`);
}

/** The state the router last returned on this branch, for this virtual model. */
function latestState(ctx: ExtensionContext, provider: string, id: string): unknown {
  const branch = ctx.sessionManager.getBranch();
  for (let index = branch.length - 1; index >= 0; index--) {
    const entry = branch[index] as { type: string; customType?: string; data?: { provider?: string; id?: string; state?: unknown } };
    if (entry.type === "custom" && entry.customType === VIRTUAL_MODEL_STATE_ENTRY && entry.data?.provider === provider && entry.data.id === id) {
      return entry.data.state;
    }
  }
  return undefined;
}

/** The physical model and level of the latest successful answer in the conversation. */
function previousOf(messages: Context["messages"], registry: ModelRegistry): Pick<ModelRouteRequest, "previous"> {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== "assistant" || message.stopReason === "error" || message.stopReason === "aborted") continue;
    const model = registry.find(message.provider, message.model);
    if (!model || isVirtualModel(model)) return {};
    const level = (message as AssistantMessage & { thinkingLevel?: ModelThinkingLevel }).thinkingLevel;
    return { previous: { model, ...(level ? { thinkingLevel: level } : {}) } };
  }
  return {};
}

/** The failed request a retry replaces; absent when routing itself failed (the answer names the virtual model). */
function failedOf(message: AssistantMessage, registry: ModelRegistry): Pick<ModelRouteRequest, "failed"> {
  const model = registry.find(message.provider, message.model);
  if (!model || isVirtualModel(model)) return {};
  return { failed: { model, ...(message.thinkingLevel ? { thinkingLevel: message.thinkingLevel } : {}), message } };
}

function checkRoute(route: ModelRoute | undefined, registry: ModelRegistry): Model {
  const chosen = route?.model;
  if (!chosen || typeof chosen.provider !== "string" || typeof chosen.id !== "string") throw new Error("route() returned no model");
  const model = registry.find(chosen.provider, chosen.id);
  if (!model) throw new Error(`route() chose ${chosen.provider}/${chosen.id}, which is not in the model registry`);
  if (isVirtualModel(model)) throw new Error(`route() chose ${chosen.provider}/${chosen.id}, a virtual model; a virtual model routes to physical ones only`);
  if (!registry.hasAuth(model)) throw new Error(`route() chose ${chosen.provider}/${chosen.id}, whose provider has no credentials`);
  return model;
}

function withLevel(message: AssistantMessage, level: ModelThinkingLevel): AssistantMessage {
  return { ...message, thinkingLevel: level } as AssistantMessage;
}

