/**
 * The conversation view: turns the session's events into components, in the
 * order they happen — the user's prompt, the streamed answer, one line per tool
 * call with its result, and notices for errors, retries, compaction and branch
 * summaries, and extensions' `custom` entries their entry renderers draw.
 * `rebuild` draws a whole session (on start, /resume, /tree, /new), so what is
 * shown is always what the session holds. A run the automatic retry sent again
 * folds live as a redrawn one does: the failed attempt and its retry notice stay
 * until the next attempt starts, then go; the reply that ends the run says how
 * many retries it took.
 */
import { verboseErrorBody } from "../../ai/verbose-error-body.ts";
import { inertText } from "../../tools/inert-text.ts";
import type { Component, Container, TUI } from "@earendil-works/pi-tui";
import type { AgentMessage } from "../../agent/types.ts";
import type { AssistantMessage, ToolResultMessage } from "../../ai/types.ts";
import type { AgentSessionEvent } from "../../core/session-events.ts";
import { formatRetryDelay } from "../../core/auto-retry.ts";
import { loadPiTui } from "../../extensions/tui-helpers.ts";
import type { CustomEntry } from "../../session/types.ts";
import { AssistantMessageView, CustomEntryView, CustomMessageView, NoticeView, UserMessageView, type ViewContext } from "./message-views.ts";
import { ToolLine, type ToolRenderers } from "./tool-lines.ts";
import { nestedCallOutcome, storedNestedCalls } from "../nested-calls.ts";

export interface ConversationOptions extends ViewContext {
  tui: TUI;
  /** The folder tool paths are shown relative to: the session's, read when a line is made. */
  cwd: () => string;
  /** An extension tool's renderCall/renderResult. */
  toolRenderers: (toolName: string) => ToolRenderers | undefined;
  /** An extension's registerMessageRenderer for a custom message type. */
  messageRenderer: (customType: string) => ((...args: any[]) => unknown) | undefined;
  /** An extension's registerEntryRenderer for a custom entry type. */
  entryRenderer: (customType: string) => ((...args: any[]) => unknown) | undefined;
  /** --verbose: a provider error's raw body (credentials redacted) as a dim line under its message. */
  verbose?: boolean;
}

function userText(message: AgentMessage): { text: string; images: number } {
  if (message.role !== "user") return { text: "", images: 0 };
  const content = message.content;
  if (typeof content === "string") return { text: content, images: 0 };
  return {
    text: content.map((block) => (block.type === "text" ? block.text : "")).join(""),
    images: content.filter((block) => block.type === "image").length,
  };
}

/**
 * A failed reply the automatic retry sent again: an error reply whose next message (custom
 * entries aside) is another assistant reply. Only a retry puts two replies in a row with an
 * error between them — any other next step starts with a user message or a tool result. A
 * redrawn session folds these into the reply that followed, as the live run ended.
 */
function isRetriedAttempt(message: AgentMessage, items: readonly (AgentMessage | CustomEntry)[], index: number): boolean {
  if (message.role !== "assistant" || message.stopReason !== "error") return false;
  const next = items.slice(index + 1).find((item) => !("type" in item && item.type === "custom"));
  return next !== undefined && (next as AgentMessage).role === "assistant";
}

export class ConversationView {
  readonly root: Container;
  private current: { message: AssistantMessageView } | undefined;
  private readonly toolLines = new Map<string, ToolLine>();
  private lastStatus: Component | undefined;
  /** Notices shown since the last rebuild: what extensions said while a session opened. */
  private recentNotices: Component[] = [];
  /**
   * The automatic retry of the running turn, live. `failed`: what the last reply that ended in
   * an error drew (its view and tool lines), `notice`: the retry's own line, `retries`: the
   * retries started so far. When the next attempt starts, `failed` and `notice` are taken
   * out, as a redrawn session leaves out a retried attempt (isRetriedAttempt).
   */
  private retry: { failed: Component[]; notice?: Component; retries: number; attemptStarting: boolean } = { failed: [], retries: 0, attemptStarting: false };
  /** The notice of a compaction's summary request waiting to go again; gone once the retrying is over. */
  private summaryRetryNotice: Component | undefined;

