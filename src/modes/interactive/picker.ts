/**
 * A full-width list picker shown in the editor's place (as pi shows /resume
 * and /tree): a title with a status on the right, hint lines, a search line,
 * a scrolling window of rows with the selected one marked, and a count. The
 * command that opens it owns the rows and its extra keys (rename, delete,
 * filters); the picker owns moving, searching, and the small in-place
 * questions those keys ask — a line of text (a new name, a label) or a
 * yes/no — so nothing opens on top of it. Rows hold others' words (a theme
 * file's name, a session's name, a path in a cloned repository): everything it
 * draws passes inertKeepingColour, so an escape sequence in them reaches the
 * terminal as nothing, while the colours the owner put on them stay.
 */
import type { Component, Focusable, Input, KeybindingsManager } from "@earendil-works/pi-tui";
import { loadPiTui } from "../../extensions/tui-helpers.ts";
import { inertKeepingColour } from "../../tools/inert-text.ts";
import { matches } from "./keymap.ts";
import type { UiTheme } from "./theme.ts";

export interface PickerRow {
  id: string;
  /** The row's text (may carry colour); searched without it. */
  text: string;
  /** Plain text the search matches against (default: text). */
  searchText?: string;
  /** Right-aligned, dim: an age, a count, a path. */
  right?: string;
}

export interface PickerOptions {
  theme: () => UiTheme;
  keymap: () => KeybindingsManager;
  /** Rows visible at once. */
  height: () => number;
  title: () => string;
  status?: () => string;
  hints: () => string[];
  /** The rows for a search text, in order (the owner filters and sorts). */
  rows: (query: string) => PickerRow[];
  /** Below the count, e.g. the active filter. */
  footer?: () => string;
  /** Keys the owner handles first; true when taken. */
  onKey?: (data: string, picker: Picker) => boolean;
  onPick(row: PickerRow): void;
  onCancel(): void;
  /** The selection moved to another row (or to none) by a key: a preview may follow it. */
  onSelect?(row: PickerRow | undefined): void;
}

type Question = { kind: "text"; label: string; input: Input; settle: (value: string | undefined) => void } | { kind: "confirm"; label: string; settle: (yes: boolean) => void };

export class Picker implements Component, Focusable {
  private readonly search: Input;
  private shown: PickerRow[] = [];
  private selectedIndex = 0;
  private top = 0;
  private question: Question | undefined;
  private flashText: string | undefined;
  private _focused = false;

  constructor(private readonly options: PickerOptions) {
    this.search = new (loadPiTui().Input)({ prompt: "> " });
    this.refresh();
  }

  get focused(): boolean {
    return this._focused;
  }
  set focused(value: boolean) {
    this._focused = value;
    this.search.focused = value && !this.question;
    if (this.question?.kind === "text") this.question.input.focused = value;
  }

  /**
   * Fullscreen: while the picker has the keyboard, PageUp/PageDown and the prompt jumps are
   * its own (they move the selection), not the transcript's — as pi 1.x's lists do.
   * A line of text being typed (a new name) leaves them to the transcript.
   */
  get capturesViewportInput(): boolean {
    return this.question?.kind !== "text";
  }

  get query(): string {
    return this.search.getValue();
  }

  selected(): PickerRow | undefined {
    return this.shown[this.selectedIndex];
  }

  /**
   * Rebuilds the rows (after a rename, a delete, a filter change), keeping the
   * selection on the row `keep` (default: the selected one) when it is still
   * there, else (and with null) on the same place in the list.
   */
  refresh(keep: string | null | undefined = this.selected()?.id): void {
    this.shown = this.options.rows(this.query);
    const index = keep == null ? -1 : this.shown.findIndex((row) => row.id === keep);
    this.select(index >= 0 ? index : Math.min(this.selectedIndex, Math.max(0, this.shown.length - 1)));
  }

  select(index: number): void {
    this.selectedIndex = Math.max(0, Math.min(index, this.shown.length - 1));
    const height = this.options.height();
    if (this.selectedIndex < this.top) this.top = this.selectedIndex;
    if (this.selectedIndex >= this.top + height) this.top = this.selectedIndex - height + 1;
    this.top = Math.max(0, Math.min(this.top, this.shown.length - height));
  }

  /** A line shown until the next key (what happened, or why not). */
  flash(text: string): void {
    this.flashText = text;
  }

  /** Asks for a line of text in place; undefined when cancelled. */
  ask(label: string, initial = ""): Promise<string | undefined> {
    return new Promise((resolve) => {
      const input = new (loadPiTui().Input)({ prompt: "> " });
      prefillInput(input, initial);
      const settle = (value: string | undefined) => {
        this.question = undefined;
        this.focused = this._focused;
        resolve(value);
      };
      input.onSubmit = (value) => settle(value);
      input.onEscape = () => settle(undefined);
      this.question = { kind: "text", label, input, settle };
      this.focused = this._focused;
    });
  }

  /** Asks yes (Enter, y) or no (Esc, n, Ctrl+C) in place. */
  confirm(label: string): Promise<boolean> {
    return new Promise((resolve) => {
      this.question = {
        kind: "confirm",
        label,
        settle: (yes) => {
          this.question = undefined;
          this.focused = this._focused;
          resolve(yes);
        },
      };
      this.focused = this._focused;
    });
  }

