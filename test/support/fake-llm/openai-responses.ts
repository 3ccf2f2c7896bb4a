/**
 * The OpenAI Responses streaming format: named SSE events, each with a
 * `sequence_number`, framing every output item (reasoning, message,
 * function_call) with added/done events, and a final `response.completed`
 * (or `response.incomplete`) carrying the whole response with its usage.
 * No `[DONE]` sentinel: the stream simply ends after the final event.
 */
import { chunkText, sseFrame, type NormalizedBlock, type NormalizedReply, type RecordedRequest, type WireEncoder } from "./script.ts";

type Json = Record<string, unknown>;

/** Builds frames in order, numbering them as the real service does. */
class EventWriter {
  readonly frames: string[] = [];
  private sequence = 0;

  emit(type: string, fields: Json): void {
    this.frames.push(sseFrame({ type, sequence_number: this.sequence++, ...fields }, type));
  }
}

function responseObject(reply: NormalizedReply, request: RecordedRequest, status: string, output: Json[], final: boolean): Json {
  const body = (request.body ?? {}) as Json;
  const usage = reply.usage;
  return {
    id: reply.id,
    object: "response",
    created_at: 1_700_000_000,
    status,
    background: false,
    error: null,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: reply.model,
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: body.reasoning ?? { effort: null, summary: null },
    service_tier: "default",
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: { type: "text" }, verbosity: "medium" },
    tool_choice: "auto",
    tools: body.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: final
      ? {
          // input_tokens counts every prompt token, cached or not.
          input_tokens: usage.input + usage.cacheRead + usage.cacheWrite,
          input_tokens_details: { cached_tokens: usage.cacheRead, cache_write_tokens: usage.cacheWrite },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + usage.cacheRead + usage.cacheWrite + usage.output,
        }
      : null,
    user: null,
    metadata: {},
  };
}

/** Emits one output item's events and returns the finished item. */
function encodeItem(writer: EventWriter, block: NormalizedBlock, outputIndex: number, reply: NormalizedReply, truncated: boolean): Json {
  const status = truncated ? "incomplete" : "completed";
  const at = { output_index: outputIndex };
  if (block.type === "thinking") {
    const id = `rs_${reply.id}_${outputIndex}`;
    writer.emit("response.output_item.added", { ...at, item: { id, type: "reasoning", summary: [] } });
    const part = { item_id: id, ...at, summary_index: 0 };
    writer.emit("response.reasoning_summary_part.added", { ...part, part: { type: "summary_text", text: "" } });
    for (const delta of chunkText(block.thinking, reply.chunkSize)) {
      writer.emit("response.reasoning_summary_text.delta", { ...part, delta });
    }
    writer.emit("response.reasoning_summary_text.done", { ...part, text: block.thinking });
    writer.emit("response.reasoning_summary_part.done", { ...part, part: { type: "summary_text", text: block.thinking } });
    const item = { id, type: "reasoning", encrypted_content: block.signature, summary: [{ type: "summary_text", text: block.thinking }] };
    writer.emit("response.output_item.done", { ...at, item });
    return item;
  }
  if (block.type === "text") {
    const id = `msg_${reply.id}_${outputIndex}`;
    writer.emit("response.output_item.added", {
      ...at,
      item: { id, type: "message", status: "in_progress", content: [], role: "assistant" },
    });
    const part = { item_id: id, ...at, content_index: 0 };
    writer.emit("response.content_part.added", { ...part, part: { type: "output_text", annotations: [], logprobs: [], text: "" } });
    for (const delta of chunkText(block.text, reply.chunkSize)) {
      writer.emit("response.output_text.delta", { ...part, delta, logprobs: [] });
    }
    writer.emit("response.output_text.done", { ...part, text: block.text, logprobs: [] });
    const content = { type: "output_text", annotations: [], logprobs: [], text: block.text };
    writer.emit("response.content_part.done", { ...part, part: content });
    const item = { id, type: "message", status, content: [content], role: "assistant" };
    writer.emit("response.output_item.done", { ...at, item });
    return item;
  }
  const id = `fc_${reply.id}_${outputIndex}`;
  const args = JSON.stringify(block.arguments);
  const started = { id, type: "function_call", status: "in_progress", arguments: "", call_id: block.id, name: block.name };
  writer.emit("response.output_item.added", { ...at, item: started });
  for (const delta of chunkText(args, reply.chunkSize)) {
    writer.emit("response.function_call_arguments.delta", { item_id: id, ...at, delta });
  }
  writer.emit("response.function_call_arguments.done", { item_id: id, ...at, arguments: args });
  const item = { ...started, status, arguments: args };
  writer.emit("response.output_item.done", { ...at, item });
  return item;
}

/** OpenAI's `type` and `code` for an HTTP status, as its error bodies carry them. */
function errorKind(status: number, message: string): { type: string; code: string | null } {
  if (status === 400 && /context window/i.test(message)) return { type: "invalid_request_error", code: "context_length_exceeded" };
  if (status === 401) return { type: "invalid_request_error", code: "invalid_api_key" };
  if (status === 403) return { type: "invalid_request_error", code: "unsupported_country_region_territory" };
  if (status === 404) return { type: "invalid_request_error", code: "model_not_found" };
  if (status === 429) return { type: "requests", code: "rate_limit_exceeded" };
  if (status >= 500) return { type: "server_error", code: null };
  return { type: "invalid_request_error", code: null };
}

export const openaiResponsesEncoder: WireEncoder = {
  api: "openai-responses",
  encode(reply, request) {
    const writer = new EventWriter();
    const truncated = reply.stopReason === "length";
    writer.emit("response.created", { response: responseObject(reply, request, "in_progress", [], false) });
    writer.emit("response.in_progress", { response: responseObject(reply, request, "in_progress", [], false) });
    const output = reply.content.map((block, index) =>
      encodeItem(writer, block, index, reply, truncated && index === reply.content.length - 1),
    );
    if (truncated) {
      writer.emit("response.incomplete", { response: responseObject(reply, request, "incomplete", output, true) });
    } else {
      writer.emit("response.completed", { response: responseObject(reply, request, "completed", output, true) });
    }
    return writer.frames;
  },
  errorBody(status, message) {
    const { type, code } = errorKind(status, message);
    return { error: { message, type, param: null, code } };
  },
};
