/**
 * Azure OpenAI: the Responses API (openai-responses.ts) through the `openai` SDK's
 * AzureOpenAI client, which sends the key as `api-key` and the `api-version` query.
 *
 * Where a request goes, with pi's variables:
 *  - AZURE_OPENAI_BASE_URL, else https://AZURE_OPENAI_RESOURCE_NAME.openai.azure.com/openai/v1,
 *    else the model's baseUrl (models.json) unless it is the catalog's template. A bare
 *    Azure resource URL (…openai.azure.com, …cognitiveservices.azure.com, …ai.azure.com,
 *    with or without /openai) means its v1 API: /openai/v1.
 *  - AZURE_OPENAI_API_VERSION, default "v1" (the v1 API needs no dated version).
 *  - The model name sent is the deployment: AZURE_OPENAI_DEPLOYMENT_NAME_MAP
 *    ("gpt-5=my-gpt5,gpt-5-mini=small") maps model ids to deployment names; a model
 *    without an entry is sent under its own id (deployments are often named so).
 * Each variable may also come from the `env` of the provider's auth.json entry, which wins.
 */
import { AzureOpenAI } from "openai";
import type { Model, StreamOptions } from "../types.ts";
import { resolveProviderApiKey } from "./api-key.ts";
import { providerEnvReader, type EnvReader } from "./provider-env.ts";
import { responsesStream, responsesStreamSimple } from "./openai-responses.ts";

const DEFAULT_API_VERSION = "v1";
const AZURE_HOSTS = [".openai.azure.com", ".cognitiveservices.azure.com", ".ai.azure.com"];

/** `model=deployment` pairs, comma-separated; malformed pairs are skipped. */
export function parseDeploymentMap(text: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const pair of (text ?? "").split(",")) {
    const equals = pair.indexOf("=");
    if (equals <= 0) continue;
    const modelId = pair.slice(0, equals).trim();
    const deployment = pair.slice(equals + 1).trim();
    if (modelId && deployment) map.set(modelId, deployment);
  }
  return map;
}

/** A resource's root URL names its v1 API; any other URL is taken as given. */
export function normalizeAzureBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error(`Azure OpenAI base URL is not a URL: "${text}" (AZURE_OPENAI_BASE_URL, or the model's baseUrl)`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  const isResourceRoot = path === "" || path === "/openai" || path === "/openai/v1/responses";
  if (AZURE_HOSTS.some((suffix) => url.hostname.endsWith(suffix)) && isResourceRoot) {
    url.pathname = "/openai/v1";
    url.search = "";
  }
  return url.toString().replace(/\/+$/, "");
}

function azureBaseUrl(model: Model, env: EnvReader): string {
  const resource = env("AZURE_OPENAI_RESOURCE_NAME");
  const configured = env("AZURE_OPENAI_BASE_URL") ?? (resource ? `https://${resource}.openai.azure.com/openai/v1` : undefined);
  // The catalog's baseUrl is a template ("https://{resource}…"): it says nothing until filled in.
  const fromModel = model.baseUrl && !model.baseUrl.includes("{") ? model.baseUrl : undefined;
  const chosen = configured ?? fromModel;
  if (!chosen) {
    throw new Error("Azure OpenAI needs its endpoint: set AZURE_OPENAI_BASE_URL (https://<resource>.openai.azure.com) or AZURE_OPENAI_RESOURCE_NAME, or a baseUrl for the provider in models.json");
  }
  return normalizeAzureBaseUrl(chosen);
}

function connect(model: Model, options: StreamOptions) {
  const env = providerEnvReader(options.env);
  const client = new AzureOpenAI({
    apiKey: resolveProviderApiKey(model, options),
    apiVersion: env("AZURE_OPENAI_API_VERSION") ?? DEFAULT_API_VERSION,
    baseURL: azureBaseUrl(model, env),
    defaultHeaders: { ...model.headers, ...options.headers },
    // Retrying is the session's job, where the user can see and abort it.
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeoutMs,
    dangerouslyAllowBrowser: true,
  });
  const modelName = parseDeploymentMap(env("AZURE_OPENAI_DEPLOYMENT_NAME_MAP")).get(model.id) ?? model.id;
  return { client, modelName };
}

export const stream = responsesStream(connect);
export const streamSimple = responsesStreamSimple(stream);
