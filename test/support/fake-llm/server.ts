/**
 * A local HTTP server that answers like the four LLM APIs xcsh speaks, replaying
 * scripted responses in their real streaming wire formats and recording every
 * request. Tests start one on port 0; `cli.ts` runs one by hand for debugging.
 */
import { anthropicEncoder } from "./anthropic.ts";
import { googleEncoder } from "./google.ts";
import { openaiCompletionsEncoder } from "./openai-completions.ts";
import { refusalFor, type FakeLimits } from "./limits.ts";
import { openaiResponsesEncoder } from "./openai-responses.ts";
import { defaultTypedReply, typedRouteOf, type TypedReply, type TypedRequest } from "./typed.ts";
import {
  normalizeReply,
  type FakeApi,
  type FakeHttpError,
  type FakeRawReply,
  type FakeResponse,
  type RecordedRequest,
  type ScriptStep,
  type WireEncoder,
} from "./script.ts";

export * from "./script.ts";
export type { FakeLimits } from "./limits.ts";
export { TINY_PNG, type TypedApi, type TypedReply, type TypedRequest } from "./typed.ts";

const ENCODERS: Record<FakeApi, WireEncoder> = {
  "anthropic-messages": anthropicEncoder,
  "openai-completions": openaiCompletionsEncoder,
  "openai-responses": openaiResponsesEncoder,
  "google-generative-ai": googleEncoder,
};

/** What is answered when the script has run out. */
const DEFAULT_REPLY: FakeResponse = { content: [{ type: "text", text: "Hello from the fake LLM server." }] };

export interface FakeLlmServer {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** The baseUrl a models.json provider of this API should use. */
  baseUrl(api: FakeApi): string;
  /** Appends responses to the script; each request takes the next one. */
  enqueue(...steps: ScriptStep[]): void;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** Responses still waiting in the script. */
  pending(): number;
  /** Drops every response still waiting (a failed test must not leave replies for the next). */
  clearScript(): void;
  /** Requests whose streams are still open (e.g. stalled ones). */
  openStreams(): number;
  /** Appends answers for classifier and image requests (typed.ts); each such request takes the next one. */
  enqueueTyped(...replies: TypedReply[]): void;
  /** Every classifier and image request received, oldest first. */
  typedRequests: TypedRequest[];
  /** Refusals made before the script is consulted (limits.ts); change them at any time. */
  limits: FakeLimits;
  close(): Promise<void>;
}

export interface FakeLlmOptions {
  port?: number;
  hostname?: string;
  script?: ScriptStep[];
  /** Called for each request, after it is recorded (the CLI logs with it). */
  onRequest?: (request: RecordedRequest) => void;
  /** Requests over a context window, or carrying images, refused as the provider would (limits.ts). */
  limits?: FakeLimits;
  /** Serve HTTPS with this certificate (PEM text); the URL then names `localhost`, which the test certificate covers. */
  tls?: { cert: string; key: string };
}

function routeOf(method: string, path: string): FakeApi | undefined {
  if (method !== "POST") return undefined;
  if (path.endsWith("/messages")) return "anthropic-messages";
  if (path.endsWith("/chat/completions")) return "openai-completions";
  if (path.endsWith("/responses")) return "openai-responses";
  if (/:(stream)?generateContent$/i.test(path)) return "google-generative-ai";
  return undefined;
}

function modelOf(api: FakeApi, path: string, body: any): string {
  if (api === "google-generative-ai") {
    const match = /models\/([^/:]+):/.exec(path);
    return match ? decodeURIComponent(match[1]) : "unknown";
  }
  return typeof body?.model === "string" ? body.model : "unknown";
}

