/**
 * What follows a run that did not simply end: a transient failure is retried with backoff
 * (auto_retry_*), a refused image is dropped and the turn sent again once, an overflowing
 * context is compacted and the turn retried once, and a context past the threshold is
 * compacted. agent_end's `willRetry` is decided here too, as the recovery will decide it.
 */
import { asRetryOf } from "../agent/loop-requests.ts";
import type { AgentMessage } from "../agent/types.ts";
import { isContextOverflow } from "../ai/errors.ts";
import type { AssistantMessage } from "../ai/types.ts";
import type { AgentSession } from "./agent-session.ts";
import type { AutoRetry } from "./auto-retry.ts";
import { calculateContextTokens, shouldCompact } from "./compaction/index.ts";
import { ImageRecovery } from "./image-rejection.ts";
import { routedLimits } from "./routed-limits.ts";

/** The last assistant reply among `messages`. */
export function lastAssistantOf(messages: readonly AgentMessage[]): AssistantMessage | undefined {
  return messages.findLast((message): message is AssistantMessage => message.role === "assistant");
}

export class RunRecovery {
  /** One retry without the images a provider refused (image-rejection.ts). */
  private readonly imageRecovery: ImageRecovery;
  /** The automatic retry being run (0: none): agent_end's willRetry counts the attempts left. */
  private retrying = 0;

  constructor(
    private readonly session: AgentSession,
    private readonly autoRetry: AutoRetry,
    private readonly compactAutomatically: (reason: "threshold" | "overflow") => Promise<boolean>,
  ) {
    this.imageRecovery = new ImageRecovery(session);
  }

  /** agent_end's willRetry, decided as `recover` will: a retryable failure with attempts left. */
  willRetry(runMessages: AgentMessage[]): boolean {
    const last = lastAssistantOf(runMessages);
    if (last === undefined) return false;
    return (this.autoRetry.isRetryable(last, this.session.model.contextWindow) && this.retrying < this.autoRetry.maxAttempts) || this.imageRecovery.willRetry(last);
  }

  /** After a run: retry a transient failure, compact on overflow (then retry once), or compact past the threshold. */
  async recover(): Promise<void> {
    try {
      await this.recoverFromFailures();
    } finally {
      this.imageRecovery.reset();
    }
  }

  private async recoverFromFailures(): Promise<void> {
    const session = this.session;
    let attempt = 0;
    let overflowHandled = false;
    while (true) {
      const last = lastAssistantOf(session.messages);
      if (!last || last.stopReason === "aborted") {
        if (attempt > 0) await session.emit({ type: "auto_retry_end", success: false, attempt, finalError: "Aborted" });
        return;
      }
      const contextWindow = routedLimits(session.model, session.messages, session.registry).contextWindow;
      if (this.autoRetry.isRetryable(last, contextWindow)) {
        if (attempt >= this.autoRetry.maxAttempts) {
          await session.emit({ type: "auto_retry_end", success: false, attempt, finalError: last.errorMessage });
          return;
        }
        attempt++;
        const delayMs = this.autoRetry.delayFor(attempt, last.retryAfterMs);
        await session.emit({ type: "auto_retry_start", attempt, maxAttempts: this.autoRetry.maxAttempts, delayMs, errorMessage: last.errorMessage ?? "" });
        this.dropLastMessage();
        await this.omitFailedAttempt();
        if (!(await this.autoRetry.wait(delayMs))) {
          await session.emit({ type: "auto_retry_end", success: false, attempt, finalError: "Retry cancelled" });
          return;
        }
        this.retrying = attempt;
        try {
          await asRetryOf(last, () => session.agent.continue());
        } finally {
          this.retrying = 0;
        }
        continue;
      }
      if (attempt > 0) {
        const success = last.stopReason !== "error";
        await session.emit({ type: "auto_retry_end", success, attempt, ...(success ? {} : { finalError: last.errorMessage }) });
        attempt = 0;
      }
      // A refused image is dropped from the context and the turn sent again, once (reported as attempt 1 of 1).
      if (await this.imageRecovery.retry(last)) {
        attempt = 1;
        continue;
      }
      if (last.stopReason === "error" && isContextOverflow(last, contextWindow) && session.autoCompactionEnabled && !overflowHandled) {
        overflowHandled = true;
        this.dropLastMessage();
        if (await this.compactAutomatically("overflow")) {
          await asRetryOf(last, () => session.agent.continue());
          continue;
        }
        return;
      }
      if (last.stopReason !== "error" && session.autoCompactionEnabled) {
        const compaction = { ...session.settings.compaction, enabled: true };
        if (shouldCompact(calculateContextTokens(last.usage), contextWindow, compaction)) await this.compactAutomatically("threshold");
      }
      return;
    }
  }

  /**
   * Leaves a retried attempt's failed reply out of the context for good, as pi 1.6.0 does: a
   * `context_edit` with a null replacement of its entry. The reply stays in the session file (a
   * resumed transcript folds it into the attempt that followed), but a resumed session's
   * context no longer holds it. The reply is the branch's last assistant message (an extension
   * may have appended entries after it); nothing is written when it is not an error reply.
   * Hosts see the edit as it is appended (entry_appended), as pi 1.6.0 reports it.
   */
  private async omitFailedAttempt(): Promise<void> {
    const manager = this.session.sessionManager;
    const reply = manager.getBranch().findLast((entry) => entry.type === "message" && entry.message.role === "assistant");
    if (reply?.type !== "message" || reply.message.role !== "assistant" || reply.message.stopReason !== "error") return;
    const edit = manager.getEntry(manager.appendContextEdit(reply.id, null));
    if (edit) await this.session.emit({ type: "entry_appended", entry: edit });
  }

  /** Takes a failed reply out of the live context (omitFailedAttempt takes it out of the session's). */
  private dropLastMessage(): void {
    if (this.session.messages.at(-1)?.role === "assistant") this.session.messages.pop();
  }
}
