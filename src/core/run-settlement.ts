/**
 * The end of a session-level run (pi 0.87.1): first agent_before_settle, the
 * last moment extensions may add entries or ask for one more request; then,
 * once nothing continues by itself (retries, compaction, queued messages,
 * granted continuations), agent_settled — to extensions, then as the
 * session's event — exactly once per run, with the session idle.
 *
 * Work started while agent_settled is being announced (an extension's
 * sendUserMessage, a prompt arriving then) waits until everyone has heard
 * it: it would otherwise begin a new run inside the announcement, and its
 * agent_start would overtake the agent_settled frame. waitForIdle covers it.
 */
import type { AssistantMessage } from "../ai/types.ts";
import type { AgentActivityOutcome } from "../extensions/events.ts";
import type { AgentSessionEvent } from "./session-events.ts";
import type { SessionHooks } from "./session-hooks.ts";

/** How the last request of a run ended, as boundary events report it. */
export function outcomeOf(message: AssistantMessage | undefined): AgentActivityOutcome {
  if (message?.stopReason === "aborted") return "aborted";
  return message?.stopReason === "error" ? "error" : "completed";
}

export interface SettlementHost {
  readonly hooks: SessionHooks | undefined;
  emit(event: AgentSessionEvent): Promise<void>;
}

export class RunSettlement {
  private announcing = false;
  private announcement: Promise<void> | undefined;
  private deferred: (() => Promise<void>)[] = [];
  private aborted = false;

  constructor(private readonly host: SettlementHost) {}

  /** A new run starts: an abort of the previous one no longer applies. */
  runStarted(): void {
    this.aborted = false;
  }

  /** The user (or an extension) aborted: the run settles without asking agent_before_settle. */
  abortRequested(): void {
    this.aborted = true;
  }

  get wasAborted(): boolean {
    return this.aborted;
  }

  /** agent_before_settle, given the run's last reply: whether the run makes one more request before settling. */
  async continueBeforeSettling(lastReply: AssistantMessage | undefined): Promise<boolean> {
    const hooks = this.host.hooks;
    if (!hooks || this.aborted) return false;
    const more = await hooks.beforeSettle(outcomeOf(lastReply));
    // An abort while the handlers ran wins over what they asked.
    return more && !this.aborted;
  }

  /**
   * While agent_settled is being announced, `start` is put off until the announcement is
   * over (and `true` returned); otherwise nothing happens and `false` says: go ahead.
   */
  deferWhileAnnouncing(start: () => Promise<void>, onFailure: (error: unknown) => void): boolean {
    if (!this.announcing) return false;
    this.deferred.push(() => start().catch(onFailure));
    return true;
  }

  /** agent_settled: extensions first, then the session's listeners; then the work they started. */
  async announce(): Promise<void> {
    const announcement = (async () => {
      this.announcing = true;
      try {
        // pi 1.x tells a cancelled run from a finished one.
        const aborted = this.aborted;
        await this.host.hooks?.settled(aborted).catch((error) => process.stderr.write(`xcsh: agent_settled: ${(error as Error).message}\n`));
        await this.host.emit({ type: "agent_settled", aborted });
      } finally {
        this.announcing = false;
      }
      // Each starts a run of its own (which settles in turn), one after the other.
      for (const start of this.deferred.splice(0)) await start();
    })();
    // A run started by deferred work settles inside this announcement, which already covers it.
    this.announcement ??= announcement;
    try {
      await announcement;
    } finally {
      if (this.announcement === announcement) this.announcement = undefined;
    }
  }

  /** Resolves once agent_settled has been announced and the work it started is done. */
  async settled(): Promise<void> {
    await this.announcement;
  }
}
