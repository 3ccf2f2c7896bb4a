/**
 * The footer under the editor: where you are (directory, git branch, session
 * name), what it costs (tokens, context use, session cost), which model and
 * thinking level answer, how many messages wait in the queue, and the status
 * texts extensions set with `ctx.ui.setStatus`. Stats are recomputed when a
 * message ends or the model changes — never per streamed delta.
 */
import { isVirtualModel } from "../../extensions/virtual-models.ts";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { dirname, join } from "node:path";
import { homedir } from "node:os";
import type { Component } from "@earendil-works/pi-tui";
import type { AgentSession } from "../../core/agent-session.ts";
import { loadPiTui } from "../../extensions/tui-helpers.ts";
import type { UiTheme } from "./theme.ts";
import { inertText } from "../../tools/inert-text.ts";

/** What .git/HEAD or a `.git` file may be: a line, not a file worth reading whole. */
const MAX_GIT_POINTER_BYTES = 4096;

/**
 * The start of a small git file; throws when it is missing or not a regular file. A cloned
 * (or unpacked) repository chooses these files: a pipe named HEAD must not hang the terminal
 * UI, nor a 2 GB one fill its memory, at start and after every answer.
 */
function readGitPointer(path: string): string {
  const descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    if (!fstatSync(descriptor).isFile()) throw new Error(`${path} is not a regular file`);
    const buffer = Buffer.alloc(MAX_GIT_POINTER_BYTES);
    return buffer.subarray(0, readSync(descriptor, buffer, 0, buffer.length, 0)).toString("utf8");
  } finally {
    closeSync(descriptor);
  }
}

/** The branch checked out in `cwd`'s repository (from .git/HEAD), or undefined. */
export function gitBranch(cwd: string): string | undefined {
  let dir = cwd;
  for (;;) {
    try {
      let gitPath = join(dir, ".git");
      let head: string;
      try {
        head = readGitPointer(join(gitPath, "HEAD"));
      } catch {
        // A worktree or submodule: .git is a file naming the real folder.
        const pointer = /^gitdir:\s*(.+)$/m.exec(readGitPointer(gitPath))?.[1]?.trim();
        if (!pointer) throw new Error("no git dir");
        gitPath = pointer.startsWith("/") ? pointer : join(dir, pointer);
        head = readGitPointer(join(gitPath, "HEAD"));
      }
      const ref = /^ref: refs\/heads\/(.+)$/m.exec(head)?.[1];
      return ref ?? head.trim().slice(0, 8);
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return undefined;
      dir = parent;
    }
  }
}

function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function shortenHome(path: string): string {
  const home = homedir();
  return home && path.startsWith(home) ? "~" + path.slice(home.length) : path;
}

/**
 * For a virtual model (pi.registerVirtualModel), the physical model and level that answered
 * last — ` → gpt-5.6-luna • medium` — beside the selection; nothing for other models.
 */
function routedTo(session: { model: { api: string }; messages: readonly { role: string }[] }): string {
  if (!isVirtualModel(session.model)) return "";
  const last = session.messages.findLast((message) => message.role === "assistant") as { model?: string; thinkingLevel?: string } | undefined;
  if (!last?.model) return "";
  return ` → ${last.model}${last.thinkingLevel && last.thinkingLevel !== "off" ? ` • ${last.thinkingLevel}` : ""}`;
}

export class Footer implements Component {
  private readonly statuses = new Map<string, string>();
  private stats = "";
  private branch: string | undefined;
  private cache: { width: number; lines: string[] } | undefined;

  constructor(
    private session: AgentSession | undefined,
    private cwd: string,
    private readonly theme: () => UiTheme,
  ) {
    this.branch = gitBranch(cwd);
  }

  /** The folder shown becomes the session's (a resumed one runs where it was recorded). */
  setSession(session: AgentSession): void {
    this.session = session;
    this.cwd = session.cwd;
    this.refresh();
  }

  setStatus(key: string, text: string | undefined): void {
    if (text === undefined || text === "") this.statuses.delete(key);
    else this.statuses.set(key, text);
    this.invalidate();
  }

  /** Every extension's status goes (the session's extensions were replaced). */
  clearStatuses(): void {
    this.statuses.clear();
    this.invalidate();
  }

  /** Recomputes tokens, cost and the branch. */
  refresh(): void {
    this.branch = gitBranch(this.cwd);
    const session = this.session;
    if (!session) return this.invalidate();
    const stats = session.getSessionStats();
    const parts: string[] = [];
    if (stats.tokens.input || stats.tokens.output) parts.push(`↑${compact(stats.tokens.input)} ↓${compact(stats.tokens.output)}`);
    if (stats.tokens.cacheRead) parts.push(`R${compact(stats.tokens.cacheRead)}`);
    if (stats.cost > 0) parts.push(`$${stats.cost.toFixed(3)}`);
    const usage = stats.contextUsage;
    if (usage) {
      parts.push(usage.tokens === null ? `ctx ?/${compact(usage.contextWindow)}` : `ctx ${compact(usage.tokens)}/${compact(usage.contextWindow)} (${usage.percent ?? 0}%)`);
    }
    this.stats = parts.join("  ");
    this.invalidate();
  }

  invalidate(): void {
    this.cache = undefined;
  }

  render(width: number): string[] {
    if (this.cache?.width === width) return this.cache.lines;
    const { truncateToWidth, visibleWidth } = loadPiTui();
    const theme = this.theme();
    const session = this.session;
    const name = session?.sessionName;
    // The folder's and the branch's names are the repository's (a .git/HEAD can name anything): drawn inert.
    const where = inertText(shortenHome(this.cwd) + (this.branch ? ` (${this.branch})` : "") + (name ? ` • ${name}` : "")).replace(/\n/g, " ");
    const lines = [truncateToWidth(theme.fg("dim", where), width)];
    let right = "";
    if (session) {
      const level = session.model.reasoning ? ` • ${session.thinkingLevel === "off" ? "thinking off" : session.thinkingLevel}` : "";
      right = `${session.model.provider}/${session.model.id}${level}${routedTo(session)}`;
      const queued = session.pendingMessageCount;
      if (queued > 0) right = `${queued} queued  ${right}`;
    }
    const left = this.stats;
    const gap = width - visibleWidth(left) - visibleWidth(right);
    lines.push(
      gap >= 2
        ? theme.fg("dim", left) + " ".repeat(gap) + theme.fg("muted", right)
        : truncateToWidth(theme.fg("dim", left ? `${left}  ` : "") + theme.fg("muted", right), width),
    );
    if (this.statuses.size > 0) lines.push(truncateToWidth([...this.statuses.values()].join(theme.fg("dim", " · ")), width));
    this.cache = { width, lines };
    return lines;
  }
}
