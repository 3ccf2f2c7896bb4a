import { FINAL_FAILURE_MARK } from "./provider-errors.ts";
import { CA_HINT, certificateFailure, isCertificateErrorText } from "./tls-errors.ts";
import type { AssistantMessage } from "./types.ts";

/**
 * Error texts providers use when the prompt does not fit the context window.
 * Matched against `errorMessage` (which carries the HTTP status and body).
 */
const OVERFLOW_PATTERNS: RegExp[] = [
  /prompt is too long/i, // Anthropic
  /request_too_large/i, // Anthropic, body over the request size limit
  /exceeds the context window/i, // OpenAI
  /context_length_exceeded/i, // OpenAI error code
  /maximum context length is \d+/i, // OpenAI-compatible servers, OpenRouter
  /input token count.*exceeds the maximum/i, // Gemini
  /exceeds the maximum number of tokens/i, // Gemini variants
  /maximum prompt length is \d+/i, // xAI
  /reduce the length of the messages/i, // Groq
  /too large for model with \d+ maximum context length/i, // Mistral
  /exceeds the available context size/i, // llama.cpp
  /greater than the context length/i, // LM Studio
  /exceeded model token limit/i, // Kimi
  /context window exceeded|context length exceeded/i,
];

/**
 * True when the message failed because the context was too long, or when a
 * provider silently accepted more input than the window holds.
 */
export function isContextOverflow(message: AssistantMessage, contextWindow?: number): boolean {
  if (message.stopReason === "error" && message.errorMessage) {
    if (OVERFLOW_PATTERNS.some((pattern) => pattern.test(message.errorMessage!))) return true;
    // Some servers answer 413 with no useful body.
    if (/^413\b/.test(message.errorMessage)) return true;
  }
  if (contextWindow && contextWindow > 0) {
    const inputTokens = message.usage.input + message.usage.cacheRead;
    if (message.stopReason !== "error" && inputTokens > contextWindow) return true;
  }
  return false;
}

export function getOverflowPatterns(): RegExp[] {
  return [...OVERFLOW_PATTERNS];
}

const TRANSIENT_PATTERNS: RegExp[] = [
  /overloaded/i,
  /rate.?limit/i,
  /too many requests/i,
  /resource.?exhausted/i,
  /\b(429|500|502|503|504|529)\b/,
  // A request timeout (408) and a lock timeout (409): Anthropic's and OpenAI's SDKs retry both
  // without being asked. Only as the leading status, so a number in a message is not read as one.
  /^40[89]\b/,
  /service unavailable|bad gateway|gateway timeout|internal server error/i,
  // OpenAI's kind for its 500 when the failure arrives inside a stream that began with 200.
  /^server_error\b/,
  /\bECONNRESET\b|\bECONNREFUSED\b|\bETIMEDOUT\b|\bEPIPE\b|socket hang up/i,
  /connection (error|reset|refused|closed)/i,
  /network error|fetch failed|terminated/i,
  /stream ended before the provider said it finished/i,
  /timed? ?out/i,
];

/**
 * True for failures worth retrying after a pause: overload, rate limits, 5xx, 408 and 409
 * (as the providers' SDKs retry them), dropped connections, and whatever the provider itself asked us to retry
 * (`retryAdvised`, from `x-should-retry: true`). Context overflow and aborts are never
 * transient; retrying them would fail the same way. A provider's `x-should-retry: false`
 * reaches here as the final mark in the text.
 */
export function isTransientError(message: Pick<AssistantMessage, "stopReason" | "errorMessage" | "usage" | "retryAdvised">): boolean;
export function isTransientError(errorMessage: string, retryAdvised?: boolean): boolean;
export function isTransientError(input: string | Pick<AssistantMessage, "stopReason" | "errorMessage" | "usage" | "retryAdvised">, retryAdvised = false): boolean {
  let text: string;
  let advised = retryAdvised;
  if (typeof input === "string") {
    text = input;
  } else {
    if (input.stopReason !== "error" || !input.errorMessage) return false;
    text = input.errorMessage;
    advised = input.retryAdvised === true;
  }
  if (OVERFLOW_PATTERNS.some((pattern) => pattern.test(text))) return false;
  if (isCertificateErrorText(text) || text.includes(FINAL_FAILURE_MARK)) return false;
  if (advised) return true;
  if (/^4(00|01|03|04|13|22)\b/.test(text)) return false;
  return TRANSIENT_PATTERNS.some((pattern) => pattern.test(text));
}

/** Human-readable text for anything thrown. */
export function errorText(error: unknown): string {
  const certificate = certificateFailure(error);
  if (certificate) return `Certificate not trusted: ${certificate}. ${CA_HINT}`;
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
