/**
 * Where one plain-http request ends, for the filtering proxy (network-proxy.ts): it
 * forwards exactly one request per connection and drops whatever the client sends after
 * it. Without this, a second request pipelined behind an allowed one (`GET http://allowed/`
 * then `GET http://evil/` in the same write) went along with the first — harmless to a
 * web server that honours `Connection: close`, but a proxy on the way (the network's own,
 * upstream-proxy.ts) would forward the second one to its host unchecked.
 *
 * So the head is held to the strict grammar (one space-separated request line, header
 * names that are tokens, no bare CR, LF or NUL, no folded lines) and the body framed the
 * way every party must read it: `Content-Length` (one value), or `Transfer-Encoding:
 * chunked` alone, or no body. Anything two parsers could read two ways (both headers,
 * another coding, differing lengths) is refused. Pure but for the meter's own count.
 */

export type Framing = { kind: "none" } | { kind: "length"; length: number } | { kind: "chunked" };

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The request line's three parts, or why it is not one. */
export function parseRequestLine(line: string): { method: string; target: string; version: string } | string {
  const parts = line.split(" ");
  const [method = "", target = "", version = ""] = parts;
  if (parts.length !== 3 || !/^HTTP\/1\.[01]$/.test(version)) return "not an HTTP/1.x proxy request";
  if (!TOKEN.test(method)) return "the method is not a token";
  if (!/^[\x21-\x7e]+$/.test(target)) return "the request target has spaces or control characters";
  return { method, target, version };
}

/** The body's framing from the header lines, or why they cannot be forwarded safely. */
export function requestFraming(headerLines: readonly string[]): Framing | string {
  let length: string | undefined;
  let chunked = false;
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name)) return `the header line ${JSON.stringify(line.slice(0, 40))} is not NAME: value`;
    const value = line.slice(colon + 1).trim();
    if (/[\r\n\0]/.test(value)) return `the header ${name} holds a bare CR, LF or NUL`;
    const lower = name.toLowerCase();
    if (lower === "content-length") {
      if (!/^\d{1,15}$/.test(value) || (length !== undefined && length !== value)) return "Content-Length is not one number";
      length = value;
    } else if (lower === "transfer-encoding") {
      if (value.toLowerCase() !== "chunked" || chunked) return "only Transfer-Encoding: chunked, once, is forwarded";
      chunked = true;
    }
  }
  if (chunked && length !== undefined) return "a request cannot have both Content-Length and Transfer-Encoding";
  if (chunked) return { kind: "chunked" };
  if (length !== undefined && Number(length) > 0) return { kind: "length", length: Number(length) };
  return { kind: "none" };
}

/**
 * A gate for the client's bytes after the head: passes those of the body and nothing after
 * it. A chunked body is followed through its size lines to the last chunk and trailers;
 * a malformed size line ends the request there (the server sees a body cut short).
 */
export function bodyGate(framing: Framing): (bytes: Uint8Array) => Uint8Array {
  if (framing.kind === "none") return () => new Uint8Array(0);
  if (framing.kind === "length") {
    let left = framing.length;
    return (bytes) => {
      const taken = bytes.subarray(0, Math.min(left, bytes.byteLength));
      left -= taken.byteLength;
      return taken;
    };
  }
  // Chunked: "size[;ext]\r\n" data "\r\n" … "0\r\n" (trailer lines) "\r\n".
  let state: "size" | "data" | "data-end" | "trailer" | "done" = "size";
  let line = "";
  let left = 0;
  return (bytes) => {
    let at = 0;
    while (at < bytes.byteLength && state !== "done") {
      if (state === "data") {
        const step = Math.min(left, bytes.byteLength - at);
        at += step;
        left -= step;
        if (left === 0) state = "data-end";
        continue;
      }
      const byte = bytes[at++]!;
      line += String.fromCharCode(byte);
      if (line.length > 1024) state = "done";
      if (byte !== 0x0a) continue;
      const text = line;
      line = "";
      if (state === "data-end") {
        state = text === "\r\n" ? "size" : "done";
      } else if (state === "size") {
        const size = /^([0-9a-fA-F]{1,12})(;[^\r\n]*)?\r\n$/.exec(text);
        if (!size) state = "done";
        else if ((left = parseInt(size[1]!, 16)) === 0) state = "trailer";
        else state = "data";
      } else if (state === "trailer" && text === "\r\n") {
        state = "done";
      }
    }
    return bytes.subarray(0, at);
  };
}