  constructor(private readonly options: ConversationOptions) {
    const { Container } = loadPiTui();
    this.root = new Container();
  }

  private add(component: Component): void {
    this.root.addChild(component);
    this.options.tui.requestRender();
  }

  /** A line of its own (notify, command output). */
  notice(label: string, detail = "", color = "muted", foldable = false): void {
    const view = new NoticeView(color, label, detail, this.options, foldable);
    this.recentNotices.push(view);
    this.add(view);
  }

  /** A hint that goes away by itself after `ms` ("Press Ctrl+C again to exit"): it is not part of the conversation. */
  transient(label: string, ms: number, color = "dim"): void {
    const hint = new NoticeView(color, label, "", this.options, false);
    this.add(hint);
    setTimeout(() => {
      if (!this.root.children.includes(hint)) return;
      this.root.removeChild(hint);
      this.options.tui.requestRender();
    }, ms).unref?.();
  }

  /**
   * A short status line ("Model: fake/m2"): while nothing has come after it, the
   * next one replaces it, so pressing Ctrl+P five times leaves one line, not five.
   */
  status(label: string, color = "accent"): void {
    if (this.lastStatus && this.root.children.at(-1) === this.lastStatus) this.root.removeChild(this.lastStatus);
    this.lastStatus = new NoticeView(color, label, "", this.options, false);
    this.add(this.lastStatus);
  }

  addComponent(component: Component): void {
    this.add(component);
  }

  clear(): void {
    this.root.clear();
    this.toolLines.clear();
    this.current = undefined;
    this.retry = { failed: [], retries: 0, attemptStarting: false };
    this.options.tui.requestRender();
  }

  /** Notices from now on are the ones a coming rebuild with `keepNotices` keeps. */
  forgetRecentNotices(): void {
    this.recentNotices = [];
  }

  /**
   * Draws a whole session: its messages, and the custom entries among them. `keepNotices`:
   * the notices shown since the last rebuild follow the history (a session being opened —
   * what its extensions said in session_start must not be wiped by drawing its history).
   */
  rebuild(items: readonly (AgentMessage | CustomEntry)[], options: { keepNotices?: boolean } = {}): void {
    const kept = options.keepNotices ? this.recentNotices : [];
    this.clear();
    let retries = 0;
    items.forEach((item, index) => {
      if ("type" in item && item.type === "custom") return this.addCustomEntry(item);
      const message = item as AgentMessage;
      if (isRetriedAttempt(message, items, index)) {
        retries++;
        return;
      }
      this.addMessage(message, message.role === "assistant" ? retries : 0);
      if (message.role === "assistant") retries = 0;
    });
    for (const notice of kept) this.add(notice);
    this.recentNotices = [];
    this.current = undefined;
  }

  /** An extension's custom entry, drawn by its entry renderer; without one it is not shown (it is extension state). */
  addCustomEntry(entry: CustomEntry): void {
    const renderer = this.options.entryRenderer(entry.customType);
    if (renderer) this.add(new CustomEntryView(entry, renderer, this.options));
  }

  private remove(components: readonly (Component | undefined)[]): void {
    for (const component of components) if (component && this.root.children.includes(component)) this.root.removeChild(component);
    this.options.tui.requestRender();
  }

  private toolLine(id: string, name: string, args: unknown, parentId?: string): ToolLine {
    let line = this.toolLines.get(id);
    if (!line) {
      line = new ToolLine(id, name, args, {
        theme: this.options.theme,
        cwd: this.options.cwd(),
        expanded: this.options.expanded,
        renderers: this.options.toolRenderers(name),
      });
      this.toolLines.set(id, line);
      // A codemode script's call goes under the script's row.
      const parent = parentId === undefined ? undefined : this.toolLines.get(parentId);
      if (parent) parent.addChild(line);
      else this.add(line);
    }
    return line;
  }

