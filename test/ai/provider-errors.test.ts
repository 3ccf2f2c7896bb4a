/**
 * Provider failures in words a user can act on, and whether another try can help: the
 * errors here have the shapes Bun's fetch and the SDKs produce (a DNS failure cannot be
 * made without the network, so its error object is built as Bun builds it).
 */
import { describe, expect, test } from "bun:test";
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { isTransientError } from "../../src/ai/errors.ts";
import { describeProviderFailure, retryAfterFromHeaders } from "../../src/ai/provider-errors.ts";

/** What Bun's fetch throws: a TypeError with code, path (the URL) and, for DNS, hostname. */
function bunFetchError(code: string, url: string, message: string): Error {
  return Object.assign(new TypeError(message), { code, path: url, errno: 0, ...(code === "ENOTFOUND" ? { hostname: new URL(url).hostname } : {}) });
}

describe("network failures", () => {
  test("a refused connection behind the SDK's bare 'Connection error.' names the address and the cause, and is retried", () => {
    const cause = bunFetchError("ECONNREFUSED", "http://127.0.0.1:11434/v1/chat/completions", "Unable to connect. Is the computer able to access the url?");
    const { message } = describeProviderFailure(new APIConnectionError({ cause }), "ollama");
    expect(message).toBe("Cannot reach 127.0.0.1:11434: connection refused (ECONNREFUSED)");
    expect(isTransientError(message)).toBe(true);
  });

  test("a host that does not resolve is said so, and not retried", () => {
    const cause = bunFetchError("ENOTFOUND", "https://api.example-typo.invalid/v1/messages", "getaddrinfo ENOTFOUND api.example-typo.invalid");
    const { message } = describeProviderFailure(new APIConnectionError({ cause }), "anthropic");
    expect(message).toStartWith("Cannot reach api.example-typo.invalid:443: host not found (DNS) (ENOTFOUND)");
    expect(isTransientError(message)).toBe(false);
  });

  test("a certificate the system does not trust says which variable to set, and is not retried", () => {
    const cause = Object.assign(new Error("unable to get local issuer certificate"), { code: "UNABLE_TO_GET_ISSUER_CERT_LOCALLY" });
    const { message } = describeProviderFailure(new APIConnectionError({ cause }), "openai");
    expect(message).toContain("NODE_EXTRA_CA_CERTS");
    expect(isTransientError(message)).toBe(false);
  });

  test("a timeout and a connection failure without a known code name where the request went", () => {
    const timeout = describeProviderFailure(new APIConnectionTimeoutError(), "openai", "https://api.openai.com/v1");
    expect(timeout.message).toBe("Cannot reach api.openai.com:443: the request timed out");
    expect(isTransientError(timeout.message)).toBe(true);
    const odd = describeProviderFailure(new APIConnectionError({ cause: new Error("socket hang up") }), "openai", "http://10.0.0.5:8000/v1");
    expect(odd.message).toBe("Cannot reach 10.0.0.5:8000: socket hang up");
  });

  test("behind a proxy the message names it", () => {
    const saved = process.env.HTTPS_PROXY;
    process.env.HTTPS_PROXY = "http://proxy.corp:3128";
    try {
      const cause = bunFetchError("ECONNRESET", "https://api.openai.com/v1/responses", "socket closed");
      expect(describeProviderFailure(new APIConnectionError({ cause }), "openai").message).toBe(
        "Cannot reach api.openai.com:443 through the proxy http://proxy.corp:3128: connection reset (ECONNRESET)",
      );
    } finally {
      if (saved === undefined) delete process.env.HTTPS_PROXY;
      else process.env.HTTPS_PROXY = saved;
    }
  });
});

