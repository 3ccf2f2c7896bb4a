/**
 * A provider failure in words a user can act on. The SDKs report a refused connection as
 * a bare "Connection error." and an HTTP error as the status followed by the raw JSON
 * body; this module finds the cause (and the address) of a network failure, reduces an
 * error body to its message, and reads how long the provider asked us to wait
 * (`retry-after-ms`, `retry-after`, Gemini's `RetryInfo.retryDelay`, else the wait the
 * message itself names: OpenAI sends its 429s with no such header, only "Please try again
 * in 26.604s"). A refusal no wait can mend (out of credit; one request larger than the
 * whole per-minute budget) is marked final, so it is not retried. Anthropic and OpenAI also
 * say outright whether to retry (`x-should-retry: true|false`); as their own SDKs do, that
 * word comes before our rules by status: `false` is final, `true` asks for a retry even of a
 * status we would not retry (a 400, say). The raw body is kept apart (AssistantMessage.errorBody)
 * for whoever debugs. The real bodies these rules were
 * written against are in test/fixtures/provider-streams/error-bodies.json.
 */
import { CA_HINT, certificateFailure } from "./tls-errors.ts";
import { redactCredentials } from "./verbose-error-body.ts";

export interface ProviderFailure {
  /** One line: what failed and why, starting with the HTTP status when there was one. */
  message: string;
  /** The wait the provider asked for before the next request. */
  retryAfterMs?: number;
  /** The provider asked for a retry (`x-should-retry: true`), whatever the status. */
  retryAdvised?: true;
  /** The error body as the provider sent it. */
  rawBody?: string;
}

/** Network error codes, what they mean, and whether another try can help. */
const NETWORK_CAUSES: Record<string, { what: string; final?: boolean }> = {
  ECONNREFUSED: { what: "connection refused" },
  ECONNRESET: { what: "connection reset" },
  ETIMEDOUT: { what: "connection timed out" },
  ENETUNREACH: { what: "network unreachable" },
  EHOSTUNREACH: { what: "host unreachable" },
  EPIPE: { what: "connection closed while sending" },
  ENOTFOUND: { what: "host not found (DNS)", final: true },
  EAI_AGAIN: { what: "DNS lookup failed temporarily" },
  ConnectionRefused: { what: "connection refused" },
  ConnectionClosed: { what: "connection closed" },
  FailedToOpenSocket: { what: "could not open a socket" },
};

/** Marks a failure retrying cannot mend (matched by errors.ts isTransientError). */
export const FINAL_FAILURE_MARK = "(retrying will not help)";

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  path?: unknown;
  hostname?: unknown;
  address?: unknown;
  port?: unknown;
  cause?: unknown;
  status?: unknown;
  headers?: unknown;
  error?: unknown;
  /** The body verbatim, from clients that call fetch themselves (Bedrock). */
  responseBody?: unknown;
}

/** The errors in a cause chain, outermost first. */
function causeChain(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === "object"; depth++) {
    chain.push(current as ErrorLike);
    current = (current as ErrorLike).cause;
  }
  return chain;
}

/** host:port of the failed request, from whatever the runtime put on the error. */
function addressOf(link: ErrorLike): string | undefined {
  if (typeof link.path === "string" && /^[a-z]+:\/\//i.test(link.path)) {
    try {
      const url = new URL(link.path);
      const port = url.port || (url.protocol === "https:" ? "443" : "80");
      return `${url.hostname}:${port}`;
    } catch {
      // fall through
    }
  }
  const host = typeof link.address === "string" ? link.address : typeof link.hostname === "string" ? link.hostname : undefined;
  if (!host) return undefined;
  return link.port !== undefined ? `${host}:${link.port}` : host;
}

function proxyInUse(): string | undefined {
  const env = process.env;
  return env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy || undefined;
}

/** "cannot reach 127.0.0.1:1: connection refused (ECONNREFUSED)", or undefined when no network cause is found. */
function networkFailure(error: unknown): string | undefined {
  for (const link of causeChain(error)) {
    if (typeof link.code !== "string") continue;
    const cause = NETWORK_CAUSES[link.code];
    if (!cause) continue;
    const address = addressOf(link);
    const proxy = proxyInUse();
    const via = proxy ? ` through the proxy ${proxy}` : "";
    const final = cause.final ? ` ${FINAL_FAILURE_MARK}` : "";
    return `Cannot reach ${address ?? "the provider"}${via}: ${cause.what} (${link.code})${final}`;
  }
  return undefined;
}

// --- HTTP errors ------------------------------------------------------------------

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

interface BodyError {
  message?: string;
  /** What kind of failure: Anthropic's and OpenAI's `type`, Gemini's `status`. */
  kind?: string;
  /** OpenAI's machine-readable `code` ("insufficient_quota", "rate_limit_exceeded"). */
  code?: string;
}

