/**
 * All models xcsh can use: the built-in catalog merged with models.json, plus the
 * credentials and headers each needs at request time.
 *
 * Headers: the Model objects handed out never carry header values from models.json,
 * because those may be `!command`s or env-var names that must be resolved first (and
 * resolved secrets do not belong in objects that get listed and logged). Callers get the
 * request headers from `getHeaders(model)` and pass them as `StreamOptions.headers`.
 *
 * Extensions add providers at runtime (`registerProvider`, see src/extensions/providers.ts):
 * with `models` a registration replaces every model of that provider, without it only the
 * provider-level settings (baseUrl, api, apiKey, headers, authHeader) change. The
 * models.json configuration is kept apart, so `unregisterProvider` restores it.
 */
import { canonicalProvider } from "../ai/provider-aliases.ts";
import { dirname, join } from "node:path";
import { REFRESHED_CATALOG_FILE, setRefreshedCatalogPath } from "../ai/catalog/refreshed.ts";
import { getEnvApiKey } from "../ai/env-api-keys.ts";
import { getModels, getProviders as getCatalogProviderIds, getProvidersToOffer } from "../ai/models.ts";
import { getAuthJsonPath } from "../auth/auth-file.ts";
import type { AuthStore } from "../auth/auth-store.ts";
import { authStoreAt, hasStoredCredential, storedBaseUrl, storedModelIds, storedProviderEnv, storedRequestAuth } from "../auth/credentials.ts";
import { StoredKeyError } from "../auth/stored-key.ts";
import { loginCommand, signInProvider, SIGN_IN_PROVIDERS } from "../auth/signin/providers.ts";
import type { AssistantMessageEventStream } from "../ai/event-stream.ts";
import { complete, stream, streamSimple } from "../ai/stream.ts";
import type { AssistantMessage, Context, Model, ProviderStreamOptions, SimpleStreamOptions } from "../ai/types.ts";
import { typeboxValue } from "../schema/validate.ts";
import type { ModelType, TypedModel } from "../ai/catalog/model-types.ts";
import type { ClassifierContext, ClassifierResult } from "../ai/classify.ts";
import type { ImagesContext, ImagesResult } from "../ai/generate-images.ts";
import { buildModels, customModel, modelKey } from "./model-merge.ts";
import { loadModelsJson, type ProviderConfig } from "./models-json.ts";
import { getModelsJsonPath } from "./paths.ts";
import { providerAuthView, providerView, type ProviderAuthSource, type ProviderView } from "./provider-views.ts";
import {
  definedSettings,
  isValueConfigured,
  layerSettings,
  providerAuth,
  resolveRuntimeValue,
  type ConfiguredValue,
  type ProviderAuth,
  type RuntimeModelConfig,
  type RuntimeProviderConfig,
} from "./registry-config.ts";
import { missingVariables, resolveConfigValue, UnresolvableValueError, UnsetVariableError } from "./resolve-value.ts";
import { resolveRequestAuth, streamWithRequestAuth, withRequestAuth, type ResolvedRequestAuth } from "./registry-requests.ts";
import { assertValidRuntimeProvider } from "./runtime-provider-check.ts";
import { configuredTypedModels, notAChatModel, runClassify, runGenerateImages, type TypedCallOptions, type TypedImplementations } from "./typed-models.ts";

export interface ModelRegistryOptions {
  /** Defaults to `<agent dir>/models.json`. */
  modelsJsonPath?: string;
  /** Defaults to auth.json beside the models.json given, else `<agent dir>/auth.json`. */
  authJsonPath?: string;
}

export type { RuntimeModelConfig, RuntimeProviderConfig } from "./registry-config.ts";
export { CUSTOM_MODEL_DEFAULTS } from "./model-merge.ts";

