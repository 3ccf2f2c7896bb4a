/**
 * The components that draw one message each: the user's prompt on a tinted
 * band, an assistant answer as markdown with its thinking folded to one line,
 * one-line notices (errors, retries, compaction, branch summaries), and
 * extension messages (drawn by the extension's registered renderer when it
 * has one). Each caches its lines per width, so a long conversation costs
 * nothing to redraw while the last answer streams.
 */
import type { Component, Markdown } from "@earendil-works/pi-tui";
import type { AssistantMessage } from "../../ai/types.ts";
import { keyHint, keyText, loadPiTui } from "../../extensions/tui-helpers.ts";
import { inertIfNeeded, inertKeepingColour } from "../../tools/inert-text.ts";
import type { UiTheme } from "./theme.ts";

export interface ViewContext {
  theme: () => UiTheme;
  /** Thinking blocks shown in full (ctrl+t). */
  thinkingShown: () => boolean;
  /** Tool results and summaries shown in full (ctrl+o). */
  expanded: () => boolean;
  hiddenThinkingLabel: () => string;
  /** The extensions' Markdown transformers (display only); absent: text as it is. */
  transformMarkdown?: (markdown: string, context: { messageType: string; isStreaming: boolean; availableWidth: number }) => string;
}

function transformed(context: ViewContext, markdown: string, messageType: string, isStreaming: boolean, availableWidth: number): string {
  return context.transformMarkdown ? context.transformMarkdown(markdown, { messageType, isStreaming, availableWidth }) : markdown;
}

/** Lines of a component kept until its content or width changes. */
abstract class CachedView implements Component {
  private cache: { width: number; key: string; lines: string[] } | undefined;
  protected abstract build(width: number): string[];
  /** Whatever else changes the drawing (a toggle), as text. */
  protected cacheKey(): string {
    return "";
  }
  invalidate(): void {
    this.cache = undefined;
  }
  render(width: number): string[] {
    const key = this.cacheKey();
    if (this.cache && this.cache.width === width && this.cache.key === key) return this.cache.lines;
    const lines = this.build(width);
    this.cache = { width, key, lines };
    return lines;
  }
}

function padTo(line: string, width: number): string {
  const { visibleWidth } = loadPiTui();
  return line + " ".repeat(Math.max(0, width - visibleWidth(line)));
}

/**
 * OSC 133 "prompt start" before a prompt's first line: the fullscreen layout's
 * Ctrl+Up/Ctrl+Down jump between the lines that carry it. pi-tui takes the mark
 * off every line before it reaches the terminal (a terminal would read it as a
 * shell prompt).
 */
const PROMPT_MARK = "\x1b]133;A\x07";

export class UserMessageView extends CachedView {
  constructor(
    private readonly text: string,
    private readonly context: ViewContext,
    private readonly note?: string,
  ) {
    super();
  }
  protected build(width: number): string[] {
    const { wrapTextWithAnsi, truncateToWidth } = loadPiTui();
    const theme = this.context.theme();
    const inner = Math.max(10, width - 2);
    const lines = [""];
    const shown = inertIfNeeded(transformed(this.context, this.text, "user", false, inner));
    const body = shown.split("\n").flatMap((line) => wrapTextWithAnsi(line, inner));
    // No band colour (NO_COLOR, or the system theme of a terminal that told nothing of its
    // colours, as tmux does): bold sets the prompt apart from the answer instead.
    const band = theme.colored && theme.definition.colors.userMessageBg !== "";
    for (const [index, line] of body.entries()) {
      const shown = truncateToWidth(" " + theme.fg("userMessageText", line), width);
      lines.push((index === 0 ? PROMPT_MARK : "") + (band ? theme.bg("userMessageBg", padTo(shown, width)) : theme.bold(shown)));
    }
    if (this.note) lines.push(theme.fg("dim", " " + this.note));
    return lines;
  }
}

/** Thinking: one muted line while folded, the whole text in italics when shown. */
class ThinkingView extends CachedView {
  text = "";
  streaming = false;
  constructor(private readonly context: ViewContext) {
    super();
  }
  protected override cacheKey(): string {
    return `${this.context.thinkingShown()}|${this.context.hiddenThinkingLabel()}|${this.text.length}|${this.streaming}`;
  }
  protected build(width: number): string[] {
    const { wrapTextWithAnsi, truncateToWidth } = loadPiTui();
    const theme = this.context.theme();
    if (!this.text.trim()) return [];
    if (!this.context.thinkingShown()) {
      return [truncateToWidth(" " + theme.italic(theme.fg("thinkingText", `${this.context.hiddenThinkingLabel()} (ctrl+t to show)`)), width)];
    }
    const inner = Math.max(10, width - 1);
    return inertIfNeeded(transformed(this.context, this.text, "assistant-thinking", this.streaming, inner))
      .trim()
      .split("\n")
      .flatMap((line) => wrapTextWithAnsi(line, Math.max(10, width - 1)))
      .map((line) => " " + theme.italic(theme.fg("thinkingText", line)));
  }
}

