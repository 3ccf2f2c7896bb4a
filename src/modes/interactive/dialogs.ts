/**
 * Modal dialogs drawn as overlays over the conversation: a searchable select
 * list, yes/no confirm, a one-line input and a multi-line editor. Built-in
 * commands (/model, /resume, /tree) and extensions' ctx.ui dialogs share them.
 * Every dialog settles exactly once — on an answer, Esc, its timeout or its
 * abort signal — and then gives the keyboard back to whatever had it.
 */
import type { Component, Focusable, OverlayHandle, SelectItem, TUI } from "@earendil-works/pi-tui";
import { loadPiTui } from "../../extensions/tui-helpers.ts";
import { inertKeepingColour } from "../../tools/inert-text.ts";
import { prefillInput } from "./picker.ts";
import type { UiTheme } from "./theme.ts";

export interface DialogHost {
  tui: TUI;
  theme: () => UiTheme;
}

export interface DialogLimits {
  timeout?: number;
  signal?: AbortSignal;
}

/** setTimeout fires at once beyond this; a longer timeout counts as none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A bordered box with a title around the dialog's body. */
class Frame implements Component, Focusable {
  private _focused = false;
  constructor(
    private readonly host: DialogHost,
    private readonly title: string,
    private readonly body: Component,
    private readonly hint: string,
    private readonly message?: string,
  ) {}
  get focused(): boolean {
    return this._focused;
  }
  set focused(value: boolean) {
    this._focused = value;
    if ("focused" in this.body) (this.body as unknown as Focusable).focused = value;
  }
  invalidate(): void {
    this.body.invalidate();
  }
  handleInput(data: string): void {
    this.body.handleInput?.(data);
  }
  render(width: number): string[] {
    const { truncateToWidth, wrapTextWithAnsi, visibleWidth } = loadPiTui();
    const theme = this.host.theme();
    const inner = Math.max(10, width - 4);
    const border = (text: string) => theme.fg("borderAccent", text);
    const row = (line: string) => {
      const shown = truncateToWidth(line, inner);
      return border("│ ") + shown + " ".repeat(Math.max(0, inner - visibleWidth(shown))) + border(" │");
    };
    // Title and message quote others' words (the trust question names the project's folder, an
    // extension's dialog whatever it likes): drawn inert but for colour, as the pickers draw theirs.
    const titleText = truncateToWidth(` ${inertKeepingColour(this.title)} `, Math.max(1, width - 4));
    const lines = [border("╭─") + theme.bold(theme.fg("accent", titleText)) + border("─".repeat(Math.max(0, width - 3 - visibleWidth(titleText))) + "╮")];
    if (this.message) for (const line of this.message.split("\n").flatMap((l) => wrapTextWithAnsi(inertKeepingColour(l), inner))) lines.push(row(line));
    if (this.message) lines.push(row(""));
    for (const line of this.body.render(inner)) lines.push(row(line));
    lines.push(row(theme.fg("dim", this.hint)));
    lines.push(border("╰" + "─".repeat(Math.max(0, width - 2)) + "╯"));
    return lines;
  }
}

/**
 * Shows `component` in a centred overlay until `settle` is called; resolves
 * with the value passed to it. The timeout and signal settle it with `fallback`.
 */
function openDialog<T>(
  host: DialogHost,
  build: (settle: (value: T) => void) => Component,
  fallback: T,
  limits: DialogLimits = {},
  width: number | `${number}%` = "70%",
): Promise<T> {
  if (limits.signal?.aborted) return Promise.resolve(fallback);
  return new Promise<T>((resolve) => {
    let handle: OverlayHandle | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const onAbort = () => settle(fallback);
    const settle = (value: T) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      limits.signal?.removeEventListener("abort", onAbort);
      handle?.hide();
      host.tui.requestRender();
      resolve(value);
    };
    const component = build(settle);
    handle = host.tui.showOverlay(component, { width, minWidth: 40, maxHeight: "80%", anchor: "center" });
    const timeout = limits.timeout;
    if (typeof timeout === "number" && timeout > 0 && timeout <= MAX_TIMER_MS) timer = setTimeout(() => settle(fallback), timeout);
    limits.signal?.addEventListener("abort", onAbort, { once: true });
    host.tui.requestRender();
  });
}

