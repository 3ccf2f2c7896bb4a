/**
 * What the model's context would be if some boundary drafts were appended to
 * the session now (BoundaryContextPreview of turn_end / agent_before_settle):
 * the branch plus the drafts as provisional entries, projected by the
 * session's own builder (compaction, context edits), each entry in the
 * context with the messages it contributes. Pure: nothing is written. Drafts
 * that name entries which do not exist, or cannot be edited, throw, so the
 * handler that returned them is told at once.
 */
import { convertToLlm } from "../agent/messages.ts";
import type { AgentMessage } from "../agent/types.ts";
import type { BoundaryContextPreview, ProjectedSessionEntry, SessionBoundaryDraft } from "../extensions/events.ts";
import { buildContextEntries } from "../session/projection.ts";
import { buildContextProjection } from "../session/build-context.ts";
import { newContextEdit } from "../session/context-edits.ts";
import type { SessionEntry } from "../session/types.ts";

export type BoundaryKind = "turn_end" | "agent_before_settle";

export interface PreviewInput {
  /** The current branch, root first. */
  branch: SessionEntry[];
  drafts: SessionBoundaryDraft[];
  /** Steering and follow-up messages waiting in the agent's queues. */
  pendingMessages: AgentMessage[];
  kind: BoundaryKind;
}

/** The drafts as the entries they would become (ids are provisional), checked against the branch and each other. */
export function provisionalEntries(branch: SessionEntry[], drafts: SessionBoundaryDraft[]): SessionEntry[] {
  const path = [...branch];
  const byId = new Map(path.map((entry) => [entry.id, entry]));
  const timestamp = new Date().toISOString();
  drafts.forEach((draft, index) => {
    const base = { id: `draft-${index + 1}`, parentId: path.at(-1)?.id ?? null, timestamp };
    let entry: SessionEntry;
    switch (draft.type) {
      case "context_edit":
        try {
          entry = { ...base, type: "context_edit", ...newContextEdit(byId, path, draft.targetId, draft.replacement) };
        } catch (error) {
          throw new Error(`Invalid boundary entries: entries[${index}] (context_edit): ${(error as Error).message.replace(/^appendContextEdit\(\): /, "")}`);
        }
        break;
      case "compaction":
        if (draft.firstKeptEntryId !== null && !byId.has(draft.firstKeptEntryId)) {
          throw new Error(`Invalid boundary entries: entries[${index}] (compaction) keeps from ${draft.firstKeptEntryId}, which is not on the current branch`);
        }
        // tokensBefore is measured when the entry is really appended; null keeps nothing (no entry has that id).
        entry = { ...base, type: "compaction", summary: draft.summary, firstKeptEntryId: draft.firstKeptEntryId as string, tokensBefore: 0, details: draft.details };
        break;
      default:
        entry = { ...base, ...draft } as SessionEntry;
    }
    path.push(entry);
    byId.set(entry.id, entry);
  });
  return path.slice(branch.length);
}

/**
 * The session's projection of a path, grouped by entry: every entry the context is built
 * from, state entries (no messages) included, as pi lists them.
 */
export function projectPath(path: SessionEntry[]): { entries: ProjectedSessionEntry[]; messages: AgentMessage[] } {
  if (path.length === 0) return { entries: [], messages: [] };
  const leafId = path.at(-1)!.id;
  const byId = new Map(path.map((entry) => [entry.id, entry]));
  const projection = buildContextProjection(path, leafId, byId);
  const bySource = new Map<string, AgentMessage[]>();
  for (const { message, sourceId } of projection.messages) bySource.set(sourceId, [...(bySource.get(sourceId) ?? []), message]);
  const entries = buildContextEntries(path, leafId, byId).map((entry) => ({ sourceEntry: entry, messages: bySource.get(entry.id) ?? [] }));
  return { entries, messages: projection.messages.map((item) => item.message) };
}

export function previewBoundary(input: PreviewInput): BoundaryContextPreview {
  const projection = projectPath([...input.branch, ...provisionalEntries(input.branch, input.drafts)]);
  const llmMessages = convertToLlm(projection.messages);
  const lastRole = llmMessages.at(-1)?.role;
  // One more request needs something to answer: a context that does not end with the model's reply,
  // or (at a turn's end, or after a reply) messages waiting to be delivered.
  const runnable = llmMessages.length > 0 && lastRole !== "assistant";
  const queued = input.pendingMessages.length > 0;
  return {
    contextEntries: projection.entries,
    contextMessages: projection.messages,
    llmMessages,
    pendingMessages: input.pendingMessages,
    canContinue: runnable || (queued && (input.kind === "turn_end" || lastRole === "assistant")),
  };
}
