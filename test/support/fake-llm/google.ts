/**
 * Gemini `streamGenerateContent?alt=sse`: every frame is a whole
 * GenerateContentResponse (`data: {…}\n\n`, no event names). Text and thoughts
 * come as parts of a few characters each, a function call as one complete part;
 * the last frame carries finishReason and the full usageMetadata.
 */
import { chunkText, sseFrame, type NormalizedReply, type WireEncoder } from "./script.ts";

interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { name: string; args: Record<string, unknown>; id?: string };
}

/** The `status` names the service puts next to each HTTP code. */
const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "NOT_IMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/**
 * Ids normalizeReply made up (`call_<seq>_<n>`) are left out, as Gemini 2.x
 * leaves them out; an id the script chose is sent.
 */
const DEFAULT_CALL_ID = /^call_\d+_\d+$/;

function partsOf(reply: NormalizedReply): GeminiPart[] {
  const parts: GeminiPart[] = [];
  const thinkingSignature = reply.content.find((block) => block.type === "thinking")?.signature;
  let signedCall = false;
  for (const block of reply.content) {
    if (block.type === "text") {
      for (const piece of chunkText(block.text, reply.chunkSize)) parts.push({ text: piece });
    } else if (block.type === "thinking") {
      const pieces = chunkText(block.thinking, reply.chunkSize);
      pieces.forEach((piece, i) => {
        const part: GeminiPart = { text: piece, thought: true };
        if (i === pieces.length - 1) part.thoughtSignature = block.signature;
        parts.push(part);
      });
    } else {
      const functionCall: GeminiPart["functionCall"] = { name: block.name, args: block.arguments };
      if (!DEFAULT_CALL_ID.test(block.id)) functionCall.id = block.id;
      const part: GeminiPart = { functionCall };
      // With thinking on, the first call of a step carries a signature of its own.
      if (thinkingSignature && !signedCall) {
        part.thoughtSignature = `${thinkingSignature}/call`;
        signedCall = true;
      }
      parts.push(part);
    }
  }
  return parts.length > 0 ? parts : [{ text: "" }];
}

function usageMetadata(reply: NormalizedReply) {
  const { input, output, cacheRead } = reply.usage;
  const promptTokenCount = input + cacheRead; // the prompt count includes cached tokens
  const hasThinking = reply.content.some((block) => block.type === "thinking");
  const thoughtsTokenCount = hasThinking ? Math.floor(output / 2) : 0;
  return {
    promptTokenCount,
    candidatesTokenCount: output - thoughtsTokenCount,
    totalTokenCount: promptTokenCount + output,
    ...(cacheRead > 0 ? { cachedContentTokenCount: cacheRead } : {}),
    ...(hasThinking ? { thoughtsTokenCount } : {}),
    promptTokensDetails: [{ modality: "TEXT", tokenCount: promptTokenCount }],
  };
}

export const googleEncoder: WireEncoder = {
  api: "google-generative-ai",
  encode(reply) {
    const parts = partsOf(reply);
    const promptTokenCount = reply.usage.input + reply.usage.cacheRead;
    return parts.map((part, i) => {
      const last = i === parts.length - 1;
      const candidate: Record<string, unknown> = { content: { parts: [part], role: "model" }, index: 0 };
      if (last) candidate.finishReason = reply.stopReason === "length" ? "MAX_TOKENS" : "STOP";
      return sseFrame({
        candidates: [candidate],
        // Earlier frames carry a running count, as the service's do.
        usageMetadata: last ? usageMetadata(reply) : { promptTokenCount, totalTokenCount: promptTokenCount },
        modelVersion: reply.model,
        responseId: reply.id,
      });
    });
  },
  errorBody(status, message) {
    return { error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" } };
  },
};
