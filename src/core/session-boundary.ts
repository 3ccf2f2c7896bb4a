/**
 * The two moments where extensions may add to the session and ask for one more
 * model request (pi 0.87.1's actionable boundaries): turn_end, when a turn is
 * complete, and agent_before_settle, when a run has nothing left to do by
 * itself. Handlers chain drafts and `continue` (event-rules.ts); once all have
 * run, the drafts become session entries here, the agent's context follows
 * them, and `continue` is granted only when there is something to answer.
 *
 * A handler that always says `continue` would loop for ever: past
 * MAX_CONTINUATIONS granted requests in one run, the run settles with a
 * warning (extension_error from "<boundary>").
 */
import type { AssistantMessage, ToolResultMessage } from "../ai/types.ts";
import { BOUNDARY_PREVIEW, type BoundaryOutcome } from "../extensions/event-rules.ts";
import type { ExtensionRunner } from "../extensions/runner.ts";
import type { AgentActivityOutcome, SessionBoundaryDraft } from "../extensions/events.ts";
import { outcomeOf } from "./run-settlement.ts";
import { messageOfEntry } from "../session/build-context.ts";
import type { SessionManager } from "../session/session-manager.ts";
import type { CustomEntry } from "../session/types.ts";
import type { AgentSession } from "./agent-session.ts";
import { previewBoundary, type BoundaryKind } from "./boundary-preview.ts";
import { estimateMessagesTokens } from "./compaction/index.ts";

/** Extension-requested requests one run may make before it is settled anyway. */
export const MAX_CONTINUATIONS = 50;

export class SessionBoundaries {
  private continuations = 0;

  constructor(
    private readonly session: AgentSession,
    private readonly runner: ExtensionRunner,
    private readonly customEntryAppended: (entry: CustomEntry) => void,
  ) {}

  /** A run settled: the next one may ask for its own continuations. */
  runSettled(): void {
    this.continuations = 0;
  }

  /** turn_end for extensions (before its frame); true when they asked for one more request and may have it. */
  async turnEnd(turnIndex: number, message: AssistantMessage, toolResults: ToolResultMessage[]): Promise<boolean> {
    if (!this.runner.hasHandlers("turn_end")) return false;
    const messageEntryId = this.entryIdOf(message);
    const base = {
      type: "turn_end" as const,
      turnIndex,
      message,
      toolResults,
      messageEntryId: messageEntryId ?? "",
      toolResultEntryIds: toolResults.flatMap((result) => this.entryIdOf(result) ?? []),
      outcome: outcomeOf(message),
    };
    const wantsMore = await this.dispatch("turn_end", base);
    // With tool results the turn continues anyway; only a continuation that adds a request counts.
    return wantsMore && (toolResults.length > 0 || this.grant("turn_end"));
  }

  /** agent_before_settle; true when extensions asked for one more request and may have it. */
  async beforeSettle(outcome: AgentActivityOutcome): Promise<boolean> {
    if (!this.runner.hasHandlers("agent_before_settle")) return false;
    const wantsMore = await this.dispatch("agent_before_settle", { type: "agent_before_settle" as const, outcome });
    return wantsMore && this.grant("agent_before_settle");
  }

  private grant(kind: BoundaryKind): boolean {
    if (++this.continuations <= MAX_CONTINUATIONS) return true;
    this.runner.report("<boundary>", kind, `${kind} asked for more than ${MAX_CONTINUATIONS} extra requests in one run; the run settles now`);
    return false;
  }

  private async dispatch(kind: BoundaryKind, base: Record<string, unknown>): Promise<boolean> {
    const event = { ...base, entries: [] as SessionBoundaryDraft[], continue: false, context: this.preview([], kind) };
    Object.defineProperty(event, BOUNDARY_PREVIEW, { value: (drafts: SessionBoundaryDraft[]) => this.preview(drafts, kind) });
    const outcome: BoundaryOutcome = await this.runner.emit(kind, event as never);
    this.commit(outcome.entries, kind);
    if (!outcome.continue) return false;
    if (this.preview([], kind).canContinue) return true;
    this.runner.report(
      "<boundary>",
      kind,
      `${kind} asked for another request, but the context ends with the model's reply: append a message (a custom_message entry) to answer`,
    );
    return false;
  }

  private preview(drafts: SessionBoundaryDraft[], kind: BoundaryKind) {
    const { steeringQueue, followUpQueue } = this.session.agent;
    const pendingMessages = [...steeringQueue.peek(), ...followUpQueue.peek()];
    return previewBoundary({ branch: this.session.sessionManager.getBranch(), drafts, pendingMessages, kind });
  }

  /** The session entry a message was persisted as (entries keep the very message object). */
  private entryIdOf(message: object): string | undefined {
    const branch = this.session.sessionManager.getBranch();
    return branch.findLast((entry) => entry.type === "message" && entry.message === message)?.id;
  }

  /** Appends the drafts; the agent's context gains their messages (or is rebuilt after an edit or compaction). */
  private commit(drafts: SessionBoundaryDraft[], kind: BoundaryKind): void {
    const manager = this.session.sessionManager;
    let rebuild = false;
    for (const draft of drafts) {
      try {
        const entry = manager.getEntry(this.append(manager, draft));
        if (!entry) continue;
        if (entry.type === "custom") this.customEntryAppended(entry);
        const message = messageOfEntry(entry);
        if (message && !rebuild) this.session.messages.push(message);
        // A context edit reaches the agent's context with the next request (applyContextEdits); a compaction replaces it.
        rebuild ||= draft.type === "compaction";
        void this.session.emit({ type: "entry_appended", entry });
      } catch (error) {
        this.runner.report("<boundary>", kind, error);
      }
    }
    // In place: a turn_end commit happens inside the agent loop, which holds this very array.
    if (rebuild) this.session.messages.splice(0, this.session.messages.length, ...manager.buildSessionContext().messages);
  }

  private append(manager: SessionManager, draft: SessionBoundaryDraft): string {
    switch (draft.type) {
      case "custom":
        return manager.appendCustomEntry(draft.customType, draft.data);
      case "custom_message":
        return manager.appendCustomMessageEntry(draft.customType, draft.content, draft.display, draft.details);
      case "context_edit":
        return manager.appendContextEdit(draft.targetId, draft.replacement);
      case "compaction": {
        const tokensBefore = estimateMessagesTokens(this.session.messages);
        // null keeps nothing before the compaction: no entry has that id.
        return manager.appendCompaction(draft.summary, draft.firstKeptEntryId as string, tokensBefore, draft.details, true);
      }
    }
  }
}
