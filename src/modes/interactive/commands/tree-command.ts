/**
 * /tree (also a double Esc on an empty editor): the whole session tree as an
 * indented list in the editor's place, the current branch marked. Picking an
 * entry moves there (a user message: to just before it, with its text back in
 * the editor to edit and resend), optionally leaving a summary of the branch
 * being left (unless `branchSummary.skipPrompt` says not to ask). In the list, Shift+L labels the selected entry (empty removes
 * the label) and the filter keys switch what is listed (tree-rows.ts); the
 * first filter is the `treeFilterMode` setting. Keys by pi's action ids.
 */
import { messageText } from "../../../core/message-text.ts";
import { navigateTree } from "../../../core/tree-navigation.ts";
import type { ExtensionRunner } from "../../../extensions/runner.ts";
import type { App, BuiltinCommand } from "../app.ts";
import { selectDialog } from "../dialogs.ts";
import { keysOf, matches } from "../keymap.ts";
import { Picker, showPicker, type PickerRow } from "../picker.ts";
import { isTreeFilter, TREE_FILTERS, treeRows, type TreeFilter } from "./tree-rows.ts";

const FILTER_KEYS: [string, TreeFilter][] = [
  ["app.tree.filter.default", "default"],
  ["app.tree.filter.noTools", "no-tools"],
  ["app.tree.filter.userOnly", "user-only"],
  ["app.tree.filter.labeledOnly", "labeled-only"],
  ["app.tree.filter.all", "all"],
];

/** Lets the person pick an entry; undefined when they close the list. */
async function pickEntry(app: App): Promise<string | undefined> {
  const { session } = app;
  const manager = session.sessionManager;
  let filter: TreeFilter = isTreeFilter(session.settings.treeFilterMode) ? session.settings.treeFilterMode : "default";
  const key = (id: string) => keysOf(app.keymap, id) || "unbound";
  /** The current position as the list shows it: the newest entry of the branch the filter keeps (a model change may be the real leaf). */
  const here = (listed: ReadonlySet<string>) => manager.getBranch().findLast((entry) => listed.has(entry.id))?.id;
  const rows = (query: string): PickerRow[] => {
    const onPath = new Set(manager.getBranch().map((entry) => entry.id));
    const needle = query.trim().toLowerCase();
    const listed = treeRows(manager.getTree(), filter);
    const position = here(new Set(listed.map((row) => row.entry.id)));
    return listed
      .filter((row) => !needle || `${row.label ?? ""} ${row.text}`.toLowerCase().includes(needle))
      .map((row) => ({
        id: row.entry.id,
        text: `${"  ".repeat(row.depth)}${onPath.has(row.entry.id) ? "•" : " "} ${row.label ? app.surface.theme().fg("warning", `[${row.label}] `) : ""}${row.text.trim()}`,
        right: row.entry.id === position ? "← here" : undefined,
      }));
  };
  return showPicker<string | undefined>(app.surface.replaceEditor, (settle) => {
    const picker: Picker = new Picker({
      theme: app.surface.theme,
      keymap: () => app.keymap,
      height: () => Math.max(4, Math.min(20, app.surface.tui.terminal.rows - 14)),
      title: () => "Session tree",
      status: () => `• current branch · filter: ${filter}`,
      hints: () => [
        `enter go there · esc close · ${key("app.tree.editLabel")} label · ${key("app.tree.filter.cycleForward")}/${key("app.tree.filter.cycleBackward")} next/previous filter · type to search`,
        `filters: ${FILTER_KEYS.map(([id, name]) => `${key(id)} ${name}`).join(" · ")}`,
      ],
      rows,
      footer: () => (filter === "default" ? "" : `[${filter}]`),
      onKey: (data, self) => {
        const chosen = FILTER_KEYS.find(([id]) => matches(app.keymap, data, id));
        const step = matches(app.keymap, data, "app.tree.filter.cycleBackward") ? -1 : matches(app.keymap, data, "app.tree.filter.cycleForward") ? 1 : 0;
        if (chosen) filter = chosen[1] === filter && filter !== "default" ? "default" : chosen[1];
        else if (step) filter = TREE_FILTERS[(TREE_FILTERS.indexOf(filter) + step + TREE_FILTERS.length) % TREE_FILTERS.length]!;
        else if (matches(app.keymap, data, "app.tree.editLabel")) {
          const row = self.selected();
          if (row) void editLabel(app, self, row.id);
          return true;
        } else return false;
        self.refresh();
        return true;
      },
      onPick: (row) => settle(row.id),
      onCancel: () => settle(undefined),
    });
    // Start on the current position.
    picker.refresh(here(new Set(treeRows(manager.getTree(), filter).map((row) => row.entry.id))));
    return picker;
  });
}

async function editLabel(app: App, picker: Picker, entryId: string): Promise<void> {
  const current = app.session.sessionManager.getLabel(entryId) ?? "";
  const label = await picker.ask("Label (empty to remove):", current);
  if (label === undefined) return;
  try {
    app.session.setLabel(entryId, label);
    picker.flash(label.trim() ? `Labelled "${label.trim()}"` : "Label removed");
  } catch (error) {
    picker.flash(`Cannot label: ${(error as Error).message}`);
  }
  picker.refresh(entryId);
  app.surface.tui.requestRender();
}

async function tree(app: App): Promise<void> {
  const { session } = app;
  const manager = session.sessionManager;
  if (!manager.getEntries().some((entry) => entry.type === "message")) return app.say("The session is empty", "", "muted");
  const picked = await pickEntry(app);
  if (!picked) return;
  const entry = manager.getEntry(picked)!;
  // A user message is re-asked: the position goes to just before it, its text to the editor.
  const isUser = entry.type === "message" && entry.message.role === "user";
  const target = isUser ? entry.parentId : entry.id;
  const kept = new Set(target ? manager.getBranch(target).map((item) => item.id) : []);
  const leaving = manager.getBranch().filter((item) => !kept.has(item.id));
  let summarize = false;
  // branchSummary.skipPrompt (pi 1.x): no question, and no summary.
  if (leaving.some((item) => item.type === "message") && session.settings.branchSummary?.skipPrompt !== true) {
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

export const treeCommand: BuiltinCommand = { name: "tree", description: "Navigate the session tree (label entries, filter)", run: tree };