export class ModelRegistry {
  private models: Model[] = [];
  /** Unresolved header values of models (models.json or runtime), keyed by `modelKey`. */
  private modelHeaders = new Map<string, Record<string, ConfiguredValue>>();
  private auth = new Map<string, ProviderAuth>();
  /** Each provider's merged configuration and which providers a registration replaced, as of the last rebuild. */
  private providerConfigs: Record<string, ProviderConfig | RuntimeProviderConfig> = {};
  private replacedProviders: ReadonlySet<string> = new Set();
  /** Virtual models listed under providers that have physical models (setVirtualModels), by provider. */
  private readonly virtualLayers = new Map<string, RuntimeModelConfig[]>();
  /** Classifier and image models, built on first use after a rebuild. */
  private typed: TypedModel[] | undefined;
  /** Per provider, what extensions registered to run its classifier and image models. */
  private readonly implementations = new Map<string, TypedImplementations>();
  /** Runtime registrations by provider name, in registration order. */
  private readonly registered = new Map<string, RuntimeProviderConfig>();

  private constructor(
    /** The models.json this registry was built from (it may not exist). */
    readonly modelsJsonPath: string,
    private readonly fileConfigs: Record<string, ProviderConfig>,
    /** auth.json: stored keys and sign-ins, asked on every use (another xcsh may refresh a token). */
    private readonly authStore: AuthStore,
  ) {
    this.rebuild();
  }

  /** The providers models.json declares, as parsed (the sandbox reads which variables their keys name). */
  get modelsJsonProviders(): Readonly<Record<string, ProviderConfig>> {
    return this.fileConfigs;
  }

  /** The auth.json this registry asks for stored credentials. */
  get authJsonPath(): string {
    return this.authStore.path;
  }

  /** Builds the registry from the built-in catalog and models.json; throws ConfigError for a bad file. */
  static load(options: ModelRegistryOptions = {}): ModelRegistry {
    const path = options.modelsJsonPath ?? getModelsJsonPath();
    // The refreshed catalog (`xcsh models update`) sits beside models.json.
    setRefreshedCatalogPath(join(dirname(path), REFRESHED_CATALOG_FILE));
    const authPath = options.authJsonPath ?? (options.modelsJsonPath ? join(dirname(options.modelsJsonPath), "auth.json") : getAuthJsonPath());
    return new ModelRegistry(path, loadModelsJson(path).providers, authStoreAt(authPath));
  }

  /**
   * Every model, built-in providers first (anthropic, openai, google), then models.json's
   * in file order, then providers registered at runtime in registration order.
   */
  getAll(): Model[] {
    return this.models.map((model) => structuredClone(model));
  }

  /** The models themselves, not copies, for a look-up that copies only what it picks (the catalog is large). */
  list(): readonly Readonly<Model>[] {
    return this.models;
  }

  find(given: string, id: string): Model | undefined {
    // A session written by pi 1.x names Azure `azure` (provider-aliases.ts).
    const provider = canonicalProvider(given);
    const model = this.models.find((candidate) => candidate.provider === provider && candidate.id === id);
    return model ? structuredClone(model) : undefined;
  }

  /**
   * pi 1.x's look-up by model type ("chat", "classifier", "image"). Classifier and image
   * models are listed apart from the chat ones (typed-models.ts): find() never returns one.
   */
  findOfType(type: "chat", provider: string, id: string): Model | undefined;
  findOfType(type: ModelType, provider: string, id: string): Model | TypedModel | undefined;
  findOfType(type: ModelType, given: string, id: string): Model | TypedModel | undefined {
    if (type === "chat") return this.find(given, id);
    const provider = canonicalProvider(given);
    const model = this.typedModels().find((candidate) => candidate.type === type && candidate.provider === provider && candidate.id === id);
    return model ? structuredClone(model) : undefined;
  }

