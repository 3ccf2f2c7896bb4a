/**
 * The registry's classifier and image models (pi 1.x's model types beside "chat"), and
 * the requests that run them with the registry's credentials.
 *
 * They come from the built-in catalog (ai/catalog/typed-models.ts), and from models.json
 * or a registration (`pi.registerProvider`) entries with `type: "classifier"` or `"image"`
 * (pi 1.6.0), listed after the catalog's; an extension's own implementations, keyed by the
 * model's `api` (`classifiers`, `images`), run its models. Catalog models follow their
 * provider's configuration: a models.json or registered `baseUrl` moves the models served
 * at the provider's own endpoint (those at an endpoint of their own, such as Vercel's
 * `/typesafe/v1`, stay), a provider-level `compat` sets the System One image fields, and
 * a registration with its own `models` replaces them with the rest. They are never in the
 * chat list, so --model, /model, set_model and the agent loop cannot pick one; the note
 * below is what those paths say instead of "not found".
 */
import type { ClassifierModel, ImageModel, ModelType, TypedModel } from "../ai/catalog/model-types.ts";
import { getTypedModels, providerCatalogBaseUrl } from "../ai/catalog/typed-models.ts";
import type { ClassifierContext, ClassifierResult, TypedRequestOptions } from "../ai/classify.ts";
import type { ImagesContext, ImagesResult } from "../ai/generate-images.ts";
import type { Model } from "../ai/types.ts";
import type { ModelConfig, ProviderConfig } from "./models-json.ts";
import { isTypedModelConfig, type RuntimeModelConfig, type RuntimeProviderConfig } from "./registry-config.ts";

/** The typed models of the catalog with each provider's configured endpoint and compat, then the configured ones. */
export function configuredTypedModels(configs: Readonly<Record<string, ProviderConfig | RuntimeProviderConfig>>, replaced: ReadonlySet<string>): TypedModel[] {
  const configured = Object.entries(configs).flatMap(([provider, config]) =>
    (config.models ?? []).flatMap((entry) => (isTypedModelConfig(entry) ? [typedModelOf(provider, entry, config)] : [])),
  );
  const catalog = getTypedModels().flatMap((model) => {
    if (replaced.has(model.provider)) return [];
    const config = configs[model.provider];
    if (config?.baseUrl !== undefined && model.baseUrl === providerCatalogBaseUrl(model.provider)) model.baseUrl = config.baseUrl;
    const compat = config?.compat as { imageInput?: unknown; sendImageOptInHeader?: unknown } | undefined;
    if (model.type === "classifier" && compat) {
      const fields = Object.fromEntries(Object.entries({ imageInput: compat.imageInput, sendImageOptInHeader: compat.sendImageOptInHeader }).filter(([, value]) => value !== undefined));
      if (Object.keys(fields).length > 0) model.compat = { ...model.compat, ...fields };
    }
    return [model];
  });
  // A configured model with a catalog model's type and id takes its place.
  const key = (model: TypedModel) => `${model.type}\u0000${model.provider}\u0000${model.id}`;
  const taken = new Set(configured.map(key));
  return [...catalog.filter((model) => !taken.has(key(model))), ...configured];
}

/** A models.json or registered classifier/image entry as the registry hands it out (pi's defaults for what it leaves out). */
function typedModelOf(provider: string, entry: (ModelConfig | RuntimeModelConfig) & { type: "classifier" | "image"; output?: ("text" | "image")[] }, config: ProviderConfig | RuntimeProviderConfig): TypedModel {
  const base = {
    id: entry.id,
    name: entry.name ?? entry.id,
    provider,
    // The registry's checks guarantee both (models-json.ts, runtime-provider-check.ts).
    api: entry.api as never,
    baseUrl: ("baseUrl" in entry ? entry.baseUrl : undefined) ?? config.baseUrl ?? "",
    input: [...(entry.input ?? ["text"])],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...entry.cost },
    ...(entry.headers ? { headers: { ...entry.headers } } : {}),
  };
  if (entry.type === "image") return { ...base, type: "image", output: [...(entry.output ?? ["image"])] };
  const compat = { ...(config.compat as ClassifierModel["compat"]), ...(entry.compat as ClassifierModel["compat"]) };
  return { ...base, type: "classifier", contextWindow: entry.contextWindow ?? 128000, ...(Object.keys(compat).length > 0 ? { compat } : {}) };
}

/**
 * An extension's own ways to run its provider's typed models (pi 1.6.0's `classifiers` and
 * `images` of registerProvider), keyed by the model's `api`.
 */
export interface TypedImplementations {
  classifiers?: Record<string, { classify(model: ClassifierModel, context: ClassifierContext, options?: TypedRequestOptions): unknown }>;
  images?: Record<string, { generateImages(model: ImageModel, context: ImagesContext, options?: TypedRequestOptions): unknown }>;
}

/** The APIs xcsh runs itself; another api needs the provider's implementation. */
const BUILTIN_TYPED_APIS: Record<"classifier" | "image", readonly string[]> = { classifier: ["typesafe-system-one", "openai-decisions"], image: ["openrouter-images"] };

