/**
 * What the LLM is given from a session: the messages on the path from the root
 * to the current leaf, plus the model and thinking level in force there.
 *
 * - Model: the latest `model_change` or assistant message on the path (an
 *   assistant message records the model that actually answered, so whichever
 *   came last is the model in use). Thinking level: the latest
 *   `thinking_level_change`, "off" when there is none.
 * - The latest compaction on the path replaces what came before it: its
 *   system checkpoint (pi's `systemMessage`, when it has one) and summary
 *   first, then the entries from its `firstKeptEntryId` up to it (without
 *   their system messages: the checkpoint stands for them), then everything
 *   after it.
 * - `branch_summary` and `custom_message` entries become `branchSummary` and
 *   `custom` messages; `custom`, `label`, `session_info`, `usage`,
 *   `context_edit` and unknown entries are not messages.
 * - `context_edit` entries among those then leave out or change their
 *   targets' messages (context-edits.ts). What a person is shown
 *   (`buildDisplayItems`) is the session as written, without the edits.
 * - pi's `role: "system"` messages stay in the context (clients see them in
 *   get_messages, as with pi) but never reach a provider: xcsh sends its own
 *   system prompt, and `convertToLlm` drops them.
 */
import {
  createBranchSummaryMessage,
  createCompactionSummaryMessage,
  createCustomMessage,
} from "../agent/messages.ts";
import type { AgentMessage } from "../agent/types.ts";
import { applyContextEdit, latestContextEdits } from "./context-edits.ts";
import type { CompactionEntry, ContextEditEntry, CustomEntry, PersistedSystemMessage, SessionContext, SessionEntry } from "./types.ts";

/** The entries from the root down to `leafId` (root first). Stops at a missing parent or a cycle. */
export function pathToEntry(leafId: string, byId: ReadonlyMap<string, SessionEntry>): SessionEntry[] {
  const path: SessionEntry[] = [];
  let current = byId.get(leafId);
  // A corrupt file could link entries in a circle; no path is longer than the file.
  while (current && path.length <= byId.size) {
    path.push(current);
    current = current.parentId == null ? undefined : byId.get(current.parentId);
  }
  return path.reverse();
}

/** The message an entry contributes to the LLM context, if any (model changes, labels, state: none). */
export function messageOfEntry(entry: SessionEntry): AgentMessage | undefined {
  switch (entry.type) {
    case "message":
      return entry.message;
    case "custom_message":
      return createCustomMessage(entry.customType, entry.content, entry.display, entry.details, entry.timestamp);
    case "branch_summary":
      return createBranchSummaryMessage(entry.summary, entry.fromId, entry.timestamp);
    default:
      return undefined;
  }
}

/** Messages of entries[from, to), in order. */
export function messagesOfEntries(entries: readonly SessionEntry[], from: number, to: number): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let index = from; index < to; index++) {
    const message = messageOfEntry(entries[index]);
    if (message) messages.push(message);
  }
  return messages;
}

/** A message of the context and the id of the entry it comes from. */
export interface ContextMessage {
  message: AgentMessage;
  sourceId: string;
}

export interface ContextProjection {
  messages: ContextMessage[];
  thinkingLevel: string;
  model: SessionContext["model"];
}

/**
 * The context at `leafId`: the last entry when omitted, an empty conversation
 * when null (the leaf was reset to before the first entry). `byId` saves
 * rebuilding the id index when the caller has one.
 */
export function buildSessionContext(
  entries: readonly SessionEntry[],
  leafId?: string | null,
  byId?: ReadonlyMap<string, SessionEntry>,
): SessionContext {
  const projection = buildContextProjection(entries, leafId, byId);
  return { messages: projection.messages.map((item) => item.message), thinkingLevel: projection.thinkingLevel, model: projection.model };
}