describe("HTTP errors", () => {
  test("401 and 403 keep the provider's message and are not retried", () => {
    const headers = new Headers();
    for (const status of [401, 403]) {
      const error = APIError.generate(status, { error: { message: "Incorrect API key provided: sk-abc.", type: "invalid_request_error" } }, undefined, headers);
      const { message } = describeProviderFailure(error, "openai");
      expect(message).toBe(`${status} invalid_request_error: Incorrect API key provided: sk-abc.`);
      expect(isTransientError(message)).toBe(false);
    }
  });

  test("brackets in a message are not taken for a body: 'tools[3]' stays in the message", () => {
    const error = APIError.generate(400, { error: { message: "Bad field: tools[3]", type: "invalid_request_error" } }, undefined, new Headers());
    const failure = describeProviderFailure(error, "openai");
    expect(failure.message).toBe("400 invalid_request_error: Bad field: tools[3]");
    expect(JSON.parse(failure.rawBody!)).toEqual({ error: { message: "Bad field: tools[3]", type: "invalid_request_error" } });
  });

  test("retry-after-ms wins over retry-after; retry-after may be seconds or an HTTP date", () => {
    expect(retryAfterFromHeaders(new Headers({ "retry-after-ms": "250", "retry-after": "3" }))).toBe(250);
    expect(retryAfterFromHeaders(new Headers({ "retry-after": "2" }))).toBe(2000);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterFromHeaders({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }, now)).toBe(5000);
    expect(retryAfterFromHeaders(new Headers())).toBeUndefined();
  });

  test("Gemini's RetryInfo in an error thrown as '429 {json}' sets the wait", () => {
    const body = { error: { code: 429, message: "Quota exceeded.", status: "RESOURCE_EXHAUSTED", details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1.5s" }] } };
    const failure = describeProviderFailure(new Error(`429 ${JSON.stringify(body)}`), "google");
    expect(failure).toEqual({ message: "429 rate limited by google: Quota exceeded.", retryAfterMs: 1500, rawBody: JSON.stringify(body) });
  });

  test("without a header, the wait a message names is the wait: OpenAI's Go durations, Gemini's fractional seconds", () => {
    // Messages as OpenAI and Gemini wrote them (continuedev/continue#11472, openai/codex#10060, discuss.ai.google.dev/t/113924).
    const openai = (message: string, headers = new Headers()) =>
      describeProviderFailure(APIError.generate(429, { error: { message, type: "tokens", code: "rate_limit_exceeded" } }, undefined, headers), "openai").retryAfterMs;
    expect(openai("Limit 30000, Used 18928, Requested 11159. Please try again in 174ms. Visit https://platform.openai.com/account/rate-limits to learn more.")).toBe(174);
    expect(openai("Limit 250000, Used 250000, Requested 57059. Please try again in 13.694s")).toBe(13_694);
    expect(openai("Limit 10000 / min. Please try again in 1m30s.")).toBe(90_000);
    // A header says it first.
    expect(openai("Please try again in 13.694s", new Headers({ "retry-after": "2" }))).toBe(2000);
    // No number, no wait: the backoff decides.
    expect(openai("Please try again later.")).toBeUndefined();
    const gemini = { error: { code: 429, message: "Quota exceeded for metric: generate_content_free_tier_requests, limit: 0\nPlease retry in 856.559356ms.", status: "RESOURCE_EXHAUSTED" } };
    expect(describeProviderFailure(new Error(`429 ${JSON.stringify(gemini)}`), "google").retryAfterMs).toBe(857);
  });

  test("OpenAI's 429s that no wait mends are final: out of credit, a request over the whole per-minute budget", () => {
    const quota = APIError.generate(429, { error: { message: "You exceeded your current quota, please check your plan and billing details.", type: "insufficient_quota", code: "insufficient_quota" } }, undefined, new Headers({ "retry-after": "1" }));
    const failure = describeProviderFailure(quota, "openai");
    expect(failure.message).toBe("429 insufficient_quota: You exceeded your current quota, please check your plan and billing details. (retrying will not help)");
    expect(failure.retryAfterMs).toBeUndefined();
    expect(isTransientError(failure.message)).toBe(false);
    const tooLarge = APIError.generate(429, { error: { message: "Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 31538. The input or output tokens must be reduced in order to run successfully.", type: "tokens", code: "rate_limit_exceeded" } }, undefined, new Headers());
    expect(isTransientError(describeProviderFailure(tooLarge, "openai").message)).toBe(false);
    // Gemini says the same words of a limit that resets: its 429 stays a rate limit, retried.
    const gemini = { error: { code: 429, message: "You exceeded your current quota, please check your plan and billing details.", status: "RESOURCE_EXHAUSTED" } };
    const geminiFailure = describeProviderFailure(new Error(`429 ${JSON.stringify(gemini)}`), "google");
    expect(geminiFailure.message).toBe("429 rate limited by google: You exceeded your current quota, please check your plan and billing details.");
    expect(isTransientError(geminiFailure.message)).toBe(true);
  });

  test("an error event inside a stream (no status) reads as its kind and message", () => {
    const raw = JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    const failure = describeProviderFailure(new Error(raw), "anthropic");
    expect(failure.message).toBe("overloaded_error: Overloaded");
    expect(isTransientError(failure.message)).toBe(true);
  });
});
