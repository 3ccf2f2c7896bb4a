/**
 * The script language of the fake LLM server: provider-neutral descriptions of
 * responses, which each API encoder turns into that API's real wire format.
 */

export interface FakeUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export type FakeBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature?: string; redacted?: boolean }
  | { type: "toolCall"; id?: string; name: string; arguments: Record<string, unknown> };

/** A streamed model reply. */
export interface FakeReply {
  type?: "reply";
  content: FakeBlock[];
  /** Defaults to "toolUse" when the reply has a tool call, else "stop". */
  stopReason?: "stop" | "length" | "toolUse";
  usage?: FakeUsage;
  /** Characters per streamed delta of text, thinking and tool-argument JSON. Default 8. */
  chunkSize?: number;
  /** Wait before answering at all. */
  delayMs?: number;
  /** Wait between streamed wire events. */
  chunkDelayMs?: number;
  /** Send this many wire events, then keep the connection open and send nothing more. */
  stallAfterEvents?: number;
  /** Model name the server reports (defaults to the requested one). */
  model?: string;
}

/** An HTTP error answer instead of a stream. */
export interface FakeHttpError {
  type: "error";
  status: number;
  /** Raw body; when absent the API's own error JSON is built from `message`. */
  body?: string | Record<string, unknown>;
  message?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

/**
 * Bytes served verbatim: a provider stream or error body as recorded, not built by an
 * encoder. `cutAtByte` closes the connection after that many bytes, mid-stream.
 */
export interface FakeRawReply {
  type: "raw";
  body: string | Uint8Array;
  /** HTTP status; default 200. */
  status?: number;
  /** Default text/event-stream for 200, application/json otherwise. */
  contentType?: string;
  headers?: Record<string, string>;
  /** Send only the first N bytes, then end the response (the client sees the stream stop). */
  cutAtByte?: number;
  /** Bytes per write (default: all at once). */
  chunkBytes?: number;
  delayMs?: number;
}

export type FakeResponse = FakeReply | FakeHttpError | FakeRawReply;

export type FakeApi = "anthropic-messages" | "openai-completions" | "openai-responses" | "google-generative-ai";

export interface RecordedRequest {
  api: FakeApi;
  method: string;
  path: string;
  /** Query string parameters (Gemini's `alt=sse`, `key`). */
  query: Record<string, string>;
  headers: Record<string, string>;
  body: any;
  /** Model named by the request (body field, or Gemini's path segment). */
  model: string;
  /** When the request arrived (Date.now()): tests check how long a retry waited. */
  receivedAt: number;
  /** Set when the server's limits refused the request: the error message it answered with. */
  refused?: string;
}

/** A scripted step: a fixed response, or one computed from the request. */
export type ScriptStep = FakeResponse | ((request: RecordedRequest) => FakeResponse);

/** Turns a reply into the frames of one API's streaming format. */
export interface WireEncoder {
  api: FakeApi;
  /** The complete SSE frames ("event: …\ndata: …\n\n" or "data: …\n\n"), in order. */
  encode(reply: NormalizedReply, request: RecordedRequest): string[];
  /** The JSON body this API sends with an HTTP error. */
  errorBody(status: number, message: string): Record<string, unknown>;
}

/** A reply with defaults filled in, as encoders receive it. */
export interface NormalizedReply {
  content: NormalizedBlock[];
  stopReason: "stop" | "length" | "toolUse";
  usage: Required<FakeUsage>;
  chunkSize: number;
  model: string;
  /** A stable id for this response ("resp_1", …). */
  id: string;
}

export type NormalizedBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string; redacted?: boolean }
  | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> };

export function normalizeReply(reply: FakeReply, request: RecordedRequest, sequence: number): NormalizedReply {
  let toolIndex = 0;
  const content = reply.content.map((block): NormalizedBlock => {
    if (block.type === "toolCall") {
      toolIndex++;
      return { ...block, id: block.id ?? `call_${sequence}_${toolIndex}` };
    }
    if (block.type === "thinking") return { ...block, signature: block.signature ?? `sig_${sequence}` };
    return block;
  });
  const hasToolCall = content.some((block) => block.type === "toolCall");
  return {
    content,
    stopReason: reply.stopReason ?? (hasToolCall ? "toolUse" : "stop"),
    usage: {
      input: reply.usage?.input ?? 10,
      output: reply.usage?.output ?? 5,
      cacheRead: reply.usage?.cacheRead ?? 0,
      cacheWrite: reply.usage?.cacheWrite ?? 0,
    },
    chunkSize: Math.max(1, reply.chunkSize ?? 8),
    model: reply.model ?? request.model,
    id: `resp_${sequence}`,
  };
}

/** Splits text into pieces of at most `size` characters (at least one piece). */
export function chunkText(text: string, size: number): string[] {
  if (text.length === 0) return [""];
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/** One server-sent event frame. */
export function sseFrame(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return (event ? `event: ${event}\n` : "") + `data: ${payload}\n\n`;
}