/** `buildSessionContext` with the entry each message comes from. */
export function buildContextProjection(
  entries: readonly SessionEntry[],
  leafId?: string | null,
  byId?: ReadonlyMap<string, SessionEntry>,
): ContextProjection {
  let thinkingLevel = "off";
  let model: SessionContext["model"] = null;
  if (leafId === null || entries.length === 0) return { messages: [], thinkingLevel, model };

  const index = byId ?? new Map(entries.map((entry) => [entry.id, entry]));
  const leaf = (leafId !== undefined && index.get(leafId)) || entries[entries.length - 1];
  const path = pathToEntry(leaf.id, index);

  let compactionAt = -1;
  for (let position = 0; position < path.length; position++) {
    const entry = path[position];
    if (entry.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel;
    else if (entry.type === "model_change") model = { provider: entry.provider, modelId: entry.modelId };
    else if (entry.type === "message" && entry.message.role === "assistant") {
      model = { provider: entry.message.provider, modelId: entry.message.model };
    } else if (entry.type === "compaction") compactionAt = position;
  }

  const selected = selectContextEntries(path, compactionAt);
  const edits = latestContextEdits(selected);
  const messages: ContextMessage[] = [];
  selected.forEach((entry, position) => {
    for (const message of applyContextEdit(contributionOf(entry, position, true), edits.get(entry.id))) {
      messages.push({ message, sourceId: entry.id });
    }
  });
  return { messages, thinkingLevel, model };
}

function isSystemMessage(value: unknown): value is PersistedSystemMessage {
  return typeof value === "object" && value !== null && (value as { role?: unknown }).role === "system";
}

const isSystemMessageEntry = (entry: SessionEntry) => entry.type === "message" && isSystemMessage(entry.message);

/**
 * The entries the context is built from, in order: the whole path, or — after
 * a compaction — the compaction first, then its kept entries (without system
 * messages), then what follows it. `compactionAt` is the position of the
 * path's latest compaction, -1 for none.
 */
function selectContextEntries(path: readonly SessionEntry[], compactionAt: number): SessionEntry[] {
  if (compactionAt === -1) return [...path];
  const compaction = path[compactionAt] as CompactionEntry;
  const selected: SessionEntry[] = [compaction];
  const firstKept = path.findIndex((entry, position) => position < compactionAt && entry.id === compaction.firstKeptEntryId);
  if (firstKept !== -1) {
    for (let position = firstKept; position < compactionAt; position++) {
      if (!isSystemMessageEntry(path[position])) selected.push(path[position]);
    }
  }
  for (let position = compactionAt + 1; position < path.length; position++) selected.push(path[position]);
  return selected;
}

/**
 * The messages an entry at `position` of the selection contributes. Only the
 * compaction that leads the selection speaks (an older one inside its kept
 * range is history it already covers); `withCheckpoint` adds its system
 * checkpoint before the summary.
 */
function contributionOf(entry: SessionEntry, position: number, withCheckpoint: boolean): AgentMessage[] {
  if (entry.type === "compaction") {
    if (position !== 0) return [];
    const summary = createCompactionSummaryMessage(entry.summary, entry.tokensBefore, entry.timestamp);
    return withCheckpoint && isSystemMessage(entry.systemMessage) ? [entry.systemMessage, summary] : [summary];
  }
  const message = messageOfEntry(entry);
  return message ? [message] : [];
}

/** What a person sees of the session at its leaf: the context's messages as written (no edits) with the `custom` entries among them. */
export function buildDisplayItems(entries: readonly SessionEntry[], leafId: string | null, byId: ReadonlyMap<string, SessionEntry>): (AgentMessage | CustomEntry)[] {
  if (leafId === null || entries.length === 0) return [];
  const leaf = byId.get(leafId) ?? entries[entries.length - 1];
  const path = pathToEntry(leaf.id, byId);
  const compactionAt = path.findLastIndex((entry) => entry.type === "compaction");
  const items: (AgentMessage | CustomEntry)[] = [];
  selectContextEntries(path, compactionAt).forEach((entry, position) => {
    if (entry.type === "custom") items.push(entry);
    else items.push(...contributionOf(entry, position, false));
  });
  return items;
}

/**
 * The path as the model sees it, for work that reads messages entry by entry
 * (compaction): entries a context edit replaces become copies with the new
 * content; entries it leaves out, and pi's system messages (xcsh never sends
 * them), become content-free stand-ins that keep their id and place, so ids
 * such as a compaction's `firstKeptEntryId` still resolve.
 */
export function pathAsModelSees(path: readonly SessionEntry[]): SessionEntry[] {
  const edits = contextEditsOfPath(path);
  return path.map((entry) => {
    if (isSystemMessageEntry(entry)) return standIn(entry);
    const edit = edits.get(entry.id);
    if (!edit) return entry;
    if (edit.replacement === null) return standIn(entry);
    return replacedEntry(entry, edit);
  });
}

/** The edits that apply to the context of `path` (the latest usable edit of each target after its latest compaction). */
export function contextEditsOfPath(path: readonly SessionEntry[]): Map<string, ContextEditEntry> {
  return latestContextEdits(selectContextEntries(path, path.findLastIndex((entry) => entry.type === "compaction")));
}

/** Marks a stand-in (see pathAsModelSees): a custom entry, which contributes nothing to the context. */
export const LEFT_OUT_OF_CONTEXT = "xcsh.left-out-of-context";

function standIn(entry: SessionEntry): CustomEntry {
  return { type: "custom", id: entry.id, parentId: entry.parentId, timestamp: entry.timestamp, customType: LEFT_OUT_OF_CONTEXT };
}

function replacedEntry(entry: SessionEntry, edit: ContextEditEntry): SessionEntry {
  if (entry.type === "message") {
    const [message] = applyContextEdit([entry.message], edit);
    return { ...entry, message };
  }
  if (entry.type === "custom_message" && edit.replacement) {
    return { ...entry, content: edit.replacement.content as typeof entry.content };
  }
  return entry;
}

/** The last compaction among `entries` (in their order), if any. */
export function getLatestCompactionEntry(entries: readonly SessionEntry[]): CompactionEntry | undefined {
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index];
    if (entry.type === "compaction") return entry;
  }
  return undefined;
}
