/**
 * pi's session-context helpers for extensions that read session entries
 * themselves: which entries make up the model's context at a leaf
 * (`buildContextEntries`: the latest compaction, the entries it kept, then
 * everything after it), the messages each contributes
 * (`sessionEntryToContextMessages`), and both together (`buildSessionProjection`).
 * They follow xcsh's own `buildSessionContext` (src/session/build-context.ts), so
 * what an extension computes is what the model is sent. Exported to extensions as
 * functions (src/index.ts) and, at the session's leaf, as SessionManager methods
 * (`ctx.sessionManager.buildContextEntries()`), as pi 1.6.0 offers both.
 */
import { createCompactionSummaryMessage } from "../agent/messages.ts";
import type { AgentMessage } from "../agent/types.ts";
import { buildContextProjection, messageOfEntry, pathToEntry } from "./build-context.ts";
import type { CompactionEntry, SessionEntry } from "./types.ts";

/** The messages one entry adds to the context: a compaction its summary, plain `custom` entries nothing. */
export function sessionEntryToContextMessages(entry: SessionEntry): AgentMessage[] {
  if (!entry || typeof entry !== "object") throw new TypeError("sessionEntryToContextMessages(entry): entry must be a session entry");
  if (entry.type === "compaction") return [createCompactionSummaryMessage(entry.summary, entry.tokensBefore, entry.timestamp)];
  const message = messageOfEntry(entry);
  return message ? [message] : [];
}

function indexOf(entries: readonly SessionEntry[], byId?: ReadonlyMap<string, SessionEntry>): ReadonlyMap<string, SessionEntry> {
  if (!Array.isArray(entries)) throw new TypeError("entries must be an array of session entries");
  return byId ?? new Map(entries.map((entry) => [entry.id, entry]));
}

/** The entries on the path to `leafId` (the last entry when omitted, none when null) that reach the model. */
export function buildContextEntries(entries: SessionEntry[], leafId?: string | null, byId?: Map<string, SessionEntry>): SessionEntry[] {
  const index = indexOf(entries, byId);
  if (leafId === null || entries.length === 0) return [];
  const leaf = (leafId !== undefined && index.get(leafId)) || entries[entries.length - 1]!;
  const path = pathToEntry(leaf.id, index);
  let compactionAt = -1;
  path.forEach((entry, position) => {
    if (entry.type === "compaction") compactionAt = position;
  });
  if (compactionAt === -1) return path;
  const compaction = path[compactionAt] as CompactionEntry;
  const firstKept = path.findIndex((entry, position) => position < compactionAt && entry.id === compaction.firstKeptEntryId);
  return [compaction, ...(firstKept === -1 ? [] : path.slice(firstKept, compactionAt)), ...path.slice(compactionAt + 1)];
}

export interface SessionProjection {
  /** Each context entry with the messages it contributes (entries contributing none are left out). */
  entries: { sourceEntry: SessionEntry; messages: AgentMessage[] }[];
  messages: AgentMessage[];
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
}

/**
 * The context at a leaf with where each message came from, plus the model and thinking
 * level in force there. Built by the session's own projection, so context edits and a
 * compaction's system checkpoint apply exactly as for the model.
 */
export function buildSessionProjection(entries: SessionEntry[], leafId?: string | null, byId?: Map<string, SessionEntry>): SessionProjection {
  const index = indexOf(entries, byId);
  const projection = buildContextProjection(entries, leafId, index);
  const grouped: SessionProjection["entries"] = [];
  for (const { message, sourceId } of projection.messages) {
    const last = grouped.at(-1);
    if (last && last.sourceEntry.id === sourceId) last.messages.push(message);
    else {
      const sourceEntry = index.get(sourceId);
      if (sourceEntry) grouped.push({ sourceEntry, messages: [message] });
    }
  }
  return { entries: grouped, messages: projection.messages.map((item) => item.message), thinkingLevel: projection.thinkingLevel, model: projection.model };
}
