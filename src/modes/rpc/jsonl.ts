/**
 * Strict JSONL framing (seed 000, "分帧"): records end at LF only; one trailing
 * CR is dropped; U+2028/U+2029 are ordinary characters inside a record (they
 * are legal in JSON strings, so a generic line reader would corrupt them); a
 * last record without LF still counts. Long lines cost linear time: each chunk
 * is scanned once and only the pieces of an unfinished record are kept.
 *
 * Bytes that are not valid UTF-8 become U+FFFD, as pi's reader (Node's StringDecoder)
 * makes them: a command with a stray byte inside a string still runs, and one whose
 * JSON is intact is answered with its id — never with an id-less parse error the host
 * cannot match. A sequence cut by the end of a record never spills into the next one.
 */

const LF = 0x0a;

/** Yields each record of a byte stream as text, without its line ending. */
export async function* readJsonlLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8");
  // Pieces of the record in progress; joined once the record ends.
  let pending: string[] = [];
  /** The record so far and `last`, which ends it (the decoder is flushed: nothing carries over). */
  const finish = (last: Uint8Array): string => {
    pending.push(decoder.decode(last));
    const record = pending.length === 1 ? pending[0]! : pending.join("");
    pending = [];
    return record.endsWith("\r") ? record.slice(0, -1) : record;
  };

  for await (const chunk of stream) {
    let start = 0;
    let newline = chunk.indexOf(LF, start);
    while (newline !== -1) {
      yield finish(chunk.subarray(start, newline));
      start = newline + 1;
      newline = chunk.indexOf(LF, start);
    }
    if (start < chunk.length) pending.push(decoder.decode(chunk.subarray(start), { stream: true }));
  }
  if (pending.length > 0) {
    const last = finish(new Uint8Array(0));
    if (last.length > 0) yield last;
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
