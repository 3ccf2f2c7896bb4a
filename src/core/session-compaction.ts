/**
 * Compaction as the session reports it: compaction_start/end (and pi's
 * auto_compaction_* for automatic ones) around one runCompaction, the
 * extensions' session_before_compact / session_compact / session_compact_failed
 * with why it ran (manual, threshold, overflow) and whether the failed turn is
 * sent again, and the agent's context rebuilt from the session afterwards.
 * A cancel by an extension is reported like an abort (aborted, no error text).
 *
 * A history too big for the model's window is summarized in several requests;
 * their progress goes to `onProgress` listeners (the terminal shows "part 2 of
 * 5"), not onto the wire: pi's protocol has no event for it. A request that fails
 * for a passing reason is retried with the `retry.*` settings, reported with pi
 * 1.6.0's `summarization_retry_*` events.
 */
import type { ThinkingLevel } from "../ai/types.ts";
import type { AgentSession } from "./agent-session.ts";
import { estimateMessagesTokens } from "./compaction/index.ts";
import { runCompaction } from "./compaction-runner.ts";
import type { CompactionReason, ReportedCompaction } from "./session-events.ts";

export interface CompactionOverrides {
  reserveTokens?: number;
  keepRecentTokens?: number;
}

export type CompactionProgressListener = (progress: { reason: CompactionReason; part: number; parts: number }) => void;

export class SessionCompaction {
  private controller: AbortController | undefined;
  private readonly progressListeners = new Set<CompactionProgressListener>();

  constructor(private readonly session: AgentSession) {}

  get isRunning(): boolean {
    return this.controller !== undefined;
  }

  abort(): void {
    this.controller?.abort();
  }

  /** Hears each request of a summary made in several; returns the way to stop listening. */
  onProgress(listener: CompactionProgressListener): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  private reportProgress(reason: CompactionReason, part: number, parts: number): void {
    for (const listener of this.progressListeners) {
      try {
        listener({ reason, part, parts });
      } catch (error) {
        process.stderr.write(`xcsh: compaction progress listener failed: ${(error as Error).message}\n`);
      }
    }
  }

  async run(
    reason: CompactionReason,
    customInstructions: string | undefined,
    willRetry: boolean,
    overrides: CompactionOverrides = {},
  ): Promise<{ result: ReportedCompaction } | { error: string }> {
    const session = this.session;
    const automatic = reason !== "manual";
    const controller = new AbortController();
    this.controller = controller;
    const hooks = session.hooks;
    let fromExtension = false;
    let cancelled = false;
    await session.emit({ type: "compaction_start", reason });
    if (automatic) await session.emit({ type: "auto_compaction_start", reason });
    try {
      const compacted = await runCompaction({
        sessionManager: session.sessionManager,
        model: session.model,
        apiKey: await session.models.apiKeyFor(session.model),
        headers: await session.models.headersFor(session.model),
        env: session.registry.getProviderEnv(session.model),
        settings: {
          ...session.settings.compaction,
          ...(overrides.reserveTokens !== undefined ? { reserveTokens: overrides.reserveTokens } : {}),
          ...(overrides.keepRecentTokens !== undefined ? { keepRecentTokens: overrides.keepRecentTokens } : {}),
        },
        customInstructions,
        thinkingLevel: session.thinkingLevel === "off" ? undefined : (session.thinkingLevel as ThinkingLevel),
        signal: controller.signal,
        onProgress: (part, parts) => this.reportProgress(reason, part, parts),
        retry: {
          settings: { ...session.settings.retry, enabled: session.autoRetryEnabled },
          listener: {
            scheduled: (attempt, maxAttempts, delayMs, errorMessage) => session.emit({ type: "summarization_retry_scheduled", attempt, maxAttempts, delayMs, errorMessage }),
            attemptStart: () => session.emit({ type: "summarization_retry_attempt_start", source: "compaction", reason }),
            finished: () => session.emit({ type: "summarization_retry_finished" }),
          },
        },
        intercept: hooks
          ? async (preparation, branchEntries) => {
              const decision = await hooks.beforeCompact({ preparation, branchEntries, customInstructions, reason, willRetry, signal: controller.signal });
              cancelled = decision?.cancel === true;
              fromExtension = typeof decision?.compaction?.summary === "string";
              return decision;
            }
          : undefined,
      });
      const entry = session.sessionManager.getEntry(compacted.entryId);
      if (hooks && entry?.type === "compaction") await hooks.compacted(entry, compacted.fromExtension, { reason, willRetry });
      session.agent.state.messages = session.sessionManager.buildSessionContext().messages;
      const { entryId: _entryId, fromExtension: _fromExtension, ...summary } = compacted;
      // Heuristic only: usage reported by kept answers describes the context before compaction.
      const result = { ...summary, estimatedTokensAfter: estimateMessagesTokens(session.agent.state.messages) } as ReportedCompaction;
      await session.emit({ type: "compaction_end", reason, result, aborted: false, willRetry });
      if (automatic) await session.emit({ type: "auto_compaction_end", result, aborted: false, willRetry });
      return { result };
    } catch (error) {
      const aborted = controller.signal.aborted || cancelled;
      const errorMessage = controller.signal.aborted ? "Compaction was aborted" : (error as Error).message;
      const failure = { result: null, aborted, willRetry: false, ...(aborted ? {} : { errorMessage }) };
      if (hooks) await hooks.compactionFailed({ reason, aborted, willRetry, fromExtension, ...(aborted ? {} : { errorMessage }) });
      await session.emit({ type: "compaction_end", reason, ...failure });
      if (automatic) await session.emit({ type: "auto_compaction_end", ...failure });
      return { error: errorMessage };
    } finally {
      if (this.controller === controller) this.controller = undefined;
    }
  }
}
