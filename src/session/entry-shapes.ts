/**
 * Shape checks for the entries whose fields xcsh acts on beyond the tree
 * (context edits change what the model sees, usage adds to the session's
 * cost). Session files are written by other programs and by hand, so a bad
 * field must not crash a load, poison a request or turn a total into NaN:
 * such an entry keeps its place in the tree (its children stay reachable) but
 * has no effect, and loading says so (`problemWithEntry`).
 */
import type { Usage } from "../ai/types.ts";
import type { ContextEditEntry, SessionEntry } from "./types.ts";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isString = (value: unknown): value is string => typeof value === "string";

/** What each content block needs so every provider converter can read it. */
const BLOCK_FIELDS: Record<string, string[]> = {
  text: ["text"],
  image: ["data", "mimeType"],
  thinking: ["thinking"],
  toolCall: ["id", "name"],
};

function blockProblem(block: unknown): string | undefined {
  if (!isObject(block) || !isString(block.type)) return "a content block is not an object with a type";
  const fields = BLOCK_FIELDS[block.type];
  if (!fields) return `a content block has the unknown type "${block.type}"`;
  const missing = fields.find((field) => !isString(block[field]));
  return missing ? `a ${block.type} block has no string "${missing}"` : undefined;
}

/** Why a context edit's replacement is unusable, or undefined when it is null or `{ content }` of text/blocks. */
export function replacementProblem(replacement: unknown): string | undefined {
  if (replacement === null) return undefined;
  if (replacement === undefined) return `"replacement" is missing (null omits the target, { content } replaces it)`;
  if (!isObject(replacement)) return `"replacement" must be null or { content }`;
  const content = replacement.content;
  if (isString(content)) return undefined;
  if (!Array.isArray(content)) return `"replacement.content" must be a string or an array of content blocks`;
  for (const block of content) {
    const problem = blockProblem(block);
    if (problem) return `"replacement.content": ${problem}`;
  }
  return undefined;
}

function contextEditProblem(entry: Record<string, unknown>): string | undefined {
  if (!isString(entry.targetId) || entry.targetId === "") return `"targetId" must be the id of an entry`;
  return replacementProblem(entry.replacement);
}

const USAGE_NUMBERS = ["input", "output", "cacheRead", "cacheWrite"] as const;

/** A usage record whose token counts and cost total are numbers (what the totals add up). */
export function isUsage(value: unknown): value is Usage {
  if (!isObject(value) || !isObject(value.cost)) return false;
  return USAGE_NUMBERS.every((field) => Number.isFinite(value[field])) && Number.isFinite(value.cost.total);
}

/** A context edit that can be applied (a valid target id, a null or `{ content }` replacement). */
export function isUsableContextEdit(entry: SessionEntry): entry is ContextEditEntry {
  return entry.type === "context_edit" && contextEditProblem(entry as unknown as Record<string, unknown>) === undefined;
}

/**
 * What is wrong with an entry and what that costs, as the end of a sentence
 * starting with the entry ("is ignored: …"), or undefined when it is fine (or
 * of a type not checked here).
 */
export function problemWithEntry(entry: SessionEntry): string | undefined {
  const fields = entry as unknown as Record<string, unknown>;
  let problem: string | undefined;
  switch (entry.type) {
    case "context_edit":
      problem = contextEditProblem(fields);
      return problem && `is ignored: ${problem}`;
    case "usage":
      return isUsage(fields.usage) ? undefined : `is not counted: "usage" must hold numeric input, output, cacheRead, cacheWrite and cost.total`;
    case "compaction":
    case "branch_summary":
      return fields.usage === undefined || isUsage(fields.usage) ? undefined : `has a malformed "usage", which is not counted`;
    default:
      return undefined;
  }
}