  /** pi 1.x: every model of a type, optionally of one provider. */
  getModelsOfType(type: "chat", provider?: string): Model[];
  getModelsOfType(type: "classifier" | "image", provider?: string): TypedModel[];
  getModelsOfType(type: ModelType, provider?: string): (Model | TypedModel)[];
  getModelsOfType(type: ModelType, provider?: string): (Model | TypedModel)[] {
    const wanted = provider === undefined ? undefined : canonicalProvider(provider);
    const models: readonly (Model | TypedModel)[] = type === "chat" ? this.models : this.typedModels().filter((model) => model.type === type);
    return models.filter((model) => wanted === undefined || model.provider === wanted).map((model) => structuredClone(model));
  }

  /** pi 1.x: the models of a type whose provider has a credential configured. */
  async getAvailableOfType(type: ModelType, provider?: string): Promise<(Model | TypedModel)[]> {
    return this.getModelsOfType(type, provider).filter((model) => this.hasAuth(model));
  }

  /** Why a chat-only path cannot use `provider/id`, when it names a classifier or image model; else undefined. */
  nonChatModelNote(provider: string, id: string): string | undefined {
    const model = this.typedModels().find((candidate) => candidate.provider === canonicalProvider(provider) && candidate.id === id);
    return model ? notAChatModel(model) : undefined;
  }

  /** The classifier and image models (`provider/id` or id) a chat-model argument names, for the resolver's refusal. */
  nonChatModelNamed(text: string): string | undefined {
    const model = this.typedModels().find((candidate) => `${candidate.provider}/${candidate.id}` === text || candidate.id === text);
    return model ? notAChatModel(model) : undefined;
  }

  /** pi 1.x: runs a classifier with the provider's credentials; a failure is the result's errorMessage. */
  classify(model: Pick<TypedModel, "provider" | "id">, context: ClassifierContext, options?: TypedCallOptions): Promise<ClassifierResult> {
    return runClassify(this, model, context, options);
  }

  /** pi 1.x: runs an image model with the provider's credentials; a failure is the result's errorMessage. */
  generateImages(model: Pick<TypedModel, "provider" | "id">, context: ImagesContext, options?: TypedCallOptions): Promise<ImagesResult> {
    return runGenerateImages(this, model, context, options);
  }

  typedImplementations(provider: string): TypedImplementations | undefined {
    return this.implementations.get(provider);
  }

  /** The typed models, with the configuration of the last rebuild; the catalog file is read on first use. */
  private typedModels(): readonly TypedModel[] {
    return (this.typed ??= configuredTypedModels(this.providerConfigs, this.replacedProviders));
  }

  /** Providers that have at least one model, in the same order as `getAll()`. */
  getProviders(): string[] {
    return [...new Set(this.models.map((model) => model.provider))];
  }

  /**
   * Registers a provider at runtime, or changes one. With `models`, they replace every
   * model the provider had (built-in, models.json or registered before); without, the
   * provider-level settings given override the current ones and the models stay. Throws
   * an Error naming the provider and the bad field; nothing changes then.
   */
  registerProvider(name: string, config: RuntimeProviderConfig, implementations?: TypedImplementations): void {
    assertValidRuntimeProvider(name, config, this.fileConfigs[name]);
    const previous = this.registered.get(name);
    // New models come with their implementations; settings alone keep the ones there are.
    if (config.models || implementations?.classifiers || implementations?.images) {
      const kept = config.models ? {} : this.implementations.get(name);
      this.implementations.set(name, { ...kept, ...implementations });
    }
    // A copy: the caller may change its object later. (Value.Clone, unlike structuredClone, tolerates stray functions.)
    const copy = typeboxValue().Clone(config);
    this.registered.set(name, config.models || !previous ? copy : layerSettings(previous, copy));
    this.rebuild();
  }

  /** Drops every runtime registration of the provider: built-in and models.json models come back. Unknown names are ignored. */
  unregisterProvider(name: string): void {
    this.implementations.delete(name);
    if (this.registered.delete(name)) this.rebuild();
  }