/** The message, kind and code inside the error bodies of Anthropic, OpenAI (and the many like it) and Gemini. */
function bodyMessage(body: unknown): BodyError {
  if (!body || typeof body !== "object") return {};
  const record = body as Record<string, any>;
  // Gemini sends an array of one error object from some endpoints.
  if (Array.isArray(body)) return bodyMessage(body[0]);
  const inner = record.error && typeof record.error === "object" ? record.error : record;
  // AWS spells it `Message` in some services' bodies.
  const found =
    typeof inner.message === "string" ? inner.message : typeof inner.Message === "string" ? inner.Message : typeof record.error === "string" ? record.error : undefined;
  // Gemini's messages end in a space now and then; the line a user reads does not.
  const message = found?.trim();
  const kind = typeof inner.type === "string" && inner.type !== "error" ? inner.type : typeof inner.status === "string" ? inner.status : undefined;
  const code = typeof inner.code === "string" ? inner.code : undefined;
  return { message, kind, code };
}

/**
 * Why no wait can mend this refusal, or undefined when one may. A 429 is most often a
 * limit that resets within the minute, but OpenAI also answers 429 when the account is
 * out of credit (`insufficient_quota`) and when one request is larger than the whole
 * per-minute budget ("…must be reduced in order to run successfully"): both fail the
 * same way however long one waits. Read from the code, not the words: Gemini says "You
 * exceeded your current quota, please check your plan and billing details" of limits
 * that do reset.
 */
function finalRefusal(error: BodyError): "insufficient_quota" | "request_too_large" | undefined {
  if (error.code === "insufficient_quota" || error.kind === "insufficient_quota") return "insufficient_quota";
  if (error.message && /\bmust be reduced in order to run successfully\b/i.test(error.message)) return "request_too_large";
  return undefined;
}

/** Units of the durations providers write: Go's (OpenAI: "1m30s", "644ms") and Gemini's seconds ("8.941621227s"). */
const DURATION_UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
const DURATION = /(?:\d+(?:\.\d+)?(?:ms|h|m|s))+/;

/** "26.604s", "644ms", "1m30s" in milliseconds. */
function parseDuration(text: string): number {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) total += Number(amount) * DURATION_UNIT_MS[unit];
  return Math.round(total);
}

/**
 * The wait a message names: OpenAI's "Please try again in 26.604s." and Gemini's "Please
 * retry in 8.941621227s.". The last resort, after the headers and Gemini's RetryInfo.
 */
function messageRetryDelay(message: string | undefined): number | undefined {
  const match = message ? new RegExp(`\\b(?:try again|retry) in (${DURATION.source})(?![a-z])`, "i").exec(message) : null;
  return match ? parseDuration(match[1]) : undefined;
}