/**
 * An assistant message as it streams: one child per text or thinking block, in
 * order. Tool calls are drawn by their own ToolLine after the message.
 */
export class AssistantMessageView implements Component {
  private readonly blocks: (Markdown | ThinkingView)[] = [];
  private readonly kinds: ("text" | "thinking")[] = [];
  private readonly texts: string[] = [];
  /** What each Markdown block was last given: the text after the transformers, at the last width. */
  private readonly shownTexts: string[] = [];
  private streaming = false;
  private footerLine: string | undefined;

  constructor(private readonly context: ViewContext) {}

  /** Brings the view up to the message's content (called on every streamed delta). */
  update(message: AssistantMessage, streaming = false): void {
    const { Markdown } = loadPiTui();
    this.streaming = streaming;
    let index = 0;
    for (const block of message.content) {
      if (block.type !== "text" && block.type !== "thinking") continue;
      // The model's text is not trusted to be free of escape sequences.
      const value = inertIfNeeded(block.type === "text" ? block.text : block.thinking);
      if (this.kinds[index] !== block.type) {
        const view = block.type === "text" ? new Markdown("", 1, 0, this.context.theme().markdown()) : new ThinkingView(this.context);
        this.blocks.splice(index, this.blocks.length - index, view);
        this.kinds.splice(index, this.kinds.length - index, block.type);
        this.texts.splice(index, this.texts.length - index, "");
      }
      if (this.texts[index] !== value) {
        this.texts[index] = value;
        const view = this.blocks[index]!;
        if (view instanceof Markdown) {
          if (!this.context.transformMarkdown) view.setText(value);
        } else {
          view.text = value;
          view.streaming = streaming;
          view.invalidate();
        }
      }
      index++;
    }
  }

  /** Lines under the answer: why it stopped, when that was not a normal end (and, with --verbose, the raw error body). */
  setFooter(line: string | undefined): void {
    this.footerLine = line;
  }

  invalidate(): void {
    const { Markdown } = loadPiTui();
    // Theme changes: markdown takes its theme at construction.
    for (let i = 0; i < this.blocks.length; i++) {
      const view = this.blocks[i]!;
      if (view instanceof Markdown) {
        const fresh = new Markdown(this.context.transformMarkdown ? (this.shownTexts[i] ?? "") : (this.texts[i] ?? ""), 1, 0, this.context.theme().markdown());
        this.blocks[i] = fresh;
      } else view.invalidate();
    }
  }

  render(width: number): string[] {
    const lines: string[] = [];
    for (let i = 0; i < this.blocks.length; i++) {
      const block = this.blocks[i]!;
      // Transformers see the width the text gets (the Markdown view pads one column each side).
      if (this.context.transformMarkdown && this.kinds[i] === "text") {
        const shown = inertIfNeeded(transformed(this.context, this.texts[i] ?? "", "assistant", this.streaming, Math.max(1, width - 2)));
        if (shown !== this.shownTexts[i]) {
          this.shownTexts[i] = shown;
          (block as Markdown).setText(shown);
        }
      }
      const drawn = block.render(width);
      if (drawn.length === 0) continue;
      lines.push("", ...drawn);
    }
    if (this.footerLine) for (const line of this.footerLine.split("\n")) lines.push(loadPiTui().truncateToWidth(line, width));
    return lines;
  }
}

