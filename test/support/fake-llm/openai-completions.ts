/**
 * OpenAI Chat Completions streaming, as api.openai.com sends it: `data:` frames of
 * `chat.completion.chunk` objects, a role chunk first, one delta per piece of
 * text / reasoning / tool-call arguments, a chunk with `finish_reason`, a
 * usage-only chunk (empty `choices`) when the request asked for it, and
 * `data: [DONE]`. Reasoning goes out as `delta.reasoning_content`, the field
 * DeepSeek, vLLM and most compatible servers use (OpenAI itself never streams it).
 */
import { chunkText, sseFrame, type NormalizedReply, type RecordedRequest, type WireEncoder } from "./script.ts";

const FINISH_REASONS: Record<NormalizedReply["stopReason"], string> = {
  stop: "stop",
  length: "length",
  toolUse: "tool_calls",
};

function encode(reply: NormalizedReply, request: RecordedRequest): string[] {
  const created = Math.floor(Date.now() / 1000);
  const id = `chatcmpl-${reply.id}`;
  const wantsUsage = request.body?.stream_options?.include_usage === true;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    sseFrame({
      id,
      object: "chat.completion.chunk",
      created,
      model: reply.model,
      system_fingerprint: "fp_fake",
      choices,
      ...(wantsUsage ? { usage: null } : {}),
      ...extra,
    });
  const delta = (fields: Record<string, unknown>, finishReason: string | null = null) =>
    chunk([{ index: 0, delta: fields, logprobs: null, finish_reason: finishReason }]);

  const frames = [delta({ role: "assistant", content: "", refusal: null })];
  let toolIndex = 0;
  for (const block of reply.content) {
    if (block.type === "text") {
      for (const piece of chunkText(block.text, reply.chunkSize)) frames.push(delta({ content: piece }));
    } else if (block.type === "thinking") {
      for (const piece of chunkText(block.thinking, reply.chunkSize)) frames.push(delta({ reasoning_content: piece }));
    } else {
      const index = toolIndex++;
      frames.push(
        delta({ tool_calls: [{ index, id: block.id, type: "function", function: { name: block.name, arguments: "" } }] }),
      );
      for (const piece of chunkText(JSON.stringify(block.arguments), reply.chunkSize)) {
        frames.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    }
  }
  frames.push(delta({}, FINISH_REASONS[reply.stopReason]));

  if (wantsUsage) {
    const { input, output, cacheRead, cacheWrite } = reply.usage;
    // OpenAI counts cached tokens inside prompt_tokens; cache writes are OpenRouter's extension.
    const promptTokens = input + cacheRead + cacheWrite;
    const promptDetails: Record<string, number> = { cached_tokens: cacheRead, audio_tokens: 0 };
    if (cacheWrite > 0) promptDetails.cache_write_tokens = cacheWrite;
    frames.push(
      chunk([], {
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: output,
          total_tokens: promptTokens + output,
          prompt_tokens_details: promptDetails,
          completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
        },
      }),
    );
  }
  frames.push(sseFrame("[DONE]"));
  return frames;
}

/** The `type` and `code` OpenAI puts beside an error message. */
function errorKind(status: number, message: string): { type: string; code: string | null } {
  if (/maximum context length/i.test(message)) return { type: "invalid_request_error", code: "context_length_exceeded" };
  switch (status) {
    case 400:
      return { type: "invalid_request_error", code: null };
    case 401:
      return { type: "invalid_request_error", code: "invalid_api_key" };
    case 403:
      return { type: "invalid_request_error", code: "unsupported_country_region_territory" };
    case 404:
      return { type: "invalid_request_error", code: "model_not_found" };
    case 429:
      return { type: "requests", code: "rate_limit_exceeded" };
    default:
      return { type: "server_error", code: null };
  }
}

export const openaiCompletionsEncoder: WireEncoder = {
  api: "openai-completions",
  encode,
  errorBody(status, message) {
    return { error: { message, ...errorKind(status, message), param: null } };
  },
};