/** A list with a search line: typing filters, ↑/↓ move, Enter picks, Esc cancels. */
class SearchableList implements Component, Focusable {
  private list: import("@earendil-works/pi-tui").SelectList;
  private readonly search;
  private _focused = false;
  constructor(
    private readonly items: SelectItem[],
    private readonly theme: UiTheme,
    searchable: boolean,
    private readonly onPick: (item: SelectItem | undefined) => void,
    initialIndex = 0,
    private readonly noMatch = "No match",
  ) {
    this.list = this.makeList(items);
    if (initialIndex > 0) this.list.setSelectedIndex(initialIndex);
    this.search = searchable ? new (loadPiTui().Input)({ prompt: "search: " }) : undefined;
  }
  /** Fuzzy over label and description, so "m2" finds "fake/m2". */
  private makeList(items: SelectItem[]) {
    const { SelectList } = loadPiTui();
    const list = new SelectList(items, Math.min(12, Math.max(1, this.items.length)), this.theme.selectList(), { maxPrimaryColumnWidth: 80 });
    list.onSelect = (item) => this.onPick(item);
    list.onCancel = () => this.onPick(undefined);
    return list;
  }
  get focused(): boolean {
    return this._focused;
  }
  set focused(value: boolean) {
    this._focused = value;
    if (this.search) this.search.focused = value;
  }
  invalidate(): void {
    this.list.invalidate();
  }
  handleInput(data: string): void {
    const { matchesKey, fuzzyFilter } = loadPiTui();
    const navigation = ["up", "down", "enter", "escape", "pageUp", "pageDown", "ctrl+c"] as const;
    if (!this.search || navigation.some((key) => matchesKey(data, key))) {
      if (matchesKey(data, "ctrl+c")) return this.onPick(undefined);
      return this.list.handleInput(data);
    }
    this.search.handleInput(data);
    const query = this.search.getValue().trim();
    this.list = this.makeList(query ? fuzzyFilter(this.items, query, (item) => `${item.label} ${item.description ?? ""}`) : this.items);
  }
  render(width: number): string[] {
    const lines = this.search ? [...this.search.render(width), ""] : [];
    // pi-tui's own empty-list line speaks of "commands"; a dialog says what it lists.
    const filtered = this.search && this.search.getValue().trim() !== "" && this.list.getSelectedItem() === null;
    if (filtered) return [...lines, ...loadPiTui().wrapTextWithAnsi(this.theme.fg("warning", `  ${this.noMatch}`), width)];
    return [...lines, ...this.list.render(width)];
  }
}

export function selectDialog(
  host: DialogHost,
  title: string,
  items: SelectItem[],
  options: DialogLimits & { searchable?: boolean; initialIndex?: number; message?: string; noMatch?: string } = {},
): Promise<SelectItem | undefined> {
  const searchable = options.searchable ?? items.length > 8;
  return openDialog<SelectItem | undefined>(
    host,
    (settle) =>
      new Frame(
        host,
        title,
        new SearchableList(items, host.theme(), searchable, settle, options.initialIndex, options.noMatch),
        `↑↓ move · enter select · esc cancel${searchable ? " · type to search" : ""}`,
        options.message,
      ),
    undefined,
    options,
    "80%",
  );
}

class ConfirmBody implements Component {
  private yes = true;
  constructor(
    private readonly theme: UiTheme,
    private readonly settle: (value: boolean) => void,
  ) {}
  invalidate(): void {}
  handleInput(data: string): void {
    const { matchesKey } = loadPiTui();
    if (data === "y" || data === "Y") return this.settle(true);
    if (data === "n" || data === "N" || matchesKey(data, "escape") || matchesKey(data, "ctrl+c")) return this.settle(false);
    if (matchesKey(data, "enter")) return this.settle(this.yes);
    if (matchesKey(data, "left") || matchesKey(data, "right") || matchesKey(data, "tab")) this.yes = !this.yes;
  }
  render(): string[] {
    const button = (label: string, on: boolean) => (on ? this.theme.inverse(this.theme.bold(` ${label} `)) : ` ${label} `);
    return [`${button("Yes", this.yes)}  ${button("No", !this.yes)}`];
  }
}

export function confirmDialog(host: DialogHost, title: string, message: string, limits: DialogLimits = {}): Promise<boolean> {
  return openDialog<boolean>(host, (settle) => new Frame(host, title, new ConfirmBody(host.theme(), settle), "y/n · ←→ choose · enter confirm · esc no", message), false, limits, 60);
}

export function inputDialog(host: DialogHost, title: string, placeholder: string | undefined, limits: DialogLimits = {}, prefill = ""): Promise<string | undefined> {
  return openDialog<string | undefined>(
    host,
    (settle) => {
      const { Input } = loadPiTui();
      const input = new Input({ placeholder, placeholderStyle: (text) => host.theme().fg("dim", text) });
      prefillInput(input, prefill);
      input.onSubmit = (value) => settle(value);
      input.onEscape = () => settle(undefined);
      return new Frame(host, title, input, "enter submit · esc cancel");
    },
    undefined,
    limits,
  );
}

export function editorDialog(host: DialogHost, title: string, prefill: string | undefined, limits: DialogLimits = {}): Promise<string | undefined> {
  return openDialog<string | undefined>(
    host,
    (settle) => {
      const { Editor, matchesKey } = loadPiTui();
      class DialogEditor extends Editor {
        override handleInput(data: string): void {
          if (matchesKey(data, "escape")) return settle(undefined);
          super.handleInput(data);
        }
      }
      const editor = new DialogEditor(host.tui, host.theme().editor());
      if (prefill) editor.setText(prefill);
      editor.onSubmit = (value) => settle(value);
      return new Frame(host, title, editor, "enter submit · shift+enter new line · esc cancel");
    },
    undefined,
    limits,
    "80%",
  );
}
