/**
 * One tool call in the conversation: a single line saying what was done
 * (`read src/x.ts`, `$ npm test`, `edit src/x.ts`), then, under it, what came
 * back — bash output live as it streams, edit and write as a coloured diff,
 * anything else as its text — clipped to a few lines with a hint, and shown
 * whole when tools are expanded (ctrl+o). An extension tool's own
 * renderCall/renderResult replace the built-in shapes when it has them.
 */
import { inertText } from "../../tools/inert-text.ts";
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import type { Component } from "@earendil-works/pi-tui";
import { keyHint, keyText, loadPiTui } from "../../extensions/tui-helpers.ts";
import { generateDiff } from "../../tools/edit-diff.ts";
import type { UiTheme } from "./theme.ts";

/** What an extension tool registered for drawing itself. */
export interface ToolRenderers {
  renderCall?: (...args: any[]) => unknown;
  renderResult?: (...args: any[]) => unknown;
}

export interface ToolLineOptions {
  theme: () => UiTheme;
  cwd: string;
  expanded: () => boolean;
  renderers?: ToolRenderers;
}

type Status = "running" | "done" | "error";

/** Lines of output shown while folded. */
const FOLDED_LINES = 6;
/** Lines shown when expanded: a huge result must not flood the terminal either. */
const EXPANDED_LINES = 400;

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function resultText(result: any): string {
  const content = result?.content;
  if (!Array.isArray(content)) return typeof content === "string" ? inertText(content) : "";
  return content
    .map((block: any) => (block?.type === "text" ? inertText(text(block.text)) : block?.type === "image" ? "[image]" : ""))
    .filter(Boolean)
    .join("\n");
}

function isComponent(value: unknown): value is Component {
  return typeof value === "object" && value !== null && typeof (value as Component).render === "function";
}

export class ToolLine implements Component {
  private status: Status = "running";
  private output = "";
  private result: any;
  private diff: string | undefined;
  /** write: the file before it was written, to show what changed. */
  private before: string | undefined;
  private cache: { width: number; expanded: boolean; lines: string[] } | undefined;
  /** How long execute() took, from tool_execution_end; unknown while running and for restored rows. */
  private durationMs: number | undefined;
  /** Shared by an extension's renderCall and renderResult for this row (pi's `context.state`). */
  private readonly rendererState: Record<string, unknown> = {};
  /** What an extension's renderCall and renderResult returned last (pi's `context.lastComponent`, one per slot). */
  private lastCall: unknown;
  private lastResult: unknown;
  /** tool_execution_start arrived (or the result did): the row was made from the model's finished call before that. */
  private started = false;
  /** The calls a codemode script made, drawn indented under its row. */
  private readonly children: ToolLine[] = [];

  constructor(
    readonly toolCallId: string,
    readonly toolName: string,
    private args: any,
    private readonly options: ToolLineOptions,
  ) {
    if (toolName === "write") this.before = this.readTarget();
  }

  setArgs(args: any): void {
    this.args = args;
    this.started = true;
    this.invalidate();
  }

  update(partialResult: any): void {
    this.started = true;
    this.output = resultText(partialResult);
    this.invalidate();
  }

  finish(result: any, isError: boolean, durationMs?: number): void {
    this.started = true;
    this.status = isError ? "error" : "done";
    this.durationMs = durationMs;
    this.result = result;
    this.output = resultText(result);
    if (!isError && this.toolName === "edit") this.diff = inertText(text(result?.details?.diff)) || undefined;
    if (!isError && this.toolName === "write") {
      const after = this.readTarget();
      if (after !== undefined) this.diff = inertText(generateDiff(this.before ?? "", after).diff) || undefined;
    }
    this.invalidate();
  }

  invalidate(): void {
    this.cache = undefined;
  }

  /** A nested call of this one (a codemode script's), shown under it rather than as a row of its own. */
  addChild(line: ToolLine): void {
    this.children.push(line);
  }

  render(width: number): string[] {
    const expanded = this.options.expanded();
    let lines: string[];
    if (this.cache && this.cache.width === width && this.cache.expanded === expanded) lines = this.cache.lines;
    else {
      lines = this.build(width, expanded);
      this.cache = { width, expanded, lines };
    }
    if (this.children.length === 0) return lines;
    // Children keep caches of their own; they change while the script runs, so their rows are drawn each time.
    return [...lines, ...this.children.flatMap((child) => child.render(Math.max(1, width - 2)).map((line) => `  ${line}`))];
  }

  /** The path the call names, as drawn: relative to the project when inside it, and inert (a repository's file names may hold escapes). */
  private path(): string {
    const raw = text(this.args?.path) || text(this.args?.file_path);
    if (!raw) return "";
    const relativePath = isAbsolute(raw) ? relative(this.options.cwd, raw) : raw;
    return inertText(relativePath.startsWith("..") ? raw : relativePath);
  }