/** One line of its own: an error, a retry, a compaction, a notice. Longer text folds to its first line unless expanded. */
export class NoticeView extends CachedView {
  constructor(
    private readonly color: string,
    private readonly label: string,
    private readonly detail: string,
    private readonly context: ViewContext,
    /** Long detail (a summary) shows its first line until tools are expanded. */
    private readonly foldable = false,
  ) {
    super();
  }
  protected override cacheKey(): string {
    return String(this.context.expanded());
  }
  protected build(width: number): string[] {
    const { wrapTextWithAnsi, truncateToWidth } = loadPiTui();
    const theme = this.context.theme();
    const lines = [""];
    // A notice often quotes others: a provider's or MCP server's error, a file's name.
    const detail = inertKeepingColour(this.detail);
    const detailLines = detail.trim() ? detail.trim().split("\n") : [];
    // Detail that starts with a line break is a list (/hotkeys, /help): the heading stands alone above it.
    const first = this.detail.startsWith("\n") ? "" : (detailLines.shift() ?? "");
    const head = theme.fg(this.color, inertKeepingColour(this.label)) + (first ? " " + theme.fg("muted", first) : "");
    if (!this.foldable || this.context.expanded() || detailLines.length === 0) {
      lines.push(...wrapTextWithAnsi(head, width));
      // Wrapped detail keeps its indent, so a long row does not spill back under the heading.
      for (const line of detailLines) lines.push(...wrapListRow(line, Math.max(1, width - 2)).map((part) => "  " + theme.fg("muted", part)));
    } else {
      lines.push(truncateToWidth(head, width));
      lines.push(theme.fg("dim", `  … ${detailLines.length} more lines (ctrl+o to expand)`));
    }
    return lines;
  }
}

/**
 * One row of a notice's list (/hotkeys, /help: a name, two or more spaces, what it
 * does), wrapped so that the continuation lines start under the description, not
 * under the name; a line that is not such a row wraps as plain text.
 */
function wrapListRow(line: string, width: number): string[] {
  const { wrapTextWithAnsi } = loadPiTui();
  const whole = wrapTextWithAnsi(line, width);
  const hang = /^(\s*\S(?:.*?\S)?\s{2,})\S/.exec(line)?.[1]!.length ?? 0;
  // A name column wider than half the room would leave the description too narrow to read.
  if (whole.length < 2 || hang === 0 || hang > width / 2) return whole;
  const description = wrapTextWithAnsi(line.slice(hang), width - hang);
  return description.map((part, index) => (index === 0 ? line.slice(0, hang) : " ".repeat(hang)) + part);
}

/**
 * What an extension's renderer draws for `subject` (a custom message or entry), as
 * lines cut to `width` under a blank line; undefined when it draws nothing usable.
 * A renderer that throws is left to the caller.
 */
function drawByExtension(renderer: (...args: any[]) => unknown, subject: unknown, context: ViewContext, width: number): string[] | undefined {
  const { truncateToWidth } = loadPiTui();
  // pi 1.x hands renderers the user's key names with the options, and the transcript's padding (fixed at 1 here).
  const drawn = renderer(subject, { expanded: context.expanded(), outputPad: 1, keyText, keyHint }, context.theme()) as Component | undefined;
  if (!drawn || typeof drawn.render !== "function") return undefined;
  return ["", ...drawn.render(width).map((line) => truncateToWidth(line, width))];
}

/** A custom entry (appendEntry), drawn by the entry renderer its extension registered; nothing if that fails. */
export class CustomEntryView extends CachedView {
  constructor(
    private readonly entry: { customType: string; data?: unknown },
    private readonly renderer: (...args: any[]) => unknown,
    private readonly context: ViewContext,
  ) {
    super();
  }
  protected override cacheKey(): string {
    return String(this.context.expanded());
  }
  protected build(width: number): string[] {
    try {
      return drawByExtension(this.renderer, this.entry, this.context, width) ?? [];
    } catch (error) {
      const { truncateToWidth } = loadPiTui();
      return ["", truncateToWidth(this.context.theme().fg("error", `[${this.entry.customType}] could not be drawn: ${(error as Error)?.message ?? error}`), width)];
    }
  }
}

/** A message an extension added with display on: its registered renderer, or a labelled block. */
export class CustomMessageView extends CachedView {
  constructor(
    private readonly message: { customType: string; content: unknown; details?: unknown },
    private readonly renderer: ((...args: any[]) => unknown) | undefined,
    private readonly context: ViewContext,
  ) {
    super();
  }
  protected override cacheKey(): string {
    return String(this.context.expanded());
  }
  protected build(width: number): string[] {
    const { wrapTextWithAnsi, truncateToWidth } = loadPiTui();
    const theme = this.context.theme();
    if (this.renderer) {
      try {
        const drawn = drawByExtension(this.renderer, this.message, this.context, width);
        if (drawn) return drawn;
      } catch {
        // fall through to the plain block
      }
    }
    const content = this.message.content;
    const text =
      typeof content === "string"
        ? content
        : Array.isArray(content)
          ? content.map((block: any) => (block?.type === "text" ? block.text : "[image]")).join("\n")
          : "";
    const lines = ["", truncateToWidth(theme.bold(theme.fg("customMessageLabel", `[${this.message.customType}]`)), width)];
    for (const line of text.split("\n")) lines.push(...wrapTextWithAnsi(" " + line, width));
    return lines;
  }
}
