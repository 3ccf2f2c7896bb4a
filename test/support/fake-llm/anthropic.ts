/**
 * Anthropic Messages streaming, as the real service sends it: named SSE events
 * (`message_start`, `content_block_start`/`_delta`/`_stop` per block, a `ping`,
 * `message_delta` with the stop reason and cumulative usage, `message_stop`).
 */
import { chunkText, sseFrame, type NormalizedBlock, type NormalizedReply, type WireEncoder } from "./script.ts";

/** Thinking the service redacted: sent as `redacted_thinking` with the signature as its data. */
type ScriptBlock = NormalizedBlock & { redacted?: boolean };

const STOP_REASONS: Record<NormalizedReply["stopReason"], string> = {
  stop: "end_turn",
  length: "max_tokens",
  toolUse: "tool_use",
};

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A deterministic id shaped like the service's (`msg_01` + 22 base62 characters). */
function serviceId(prefix: string, seed: string): string {
  let state = 0;
  for (let i = 0; i < seed.length; i++) state = (Math.imul(state, 31) + seed.charCodeAt(i)) >>> 0;
  let out = `${prefix}_01`;
  for (let i = 0; i < 22; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out += ID_ALPHABET[(state >>> 16) % ID_ALPHABET.length];
  }
  return out;
}

/** The script's generated ids (`call_<n>_<m>`) become `toolu_…` ids; ids a test chose stay as they are. */
function toolUseId(id: string): string {
  return /^call_\d+_\d+$/.test(id) ? serviceId("toolu", id) : id;
}

function blockFrames(block: ScriptBlock, index: number, chunkSize: number): string[] {
  const frames: string[] = [];
  const start = (content_block: Record<string, unknown>) =>
    frames.push(sseFrame({ type: "content_block_start", index, content_block }, "content_block_start"));
  const delta = (delta: Record<string, unknown>) =>
    frames.push(sseFrame({ type: "content_block_delta", index, delta }, "content_block_delta"));

  if (block.type === "text") {
    start({ type: "text", text: "" });
    for (const piece of chunkText(block.text, chunkSize)) if (piece) delta({ type: "text_delta", text: piece });
  } else if (block.type === "thinking" && block.redacted) {
    start({ type: "redacted_thinking", data: block.signature });
  } else if (block.type === "thinking") {
    start({ type: "thinking", thinking: "", signature: "" });
    for (const piece of chunkText(block.thinking, chunkSize)) if (piece) delta({ type: "thinking_delta", thinking: piece });
    delta({ type: "signature_delta", signature: block.signature });
  } else {
    start({ type: "tool_use", id: toolUseId(block.id), name: block.name, input: {} });
    // The service opens every tool input with an empty fragment.
    delta({ type: "input_json_delta", partial_json: "" });
    for (const piece of chunkText(JSON.stringify(block.arguments), chunkSize)) delta({ type: "input_json_delta", partial_json: piece });
  }
  frames.push(sseFrame({ type: "content_block_stop", index }, "content_block_stop"));
  return frames;
}

export const anthropicEncoder: WireEncoder = {
  api: "anthropic-messages",

  encode(reply) {
    const { usage } = reply;
    const inputUsage = {
      input_tokens: usage.input,
      cache_creation_input_tokens: usage.cacheWrite,
      cache_read_input_tokens: usage.cacheRead,
    };
    const frames: string[] = [
      sseFrame(
        {
          type: "message_start",
          message: {
            id: serviceId("msg", reply.id),
            type: "message",
            role: "assistant",
            model: reply.model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...inputUsage, output_tokens: 1, service_tier: "standard" },
          },
        },
        "message_start",
      ),
    ];
    const ping = sseFrame({ type: "ping" }, "ping");
    if (reply.content.length === 0) frames.push(ping);
    reply.content.forEach((block, index) => {
      const blockFramesList = blockFrames(block as ScriptBlock, index, reply.chunkSize);
      // The service sends its keep-alive ping right after the first block opens.
      if (index === 0) blockFramesList.splice(1, 0, ping);
      frames.push(...blockFramesList);
    });
    frames.push(
      sseFrame(
        {
          type: "message_delta",
          delta: { stop_reason: STOP_REASONS[reply.stopReason], stop_sequence: null },
          usage: { ...inputUsage, output_tokens: usage.output },
        },
        "message_delta",
      ),
      sseFrame({ type: "message_stop" }, "message_stop"),
    );
    return frames;
  },

  errorBody(status, message) {
    return { type: "error", error: { type: ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"), message } };
  },
};