  private readTarget(): string | undefined {
    const raw = text(this.args?.path);
    if (!raw) return undefined;
    const file = resolve(this.options.cwd, raw.startsWith("~/") ? raw.replace("~", process.env.HOME ?? "~") : raw);
    try {
      return existsSync(file) ? readFileSync(file, "utf8") : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The one line that says what the call does. Its arguments are the model's, naming the
   * repository's files and patterns: each drawn inert, so no escape in them reaches the terminal.
   */
  private title(): string {
    const theme = this.options.theme();
    const name = (label: string) => theme.bold(theme.fg("toolTitle", label));
    const args = this.args ?? {};
    const shown = (value: unknown) => inertText(text(value));
    switch (this.toolName) {
      case "bash":
        return `${name("$")} ${shown(text(args.command).split("\n")[0])}${text(args.command).includes("\n") ? theme.fg("muted", " …") : ""}`;
      case "read": {
        const range = args.offset || args.limit ? theme.fg("muted", `:${args.offset ?? 1}${args.limit ? `-${(args.offset ?? 1) + args.limit - 1}` : ""}`) : "";
        return `${name("read")} ${theme.fg("accent", this.path())}${range}`;
      }
      case "edit":
      case "write":
        return `${name(this.toolName)} ${theme.fg("accent", this.path())}`;
      case "grep":
        return `${name("grep")} ${shown(args.pattern)}${args.path ? theme.fg("muted", ` in ${shown(args.path)}`) : ""}`;
      case "find":
        return `${name("find")} ${shown(args.pattern)}${args.path ? theme.fg("muted", ` in ${shown(args.path)}`) : ""}`;
      case "ls":
        return `${name("ls")} ${shown(args.path) || "."}`;
      default: {
        const json = JSON.stringify(args);
        return `${name(this.toolName)} ${theme.fg("muted", json && json !== "{}" ? json : "")}`;
      }
    }
  }

  private marker(): string {
    const theme = this.options.theme();
    if (this.status === "running") return theme.fg("warning", "◌");
    return this.status === "error" ? theme.fg("error", "✗") : theme.fg("success", "●");
  }

  private build(width: number, expanded: boolean): string[] {
    const { truncateToWidth, wrapTextWithAnsi } = loadPiTui();
    const theme = this.options.theme();
    const custom = this.customLines(width, expanded);
    if (custom) return custom;
    const lines = ["", truncateToWidth(`${this.marker()} ${this.title()}`, width)];
    const body = this.bodyLines();
    if (body.length === 0) return lines;
    const limit = expanded ? EXPANDED_LINES : FOLDED_LINES;
    // Running bash shows its newest lines; a finished result its first ones.
    const tail = this.status === "running";
    const shown = body.length <= limit ? body : tail ? body.slice(-limit) : body.slice(0, limit);
    const hidden = body.length - shown.length;
    const indent = "  ";
    if (hidden > 0 && tail) lines.push(theme.fg("dim", `${indent}… ${hidden} earlier lines`));
    for (const line of shown) {
      for (const wrapped of wrapTextWithAnsi(line, Math.max(10, width - indent.length)).slice(0, expanded ? undefined : 2)) {
        lines.push(truncateToWidth(indent + wrapped, width));
      }
    }
    if (hidden > 0 && !tail) lines.push(theme.fg("dim", `${indent}… ${hidden} more lines${expanded ? "" : " (ctrl+o to expand)"}`));
    return lines;
  }

  /** The body as coloured lines, before clipping. */
  private bodyLines(): string[] {
    const theme = this.options.theme();
    if (this.diff !== undefined) {
      return this.diff.split("\n").map((line) => {
        if (line.startsWith("+")) return theme.fg("toolDiffAdded", line);
        if (line.startsWith("-")) return theme.fg("toolDiffRemoved", line);
        return theme.fg("toolDiffContext", line);
      });
    }
    const output = this.output.replace(/\s+$/, "");
    if (!output) return [];
    if (this.status === "error") return output.split("\n").map((line) => theme.fg("error", line));
    // A successful read is folded to its size: the file is in the editor, not needed here.
    if (this.toolName === "read" && !this.options.expanded()) {
      const count = output.split("\n").length;
      return [theme.fg("muted", `${count} line${count === 1 ? "" : "s"} (ctrl+o to show)`)];
    }
    if (this.toolName === "edit" || this.toolName === "write") return [theme.fg("muted", output.split("\n")[0] ?? "")];
    return output.split("\n").map((line) => theme.fg("toolOutput", line.replace(/\t/g, "  ")));
  }

  /** An extension's renderCall/renderResult, when it has them; a renderer that throws falls back to the built-in shape. */
  private customLines(width: number, expanded: boolean): string[] | undefined {
    const renderers = this.options.renderers;
    if (!renderers?.renderCall && !renderers?.renderResult) return undefined;
    const theme = this.options.theme();
    // pi 1.x's render context: the row's facts, its shared state, and the user's key names.
    const context = {
      toolCallId: this.toolCallId,
      args: this.args,
      cwd: this.options.cwd,
      expanded,
      isPartial: this.status === "running",
      isError: this.status === "error",
      executionStarted: this.started,
      // Rows are made from the model's finished tool call, never from streaming arguments.
      argsComplete: true,
      // No inline images in xcsh's terminal, and its transcript padding is fixed at pi's default of 1.
      showImages: false,
      outputPad: 1,
      state: this.rendererState,
      durationMs: this.status === "running" ? undefined : this.durationMs,
      invalidate: () => this.invalidate(),
      keyText,
      keyHint,
    };
    try {
      const lines: string[] = [""];
      const call = renderers.renderCall?.(this.args, theme, { ...context, lastComponent: this.lastCall });
      if (renderers.renderCall) this.lastCall = call;
      if (isComponent(call)) lines.push(...call.render(width));
      else lines.push(`${this.marker()} ${this.title()}`);
      if (this.result !== undefined || this.output) {
        const result = this.result ?? { content: [{ type: "text", text: this.output }] };
        const drawn = renderers.renderResult?.(result, { expanded, isPartial: this.status === "running" }, theme, { ...context, lastComponent: this.lastResult });
        if (renderers.renderResult) this.lastResult = drawn;
        if (isComponent(drawn)) lines.push(...drawn.render(width));
        else if (!renderers.renderResult) return undefined;
      }
      const { truncateToWidth } = loadPiTui();
      return lines.map((line) => truncateToWidth(line, width));
    } catch {
      return undefined;
    }
  }
}