  /** A finished message, as read back from the session; `retries`: failed attempts before this reply (see isRetriedAttempt). */
  private addMessage(message: AgentMessage, retries = 0): void {
    switch (message.role) {
      case "user": {
        const { text, images } = userText(message);
        this.add(new UserMessageView(text, this.options, images > 0 ? `${images} image${images === 1 ? "" : "s"} attached` : undefined));
        return;
      }
      case "assistant": {
        const view = new AssistantMessageView(this.options);
        view.update(message);
        this.add(view);
        this.endAssistant(view, message, retries);
        for (const block of message.content) if (block.type === "toolCall") this.toolLine(block.id, block.name, block.arguments);
        return;
      }
      case "toolResult": {
        const result = message as ToolResultMessage;
        const line = this.toolLine(result.toolCallId, result.toolName, {});
        // A script's calls go under its row, as they did while it ran (their output is not kept).
        for (const call of storedNestedCalls(result)) {
          const outcome = nestedCallOutcome(call);
          this.toolLine(call.id, call.name, call.arguments ?? {}, result.toolCallId).finish({ content: [{ type: "text", text: outcome.text }] }, outcome.isError, call.durationMs);
        }
        line.finish(result, result.isError);
        return;
      }
      case "bashExecution": {
        const line = new ToolLine(`bash-${message.timestamp}`, "bash", { command: message.command }, { theme: this.options.theme, cwd: this.options.cwd(), expanded: this.options.expanded });
        const status = message.cancelled ? "\n(cancelled)" : message.exitCode ? `\n(exit code ${message.exitCode})` : "";
        line.finish({ content: [{ type: "text", text: message.output + status }] }, message.cancelled || (message.exitCode ?? 0) !== 0);
        this.add(line);
        if (message.excludeFromContext) this.notice("  (kept out of the context)", "", "dim");
        return;
      }
      case "custom":
        if (message.display) this.add(new CustomMessageView(message, this.options.messageRenderer(message.customType), this.options));
        return;
      case "compactionSummary":
        this.notice("✻ Compacted", `${message.tokensBefore.toLocaleString()} tokens summarized\n${message.summary}`, "accent", true);
        return;
      case "branchSummary":
        this.notice("✻ Branch summary", message.summary, "accent", true);
        return;
      default:
        return;
    }
  }

  private endAssistant(view: AssistantMessageView, message: AssistantMessage, retries = 0): void {
    const theme = this.options.theme();
    if (message.stopReason === "error") {
      const after = retries > 0 ? ` (after ${retries} ${retries === 1 ? "retry" : "retries"})` : "";
      // The provider's (or a proxy's) own words: drawn without their escape sequences.
      const line = theme.fg("error", ` ✗ ${inertText(message.errorMessage ?? "The model returned an error")}${after}`);
      const body = this.options.verbose && message.errorBody ? inertText(verboseErrorBody(message.errorBody)).replace(/\s+/g, " ") : undefined;
      view.setFooter(body ? `${line}\n${theme.fg("dim", `   ${body}`)}` : line);
    }
    else if (message.stopReason === "aborted") view.setFooter(theme.fg("warning", " ⏹ Aborted"));
    else if (message.stopReason === "length") view.setFooter(theme.fg("warning", " The answer reached the output token limit"));
    view.invalidate();
  }

  /** The tool lines a reply's tool calls drew. */
  private toolLinesOf(message: AssistantMessage): ToolLine[] {
    return message.content.flatMap((block) => (block.type === "toolCall" && this.toolLines.has(block.id) ? [this.toolLines.get(block.id)!] : []));
  }

