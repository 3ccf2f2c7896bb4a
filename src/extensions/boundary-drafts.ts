/**
 * The session entry drafts that turn_end and agent_before_settle handlers may
 * return, checked at the edge: a draft of the wrong shape is an error that
 * names the draft and the field (reported against the handler's extension),
 * never an entry that poisons the session file. Whether a draft's references
 * (a context_edit target, a compaction's first kept entry) exist is the
 * session's to check: see core/session-boundary.ts.
 */
import type { SessionBoundaryDraft } from "./events.ts";

const isObject = (value: unknown): value is Record<string, any> => typeof value === "object" && value !== null && !Array.isArray(value);

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? `"${value.slice(0, 40)}"` : typeof value;
}

/** Text, or text and image blocks: what a custom message may carry to the model. */
function checkContent(content: unknown, where: string): string | any[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw new Error(`${where}.content must be a string or a list of text/image blocks, not ${describe(content)}`);
  content.forEach((block, index) => {
    const ok =
      isObject(block) &&
      ((block.type === "text" && typeof block.text === "string") ||
        (block.type === "image" && typeof block.data === "string" && typeof block.mimeType === "string"));
    if (!ok) throw new Error(`${where}.content[${index}] must be {type:"text", text} or {type:"image", data, mimeType}`);
  });
  return content;
}

function checkDraft(draft: unknown, index: number): SessionBoundaryDraft {
  const where = `entries[${index}]`;
  if (!isObject(draft)) throw new Error(`${where} must be an entry draft object, not ${describe(draft)}`);
  const needString = (field: string) => {
    if (typeof draft[field] !== "string" || draft[field] === "") throw new Error(`${where} (${draft.type}) needs a non-empty string "${field}"`);
    return draft[field] as string;
  };
  switch (draft.type) {
    case "custom":
      return { type: "custom", customType: needString("customType"), ...("data" in draft ? { data: draft.data } : {}) };
    case "custom_message": {
      if (draft.display !== undefined && typeof draft.display !== "boolean") throw new Error(`${where}.display must be true or false`);
      return {
        type: "custom_message",
        customType: needString("customType"),
        content: checkContent(draft.content, where),
        display: draft.display ?? true,
        ...(draft.details !== undefined ? { details: draft.details } : {}),
      };
    }
    case "context_edit": {
      const replacement = draft.replacement;
      if (replacement !== null && !isObject(replacement)) throw new Error(`${where}.replacement must be null (leave the target out) or {content}`);
      return {
        type: "context_edit",
        targetId: needString("targetId"),
        replacement: replacement === null ? null : { content: checkContent(replacement.content, `${where}.replacement`) },
      };
    }
    case "compaction": {
      const firstKept = draft.firstKeptEntryId;
      if (firstKept !== null && (typeof firstKept !== "string" || firstKept === "")) {
        throw new Error(`${where} (compaction) needs "firstKeptEntryId": an entry id, or null to keep no earlier entry`);
      }
      if (typeof draft.summary !== "string") throw new Error(`${where} (compaction) needs a string "summary"`);
      return { type: "compaction", summary: draft.summary, firstKeptEntryId: firstKept, ...(draft.details !== undefined ? { details: draft.details } : {}) };
    }
    default:
      throw new Error(`${where} has type ${describe(draft.type)}; allowed: "custom", "custom_message", "context_edit", "compaction"`);
  }
}

/** The drafts as the session will append them (display defaulted), or an Error naming the bad one. */
export function checkBoundaryDrafts(entries: unknown): SessionBoundaryDraft[] {
  if (!Array.isArray(entries)) throw new Error(`Invalid boundary entries: "entries" must be a list of entry drafts, not ${describe(entries)}`);
  try {
    return entries.map(checkDraft);
  } catch (error) {
    throw new Error(`Invalid boundary entries: ${(error as Error).message}`);
  }
}
