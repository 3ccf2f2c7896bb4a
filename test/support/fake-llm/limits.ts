/**
 * Refusals a real provider makes before it streams anything, for tests that
 * need them without scripting each one: a request larger than the model's
 * context window, and a request carrying an image the provider cannot take.
 * Each is answered as that API answers it (status and wording), and does not
 * use up a scripted reply.
 *
 * Request size is estimated like xcsh's own heuristic — four characters of
 * text a token — over every string of the body except image data, plus the
 * output the request reserves (max_tokens and its spellings).
 */
import type { FakeApi, FakeHttpError } from "./script.ts";

export interface FakeLimits {
  /** Refuse requests whose estimated input plus reserved output exceeds this many tokens. */
  contextWindow?: number;
  /** Refuse requests that carry an image (true: the API's usual wording; a string: this message). */
  rejectImages?: boolean | string;
}

const CHARS_PER_TOKEN = 4;

/** Image blocks in each API's request shape. */
function isImageBlock(value: Record<string, unknown>): boolean {
  if (value.type === "image" || value.type === "image_url" || value.type === "input_image") return true;
  const inline = value.inlineData as Record<string, unknown> | undefined;
  return typeof inline?.mimeType === "string" && inline.mimeType.startsWith("image/");
}

function walk(value: unknown, visit: (text: string) => void, onImage: () => void): void {
  if (typeof value === "string") visit(value);
  else if (Array.isArray(value)) for (const item of value) walk(item, visit, onImage);
  else if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    if (isImageBlock(record)) {
      onImage();
      return;
    }
    for (const key of Object.keys(record)) walk(record[key], visit, onImage);
  }
}

/** Estimated input tokens of a request body (image data not counted) and whether it carries an image. */
export function measureRequest(body: unknown): { inputTokens: number; hasImage: boolean } {
  let chars = 0;
  let hasImage = false;
  walk(
    body,
    (text) => (chars += text.length),
    () => (hasImage = true),
  );
  return { inputTokens: Math.ceil(chars / CHARS_PER_TOKEN), hasImage };
}

function reservedOutput(body: any): number {
  const value = body?.max_tokens ?? body?.max_completion_tokens ?? body?.max_output_tokens ?? body?.generationConfig?.maxOutputTokens;
  return typeof value === "number" ? value : 0;
}

function overflowMessage(api: FakeApi, tokens: number, window: number): string {
  switch (api) {
    case "anthropic-messages":
      return `prompt is too long: ${tokens} tokens > ${window} maximum`;
    case "google-generative-ai":
      return `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${window}).`;
    default:
      return `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`;
  }
}

function imageMessage(api: FakeApi): string {
  switch (api) {
    case "anthropic-messages":
      return "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum: 7340032 bytes > 5242880 bytes";
    case "google-generative-ai":
      return "Provided image is not valid.";
    default:
      return "You uploaded an unsupported image. Please make sure your image is below 20 MB in size and is of one the following formats: ['png', 'jpeg', 'gif', 'webp'].";
  }
}

/** The refusal `limits` call for this request, or undefined when it may be answered. */
export function refusalFor(api: FakeApi, body: unknown, limits: FakeLimits): FakeHttpError | undefined {
  if (!limits.contextWindow && !limits.rejectImages) return undefined;
  const { inputTokens, hasImage } = measureRequest(body);
  if (limits.rejectImages && hasImage) {
    return { type: "error", status: 400, message: typeof limits.rejectImages === "string" ? limits.rejectImages : imageMessage(api) };
  }
  const window = limits.contextWindow;
  if (window && inputTokens + reservedOutput(body) > window) {
    // Anthropic counts the prompt alone against the window; the others, prompt and output together.
    const tokens = api === "anthropic-messages" ? inputTokens : inputTokens + reservedOutput(body);
    return { type: "error", status: 400, message: overflowMessage(api, tokens, window) };
  }
  return undefined;
}
