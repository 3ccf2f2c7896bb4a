/**
 * Strict JSONL framing (seed 000, "分帧"): records end at LF only; one trailing
 * CR is dropped; U+2028/U+2029 are ordinary characters inside a record (they
 * are legal in JSON strings, so a generic line reader would corrupt them); a
 * last record without LF still counts. Long lines cost linear time: each chunk
 * is scanned once and only the pieces of an unfinished record are kept.
 */

const LF = 0x0a;

export interface JsonlReadOptions {
  /** A record that is not valid UTF-8: it is not yielded, and never affects the next one. */
  onInvalidUtf8?: () => void;
}

/** Yields each record of a byte stream as text, without its line ending. */
export async function* readJsonlLines(stream: ReadableStream<Uint8Array>, options: JsonlReadOptions = {}): AsyncGenerator<string> {
  // Fatal decoding: a record with invalid bytes is reported, never repaired into something else.
  let decoder = new TextDecoder("utf-8", { fatal: true });
  let invalid = false;
  // Pieces of the record in progress; joined once the record ends.
  let pending: string[] = [];
  /** Decodes part of the current record; `last` flushes the decoder, so an unfinished sequence cannot spill into the next record. */
  const decode = (bytes: Uint8Array, last: boolean): string => {
    if (invalid) return "";
    try {
      return decoder.decode(bytes, { stream: !last });
    } catch {
      invalid = true;
      decoder = new TextDecoder("utf-8", { fatal: true });
      return "";
    }
  };
  const finish = (last: string): string | undefined => {
    pending.push(last);
    const record = pending.length === 1 ? pending[0] : pending.join("");
    pending = [];
    if (invalid) {
      invalid = false;
      options.onInvalidUtf8?.();
      return undefined;
    }
    return record.endsWith("\r") ? record.slice(0, -1) : record;
  };

  for await (const chunk of stream) {
    let start = 0;
    let newline = chunk.indexOf(LF, start);
    while (newline !== -1) {
      const record = finish(decode(chunk.subarray(start, newline), true));
      if (record !== undefined) yield record;
      start = newline + 1;
      newline = chunk.indexOf(LF, start);
    }
    if (start < chunk.length) pending.push(decode(chunk.subarray(start), false));
  }
  if (pending.length > 0) {
    const last = finish(decode(new Uint8Array(0), true));
    if (last !== undefined && last.length > 0) yield last;
  }
}

const LINE_SEPARATORS = /[\u2028\u2029]/g;

/**
 * One frame: the object as JSON and a single LF. JSON.stringify escapes LF
 * inside strings; U+2028/U+2029 are escaped too, so clients that split on them
 * (Node's readline) still see whole frames. The JSON value is unchanged.
 */
export function serializeFrame(frame: unknown): string {
  return escapeLineSeparators(JSON.stringify(frame)) + "\n";
}

function escapeLineSeparators(json: string): string {
  return json.includes("\u2028") || json.includes("\u2029") ? json.replace(LINE_SEPARATORS, (ch) => (ch === "\u2028" ? "\\u2028" : "\\u2029")) : json;
}

/**
 * A default-form message_update line. Its `message` and `assistantMessageEvent.partial`
 * are the same growing message, so it is stringified once and placed twice:
 * streaming a long answer is dominated by this serialization.
 */
export function serializeMessageUpdate(message: unknown, assistantMessageEvent: { partial?: unknown } & Record<string, unknown>): string {
  const { partial, ...delta } = assistantMessageEvent;
  if (partial !== message) return serializeFrame({ type: "message_update", message, assistantMessageEvent });
  const messageJson = JSON.stringify(message);
  const deltaJson = JSON.stringify(delta);
  return escapeLineSeparators(`{"type":"message_update","message":${messageJson},"assistantMessageEvent":${deltaJson.slice(0, -1)},"partial":${messageJson}}}`) + "\n";
}
