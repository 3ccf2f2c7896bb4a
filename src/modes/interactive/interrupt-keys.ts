/**
 * Esc and Ctrl+C, which mean different things by state: stop the run (queued messages
 * go back into the editor), stop the person's own command, clear the draft, run
 * `doubleEscapeAction` on two Esc presses, or exit on two Ctrl+C presses.
 */
import type { AgentSession } from "../../core/agent-session.ts";

/** Two Ctrl+C within this long exit. */
const DOUBLE_PRESS_MS = 1000;
/** Two Esc within this long on an empty, idle editor run the double-Escape action. */
const DOUBLE_ESCAPE_MS = 500;

export interface InterruptHost {
  /** Undefined until the session is attached. */
  session(): AgentSession | undefined;
  draft(): string;
  /** Empties the editor and its attachments. */
  clearDraft(): void;
  /** Puts queued messages back into the editor. */
  restoreQueued(): void;
  showAborting(): void;
  hint(text: string, ms: number): void;
  runCommandLine(text: string): void;
  exit(code: number): void;
}

export class InterruptKeys {
  private lastCtrlC = 0;
  private lastEscape = 0;

  constructor(private readonly host: InterruptHost) {}

  /**
   * Aborts the run; messages still queued go back into the editor instead of
   * being lost. Idle, two presses on an empty editor run `doubleEscapeAction`
   * (/tree by default, /fork, or nothing).
   */
  escape(): void {
    const session = this.host.session();
    if (!session) return;
    if (session.isStreaming || session.isCompacting) {
      this.host.restoreQueued();
      this.host.showAborting();
      void session.abort();
    } else if (session.isBashRunning) session.abortBash();
    else if (this.host.draft().trim() === "") {
      const now = Date.now();
      if (now - this.lastEscape < DOUBLE_ESCAPE_MS) {
        this.lastEscape = 0;
        const action = session.settings.doubleEscapeAction;
        if (action === "fork") this.host.runCommandLine("/fork");
        else if (action !== "none") this.host.runCommandLine("/tree");
      } else this.lastEscape = now;
    }
  }

  ctrlC(): void {
    const now = Date.now();
    if (this.host.draft().length > 0) {
      this.host.clearDraft();
      this.lastCtrlC = now;
      return;
    }
    if (now - this.lastCtrlC < DOUBLE_PRESS_MS) return this.host.exit(0);
    this.lastCtrlC = now;
    // An empty editor while a run streams: the first press stops the run (as Claude Code and
    // Codex do); a second one right after still exits, as in pi.
    const session = this.host.session();
    if (session?.isStreaming || session?.isCompacting) return this.escape();
    this.host.hint("Press Ctrl+C again to exit", DOUBLE_PRESS_MS);
  }
}
