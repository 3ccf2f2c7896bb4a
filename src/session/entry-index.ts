/**
 * A session's entries with the look-ups the tree needs, built once in a single
 * pass and kept current on every append: entry by id, children by parent,
 * labels by target, the session name. Nothing here walks the whole file again.
 */
import { pathToEntry } from "./build-context.ts";
import { generateEntryId } from "./ids.ts";
import type { LabelEntry, SessionEntry, SessionTreeNode } from "./types.ts";

interface LabelState {
  label: string;
  timestamp: string;
}

export class EntryIndex {
  readonly entries: SessionEntry[] = [];
  readonly byId = new Map<string, SessionEntry>();
  /** Children by parent id, in file order; roots under `null`. */
  private readonly childrenByParent = new Map<string | null, SessionEntry[]>();
  private readonly labels = new Map<string, LabelState>();
  private name: string | undefined;
  /** How many context_edit entries there are (none: nothing to apply to a live transcript). */
  contextEditCount = 0;

  constructor(entries: readonly SessionEntry[] = []) {
    for (const entry of entries) this.add(entry);
  }

  add(entry: SessionEntry): void {
    this.entries.push(entry);
    this.byId.set(entry.id, entry);
    const parent = entry.parentId ?? null;
    const siblings = this.childrenByParent.get(parent);
    if (siblings) siblings.push(entry);
    else this.childrenByParent.set(parent, [entry]);

    if (entry.type === "label") {
      if (entry.label) this.labels.set(entry.targetId, { label: entry.label, timestamp: entry.timestamp });
      else this.labels.delete(entry.targetId);
    } else if (entry.type === "session_info") {
      this.name = entry.name?.trim() || undefined;
    } else if (entry.type === "context_edit") {
      this.contextEditCount++;
    }
  }

  get lastEntry(): SessionEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  childrenOf(parentId: string | null): SessionEntry[] {
    return [...(this.childrenByParent.get(parentId) ?? [])];
  }

  labelOf(id: string): string | undefined {
    return this.labels.get(id)?.label;
  }

  /**
   * Copies of the entries from the root to `id` (empty for an unknown id),
   * re-linked into one chain, for a new session file. Label entries on the
   * path are left out and the current labels of the copied entries are
   * re-created after them, so the copy shows the same labels.
   */
  copyPathWithLabels(id: string): SessionEntry[] {
    const copied: SessionEntry[] = [];
    let previousId: string | null = null;
    for (const entry of this.pathTo(id)) {
      if (entry.type === "label") continue;
      copied.push({ ...entry, parentId: previousId });
      previousId = entry.id;
    }
    const taken = new Set(copied.map((entry) => entry.id));
    for (const entry of copied.slice()) {
      const state = this.labels.get(entry.id);
      if (!state) continue;
      const labelId = generateEntryId(taken);
      taken.add(labelId);
      const label: LabelEntry = { type: "label", id: labelId, parentId: previousId, timestamp: state.timestamp, targetId: entry.id, label: state.label };
      copied.push(label);
      previousId = labelId;
    }
    return copied;
  }

  get sessionName(): string | undefined {
    return this.name;
  }

  /** Root first, ending at `id`; empty for an unknown id. */
  pathTo(id: string): SessionEntry[] {
    return pathToEntry(id, this.byId);
  }

  /**
   * The whole tree, children in file order. An entry whose parent is missing
   * (a line lost to corruption) becomes a root rather than disappearing.
   */
  tree(): SessionTreeNode[] {
    const nodes = new Map<string, SessionTreeNode>();
    const roots: SessionTreeNode[] = [];
    for (const entry of this.entries) {
      const node: SessionTreeNode = { entry, children: [] };
      const label = this.labels.get(entry.id);
      if (label) {
        node.label = label.label;
        node.labelTimestamp = label.timestamp;
      }
      nodes.set(entry.id, node);
    }
    // Linked in a second pass so a parent written after its child (hand-edited files) still links.
    for (const entry of this.entries) {
      const node = nodes.get(entry.id);
      if (node === undefined || node.entry !== entry) continue; // a duplicate id: the later line won
      const parent = entry.parentId == null ? undefined : nodes.get(entry.parentId);
      if (parent && parent !== node) parent.children.push(node);
      else roots.push(node);
    }
    return roots;
  }
}
