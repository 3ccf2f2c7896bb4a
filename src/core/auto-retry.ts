/**
 * Retrying transient provider failures (overload, rate limit, 5xx, dropped
 * connections) with exponential backoff, visibly: the session reports each
 * attempt, and the wait can be cancelled (abort_retry) or the feature turned off.
 */
import { isContextOverflow, isTransientError } from "../ai/errors.ts";
import type { AssistantMessage } from "../ai/types.ts";

export interface AutoRetrySettings {
  enabled: boolean;
  maxRetries: number;
  baseDelayMs: number;
  /** The backoff stops growing here; 0: no cap. Default 60000 (settings.md). */
  maxAgentDelayMs?: number;
}

const DEFAULT_MAX_AGENT_DELAY_MS = 60_000;

/** A retry wait for people: "700 ms", "2 s", "1.5 s", "45 s", "2 min". */
export function formatRetryDelay(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms >= 120_000) return `${Math.round(ms / 60_000)} min`;
  const seconds = ms / 1000;
  return `${seconds >= 10 ? Math.round(seconds) : Math.round(seconds * 10) / 10} s`;
}

export class AutoRetry {
  enabled: boolean;
  private waitController: AbortController | undefined;

  constructor(private readonly settings: AutoRetrySettings) {
    this.enabled = settings.enabled;
  }

  get maxAttempts(): number {
    return this.settings.maxRetries;
  }

  /**
   * 2s, 4s, 8s… for attempts 1, 2, 3 with the default base; when the provider said how long
   * to wait (retry-after, Gemini's retryDelay), that wait instead, as retrying sooner is
   * refused again. Either way no longer than maxAgentDelayMs.
   */
  delayFor(attempt: number, askedMs?: number): number {
    const delay = askedMs !== undefined && askedMs >= 0 ? askedMs : this.settings.baseDelayMs * 2 ** (attempt - 1);
    const cap = this.settings.maxAgentDelayMs ?? DEFAULT_MAX_AGENT_DELAY_MS;
    return cap > 0 ? Math.min(delay, cap) : delay;
  }

  /** A failure worth another try: transient, and not a context overflow (compaction handles those). */
  isRetryable(message: AssistantMessage, contextWindow: number): boolean {
    return this.enabled && message.stopReason === "error" && isTransientError(message) && !isContextOverflow(message, contextWindow);
  }

  get isWaiting(): boolean {
    return this.waitController !== undefined;
  }

  /** Waits out the backoff. Resolves false when the wait was cancelled. */
  async wait(delayMs: number): Promise<boolean> {
    const controller = new AbortController();
    this.waitController = controller;
    try {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        controller.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve();
        });
      });
      return !controller.signal.aborted;
    } finally {
      if (this.waitController === controller) this.waitController = undefined;
    }
  }

  /** Cancels a wait in progress (abort_retry, abort). */
  cancel(): void {
    this.waitController?.abort();
  }
}