  /**
   * pi 1.x's virtual models under a provider that also has physical models
   * (extensions/virtual-models.ts): listed after the provider's models, hiding a physical
   * one with the same id, with the provider's credentials. Undefined or [] removes them.
   * They are a layer of their own: registering or unregistering the provider leaves them.
   */
  setVirtualModels(provider: string, models: RuntimeModelConfig[] | undefined): void {
    if (models?.length) this.virtualLayers.set(provider, models);
    else if (!this.virtualLayers.delete(provider)) return;
    this.rebuild();
  }

  /** Builds the model list again after auth.json changed (/login, /logout): which providers offer models follows the stored credentials. */
  refreshCredentials(): void {
    this.rebuild();
  }

  /**
   * Whether a credential is configured for the model's provider: one stored in auth.json,
   * an `apiKey` (registered or in models.json) or the provider's environment variable
   * (or cloud settings), in the auth.json entry's `env` or the process's. Never runs a command.
   */
  hasAuth(model: Pick<Model, "provider">): boolean {
    if (hasStoredCredential(this.authStore, model.provider)) return true;
    const apiKey = this.auth.get(model.provider)?.apiKey;
    if (apiKey && isValueConfigured(apiKey)) return true;
    return getEnvApiKey(model.provider, this.getProviderEnv(model)) !== undefined;
  }

  /**
   * The `env` object of the provider's auth.json entry (pi's per-provider variables:
   * AZURE_OPENAI_BASE_URL, AWS_REGION, GOOGLE_CLOUD_PROJECT, …), handed to its requests as
   * `StreamOptions.env`, where they win over the process environment. Undefined when none.
   */
  getProviderEnv(model: Pick<Model, "provider">): Record<string, string> | undefined {
    return storedProviderEnv(this.authStore, model.provider);
  }

  /** Models whose provider has a credential configured. */
  getAvailable(): Model[] {
    return this.getAll().filter((model) => this.hasAuth(model));
  }

  /**
   * The API key for a request, in pi's order: `override` (e.g. --api-key) wins, then the
   * credential stored in auth.json (a sign-in's token, refreshed when about to expire),
   * then the provider's registered or models.json `apiKey` (resolved now: a `!command`
   * runs on every call), then the provider's environment variable. Undefined when none
   * is set — except for a sign-in provider, whose error says how to sign in.
   */
  async getApiKey(model: Pick<Model, "provider">, override?: string): Promise<string | undefined> {
    if (override) return override;
    const stored = await storedRequestAuth(this.authStore, model.provider);
    if (stored) return stored.apiKey;
    const configured = this.auth.get(model.provider)?.apiKey;
    const what = `"apiKey" of provider "${model.provider}"`;
    if (configured && isValueConfigured(configured)) {
      const key = await this.resolve(configured, what);
      if (key !== "") return key;
    }
    const fromEnv = getEnvApiKey(model.provider, this.getProviderEnv(model));
    // "${NAME}" with NAME unset: say so, rather than "no API key" (or, worse, sending the text).
    if (fromEnv === undefined && configured && !configured.runtime && missingVariables(configured.text).length > 0) {
      throw this.unresolvable(configured, what, new UnsetVariableError(missingVariables(configured.text)));
    }
    const signIn = fromEnv === undefined ? signInProvider(model.provider) : undefined;
    if (signIn && !signIn.alsoTakesApiKeys) throw new StoredKeyError(`Not signed in to ${signIn.name}: run \`${loginCommand(signIn.id)}\`.`);
    return fromEnv;
  }

