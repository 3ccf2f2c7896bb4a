/** The OpenAI SDK client both OpenAI APIs use, built from a model and stream options. */
import OpenAI from "openai";
import type { Model, StreamOptions } from "../types.ts";
import { resolveProviderApiKey } from "./api-key.ts";

/**
 * The SDK reads an error's message from the body's `error` object only; compatible servers
 * (Mistral, vLLM…) put `message` at the top level, which the SDK would drop ("status code
 * (no body)"). Such a body is handed over wrapped in `error`, so its message survives.
 */
async function fetchKeepingErrorBodies(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok) return response;
  const text = await response.text();
  let body = text;
  try {
    const json = JSON.parse(text);
    if (json && typeof json === "object" && !Array.isArray(json) && !("error" in json) && "message" in json) body = JSON.stringify({ error: json });
  } catch {
    // not JSON: the SDK shows the text as it is
  }
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

export function createOpenAIClient(model: Model, options: StreamOptions | undefined): OpenAI {
  return new OpenAI({
    apiKey: resolveProviderApiKey(model, options),
    baseURL: model.baseUrl,
    defaultHeaders: { ...model.headers, ...options?.headers },
    // Retrying is the session's job, where the user can see and abort it.
    maxRetries: options?.maxRetries ?? 0,
    timeout: options?.timeoutMs,
    fetch: fetchKeepingErrorBodies as typeof fetch,
    dangerouslyAllowBrowser: true,
  });
}