/** Gemini's google.rpc.RetryInfo: `"retryDelay": "2s"` (or "1.5s") among the error's details. */
function geminiRetryDelay(body: unknown): number | undefined {
  const details = (body as any)?.error?.details ?? (Array.isArray(body) ? (body[0] as any)?.error?.details : undefined);
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    const delay = detail?.retryDelay;
    const match = typeof delay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(delay.trim()) : undefined;
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

function headerOf(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

/** `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date. */
export function retryAfterFromHeaders(headers: unknown, now = Date.now()): number | undefined {
  const ms = headerOf(headers, "retry-after-ms");
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const after = headerOf(headers, "retry-after");
  if (after === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(after.trim())) return Math.round(Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function isErrorBody(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0 && value[0] !== null && typeof value[0] === "object";
  return value !== null && typeof value === "object";
}

/** The status and body of an SDK's HTTP error, or of an Error worded "429 {json…}". */
function httpParts(error: ErrorLike): { status: number; body: unknown; rawBody?: string; headers?: unknown } | undefined {
  const status = typeof error.status === "number" ? error.status : undefined;
  const text = typeof error.message === "string" ? error.message : "";
  // "429 {…}" (Anthropic's SDK, Bedrock), "{…}" (Gemini's SDK), or a body-less status.
  const jsonStart = text.indexOf("{");
  const arrayStart = text.indexOf("[");
  const start = jsonStart === -1 ? arrayStart : arrayStart === -1 ? jsonStart : Math.min(jsonStart, arrayStart);
  // Only an error body counts: an object (or Gemini's array of one), not "[3]" out of "Bad field: tools[3]".
  const parsed = start >= 0 ? parseJson(text.slice(start)) : undefined;
  const fromText = isErrorBody(parsed) ? parsed : undefined;
  const leadingStatus = /^(\d{3})\b/.exec(text);
  const resolved = status ?? (leadingStatus && fromText !== undefined ? Number(leadingStatus[1]) : undefined);
  if (resolved === undefined || resolved < 400 || resolved > 599) return undefined;
  // A client that kept the body verbatim says so; OpenAI's SDK keeps the body's `error` object; Anthropic's keeps the whole body.
  const verbatim = typeof error.responseBody === "string" && error.responseBody.trim() ? error.responseBody : undefined;
  const fromVerbatim = verbatim !== undefined ? parseJson(verbatim) : undefined;
  const sdkBody = error.error && typeof error.error === "object" ? error.error : undefined;
  const body = fromVerbatim ?? fromText ?? (sdkBody && "message" in (sdkBody as object) && !("error" in (sdkBody as object)) ? { error: sdkBody } : sdkBody);
  const rawBody = verbatim ?? (fromText !== undefined ? text.slice(start) : body !== undefined ? JSON.stringify(body) : undefined);
  return { status: resolved, body, rawBody, headers: error.headers };
}

function describeHttp(error: ErrorLike, provider: string): ProviderFailure | undefined {
  const parts = httpParts(error);
  if (!parts) return undefined;
  const { status, body } = parts;
  const fromBody = bodyMessage(body);
  const message = fromBody.message;
  // AWS names the error's kind in a header (`x-amzn-errortype: ThrottlingException:http://…`).
  const kind = fromBody.kind ?? headerOf(parts.headers, "x-amzn-errortype")?.split(":")[0];
  const fallback = typeof error.message === "string" ? error.message.replace(/^\d{3}\s*/, "") : "";
  const text = message ?? (parts.rawBody === undefined ? fallback : "") ?? "";
  const refusal = finalRefusal(fromBody);
  // The kind names the failure (overloaded_error, RESOURCE_EXHAUSTED); a rate limit says whose;
  // an empty account is no rate limit, though OpenAI answers it with a 429 too.
  const lead = status === 429 && refusal !== "insufficient_quota" ? `rate limited by ${provider}` : (kind ?? "");
  const detail = [lead, text && text !== lead ? text : ""].filter(Boolean).join(": ");
  // The provider's own word on retrying. A refusal we know no wait mends (an empty account)
  // stays final even if a gateway in front says `true`: the body is the more specific witness.
  const advice = headerOf(parts.headers, "x-should-retry")?.trim().toLowerCase();
  const final = refusal !== undefined || advice === "false";
  const retryAdvised = !final && advice === "true";
  const retryAfterMs = final ? undefined : (retryAfterFromHeaders(parts.headers) ?? geminiRetryDelay(body) ?? messageRetryDelay(message));
  return {
    message: `${status} ${detail || "status code (no body)"}${final ? ` ${FINAL_FAILURE_MARK}` : ""}`,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(retryAdvised ? { retryAdvised: true as const } : {}),
    ...(parts.rawBody !== undefined ? { rawBody: parts.rawBody } : {}),
  };
}

/** host:port of a base URL, for failures that carry no address of their own. */
function hostOf(baseUrl: string | undefined): string | undefined {
  if (!baseUrl) return undefined;
  return addressOf({ path: baseUrl });
}

/**
 * The SDKs' connection errors without a known code ("Connection error.", "Request timed
 * out."): what the cause chain says, and where the request went.
 */
function connectionFailure(error: unknown, baseUrl: string | undefined): string | undefined {
  const chain = causeChain(error);
  // The OpenAI and Anthropic SDKs' APIConnectionError and APIConnectionTimeoutError, known by their fixed texts.
  const text = typeof chain[0]?.message === "string" ? chain[0].message : "";
  const timedOut = /^Request timed out\.?$/.test(text);
  if (!timedOut && text !== "Connection error.") return undefined;
  const where = hostOf(baseUrl) ?? "the provider";
  if (timedOut) return `Cannot reach ${where}: the request timed out`;
  const inner = chain.slice(1).find((link) => typeof link.message === "string" && link.message);
  return `Cannot reach ${where}: ${inner ? String(inner.message) : "the connection failed"}`;
}

/**
 * Anything a provider threw, as a ProviderFailure. `baseUrl` names where a request went when
 * the error does not. The message and body are shown to users and kept in session files, so
 * credentials a provider echoed back are taken out (`secrets`: the key in use, beside the
 * environment's credential variables and key-shaped text).
 */
export function describeProviderFailure(error: unknown, provider: string, baseUrl?: string, secrets: readonly (string | undefined)[] = []): ProviderFailure {
  const failure = describeUnredacted(error, provider, baseUrl);
  failure.message = redactCredentials(failure.message, secrets);
  if (failure.rawBody !== undefined) failure.rawBody = redactCredentials(failure.rawBody, secrets);
  return failure;
}

function describeUnredacted(error: unknown, provider: string, baseUrl?: string): ProviderFailure {
  const certificate = certificateFailure(error);
  if (certificate) return { message: `Certificate not trusted: ${certificate}. ${CA_HINT}` };
  if (error && typeof error === "object") {
    const http = describeHttp(error as ErrorLike, provider);
    if (http) return http;
    const network = networkFailure(error) ?? connectionFailure(error, baseUrl);
    if (network) return { message: network };
    // An error event inside a stream (Anthropic's `overloaded_error` mid-reply): a body without a status.
    const text = (error as ErrorLike).message;
    if (typeof text === "string" && /^\s*[{[]/.test(text)) {
      const { message, kind } = bodyMessage(parseJson(text));
      if (message) return { message: kind ? `${kind}: ${message}` : message, rawBody: text };
    }
  }
  if (error instanceof Error) return { message: error.message || error.name };
  if (typeof error === "string") return { message: error };
  try {
    return { message: JSON.stringify(error) };
  } catch {
    return { message: String(error) };
  }
}
