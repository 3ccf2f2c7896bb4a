/**
 * The panel /login shows in the editor's place while it needs the person: a title, a
 * few lines of explanation, and at most one input line — a secret one for an API key
 * (drawn as dots, never as the key), a plain one for a pasted redirect address or an
 * enterprise domain — or none while a sign-in waits. Esc or Ctrl+C cancels at any time;
 * what the panel was waiting for then gets `undefined`.
 */
import type { Component, Focusable, Input } from "@earendil-works/pi-tui";
import { loadPiTui } from "../../../extensions/tui-helpers.ts";
import type { UiTheme } from "../theme.ts";

export interface PanelField {
  prompt: string;
  /** Drawn as one dot per character. */
  secret?: boolean;
  placeholder?: string;
}

export class LoginPanel implements Component, Focusable {
  private input: Input | undefined;
  private field: PanelField | undefined;
  private answer: ((value: string | undefined) => void) | undefined;
  private lines: string[] = [];
  private _focused = false;

  constructor(
    private readonly theme: () => UiTheme,
    private title: string,
    /** Called on Esc / Ctrl+C, after a pending question got undefined. */
    private readonly onCancel: () => void,
    private readonly requestRender: () => void,
  ) {}

  get focused(): boolean {
    return this._focused;
  }
  set focused(value: boolean) {
    this._focused = value;
    if (this.input) this.input.focused = value;
  }

  setTitle(title: string): void {
    this.title = title;
    this.requestRender();
  }

  /** The explanation under the title (replaces the previous one). */
  setLines(lines: string[]): void {
    this.lines = lines;
    this.requestRender();
  }

  /** Shows an input line and resolves with what is entered (undefined: cancelled). One question at a time. */
  ask(field: PanelField): Promise<string | undefined> {
    this.answer?.(undefined);
    const input = new (loadPiTui().Input)({ prompt: field.prompt, placeholder: field.placeholder, placeholderStyle: (text) => this.theme().fg("dim", text) });
    input.focused = this._focused;
    this.input = input;
    this.field = field;
    this.requestRender();
    return new Promise((resolve) => {
      this.answer = (value) => {
        this.answer = undefined;
        this.input = undefined;
        this.field = undefined;
        this.requestRender();
        resolve(value);
      };
      input.onSubmit = (value) => this.answer?.(value);
    });
  }

  invalidate(): void {
    this.input?.invalidate();
  }

  handleInput(data: string): void {
    const { matchesKey } = loadPiTui();
    if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c")) {
      this.answer?.(undefined);
      this.onCancel();
      return;
    }
    this.input?.handleInput(data);
    this.requestRender();
  }

  render(width: number): string[] {
    const { truncateToWidth, wrapTextWithAnsi } = loadPiTui();
    const theme = this.theme();
    const inner = Math.max(10, width - 2);
    const out = [theme.fg("borderAccent", "─".repeat(width)), ` ${theme.bold(theme.fg("accent", truncateToWidth(this.title, inner)))}`];
    for (const line of this.lines) for (const wrapped of wrapTextWithAnsi(line, inner)) out.push(` ${wrapped}`);
    if (this.input && this.field) {
      out.push("");
      out.push(this.field.secret ? ` ${this.maskedLine(inner)}` : ` ${this.input.render(inner)[0] ?? ""}`);
    }
    const hint = this.input ? "enter submit · esc cancel" : "esc cancel";
    out.push("", ` ${theme.fg("dim", hint)}`, theme.fg("borderAccent", "─".repeat(width)));
    return out;
  }

  /** The secret as dots: its length shows that typing or pasting arrived, its text never does. */
  private maskedLine(width: number): string {
    const { truncateToWidth, CURSOR_MARKER } = loadPiTui();
    const theme = this.theme();
    const value = this.input?.getValue() ?? "";
    const dots = value.length > 0 ? "•".repeat(Math.min(value.length, 40)) + (value.length > 40 ? ` (${value.length})` : "") : theme.fg("dim", this.field?.placeholder ?? "");
    const cursor = this._focused ? `${CURSOR_MARKER}${theme.inverse(" ")}` : "";
    return truncateToWidth(`${this.field?.prompt ?? ""}${dots}${cursor}`, width);
  }
}

/** Shows the panel in the editor's place until `run` finishes; the editor comes back after. */
export async function withLoginPanel<T>(replaceEditor: (component: Component) => () => void, panel: LoginPanel, run: () => Promise<T>): Promise<T> {
  const restore = replaceEditor(panel);
  try {
    return await run();
  } finally {
    restore();
  }
}