/** What running a typed model needs of the registry. */
export interface TypedModelHost {
  findOfType(type: ModelType, provider: string, id: string): Model | TypedModel | undefined;
  /** What extensions registered to run the provider's typed models, if anything. */
  typedImplementations(provider: string): TypedImplementations | undefined;
  getApiKey(model: Pick<Model, "provider">): Promise<string | undefined>;
  getHeaders(model: Pick<Model, "provider" | "id" | "headers">, apiKey?: string): Promise<Record<string, string>>;
}

export interface TypedCallOptions {
  signal?: AbortSignal;
}

/** Which model a call names, by provider and id only (pi's rule: `{ provider, id }` is enough). */
function named(model: unknown): { provider: string; id: string } | undefined {
  const candidate = model as { provider?: unknown; id?: unknown } | undefined;
  return typeof candidate?.provider === "string" && typeof candidate.id === "string" ? { provider: candidate.provider, id: candidate.id } : undefined;
}

/** Why `model` cannot run as `type`, or undefined when it can; the text points to the listing. */
function lookUp<T extends TypedModel>(host: TypedModelHost, type: "classifier" | "image", model: unknown): T | string {
  const name = named(model);
  if (!name) return `${type === "classifier" ? "classify" : "generateImages"}() needs a model with a provider and an id`;
  const found = host.findOfType(type, name.provider, name.id);
  if (found) return found as T;
  const other = (["chat", "classifier", "image"] as const).find((kind) => kind !== type && host.findOfType(kind, name.provider, name.id));
  const what = other ? `is a ${other} model, not a${type === "image" ? "n image" : " classifier"} model` : `is not a known ${type} model`;
  return `${name.provider}/${name.id} ${what}. models.getAvailableOfType("${type}") lists the ones that work with your credentials.`;
}

async function requestOptions(host: TypedModelHost, model: TypedModel, options: TypedCallOptions): Promise<TypedRequestOptions> {
  const apiKey = await host.getApiKey(model);
  const headers = await host.getHeaders(model, apiKey);
  return { ...(apiKey ? { apiKey } : {}), headers, ...(options.signal ? { signal: options.signal } : {}) };
}

function failure<T extends { stopReason: string }>(base: T, message: string): T {
  return { ...base, stopReason: "error", errorMessage: message };
}

/** An extension implementation's answer, when it is a result object; anything else is its error. */
function resultOf<T extends { stopReason: string }>(value: unknown, base: T, operation: string): T {
  if (typeof value === "object" && value !== null && typeof (value as { stopReason?: unknown }).stopReason === "string") return value as T;
  return failure(base, `The provider's ${operation} implementation returned ${value === null || typeof value !== "object" ? String(value) : "an object without stopReason"}`);
}

/** Answers the questions of `context` with the classifier `model` names. Never throws. */
export async function runClassify(host: TypedModelHost, model: unknown, context: ClassifierContext, options: TypedCallOptions = {}): Promise<ClassifierResult> {
  const found = lookUp<ClassifierModel>(host, "classifier", model);
  const name = named(model);
  const empty: ClassifierResult = { api: "", provider: name?.provider ?? "", model: name?.id ?? "", answers: {}, stopReason: "stop", timestamp: Date.now() };
  if (typeof found === "string") return failure(empty, found);
  try {
    const own = host.typedImplementations(found.provider)?.classifiers?.[found.api];
    if (own) return resultOf<ClassifierResult>(await own.classify(found, context, await requestOptions(host, found, options)), { ...empty, api: found.api }, "classify");
    if (!BUILTIN_TYPED_APIS.classifier.includes(found.api)) return failure({ ...empty, api: found.api }, `Provider ${found.provider} has no classifier implementation for "${found.api}"`);
    const { classify } = await import("../ai/classify.ts");
    return await classify(found, context, await requestOptions(host, found, options));
  } catch (error) {
    return failure({ ...empty, api: found.api }, (error as Error)?.message ?? String(error));
  }
}

/** Generates images with the image model `model` names. Never throws. */
export async function runGenerateImages(host: TypedModelHost, model: unknown, context: ImagesContext, options: TypedCallOptions = {}): Promise<ImagesResult> {
  const found = lookUp<ImageModel>(host, "image", model);
  const name = named(model);
  const empty: ImagesResult = { api: "", provider: name?.provider ?? "", model: name?.id ?? "", output: [], stopReason: "stop", timestamp: Date.now() };
  if (typeof found === "string") return failure(empty, found);
  try {
    const own = host.typedImplementations(found.provider)?.images?.[found.api];
    if (own) return resultOf<ImagesResult>(await own.generateImages(found, context, await requestOptions(host, found, options)), { ...empty, api: found.api }, "generateImages");
    if (!BUILTIN_TYPED_APIS.image.includes(found.api)) return failure({ ...empty, api: found.api }, `Provider ${found.provider} has no image implementation for "${found.api}"`);
    const { generateImages } = await import("../ai/generate-images.ts");
    return await generateImages(found, context, await requestOptions(host, found, options));
  } catch (error) {
    return failure({ ...empty, api: found.api }, (error as Error)?.message ?? String(error));
  }
}

/** What a chat-only path says when it is given a classifier or image model. */
export function notAChatModel(model: Pick<TypedModel, "type" | "provider" | "id">): string {
  const use = model.type === "classifier" ? "models.classify()" : "models.generateImages()";
  return `${model.provider}/${model.id} is ${model.type === "image" ? "an image" : "a classifier"} model: it cannot chat. Codemode scripts run it with ${use}; pick a chat model (xcsh --list-models).`;
}
