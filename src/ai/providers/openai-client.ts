/** The OpenAI SDK client both OpenAI APIs use, built from a model and stream options. */
import OpenAI from "openai";
import type { Model, StreamOptions } from "../types.ts";
import { resolveProviderApiKey } from "./api-key.ts";

export function createOpenAIClient(model: Model, options: StreamOptions | undefined): OpenAI {
  return new OpenAI({
    apiKey: resolveProviderApiKey(model, options),
    baseURL: model.baseUrl,
    defaultHeaders: { ...model.headers, ...options?.headers },
    // Retrying is the session's job, where the user can see and abort it.
    maxRetries: options?.maxRetries ?? 0,
    timeout: options?.timeoutMs,
    dangerouslyAllowBrowser: true,
  });
}
