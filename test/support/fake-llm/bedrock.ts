/**
 * A fake Amazon Bedrock runtime: `POST /model/<id>/converse-stream`, answered in AWS's
 * binary event-stream framing, from the same scripts as the other fake APIs. It checks
 * each request's credentials as Bedrock would: a SigV4 signature is recomputed here,
 * from the request as received and the secret of the access key it names (an
 * implementation of its own, on node:crypto, so a signer bug cannot agree with itself),
 * and a bearer token must be one the test allowed. A request that fails the check gets
 * Bedrock's 403 and is recorded with the reason.
 */
import { createHash, createHmac } from "node:crypto";
import { chunkText, normalizeReply, type FakeResponse, type NormalizedReply, type RecordedRequest, type ScriptStep } from "./script.ts";

export interface BedrockRecordedRequest extends Omit<RecordedRequest, "api"> {
  api: "bedrock-converse-stream";
  /** What the credential check found: "sigv4", "bearer", or why it failed. */
  auth: "sigv4" | "bearer" | "none" | `rejected: ${string}`;
  /** The region and service of a SigV4 credential scope. */
  scope?: { region: string; service: string; accessKeyId: string };
}

export interface FakeBedrockOptions {
  /** Secret keys by access key id: signatures by these keys are accepted. */
  accessKeys?: Record<string, string>;
  /** Bearer tokens that are accepted. */
  bearerTokens?: string[];
  /** Accept requests with no Authorization at all (a proxy that signs). */
  allowAnonymous?: boolean;
}

export interface FakeBedrockServer {
  url: string;
  enqueue(...steps: ScriptStep[]): void;
  /** Answers the next request with these event-stream frames as they are (e.g. an exception mid-stream). */
  enqueueFrames(frames: Uint8Array[]): void;
  requests: BedrockRecordedRequest[];
  clearScript(): void;
  close(): Promise<void>;
}

// --- event-stream encoding ------------------------------------------------------

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (IEEE), table-driven: independent of the Bun.hash.crc32 the decoder uses. */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** One event-stream message with string headers (type 7) and a JSON payload. */
export function encodeEventMessage(headers: Record<string, string>, payload: unknown): Uint8Array {
  const utf8 = new TextEncoder();
  const headerParts: number[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const nameBytes = utf8.encode(name);
    const valueBytes = utf8.encode(value);
    headerParts.push(nameBytes.length, ...nameBytes, 7, valueBytes.length >> 8, valueBytes.length & 0xff, ...valueBytes);
  }
  const headerBytes = Uint8Array.from(headerParts);
  const payloadBytes = utf8.encode(JSON.stringify(payload));
  const total = 12 + headerBytes.length + payloadBytes.length + 4;
  const message = new Uint8Array(total);
  const view = new DataView(message.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headerBytes.length);
  view.setUint32(8, crc32(message.subarray(0, 8)));
  message.set(headerBytes, 12);
  message.set(payloadBytes, 12 + headerBytes.length);
  view.setUint32(total - 4, crc32(message.subarray(0, total - 4)));
  return message;
}

const event = (type: string, payload: unknown) =>
  encodeEventMessage({ ":event-type": type, ":content-type": "application/json", ":message-type": "event" }, payload);

export const bedrockException = (type: string, message: string) =>
  encodeEventMessage({ ":exception-type": type, ":content-type": "application/json", ":message-type": "exception" }, { message });

const STOP_REASONS = { stop: "end_turn", length: "max_tokens", toolUse: "tool_use" } as const;

/** A reply as ConverseStream sends it: one content block per scripted block, then stop and usage. */
export function encodeConverseReply(reply: NormalizedReply): Uint8Array[] {
  const frames = [event("messageStart", { role: "assistant" })];
  reply.content.forEach((block, contentBlockIndex) => {
    if (block.type === "text") {
      for (const text of chunkText(block.text, reply.chunkSize)) frames.push(event("contentBlockDelta", { contentBlockIndex, delta: { text } }));
    } else if (block.type === "thinking") {
      for (const text of chunkText(block.thinking, reply.chunkSize)) {
        frames.push(event("contentBlockDelta", { contentBlockIndex, delta: { reasoningContent: { text } } }));
      }
      frames.push(event("contentBlockDelta", { contentBlockIndex, delta: { reasoningContent: { signature: block.signature } } }));
    } else {
      frames.push(event("contentBlockStart", { contentBlockIndex, start: { toolUse: { toolUseId: block.id, name: block.name } } }));
      for (const input of chunkText(JSON.stringify(block.arguments), reply.chunkSize)) {
        frames.push(event("contentBlockDelta", { contentBlockIndex, delta: { toolUse: { input } } }));
      }
    }
    frames.push(event("contentBlockStop", { contentBlockIndex }));
  });
  frames.push(event("messageStop", { stopReason: STOP_REASONS[reply.stopReason] }));
  const { input, output, cacheRead, cacheWrite } = reply.usage;
  frames.push(
    event("metadata", {
      usage: { inputTokens: input, outputTokens: output, totalTokens: input + output + cacheRead + cacheWrite, cacheReadInputTokens: cacheRead, cacheWriteInputTokens: cacheWrite },
      metrics: { latencyMs: 1 },
    }),
  );
  return frames;
}

// --- SigV4 verification ---------------------------------------------------------

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/** RFC 3986 encoding of everything but the unreserved characters, as SigV4 wants. */
function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * The signature AWS would compute for this request (non-S3 rules: each path segment
 * as received is encoded once more; query sorted; the signed headers, trimmed).
 */
