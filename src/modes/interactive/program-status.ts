/**
 * OSC 7501 program status, as pi 1.x reports it: terminals and agent
 * dashboards show whether xcsh is working, waiting for the user, done or
 * failed. `idle` at start and after a cancelled run, `working` while a run or
 * a compaction goes on (message: the session's name), `done` after a run,
 * `error` after a run that failed and is not retried (message: the error's
 * first line), `blocked` while a dialog waits for an answer (message: its
 * title). Never a prompt or the model's text.
 *
 * pi-tui's terminal sends the reports only once the terminal has answered the
 * protocol's query; PI_PROGRAM_STATUS=1 sends them without asking, =0 never.
 * XCSH_PROGRAM_STATUS is the same switch under xcsh's name (PI_ wins when both
 * are set). Both TUI layouts report.
 *
 * With `terminal.showTerminalProgress` on, a run also shows in the terminal's tab
 * (OSC 9;4: busy from agent_start to agent_end, cleared when xcsh stops).
 */
import type { ProgramStatus, TUI } from "@earendil-works/pi-tui";
import type { AgentSession } from "../../core/agent-session.ts";

const APP = "xcsh";

/** Call before the terminal starts: it reads PI_PROGRAM_STATUS then. */
export function adoptProgramStatusSwitch(env: NodeJS.ProcessEnv = process.env): void {
  // An empty PI_PROGRAM_STATUS (exported but blank) says nothing, so it must not hide XCSH_PROGRAM_STATUS.
  const piSwitch = env.PI_PROGRAM_STATUS?.trim();
  const xcshSwitch = env.XCSH_PROGRAM_STATUS?.trim();
  if (!piSwitch && xcshSwitch) env.PI_PROGRAM_STATUS = xcshSwitch;
}

type Report = Omit<ProgramStatus, "app">;

export class ProgramStatusReporter {
  private blockedBy: Report[] = [];
  private current: Report = { state: "idle" };

  constructor(
    private readonly tui: TUI,
    private readonly tabProgress = false,
  ) {
    this.send();
  }

  /** A run cut short by the exit must not leave the tab busy (nor its keep-alive timer running). */
  stop(): void {
    if (this.tabProgress) this.tui.terminal.setProgress(false);
  }

  /** Follows a session's runs and compactions. */
  follow(session: AgentSession): void {
    const name = () => session.sessionName;
    session.subscribe((event) => {
      switch (event.type) {
        case "agent_start":
          if (this.tabProgress) this.tui.terminal.setProgress(true);
          this.set({ state: "working", message: name() });
          break;
        case "compaction_start":
          this.set({ state: "working", message: name() });
          break;
        case "compaction_end":
          if (!session.isStreaming) this.set({ state: "idle" });
          break;
        case "agent_end": {
          if (this.tabProgress) this.tui.terminal.setProgress(false);
          if (event.willRetry) break;
          const last = [...event.messages].reverse().find((message) => message.role === "assistant") as { stopReason?: string; errorMessage?: string } | undefined;
          if (last?.stopReason === "aborted") this.set({ state: "idle" });
          else if (last?.stopReason === "error") this.set({ state: "error", message: (last.errorMessage ?? "The model returned an error").split("\n")[0] });
          else this.set({ state: "done", message: name() });
          break;
        }
      }
    });
  }

  /** A dialog waits for the user until the returned function is called. */
  block(title: string, kind: "question" | "permission" | "auth" = "question"): () => void {
    const report: Report = { state: "blocked", kind, message: title };
    this.blockedBy.push(report);
    this.send();
    return () => {
      this.blockedBy = this.blockedBy.filter((entry) => entry !== report);
      this.send();
    };
  }

  private set(report: Report): void {
    this.current = report;
    this.send();
  }

  private send(): void {
    const report = this.blockedBy.at(-1) ?? this.current;
    try {
      this.tui.terminal.setProgramStatus({ app: APP, ...report });
    } catch {
      // A status report is a courtesy; it never stops the UI.
    }
  }
}
