/**
 * The rows /tree shows: the session tree flattened in order, indented only
 * where it branches, each entry described in one line, and the filters pi's
 * `treeFilterMode` names — default (the conversation: messages, tool results,
 * summaries), no-tools (without tool results), user-only, labeled-only, and
 * all (model and thinking changes, names, labels and extension entries too).
 * Pure: the command decides what to do with them.
 */
import type { SessionEntry, SessionTreeNode } from "../../../session/types.ts";
import { messageText } from "../../../core/message-text.ts";

export const TREE_FILTERS = ["default", "no-tools", "user-only", "labeled-only", "all"] as const;
export type TreeFilter = (typeof TREE_FILTERS)[number];

export function isTreeFilter(value: unknown): value is TreeFilter {
  return typeof value === "string" && (TREE_FILTERS as readonly string[]).includes(value);
}

export interface TreeRow {
  entry: SessionEntry;
  depth: number;
  label?: string;
  /** One line describing the entry. */
  text: string;
}

const flat = (text: string) => text.replace(/\s+/g, " ").trim();

/** One line for an entry, and what kind of entry it is for the filters. */
export function describeEntry(entry: SessionEntry): { text: string; kind: "user" | "assistant" | "tool" | "summary" | "other" } {
  switch (entry.type) {
    case "message": {
      const message = entry.message;
      switch (message.role) {
        case "user":
          return { text: `› ${flat(messageText(message))}`, kind: "user" };
        case "assistant": {
          const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join(" ");
          const tools = message.content.filter((block) => block.type === "toolCall").map((block) => block.name);
          return { text: `  ${flat(text) || (tools.length ? `[${tools.join(", ")}]` : "(empty answer)")}`, kind: "assistant" };
        }
        case "toolResult": {
          const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join(" ");
          return { text: `  ⎿ ${message.toolName}${message.isError ? " ✗" : ""}: ${flat(text)}`, kind: "tool" };
        }
        case "bashExecution":
          return { text: `  $ ${flat(message.command)}`, kind: "tool" };
        case "custom":
          return { text: `  [${message.customType}] ${flat(messageText(message))}`, kind: "other" };
        default:
          return { text: `  [${(message as { role: string }).role}]`, kind: "other" };
      }
    }
    case "branch_summary":
      return { text: `✻ branch summary: ${flat(entry.summary)}`, kind: "summary" };
    case "compaction":
      return { text: `✻ compaction: ${flat(entry.summary)}`, kind: "summary" };
    case "custom_message":
      return { text: `  [${entry.customType}] ${flat(typeof entry.content === "string" ? entry.content : entry.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join(" "))}`, kind: "other" };
    case "model_change":
      return { text: `  [model: ${entry.provider}/${entry.modelId}]`, kind: "other" };
    case "thinking_level_change":
      return { text: `  [thinking: ${entry.thinkingLevel}]`, kind: "other" };
    case "session_info":
      return { text: `  [name: ${entry.name ?? ""}]`, kind: "other" };
    case "label":
      return { text: `  [label ${entry.label ? `"${entry.label}"` : "removed"}]`, kind: "other" };
    default:
      return { text: `  [${entry.type}]`, kind: "other" };
  }
}

function shown(kind: ReturnType<typeof describeEntry>["kind"], entry: SessionEntry, label: string | undefined, filter: TreeFilter): boolean {
  switch (filter) {
    case "all":
      return true;
    case "user-only":
      return kind === "user";
    case "labeled-only":
      return label !== undefined;
    case "no-tools":
      return kind === "user" || kind === "assistant" || kind === "summary" || (kind === "other" && entry.type === "custom_message");
    default:
      return kind !== "other" || entry.type === "custom_message";
  }
}

/** The rows a filter leaves, in tree order. Depth grows only where the tree branches, so a long straight conversation stays flat. */
export function treeRows(roots: SessionTreeNode[], filter: TreeFilter): TreeRow[] {
  const rows: TreeRow[] = [];
  // A stack, not recursion: a session of thousands of entries is one long chain.
  const stack = roots.map((node) => ({ node, depth: 0 })).reverse();
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    const { text, kind } = describeEntry(node.entry);
    if (shown(kind, node.entry, node.label, filter)) rows.push({ entry: node.entry, depth, label: node.label, text });
    const childDepth = node.children.length > 1 ? depth + 1 : depth;
    for (let index = node.children.length - 1; index >= 0; index--) stack.push({ node: node.children[index]!, depth: childDepth });
  }
  return rows;
}
