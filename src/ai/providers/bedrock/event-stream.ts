/**
 * AWS's binary event-stream framing (`application/vnd.amazon.eventstream`), which
 * Bedrock's ConverseStream answers in. Each message is
 *
 *   total length u32 | headers length u32 | CRC32 of those 8 bytes
 *   headers (name length u8, name, value type u8, value) | payload | CRC32 of all before
 *
 * Our own decoder rather than @smithy/eventstream-codec: the format is this one fixed
 * frame, Bun has CRC32 built in (Bun.hash.crc32), and the codec would bring four
 * packages (its CRC, types and hex helpers) into the binary for ~100 lines of work.
 * Both checksums are verified: a corrupted frame is an error, never a misread event.
 */

export type HeaderValue = string | number | boolean | Uint8Array | bigint | Date;

export interface EventStreamMessage {
  headers: Record<string, HeaderValue>;
  payload: Uint8Array;
}

const PRELUDE_LENGTH = 12;
const CHECKSUM_LENGTH = 4;
/** No message is bigger than this (AWS's own limit is 16 MB); a larger length is a corrupt stream. */
const MAX_MESSAGE_LENGTH = 24 * 1024 * 1024;

const utf8 = new TextDecoder();

function crc32(bytes: Uint8Array): number {
  return Bun.hash.crc32(bytes) >>> 0;
}

function readHeaders(view: DataView, bytes: Uint8Array, start: number, end: number): Record<string, HeaderValue> {
  const headers: Record<string, HeaderValue> = {};
  let at = start;
  const need = (count: number) => {
    if (at + count > end) throw new Error("Bedrock event stream: a header runs past its message");
  };
  while (at < end) {
    need(1);
    const nameLength = view.getUint8(at++);
    need(nameLength + 1);
    const name = utf8.decode(bytes.subarray(at, at + nameLength));
    at += nameLength;
    const type = view.getUint8(at++);
    let value: HeaderValue;
    switch (type) {
      case 0:
        value = true;
        break;
      case 1:
        value = false;
        break;
      case 2:
        need(1);
        value = view.getInt8(at);
        at += 1;
        break;
      case 3:
        need(2);
        value = view.getInt16(at);
        at += 2;
        break;
      case 4:
        need(4);
        value = view.getInt32(at);
        at += 4;
        break;
      case 5:
        need(8);
        value = view.getBigInt64(at);
        at += 8;
        break;
      case 6:
      case 7: {
        need(2);
        const length = view.getUint16(at);
        at += 2;
        need(length);
        const raw = bytes.subarray(at, at + length);
        value = type === 7 ? utf8.decode(raw) : raw.slice();
        at += length;
        break;
      }
      case 8:
        need(8);
        value = new Date(Number(view.getBigInt64(at)));
        at += 8;
        break;
      case 9:
        need(16);
        value = bytes.slice(at, at + 16);
        at += 16;
        break;
      default:
        throw new Error(`Bedrock event stream: unknown header type ${type}`);
    }
    headers[name] = value;
  }
  return headers;
}

/** Decodes one complete message (exactly `bytes`). */
export function decodeMessage(bytes: Uint8Array): EventStreamMessage {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const totalLength = view.getUint32(0);
  const headersLength = view.getUint32(4);
  if (totalLength !== bytes.byteLength) throw new Error("Bedrock event stream: message length mismatch");
  if (crc32(bytes.subarray(0, 8)) !== view.getUint32(8)) throw new Error("Bedrock event stream: prelude checksum mismatch");
  if (crc32(bytes.subarray(0, totalLength - CHECKSUM_LENGTH)) !== view.getUint32(totalLength - CHECKSUM_LENGTH)) {
    throw new Error("Bedrock event stream: message checksum mismatch");
  }
  const headersEnd = PRELUDE_LENGTH + headersLength;
  if (headersEnd > totalLength - CHECKSUM_LENGTH) throw new Error("Bedrock event stream: headers run past the message");
  return {
    headers: readHeaders(view, bytes, PRELUDE_LENGTH, headersEnd),
    payload: bytes.slice(headersEnd, totalLength - CHECKSUM_LENGTH),
  };
}

/** Splits a byte stream into messages, however the network cut it into chunks. */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<EventStreamMessage> {
  let buffer: Uint8Array = new Uint8Array(0);
  for await (const chunk of body) {
    buffer = buffer.length === 0 ? chunk : concat(buffer, chunk);
    while (buffer.length >= PRELUDE_LENGTH) {
      const totalLength = new DataView(buffer.buffer, buffer.byteOffset, 4).getUint32(0);
      if (totalLength < PRELUDE_LENGTH + CHECKSUM_LENGTH || totalLength > MAX_MESSAGE_LENGTH) {
        throw new Error(`Bedrock event stream: impossible message length ${totalLength}`);
      }
      if (buffer.length < totalLength) break;
      yield decodeMessage(buffer.subarray(0, totalLength));
      buffer = buffer.subarray(totalLength);
    }
  }
  if (buffer.length > 0) throw new Error("Bedrock event stream: the connection closed inside a message");
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
