/**
 * Gemini on Google Vertex AI: the Gemini stream of google.ts through @google/genai in
 * Vertex mode. Two ways in, with pi's variables:
 *  - an API key (GOOGLE_CLOUD_API_KEY, auth.json or --api-key): Vertex's express mode,
 *    `aiplatform.googleapis.com/v1/publishers/google/models/<id>:streamGenerateContent`,
 *    key in `x-goog-api-key`; a project in the environment does not change that (as pi);
 *  - Application Default Credentials (`gcloud auth application-default login`, or a key
 *    file in GOOGLE_APPLICATION_CREDENTIALS) with GOOGLE_CLOUD_PROJECT (or GCLOUD_PROJECT)
 *    and GOOGLE_CLOUD_LOCATION: `<location>-aiplatform.googleapis.com/v1/projects/<p>/
 *    locations/<l>/publishers/google/models/<id>:…`, the token from google-auth-library
 *    (the SDK's own dependency, so ADC costs no new package).
 * A models.json baseUrl (a proxy, or a test's fake server) replaces the host; the path stays.
 * The variables may also come from the `env` of the provider's auth.json entry, which wins.
 */
import { GoogleGenAI } from "@google/genai";
import { AMBIENT_CREDENTIAL } from "../env-api-keys.ts";
import type { Model } from "../types.ts";
import { providerEnvReader } from "./provider-env.ts";
import { geminiStream, geminiStreamSimple, sdkHttpOptions, type GoogleStreamOptions } from "./google.ts";

const DEFAULT_API_VERSION = "v1";

/** A baseUrl that is not the catalog's template, split into origin and API version (v1 unless it names one). */
function customEndpoint(model: Model): { baseUrl?: string; apiVersion: string } {
  const baseUrl = model.baseUrl?.trim().replace(/\/+$/, "");
  if (!baseUrl || baseUrl.includes("{")) return { apiVersion: DEFAULT_API_VERSION };
  const match = /^(.*)\/(v\d+(?:alpha|beta)?\d*)$/.exec(baseUrl);
  return match ? { baseUrl: match[1], apiVersion: match[2] } : { baseUrl, apiVersion: DEFAULT_API_VERSION };
}

/**
 * The SDK reads GOOGLE_CLOUD_PROJECT itself and, given a key too, says on console.debug
 * that the key wins. That choice is ours (pi's), made above; its note would only be
 * noise on the user's terminal.
 */
function quietly<T>(make: () => T): T {
  const debug = console.debug;
  console.debug = () => {};
  try {
    return make();
  } finally {
    console.debug = debug;
  }
}

function createVertexClient(model: Model, options: GoogleStreamOptions | undefined): GoogleGenAI {
  const { baseUrl, apiVersion } = customEndpoint(model);
  const httpOptions = { ...(baseUrl ? { baseUrl } : {}), ...sdkHttpOptions(model, options) };
  const apiKey = options?.apiKey && options.apiKey !== AMBIENT_CREDENTIAL ? options.apiKey : undefined;
  if (apiKey) return quietly(() => new GoogleGenAI({ vertexai: true, apiKey, apiVersion, httpOptions }));

  const env = providerEnvReader(options?.env);
  const project = env("GOOGLE_CLOUD_PROJECT") ?? env("GCLOUD_PROJECT");
  const location = env("GOOGLE_CLOUD_LOCATION");
  if (!project || !location) {
    const missing = [project ? undefined : "GOOGLE_CLOUD_PROJECT", location ? undefined : "GOOGLE_CLOUD_LOCATION"].filter(Boolean).join(" and ");
    throw new Error(
      `Google Vertex AI has no credentials: set GOOGLE_CLOUD_API_KEY, or ${missing} for Application Default Credentials (gcloud auth application-default login, or GOOGLE_APPLICATION_CREDENTIALS)`,
    );
  }
  const keyFile = env("GOOGLE_APPLICATION_CREDENTIALS");
  return new GoogleGenAI({
    vertexai: true,
    project,
    location,
    apiVersion,
    ...(keyFile ? { googleAuthOptions: { keyFilename: keyFile } } : {}),
    httpOptions,
  });
}

export const stream = geminiStream(createVertexClient);
export const streamSimple = geminiStreamSimple(stream);