  /** Live events of a run. */
  handle(event: AgentSessionEvent): void {
    switch (event.type) {
      case "message_start":
        if (event.message.role === "assistant") {
          if (this.retry.attemptStarting) {
            // The retry's attempt begins: the attempt it replaces folds away, as on resume.
            this.remove([...this.retry.failed, this.retry.notice]);
            this.retry = { failed: [], retries: this.retry.retries, attemptStarting: false };
          }
          const view = new AssistantMessageView(this.options);
          this.current = { message: view };
          this.add(view);
        } else if (event.message.role !== "toolResult") {
          if (event.message.role === "user") this.retry = { failed: [], retries: 0, attemptStarting: false };
          this.addMessage(event.message);
        }
        return;
      case "message_update":
        if (event.message.role === "assistant" && this.current) {
          this.current.message.update(event.message as AssistantMessage, true);
          const inner = event.assistantMessageEvent;
          if (inner.type === "toolcall_end") this.toolLine(inner.toolCall.id, inner.toolCall.name, inner.toolCall.arguments);
          this.options.tui.requestRender();
        }
        return;
      case "message_end":
        if (event.message.role === "assistant" && this.current) {
          const message = event.message as AssistantMessage;
          this.current.message.update(message);
          this.endAssistant(this.current.message, message, this.retry.retries);
          this.retry.failed = message.stopReason === "error" ? [this.current.message, ...this.toolLinesOf(message)] : [];
          this.current = undefined;
          this.options.tui.requestRender();
        }
        return;
      case "tool_execution_start":
        this.toolLine(event.toolCallId, event.toolName, event.args, event.parentToolCallId).setArgs(event.args);
        return;
      case "tool_execution_update":
        this.toolLine(event.toolCallId, event.toolName, event.args, event.parentToolCallId).update(event.partialResult);
        this.options.tui.requestRender();
        return;
      case "tool_execution_end":
        this.toolLine(event.toolCallId, event.toolName, {}, event.parentToolCallId).finish(event.result, event.isError, event.durationMs);
        this.options.tui.requestRender();
        return;
      case "auto_retry_start": {
        this.remove([this.retry.notice]);
        const notice = new NoticeView("warning", `↻ Retrying in ${formatRetryDelay(event.delayMs)} (attempt ${event.attempt} of ${event.maxAttempts})`, event.errorMessage, this.options, false);
        this.add(notice);
        this.retry = { failed: this.retry.failed, notice, retries: event.attempt, attemptStarting: true };
        return;
      }
      case "auto_retry_end":
        // The reply that ended the run already says how many retries it took (endAssistant);
        // a retry cancelled in its wait leaves the failed attempt, as a resumed session shows it.
        this.remove([this.retry.notice]);
        this.retry = { failed: [], retries: 0, attemptStarting: false };
        return;
      case "summarization_retry_scheduled": {
        this.remove([this.summaryRetryNotice]);
        const text = `↻ Summary request failed; retrying in ${formatRetryDelay(event.delayMs)} (attempt ${event.attempt} of ${event.maxAttempts})`;
        this.summaryRetryNotice = new NoticeView("warning", text, event.errorMessage, this.options, false);
        this.add(this.summaryRetryNotice);
        return;
      }
      case "summarization_retry_finished":
        this.remove([this.summaryRetryNotice]);
        this.summaryRetryNotice = undefined;
        return;
      case "compaction_start":
        this.notice(event.reason === "manual" ? "✻ Compacting the conversation…" : "✻ The context is full; summarizing earlier messages…", "", "accent");
        return;
      case "compaction_end":
        if (event.result) {
          this.notice("✻ Compacted", `${event.result.tokensBefore.toLocaleString()} tokens summarized\n${event.result.summary}`, "accent", true);
        } else if (event.aborted) this.notice("✻ Compaction was aborted", "", "warning");
        else this.notice("✗ Compaction failed", event.errorMessage ?? "", "error");
        return;
      default:
        return;
    }
  }
}

