/**
 * Image generation (pi 1.x's model type "image"). The built-in image models are
 * OpenRouter's, reached over its Chat Completions endpoint without streaming: the prompt
 * is one user message of text and image_url parts, `modalities` asks for images (and
 * text, for the models that also write), and the answer's `message.images` carry the
 * pictures as data URLs. A failure is a value (stopReason "error"), never a throw.
 * Loaded on the first generateImages call only.
 */
import type { ImageModel } from "./catalog/model-types.ts";
import { endpoint, failureText, postJson, type TypedRequestOptions } from "./classify.ts";
import type { ImageContent, TextContent, Usage } from "./types.ts";
import { calculateCost, emptyUsage } from "./usage.ts";

export interface ImagesContext {
  input: (Pick<TextContent, "type" | "text"> | ImageContent)[];
}

export interface ImagesResult {
  api: string;
  provider: string;
  model: string;
  output: (Pick<TextContent, "type" | "text"> | ImageContent)[];
  usage?: Usage;
  stopReason: "stop" | "error" | "aborted";
  errorMessage?: string;
  timestamp: number;
}

const LABEL = "OpenRouter images";

interface ChatCompletionAnswer {
  choices?: { message?: { content?: unknown; images?: { image_url?: string | { url?: string } }[] } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } };
}

function usageOf(raw: NonNullable<ChatCompletionAnswer["usage"]>, model: ImageModel): Usage {
  const usage = emptyUsage();
  const cached = raw.prompt_tokens_details?.cached_tokens ?? 0;
  usage.cacheWrite = raw.prompt_tokens_details?.cache_write_tokens ?? 0;
  // Cache writes are counted among the cached tokens by some upstreams: only the rest were read.
  usage.cacheRead = usage.cacheWrite > 0 ? Math.max(0, cached - usage.cacheWrite) : cached;
  usage.input = Math.max(0, (raw.prompt_tokens ?? 0) - usage.cacheRead - usage.cacheWrite);
  usage.output = raw.completion_tokens ?? 0;
  usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  calculateCost(model, usage);
  return usage;
}

/** Generates images from the input blocks. Never throws. */
export async function generateImages(model: ImageModel, context: ImagesContext, options: TypedRequestOptions = {}): Promise<ImagesResult> {
  const result: ImagesResult = { api: model.api, provider: model.provider, model: model.id, output: [], stopReason: "stop", timestamp: Date.now() };
  try {
    if (model.api !== "openrouter-images") throw new Error(`xcsh cannot run image API "${model.api}"`);
    const content = context.input.map((block) =>
      block.type === "text" ? { type: "text", text: block.text } : { type: "image_url", image_url: { url: `data:${block.mimeType};base64,${block.data}` } },
    );
    const request = {
      model: model.id,
      messages: [{ role: "user", content }],
      stream: false,
      modalities: model.output.includes("text") ? ["image", "text"] : ["image"],
    };
    const answer = (await postJson(LABEL, endpoint(model.baseUrl, "chat/completions"), request, options, model.provider)) as ChatCompletionAnswer;
    if (answer?.usage) result.usage = usageOf(answer.usage, model);
    const message = answer?.choices?.[0]?.message;
    if (typeof message?.content === "string" && message.content.length > 0) result.output.push({ type: "text", text: message.content });
    for (const image of message?.images ?? []) {
      const url = typeof image.image_url === "string" ? image.image_url : image.image_url?.url;
      const parts = url?.match(/^data:([^;]+);base64,(.+)$/s);
      if (parts) result.output.push({ type: "image", mimeType: parts[1]!, data: parts[2]! });
    }
  } catch (error) {
    result.output = [];
    result.stopReason = options.signal?.aborted ? "aborted" : "error";
    result.errorMessage = options.signal?.aborted ? "Request aborted" : failureText(error, model.provider, model.baseUrl, options);
  }
  return result;
}