  /**
   * Request headers for the model, resolved: headers set on the model object itself,
   * then the provider's models.json headers, then its registered ones, then the model's
   * own (override or custom model) headers, later ones winning; plus `Authorization: Bearer <key>` when the
   * provider sets `authHeader: true`. Pass `apiKey` when already resolved, so a
   * `!command` key does not run twice.
   */
  async getHeaders(model: Pick<Model, "provider" | "id" | "headers">, apiKey?: string): Promise<Record<string, string>> {
    const auth = this.auth.get(model.provider);
    const raw = { ...auth?.headers, ...this.modelHeaders.get(modelKey(model)) };
    const entries = await Promise.all(
      Object.entries(raw).map(async ([name, value]) => [name, await this.resolve(value, `header "${name}" of provider "${model.provider}"`)] as const),
    );
    // A signed-in account's headers (Copilot's integration, Codex's account id); configured ones still win.
    const signedIn = signInProvider(model.provider) ? await storedRequestAuth(this.authStore, model.provider) : undefined;
    const headers: Record<string, string> = { ...model.headers, ...signedIn?.headers, ...Object.fromEntries(entries) };
    if (signedIn?.bearerHeader) headers.Authorization = `Bearer ${apiKey ?? signedIn.apiKey}`;
    if (auth?.authHeader) {
      const key = apiKey ?? (await this.getApiKey(model));
      if (key) headers.Authorization = `Bearer ${key}`;
    }
    return headers;
  }
  // --- what extensions for later pi versions (0.8x) ask of the registry ---------------

  /** Later pi's name for hasAuth. */
  hasConfiguredAuth(model: Pick<Model, "provider">): boolean {
    return this.hasAuth(model);
  }

  /** The model's key and headers as configured, or why they cannot be had. */
  getApiKeyAndHeaders(model: Model): Promise<ResolvedRequestAuth> {
    return resolveRequestAuth(this, model);
  }

  getApiKeyForProvider(provider: string): Promise<string | undefined> {
    return this.getApiKey({ provider });
  }

  /** pi 1.x: a provider as a read-only view (provider-views.ts); it carries no credentials. */
  getProvider(provider: string): ProviderView | undefined {
    return providerView(this, provider);
  }

  /**
   * pi 1.x: whether the provider has a credential and where it comes from (never the
   * credential itself). The order is hasAuth's: auth.json, then an `apiKey` (an
   * extension's or models.json's, a `!command` one apart), then the environment.
   */
  getProviderAuthStatus(provider: string): { configured: boolean; source?: ProviderAuthSource } {
    if (hasStoredCredential(this.authStore, provider)) return { configured: true, source: "stored" };
    const apiKey = this.auth.get(provider)?.apiKey;
    if (apiKey && isValueConfigured(apiKey)) {
      return { configured: true, source: apiKey.runtime ? "runtime" : apiKey.text.startsWith("!") ? "models_json_command" : "models_json_key" };
    }
    if (getEnvApiKey(provider, this.getProviderEnv({ provider })) !== undefined) return { configured: true, source: "environment" };
    return { configured: false };
  }

  /** pi 1.x: the provider's key and headers as a request would send them; undefined when it has none configured. */
  getProviderAuth(provider: string): ReturnType<typeof providerAuthView> {
    return providerAuthView(this, provider);
  }

  /** A request to `model` with its configured key and headers (the caller's options win). */
  async complete(model: Model, context: Context, options: ProviderStreamOptions = {}): Promise<AssistantMessage> {
    return complete(model, context, await withRequestAuth(this, model, options));
  }

  stream(model: Model, context: Context, options: ProviderStreamOptions = {}): AssistantMessageEventStream {
    return streamWithRequestAuth(this, model, options, (resolved) => stream(model, context, resolved));
  }

  streamSimple(model: Model, context: Context, options: SimpleStreamOptions = {}): AssistantMessageEventStream {
    return streamWithRequestAuth(this, model, options, (resolved) => streamSimple(model, context, resolved));
  }


  private async resolve(value: ConfiguredValue, what: string): Promise<string> {
    try {
      return value.runtime ? await resolveRuntimeValue(value.text) : await resolveConfigValue(value.text);
    } catch (error) {
      throw this.unresolvable(value, what, error as Error);
    }
  }

