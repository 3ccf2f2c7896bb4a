/**
 * Context edits (`context_edit` entries, from pi 0.87): append-only changes to
 * what an earlier entry contributes to the model's context. The target entry
 * is never changed; the edit applies when the context is built.
 *
 * - Only edits among the entries the context is built from count (the active
 *   branch, after its latest compaction), so an edit on another branch — or
 *   below the point the session has moved back to — has no effect.
 * - Of several edits of one target, the latest on the branch wins.
 * - `null` leaves the target's messages out; `{ content }` replaces the content
 *   of its user, assistant, tool-result and custom messages, keeping role and
 *   metadata. Assistant and tool-result content must be blocks, so a string
 *   becomes one text block. Other roles keep their content.
 * - A malformed edit (see entry-shapes.ts) is ignored.
 */
import type { AgentMessage } from "../agent/types.ts";
import { isUsableContextEdit, replacementProblem } from "./entry-shapes.ts";
import type { ContextEditEntry, ContextEditableContent, SessionEntry } from "./types.ts";

/** The latest usable edit of each target among `entries` (in their order). */
export function latestContextEdits(entries: readonly SessionEntry[]): Map<string, ContextEditEntry> {
  const edits = new Map<string, ContextEditEntry>();
  for (const entry of entries) if (isUsableContextEdit(entry)) edits.set(entry.targetId, entry);
  return edits;
}

function withContent(message: AgentMessage, content: ContextEditableContent): AgentMessage {
  switch (message.role) {
    case "user":
    case "custom":
      return { ...message, content } as AgentMessage;
    case "assistant":
    case "toolResult":
      return { ...message, content: typeof content === "string" ? [{ type: "text", text: content }] : content } as AgentMessage;
    default:
      return message;
  }
}

/** What `messages` (one entry's contribution) become under `edit`. */
export function applyContextEdit(messages: AgentMessage[], edit: ContextEditEntry | undefined): AgentMessage[] {
  if (!edit) return messages;
  const replacement = edit.replacement;
  if (replacement === null) return [];
  return messages.map((message) => withContent(message, replacement.content));
}

/** Roles whose content an edit may replace (pi's rule; other entries cannot be edited through the API). */
const EDITABLE_ROLES = new Set(["user", "assistant", "toolResult"]);

/**
 * The fields of a new context edit of `targetId`, checked: the replacement is
 * null or `{ content }`, the target exists, lies on the active `branch` and
 * contributes editable content. Strings for assistant and tool-result targets
 * are stored as one text block, the shape those roles require. Throws an Error
 * that says what is wrong.
 */
export function newContextEdit(
  byId: ReadonlyMap<string, SessionEntry>,
  branch: readonly SessionEntry[],
  targetId: string,
  replacement: ContextEditEntry["replacement"],
): Pick<ContextEditEntry, "targetId" | "replacement"> {
  const problem = replacementProblem(replacement);
  if (problem) throw new Error(`appendContextEdit(): ${problem}`);
  const target = typeof targetId === "string" ? byId.get(targetId) : undefined;
  if (!target) throw new Error(`appendContextEdit(): entry ${String(targetId)} not found in this session`);
  if (!branch.some((entry) => entry.id === targetId)) throw new Error(`appendContextEdit(): entry ${targetId} is not on the active branch`);
  const role = target.type === "message" ? target.message.role : target.type === "custom_message" ? "custom" : undefined;
  if (role === undefined || (role !== "custom" && !EDITABLE_ROLES.has(role))) {
    throw new Error(`appendContextEdit(): entry ${targetId} (${target.type}${target.type === "message" ? ` ${role}` : ""}) has no content the model sees that can be edited`);
  }
  if (replacement !== null && typeof replacement.content === "string" && (role === "assistant" || role === "toolResult")) {
    return { targetId, replacement: { content: [{ type: "text", text: replacement.content }] } };
  }
  return { targetId, replacement };
}
