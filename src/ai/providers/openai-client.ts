/** The OpenAI SDK client both OpenAI APIs use, built from a model and stream options. */
import OpenAI from "openai";
import type { Model, StreamOptions } from "../types.ts";
import { resolveProviderApiKey } from "./api-key.ts";

/**
 * The SDK reads an error's message from the body's `error` object only; compatible servers
 * (Mistral, vLLM…) put `message` at the top level, which the SDK would drop ("status code
 * (no body)"). Such a body is handed over wrapped in `error`, so its message survives.
 */
async function fetchKeepingErrorBodies(input: string | URL | Request, init?: RequestInit, watch?: StreamWatch): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok) return watch && response.body ? watchForDone(response, watch) : response;
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

/** What was seen on the wire that the SDK does not tell: whether the stream ended with `data: [DONE]`. */
export interface StreamWatch {
  sawDone: boolean;
}

/**
 * Passes the body through unchanged, noting a `data: [DONE]` line: the SDK ends its
 * iteration there without saying so, and a server that sends it has finished even when
 * it left out `finish_reason`.
 */
function watchForDone(response: Response, watch: StreamWatch): Response {
  const decoder = new TextDecoder();
  let tail = "";
  const body = response.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        // A little of the previous chunk, so that a marker split across chunks is found.
        const text = tail + decoder.decode(chunk, { stream: true });
        if (/(^|\n)data: ?\[DONE\]/.test(text)) watch.sawDone = true;
        tail = text.slice(-16);
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

export function createOpenAIClient(model: Model, options: StreamOptions | undefined, watch?: StreamWatch): OpenAI {
  return new OpenAI({
    apiKey: resolveProviderApiKey(model, options),
    baseURL: model.baseUrl,
    defaultHeaders: { ...model.headers, ...options?.headers },
    // Retrying is the session's job, where the user can see and abort it.
    maxRetries: options?.maxRetries ?? 0,
    timeout: options?.timeoutMs,
    fetch: ((input: string | URL | Request, init?: RequestInit) => fetchKeepingErrorBodies(input, init, watch)) as typeof fetch,
    dangerouslyAllowBrowser: true,
  });
}