  invalidate(): void {}

  handleInput(data: string): void {
    const before = this.selected()?.id;
    this.handleKey(data);
    if (this.options.onSelect && this.selected()?.id !== before) this.options.onSelect(this.selected());
  }

  private handleKey(data: string): void {
    const { matchesKey } = loadPiTui();
    this.flashText = undefined;
    const question = this.question;
    if (question?.kind === "text") {
      if (matchesKey(data, "ctrl+c")) return question.settle(undefined);
      return question.input.handleInput(data);
    }
    if (question?.kind === "confirm") {
      if (matchesKey(data, "enter") || data === "y" || data === "Y") return question.settle(true);
      if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c") || data === "n" || data === "N") return question.settle(false);
      return;
    }
    if (this.options.onKey?.(data, this)) return;
    const keymap = this.options.keymap();
    const height = this.options.height();
    if (matches(keymap, data, "tui.select.cancel")) return this.options.onCancel();
    if (matches(keymap, data, "tui.select.confirm")) {
      const row = this.selected();
      return row ? this.options.onPick(row) : undefined;
    }
    if (matches(keymap, data, "tui.select.up")) return this.select(this.selectedIndex === 0 ? this.shown.length - 1 : this.selectedIndex - 1);
    if (matches(keymap, data, "tui.select.down")) return this.select(this.selectedIndex >= this.shown.length - 1 ? 0 : this.selectedIndex + 1);
    if (matches(keymap, data, "tui.select.pageUp")) return this.select(this.selectedIndex - height);
    if (matches(keymap, data, "tui.select.pageDown")) return this.select(this.selectedIndex + height);
    const before = this.query;
    this.search.handleInput(data);
    if (this.query !== before) {
      this.selectedIndex = 0;
      this.top = 0;
      this.refresh(null);
    }
  }

  render(width: number): string[] {
    const { truncateToWidth, visibleWidth } = loadPiTui();
    const theme = this.options.theme();
    const inner = Math.max(10, width - 2);
    const pad = (line: string) => ` ${truncateToWidth(inertKeepingColour(line), inner)}`;
    const lines: string[] = [theme.fg("borderAccent", "─".repeat(width))];
    const title = theme.bold(theme.fg("accent", inertKeepingColour(this.options.title())));
    const status = inertKeepingColour(this.options.status?.() ?? "");
    const gap = inner - visibleWidth(title) - visibleWidth(status);
    lines.push(pad(gap > 0 ? title + " ".repeat(gap) + theme.fg("muted", status) : title));
    const question = this.question;
    if (this.flashText) lines.push(pad(theme.fg("warning", this.flashText)));
    else if (question?.kind === "confirm") lines.push(pad(theme.fg("warning", `${question.label} enter confirm · esc cancel`)));
    else for (const hint of this.options.hints()) lines.push(pad(theme.fg("dim", hint)));
    if (question?.kind === "text") {
      lines.push(pad(theme.fg("accent", question.label)));
      for (const line of question.input.render(inner)) lines.push(` ${line}`);
    } else for (const line of this.search.render(inner)) lines.push(` ${line}`);
    lines.push("");
    const height = this.options.height();
    if (this.shown.length === 0) lines.push(pad(theme.fg("dim", this.query ? "Nothing matches" : "Nothing to show")));
    for (let index = this.top; index < Math.min(this.shown.length, this.top + height); index++) {
      const row = this.shown[index]!;
      const chosen = index === this.selectedIndex;
      const marker = chosen ? theme.fg("accent", "→ ") : "  ";
      const right = row.right ? theme.fg("dim", inertKeepingColour(row.right)) : "";
      const room = inner - 2 - (right ? visibleWidth(right) + 2 : 0);
      let text = truncateToWidth(inertKeepingColour(row.text), Math.max(10, room));
      if (chosen) text = theme.bold(text);
      const fill = right ? " ".repeat(Math.max(2, inner - 2 - visibleWidth(text) - visibleWidth(right))) : "";
      lines.push(` ${truncateToWidth(marker + text + fill + right, inner)}`);
    }
    const count = this.shown.length ? `(${this.selectedIndex + 1}/${this.shown.length})` : "(0)";
    const footer = this.options.footer?.() ?? "";
    lines.push(pad(theme.fg("dim", footer ? `${count} ${footer}` : count)));
    lines.push(theme.fg("borderAccent", "─".repeat(width)));
    return lines;
  }
}

/**
 * Puts text in a pi-tui Input with the cursor after it (setValue leaves the
 * cursor at the start, where Ctrl+U would delete nothing): as a paste.
 */
export function prefillInput(input: Input, text: string): void {
  if (text) input.handleInput(`\x1b[200~${text}\x1b[201~`);
}

/** Shows a picker in the editor's place until it settles; the editor comes back with the keyboard. */
export function showPicker<T>(replaceEditor: (component: Component) => () => void, build: (settle: (value: T) => void) => Picker): Promise<T> {
  return new Promise<T>((resolve) => {
    let restore: (() => void) | undefined;
    let done = false;
    const settle = (value: T) => {
      if (done) return;
      done = true;
      restore?.();
      resolve(value);
    };
    const picker = build(settle);
    if (!done) restore = replaceEditor(picker);
  });
}
