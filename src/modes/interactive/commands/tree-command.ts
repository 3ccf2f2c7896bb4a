/**
 * /tree: the whole session tree as an indented list — user and assistant
 * messages, compactions and branch summaries — with the current position
 * marked. Picking an entry moves there (a user message: to just before it,
 * with its text back in the editor to edit and resend), optionally leaving a
 * summary of the branch being left.
 */
import { messageText } from "../../../core/message-text.ts";
import { navigateTree } from "../../../core/tree-navigation.ts";
import type { ExtensionRunner } from "../../../extensions/runner.ts";
import type { SessionEntry, SessionTreeNode } from "../../../session/types.ts";
import type { App, BuiltinCommand } from "../app.ts";
import { selectDialog } from "../dialogs.ts";

interface Row {
  entry: SessionEntry;
  depth: number;
  label?: string;
}

function describe(entry: SessionEntry): string | undefined {
  switch (entry.type) {
    case "message": {
      const role = entry.message.role;
      if (role === "user") return `› ${messageText(entry.message)}`;
      if (role === "assistant") {
        const text = entry.message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join(" ");
        const tools = entry.message.content.filter((block) => block.type === "toolCall").map((block) => block.name);
        return `  ${text || (tools.length ? `[${tools.join(", ")}]` : "(empty answer)")}`;
      }
      return undefined;
    }
    case "branch_summary":
      return `✻ branch summary: ${entry.summary}`;
    case "compaction":
      return `✻ compaction: ${entry.summary}`;
    default:
      return undefined;
  }
}

/** Depth grows only where the tree branches, so a long straight conversation stays flat. */
function flatten(nodes: SessionTreeNode[], depth: number, rows: Row[]): void {
  for (const node of nodes) {
    const shown = describe(node.entry) !== undefined;
    if (shown) rows.push({ entry: node.entry, depth, label: node.label });
    const childDepth = node.children.length > 1 ? depth + 1 : depth;
    flatten(node.children, childDepth, rows);
  }
}

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim();

async function tree(app: App): Promise<void> {
  const { session } = app;
  const manager = session.sessionManager;
  const rows: Row[] = [];
  flatten(manager.getTree(), 0, rows);
  if (rows.length === 0) return app.say("The session is empty", "", "muted");
  const onPath = new Set(manager.getBranch().map((entry) => entry.id));
  const leaf = manager.getLeafId();
  const items = rows.map((row) => ({
    value: row.entry.id,
    label: `${"  ".repeat(row.depth)}${onPath.has(row.entry.id) ? "•" : " "} ${oneLine(describe(row.entry)!)}`.slice(0, 200),
    description: [row.entry.id === leaf ? "← here" : "", row.label ?? ""].filter(Boolean).join(" "),
  }));
  const picked = await selectDialog(app.surface, "Session tree (• current branch)", items, {
    searchable: true,
    initialIndex: Math.max(0, rows.findIndex((row) => row.entry.id === leaf)),
  });
  if (!picked) return;
  const entry = manager.getEntry(picked.value)!;
  // A user message is re-asked: the position goes to just before it, its text to the editor.
  const isUser = entry.type === "message" && entry.message.role === "user";
  const target = isUser ? entry.parentId : entry.id;
  const leaving = manager.getBranch().filter((item) => !new Set(target ? manager.getBranch(target).map((e) => e.id) : []).has(item.id));
  let summarize = false;
  if (leaving.some((item) => item.type === "message")) {
    const choice = await selectDialog(app.surface, "Leave a summary of the branch you leave?", [
      { value: "no", label: "No summary" },
      { value: "yes", label: "Summarize it (asks the model)" },
    ]);
    if (!choice) return;
    summarize = choice.value === "yes";
  }
  if (target === null) {
    await session.navigation.navigateTo(null);
  } else {
    const runner = (app.extensions?.currentRunner ?? { emit: async () => undefined }) as unknown as ExtensionRunner;
    if (summarize) app.say("✻ Summarizing the branch…", "", "accent");
    const outcome = await navigateTree(session, runner, target, { summarize });
    if (outcome.cancelled) return app.say("An extension cancelled the move", "", "warning");
  }
  app.redraw();
  if (isUser) app.editor.setText(messageText(entry.message));
  app.say("Moved in the session tree", isUser ? "the message is in the editor: edit it and send to branch" : "", "accent");
}

export const treeCommand: BuiltinCommand = { name: "tree", description: "Navigate the session tree", run: tree };
