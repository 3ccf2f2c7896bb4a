/**
 * What the LLM is given from a session: the messages on the path from the root
 * to the current leaf, plus the model and thinking level in force there.
 *
 * - Model: the latest `model_change` or assistant message on the path (an
 *   assistant message records the model that actually answered, so whichever
 *   came last is the model in use). Thinking level: the latest
 *   `thinking_level_change`, "off" when there is none.
 * - The latest compaction on the path replaces what came before it: its summary
 *   first, then the entries from its `firstKeptEntryId` up to it, then
 *   everything after it.
 * - `branch_summary` and `custom_message` entries become `branchSummary` and
 *   `custom` messages; `custom`, `label`, `session_info` and unknown entries
 *   are not messages.
 */
import {
  createBranchSummaryMessage,
  createCompactionSummaryMessage,
  createCustomMessage,
} from "../agent/messages.ts";
import type { AgentMessage } from "../agent/types.ts";
import type { CompactionEntry, CustomEntry, SessionContext, SessionEntry } from "./types.ts";

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

  const messages: AgentMessage[] = [];
  for (const item of contextItems(path, compactionAt)) if (!("type" in item)) messages.push(item);
  return { messages, thinkingLevel, model };
}

/**
 * The context of a path, in order: its messages and, where they stand, its `custom`
 * entries (extension data an entry renderer may draw; never sent to the model).
 * `compactionAt` is the position of the path's latest compaction, -1 for none.
 */
function contextItems(path: readonly SessionEntry[], compactionAt: number): (AgentMessage | CustomEntry)[] {
  const items: (AgentMessage | CustomEntry)[] = [];
  const add = (from: number, to: number) => {
    for (let index = from; index < to; index++) {
      const entry = path[index];
      if (entry.type === "custom") items.push(entry);
      else {
        const message = messageOfEntry(entry);
        if (message) items.push(message);
      }
    }
  };
  if (compactionAt === -1) {
    add(0, path.length);
    return items;
  }
  const compaction = path[compactionAt] as CompactionEntry;
  items.push(createCompactionSummaryMessage(compaction.summary, compaction.tokensBefore, compaction.timestamp));
  const firstKept = path.findIndex((entry, position) => position < compactionAt && entry.id === compaction.firstKeptEntryId);
  if (firstKept !== -1) add(firstKept, compactionAt);
  add(compactionAt + 1, path.length);
  return items;
}

/** What a person sees of the session at its leaf: the context's messages with the `custom` entries among them. */
export function buildDisplayItems(entries: readonly SessionEntry[], leafId: string | null, byId: ReadonlyMap<string, SessionEntry>): (AgentMessage | CustomEntry)[] {
  if (leafId === null || entries.length === 0) return [];
  const leaf = byId.get(leafId) ?? entries[entries.length - 1];
  const path = pathToEntry(leaf.id, byId);
  const compactionAt = path.findLastIndex((entry) => entry.type === "compaction");
  return contextItems(path, compactionAt);
}

/** The last compaction among `entries` (in their order), if any. */
export function getLatestCompactionEntry(entries: readonly SessionEntry[]): CompactionEntry | undefined {
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index];
    if (entry.type === "compaction") return entry;
  }
  return undefined;
}