  /** The error for a value that cannot be resolved: which value, where it is set, why; never the secret. */
  private unresolvable(value: ConfiguredValue, what: string, cause: Error): Error {
    const where = value.runtime ? "registered by an extension" : `in ${this.modelsJsonPath}`;
    const advice = cause instanceof UnsetVariableError ? ` Set ${cause.variables.join(" and ")}, or change the value.` : "";
    return new UnresolvableValueError(`Cannot resolve the ${what} ${where}: ${cause.message.replace(/\.$/, "")}.${advice}`);
  }

  /**
   * The providers whose built-in models are offered, in catalog order: those with a key in
   * the environment (getProvidersToOffer) or in auth.json, then the signed-in sign-in
   * providers, then the offline faux.
   */
  private builtinProviders(): string[] {
    const offered = new Set<string>(getProvidersToOffer());
    const catalog = getCatalogProviderIds().filter((id) => id !== "faux" && (offered.has(id) || this.authStore.has(id)));
    const signedIn = SIGN_IN_PROVIDERS.map((provider) => provider.id).filter((id) => hasStoredCredential(this.authStore, id));
    return [...new Set([...catalog, ...signedIn]), "faux"];
  }

  /** A provider's built-in models: the catalog's, or a signed-in provider's at its account's endpoint. */
  private builtinModels(provider: string): Model[] {
    const signIn = signInProvider(provider);
    if (!signIn || signIn.alsoTakesApiKeys) return getModels(provider);
    if (!hasStoredCredential(this.authStore, provider)) return [];
    // Loaded only when someone signed in: nobody else pays for the list.
    const { signInModels } = require("../auth/signin/models.ts") as typeof import("../auth/signin/models.ts");
    return signInModels(provider, storedBaseUrl(this.authStore, provider), storedModelIds(this.authStore, provider));
  }

  /** Recomputes models and credentials from models.json plus the runtime registrations. */
  private rebuild(): void {
    const configs: Record<string, ProviderConfig | RuntimeProviderConfig> = { ...this.fileConfigs };
    const replaced = new Set<string>();
    const auth = new Map<string, ProviderAuth>();
    for (const [name, file] of Object.entries(this.fileConfigs)) auth.set(name, providerAuth(file, undefined));
    for (const [name, runtime] of this.registered) {
      const file = this.fileConfigs[name];
      if (runtime.models) {
        // models.json's modelOverrides refer to models that are gone now.
        const { modelOverrides: _overrides, models: _models, ...fileSettings } = file ?? {};
        configs[name] = { ...fileSettings, ...definedSettings(runtime), models: runtime.models };
        replaced.add(name);
      } else {
        configs[name] = { ...file, ...definedSettings(runtime) };
      }
      auth.set(name, providerAuth(file, runtime));
    }
    const built = buildModels(configs, replaced, this.builtinProviders(), (provider) => this.builtinModels(provider));
    this.models = withVirtualLayers(built.models, this.virtualLayers);
    this.auth = auth;
    this.providerConfigs = configs;
    this.replacedProviders = replaced;
    this.typed = undefined;
    this.modelHeaders = built.headers;
  }
}

/** The models with each provider's virtual layer after its own models (a virtual id hides a physical one). */
function withVirtualLayers(models: Model[], layers: ReadonlyMap<string, RuntimeModelConfig[]>): Model[] {
  if (layers.size === 0) return models;
  const result = [...models];
  for (const [provider, configured] of layers) {
    const virtual = configured.map((config) => customModel(provider, config, {}, undefined));
    const ids = new Set(virtual.map((model) => model.id));
    const kept = result.filter((model) => !(model.provider === provider && ids.has(model.id)));
    const last = kept.findLastIndex((model) => model.provider === provider);
    kept.splice(last === -1 ? kept.length : last + 1, 0, ...virtual);
    result.splice(0, result.length, ...kept);
  }
  return result;
}