export function expectedSignature(input: {
  method: string;
  rawPath: string;
  query: URLSearchParams;
  headers: Headers;
  signedHeaders: string[];
  body: string;
  amzDate: string;
  scope: string;
  secretAccessKey: string;
}): string {
  const canonicalUri = input.rawPath.split("/").map(uriEncode).join("/");
  const canonicalQuery = [...input.query]
    .map(([key, value]) => [uriEncode(key), uriEncode(value)])
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join("&");
  const canonicalHeaders = input.signedHeaders.map((name) => `${name}:${(input.headers.get(name) ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
  const canonicalRequest = [input.method, canonicalUri, canonicalQuery, canonicalHeaders, input.signedHeaders.join(";"), sha256(input.body)].join("\n");
  const stringToSign = ["AWS4-HMAC-SHA256", input.amzDate, input.scope, sha256(canonicalRequest)].join("\n");
  const [date, region, service] = input.scope.split("/");
  const key = hmac(hmac(hmac(hmac(`AWS4${input.secretAccessKey}`, date), region), service), "aws4_request");
  return createHmac("sha256", key).update(stringToSign).digest("hex");
}

const AUTH_PATTERN = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;

function checkAuth(req: Request, rawPath: string, body: string, options: FakeBedrockOptions): Pick<BedrockRecordedRequest, "auth" | "scope"> {
  const authorization = req.headers.get("authorization");
  if (!authorization) return { auth: options.allowAnonymous ? "none" : "rejected: no Authorization header" };
  if (authorization.startsWith("Bearer ")) {
    return { auth: options.bearerTokens?.includes(authorization.slice(7)) ? "bearer" : "rejected: unknown bearer token" };
  }
  const match = AUTH_PATTERN.exec(authorization);
  if (!match) return { auth: "rejected: malformed Authorization header" };
  const [, accessKeyId, scope, signedHeaderList, signature] = match;
  const [, region, service] = scope.split("/");
  const found = { region, service, accessKeyId };
  const secretAccessKey = options.accessKeys?.[accessKeyId];
  if (!secretAccessKey) return { auth: "rejected: unknown access key", scope: found };
  const amzDate = req.headers.get("x-amz-date") ?? "";
  if (!scope.startsWith(amzDate.slice(0, 8))) return { auth: "rejected: date outside the scope", scope: found };
  const signedHeaders = signedHeaderList.split(";");
  if (!signedHeaders.includes("host") || !signedHeaders.includes("x-amz-date")) return { auth: "rejected: host or date unsigned", scope: found };
  if (req.headers.has("x-amz-security-token") && !signedHeaders.includes("x-amz-security-token")) {
    return { auth: "rejected: session token unsigned", scope: found };
  }
  const url = new URL(req.url);
  const expected = expectedSignature({ method: req.method, rawPath, query: url.searchParams, headers: req.headers, signedHeaders, body, amzDate, scope, secretAccessKey });
  return expected === signature ? { auth: "sigv4", scope: found } : { auth: "rejected: signature mismatch", scope: found };
}

// --- server ---------------------------------------------------------------------

const DEFAULT_REPLY: FakeResponse = { content: [{ type: "text", text: "Hello from fake Bedrock." }] };

export function startFakeBedrock(options: FakeBedrockOptions = {}): FakeBedrockServer {
  const script: (ScriptStep | { frames: Uint8Array[] })[] = [];
  const requests: BedrockRecordedRequest[] = [];
  let sequence = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      // The path as it came over the wire: `new URL` would keep it, but say so plainly.
      const rawPath = req.url.slice(req.url.indexOf("/", req.url.indexOf("//") + 2)).split("?")[0];
      const match = /^\/model\/([^/]+)\/converse-stream$/.exec(rawPath);
      if (req.method !== "POST" || !match) return Response.json({ message: `fake-bedrock: no API at ${req.method} ${rawPath}` }, { status: 404 });
      const text = await req.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      const recorded: BedrockRecordedRequest = {
        api: "bedrock-converse-stream",
        method: req.method,
        path: rawPath,
        query: Object.fromEntries(new URL(req.url).searchParams),
        headers: Object.fromEntries(req.headers),
        body,
        model: decodeURIComponent(match[1]),
        receivedAt: Date.now(),
        ...checkAuth(req, rawPath, text, options),
      };
      requests.push(recorded);
      if (recorded.auth.startsWith("rejected")) {
        return Response.json(
          { message: `The request signature we calculated does not match the signature you provided (${recorded.auth})` },
          { status: 403, headers: { "x-amzn-ErrorType": "UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/" } },
        );
      }
      const next = script.shift() ?? DEFAULT_REPLY;
      const raw = "frames" in next ? [...next.frames] : undefined;
      const step = next as ScriptStep;
      const response = raw ? DEFAULT_REPLY : typeof step === "function" ? step(recorded as unknown as RecordedRequest) : step;
      if (response.type === "error") {
        const message = response.message ?? `Scripted error ${response.status}`;
        return Response.json(response.body ?? { message }, { status: response.status, headers: response.headers });
      }
      if (response.type === "raw") throw new Error("fake-bedrock: raw replies are not supported; enqueue frames");
      const frames = raw ?? encodeConverseReply(normalizeReply(response, recorded as unknown as RecordedRequest, ++sequence));
      return new Response(
        new ReadableStream({
          pull(controller) {
            const frame = frames.shift();
            if (frame) controller.enqueue(frame);
            else controller.close();
          },
        }),
        { headers: { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": `req-${sequence}` } },
      );
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    enqueue: (...steps) => void script.push(...steps),
    enqueueFrames: (frames) => void script.push({ frames }),
    requests,
    clearScript: () => void (script.length = 0),
    close: () => server.stop(true),
  };
}
