/**
 * The registry's classifier and image models (pi 1.x's model types beside "chat"), and
 * the requests that run them with the registry's credentials.
 *
 * They come from the built-in catalog only (ai/catalog/typed-models.ts) and follow their
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
import type { ProviderConfig } from "./models-json.ts";
import type { RuntimeProviderConfig } from "./registry-config.ts";

/** The typed models of the catalog with each provider's configured endpoint and compat. */
export function configuredTypedModels(configs: Readonly<Record<string, ProviderConfig | RuntimeProviderConfig>>, replaced: ReadonlySet<string>): TypedModel[] {
  return getTypedModels().flatMap((model) => {
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
}

/** What running a typed model needs of the registry. */
export interface TypedModelHost {
  findOfType(type: ModelType, provider: string, id: string): Model | TypedModel | undefined;
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

/** Answers the questions of `context` with the classifier `model` names. Never throws. */
export async function runClassify(host: TypedModelHost, model: unknown, context: ClassifierContext, options: TypedCallOptions = {}): Promise<ClassifierResult> {
  const found = lookUp<ClassifierModel>(host, "classifier", model);
  const name = named(model);
  const empty: ClassifierResult = { api: "", provider: name?.provider ?? "", model: name?.id ?? "", answers: {}, stopReason: "stop", timestamp: Date.now() };
  if (typeof found === "string") return failure(empty, found);
  try {
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
