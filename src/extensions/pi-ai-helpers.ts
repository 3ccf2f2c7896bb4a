/**
 * pi-ai's retry and lazy-loading helpers (pi 0.8x) on xcsh's own AI layer:
 * which failures are worth retrying (xcsh's transient-error check), the backoff
 * delay, a bounded retry loop around one assistant call, and streams or API
 * implementations whose code loads on first use.
 */
import { isTransientError } from "../ai/errors.ts";
import { AssistantMessageEventStream } from "../ai/event-stream.ts";
import type { AssistantMessage, AssistantMessageEvent, Model } from "../ai/types.ts";
import { failedAssistantMessage } from "../ai/usage.ts";

export const DEFAULT_MAX_AGENT_RETRY_DELAY_MS = 60_000;

export interface RetryPolicy {
  enabled: boolean;
  maxRetries: number;
  baseDelayMs: number;
  maxAgentDelayMs?: number;
}

export interface RetryCallbacks {
  onRetryScheduled?: (attempt: number, maxAttempts: number, delayMs: number, errorMessage: string) => void | Promise<void>;
  onRetryAttemptStart?: () => void | Promise<void>;
  onRetryFinished?: (success: boolean, attempt: number, finalError?: string) => void | Promise<void>;
}

/** The wait before retry `attempt` (1 for the first): the base doubled each time, capped. */
export function retryDelayMs(policy: Pick<RetryPolicy, "baseDelayMs" | "maxAgentDelayMs">, attempt: number): number {
  const base = Number(policy?.baseDelayMs);
  if (!Number.isFinite(base) || base < 0) throw new TypeError("retryDelayMs: policy.baseDelayMs must be a number of milliseconds");
  const cap = policy.maxAgentDelayMs ?? DEFAULT_MAX_AGENT_RETRY_DELAY_MS;
  return Math.min(base * 2 ** Math.max(0, Math.floor(attempt) - 1), cap);
}

/** A failure that may pass on its own (overload, rate limit, dropped connection) — not a bad key or request. */
export function isRetryableAssistantError(message: AssistantMessage): boolean {
  return message?.stopReason === "error" && isTransientError(message);
}

/** A length stop below the output limit the caller asked for: likely context pressure, worth one compaction and retry. */
export function isRecoverableLength(message: AssistantMessage, desiredMaxOutput: number): boolean {
  return message?.stopReason === "length" && (message.usage?.output ?? 0) < desiredMaxOutput;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Calls `produce` until it answers, fails for good, or the retries run out, sleeping
 * the backoff between attempts. An abort (also during a sleep) ends it with an
 * aborted message; without an enabled policy the first answer is returned as it is.
 */
export async function retryAssistantCall(
  produce: () => Promise<AssistantMessage>,
  policy: RetryPolicy | undefined,
  signal: AbortSignal | undefined,
  callbacks: RetryCallbacks = {},
): Promise<AssistantMessage> {
  let message = await produce();
  if (!policy?.enabled || policy.maxRetries <= 0) return message;
  let attempt = 0;
  while (isRetryableAssistantError(message) && attempt < policy.maxRetries) {
    attempt++;
    const delay = retryDelayMs(policy, attempt);
    await callbacks.onRetryScheduled?.(attempt, policy.maxRetries, delay, message.errorMessage ?? "");
    if (!(await sleep(delay, signal))) {
      const aborted = { ...failedAssistantMessage({ api: message.api, provider: message.provider, id: message.model } as Model, "Request was aborted", true) };
      await callbacks.onRetryFinished?.(false, attempt, aborted.errorMessage);
      return aborted;
    }
    await callbacks.onRetryAttemptStart?.();
    message = await produce();
  }
  if (attempt > 0) await callbacks.onRetryFinished?.(message.stopReason !== "error" && message.stopReason !== "aborted", attempt, message.errorMessage);
  return message;
}

/** A stream that starts once `setup` has loaded what it needs; a failing setup ends it with an error message. */
export function lazyStream(model: Model, setup: () => Promise<AsyncIterable<AssistantMessageEvent>>): AssistantMessageEventStream {
  const out = new AssistantMessageEventStream();
  void (async () => {
    try {
      for await (const event of await setup()) out.push(event);
      out.end();
    } catch (error) {
      out.push({ type: "error", reason: "error", error: failedAssistantMessage(model, error instanceof Error ? error.message : String(error)) });
      out.end();
    }
  })();
  return out;
}

type ProviderStreams = {
  stream: (model: Model, context: any, options?: any) => AsyncIterable<AssistantMessageEvent>;
  streamSimple: (model: Model, context: any, options?: any) => AsyncIterable<AssistantMessageEvent>;
};

/** An API implementation whose code is loaded on its first request. */
export function lazyApi(load: () => Promise<ProviderStreams>): ProviderStreams {
  if (typeof load !== "function") throw new TypeError("lazyApi(load): load must be a function returning the API's streams");
  let loaded: Promise<ProviderStreams> | undefined;
  const streams = () => (loaded ??= load());
  return {
    stream: (model, context, options) => lazyStream(model, async () => (await streams()).stream(model, context, options)),
    streamSimple: (model, context, options) => lazyStream(model, async () => (await streams()).streamSimple(model, context, options)),
  };
}