/** A recorded response served byte for byte, cut short when asked. */
function rawResponse(reply: FakeRawReply, opened: () => void, closed: () => void): Response {
  const all = typeof reply.body === "string" ? new TextEncoder().encode(reply.body) : reply.body;
  const bytes = reply.cutAtByte !== undefined ? all.subarray(0, reply.cutAtByte) : all;
  const status = reply.status ?? 200;
  const headers = { "content-type": reply.contentType ?? (status === 200 ? "text/event-stream" : "application/json"), ...reply.headers };
  const step = reply.chunkBytes ?? bytes.length;
  let offset = 0;
  let done = false;
  opened();
  const finish = () => {
    if (!done) {
      done = true;
      closed();
    }
  };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        finish();
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + Math.max(1, step)));
      offset += Math.max(1, step);
    },
    cancel: finish,
  });
  return new Response(stream, { status, headers });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function startFakeLlm(options: FakeLlmOptions = {}): FakeLlmServer {
  const script: ScriptStep[] = [...(options.script ?? [])];
  const requests: RecordedRequest[] = [];
  const typedScript: TypedReply[] = [];
  const typedRequests: TypedRequest[] = [];
  let sequence = 0;
  let open = 0;
  const state = { limits: { ...options.limits } as FakeLimits };

  const errorResponse = (encoder: WireEncoder, error: FakeHttpError) => {
    const body =
      error.body === undefined
        ? JSON.stringify(encoder.errorBody(error.status, error.message ?? `Scripted error ${error.status}`))
        : typeof error.body === "string"
          ? error.body
          : JSON.stringify(error.body);
    return new Response(body, {
      status: error.status,
      headers: { "content-type": "application/json", ...error.headers },
    });
  };

  const server = Bun.serve({
    port: options.port ?? 0,
    hostname: options.hostname ?? "127.0.0.1",
    idleTimeout: 0,
    ...(options.tls ? { tls: options.tls } : {}),
    async fetch(req) {
      const url = new URL(req.url);
      // Classifier and image requests first: image generation shares /chat/completions with chat.
      const peeked: any = req.method === "POST" ? await req.clone().json().catch(() => undefined) : undefined;
      const typedApi = typedRouteOf(req.method, url.pathname, peeked);
      if (typedApi) {
        const request: TypedRequest = { api: typedApi, path: url.pathname, headers: Object.fromEntries(req.headers), body: peeked, model: String(peeked?.model ?? "unknown"), receivedAt: Date.now() };
        typedRequests.push(request);
        const step = typedScript.shift();
        const reply = typeof step === "function" ? step(request) : (step ?? defaultTypedReply(request));
        if (reply.delayMs) await sleep(reply.delayMs);
        return new Response(typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body), { status: reply.status ?? 200, headers: { "content-type": "application/json" } });
      }
      const api = routeOf(req.method, url.pathname);
      if (!api) {
        return Response.json({ error: { message: `fake-llm: no API at ${req.method} ${url.pathname}` } }, { status: 404 });
      }
      const text = await req.text();
      let body: any;
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        body = text;
      }
      const recorded: RecordedRequest = {
        api,
        method: req.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: Object.fromEntries(req.headers),
        body,
        model: modelOf(api, url.pathname, body),
        receivedAt: Date.now(),
      };
      const encoder = ENCODERS[api];
      // A refusal comes before the script: a provider refuses without answering.
      const refusal = refusalFor(api, body, state.limits);
      if (refusal) recorded.refused = refusal.message;
      requests.push(recorded);
      options.onRequest?.(recorded);
      if (refusal) return errorResponse(encoder, refusal);

      const step = script.shift() ?? DEFAULT_REPLY;
      const response = typeof step === "function" ? step(recorded) : step;
      if (response.delayMs) await sleep(response.delayMs);
      if (response.type === "error") return errorResponse(encoder, response);
      if (response.type === "raw") return rawResponse(response, () => open++, () => open--);

      sequence++;
      const frames = encoder.encode(normalizeReply(response, recorded, sequence), recorded);
      const stallAfter = response.stallAfterEvents;
      const chunkDelay = response.chunkDelayMs ?? 0;
      const encoderText = new TextEncoder();
      let index = 0;
      let closed = false;
      open++;
      const finish = () => {
        if (!closed) {
          closed = true;
          open--;
        }
      };
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (stallAfter !== undefined && index >= stallAfter) {
            // Hold the connection open without data until the client goes away.
            await new Promise<void>((resolve) => req.signal.addEventListener("abort", () => resolve(), { once: true }));
            finish();
            controller.close();
            return;
          }
          if (index >= frames.length) {
            finish();
            controller.close();
            return;
          }
          if (chunkDelay && index > 0) await sleep(chunkDelay);
          controller.enqueue(encoderText.encode(frames[index++]));
        },
        cancel() {
          finish();
        },
      });
      return new Response(stream, {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
      });
    },
  });

  const url = options.tls ? `https://localhost:${server.port}` : `http://127.0.0.1:${server.port}`;
  return {
    url,
    port: server.port!,
    baseUrl(api) {
      switch (api) {
        case "anthropic-messages":
          return url;
        case "openai-completions":
        case "openai-responses":
          return `${url}/v1`;
        case "google-generative-ai":
          return `${url}/v1beta`;
      }
    },
    enqueue(...steps) {
      script.push(...steps);
    },
    requests,
    enqueueTyped(...replies) {
      typedScript.push(...replies);
    },
    typedRequests,
    pending: () => script.length,
    clearScript: () => {
      script.length = 0;
    },
    openStreams: () => open,
    get limits() {
      return state.limits;
    },
    set limits(limits: FakeLimits) {
      state.limits = { ...limits };
    },
    async close() {
      await server.stop(true);
    },
  };
}
