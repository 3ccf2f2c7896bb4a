/**
 * Retrying a summary request that failed for a passing reason (overload, rate limit,
 * 5xx, a dropped stream), with the same `retry.*` settings and backoff as a run's own
 * retries, so one dropped connection no longer fails a whole compaction. pi 1.6.0 does
 * the same and reports it with three events (json.md): `summarization_retry_scheduled`
 * before each wait, `summarization_retry_attempt_start` as the request goes again, and
 * `summarization_retry_finished` once the retrying is over, however it ended.
 *
 * A refusal that will not change (a bad key, a context overflow, an exhausted quota)
 * and an abort are never retried. An abort during the wait ends it at once.
 */
import type { AssistantMessage, Usage } from "../../ai/types.ts";
import { AutoRetry, type AutoRetrySettings } from "../auto-retry.ts";

export interface SummaryRetryListener {
  scheduled(attempt: number, maxAttempts: number, delayMs: number, errorMessage: string): void | Promise<void>;
  attemptStart(): void | Promise<void>;
  finished(): void | Promise<void>;
}

export interface SummaryRetry {
  settings: AutoRetrySettings;
  listener?: SummaryRetryListener;
}

/**
 * Runs `send`, again after each passing failure while the budget lasts, and returns the
 * last answer. Every answer's usage goes to `onUsage`: a failed request was paid for too.
 */
export async function withSummaryRetry(
  send: () => Promise<AssistantMessage>,
  retry: SummaryRetry | undefined,
  contextWindow: number,
  signal: AbortSignal | undefined,
  onUsage?: (usage: Usage) => void,
): Promise<AssistantMessage> {
  const request = async () => {
    const answer = await send();
    if (answer.usage) onUsage?.(answer.usage);
    return answer;
  };
  let response = await request();
  if (!retry?.settings.enabled) return response;
  const policy = new AutoRetry(retry.settings);
  const stopWaiting = () => policy.cancel();
  signal?.addEventListener("abort", stopWaiting, { once: true });
  let attempt = 0;
  try {
    while (attempt < policy.maxAttempts && !signal?.aborted && policy.isRetryable(response, contextWindow)) {
      attempt++;
      const delayMs = policy.delayFor(attempt, response.retryAfterMs);
      await retry.listener?.scheduled(attempt, policy.maxAttempts, delayMs, response.errorMessage ?? "Summarization failed");
      if (!(await policy.wait(delayMs)) || signal?.aborted) break;
      await retry.listener?.attemptStart();
      response = await request();
    }
  } finally {
    signal?.removeEventListener("abort", stopWaiting);
    if (attempt > 0) await retry.listener?.finished();
  }
  return response;
}

