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

/**
 * An array in a frame that is written element by element (`serializeFramePieces`)
 * instead of as part of one string: `get_messages` on a 100 MB session would
 * otherwise build the whole answer as one string, then again as the bytes that
 * go out. Serialized any other way (JSON.stringify), it is the plain array. The
 * elements are taken at once, so a run appending to the session meanwhile does
 * not change an answer being written.
 */
export class StreamedArray {
  readonly items: readonly unknown[];
  constructor(items: readonly unknown[]) {
    this.items = items.slice();
  }
  toJSON(): readonly unknown[] {
    return this.items;
  }
}

/** Whether a response's data holds a StreamedArray among its own fields. */
export function hasStreamedArray(data: unknown): boolean {
  if (typeof data !== "object" || data === null) return false;
  for (const value of Object.values(data)) if (value instanceof StreamedArray) return true;
  return false;
}

/**
 * The frame as consecutive pieces of text whose concatenation is exactly
 * `serializeFrame(frame)`: the frame around its StreamedArray, then each element
 * (one JSON.stringify per element gives the same text as inside the whole), then
 * the rest and the LF. Only one StreamedArray per frame is streamed; another one
 * is written inline.
 */
export function* serializeFramePieces(frame: unknown): Generator<string> {
  let streamed: StreamedArray | undefined;
  // Random, so that no text in the frame (an id the host chose) can be taken for it.
  const marker = `\u0000streamed:${crypto.randomUUID()}`;
  const outline = JSON.stringify(frame, function (this: Record<string, unknown>, key: string, value: unknown) {
    const original = this[key];
    if (original instanceof StreamedArray && streamed === undefined) {
      streamed = original;
      return marker;
    }
    return value;
  });
  const quoted = JSON.stringify(marker);
  const at = streamed === undefined ? -1 : outline.lastIndexOf(quoted);
  if (streamed === undefined || at === -1) {
    yield escapeLineSeparators(outline) + "\n";
    return;
  }
  yield `${escapeLineSeparators(outline.slice(0, at))}[`;
  const items = streamed.items;
  for (let index = 0; index < items.length; index++) {
    // Inside an array, what JSON cannot hold (undefined, a function) is written null.
    const json = escapeLineSeparators(JSON.stringify(items[index]) ?? "null");
    yield index === 0 ? json : `,${json}`;
  }
  yield `]${escapeLineSeparators(outline.slice(at + quoted.length))}\n`;
}
