/**
 * How `xcsh --mode rpc` ends, as pi 1.6.0 does. Every way out runs the same orderly
 * finish once — wait for the session to be idle, extensions' `session_shutdown`
 * (their async work included), MCP servers closed, stdout flushed — so cleanup an
 * extension started (saving a refreshed token, say) is never cut off.
 *
 * - stdin EOF: the work in hand finishes, then the finish; exit 0.
 * - SIGTERM / SIGHUP: the run in progress is aborted, no further frames are written,
 *   then the finish; exit 128 + the signal's number (143, 129). A signal during an EOF
 *   finish does not interrupt it (process managers close stdin and signal together);
 *   a second signal exits at once.
 * - ctx.shutdown() from an extension: once no command is in hand and the session is
 *   idle — right away when it already is, else when the command or run settles; exit 0.
 */
import { constants } from "node:os";

export interface ShutdownSteps {
  /** Stops the run in progress (the signal path). */
  abort(): Promise<void>;
  /** Resolves once accepted prompts have landed and the session is idle. */
  idle(): Promise<void>;
  /** session_shutdown to extensions, MCP servers closed. */
  close(): Promise<void>;
  /** No frame is written after this (a signal: the host asked us to go). */
  mute(): void;
  /** Hands the last buffered frames to stdout. */
  flush(): void;
}

export class RpcShutdown {
  private finishing: Promise<void> | undefined;
  private exitCode = 0;
  private signalled = false;
  private requested = false;
  private commandsInHand = 0;

  constructor(private readonly steps: ShutdownSteps) {}

  /** SIGTERM and SIGHUP start the orderly finish; SIGINT stays the host's "abort" (rpc-mode). */
  listen(): void {
    process.on("SIGTERM", () => this.signal("SIGTERM"));
    process.on("SIGHUP", () => this.signal("SIGHUP"));
  }

  /** A signal asked the process to go: commands that still arrive are not acted on. */
  get signalReceived(): boolean {
    return this.signalled;
  }

  /** The exit code the finish ends with: 0, or the signal's when one arrived. */
  get code(): number {
    return this.exitCode;
  }

  /** The orderly finish, run once whoever asks first (EOF, a signal, ctx.shutdown). */
  finish(): Promise<void> {
    this.finishing ??= (async () => {
      await this.steps.idle();
      await this.steps.close();
      this.steps.flush();
    })();
    return this.finishing;
  }

  /** ctx.shutdown(): ends the process once nothing is in hand. */
  request(): void {
    this.requested = true;
    // Checked after the current call stack: the command that asked may still be answering.
    setTimeout(() => void this.shutdownIfAsked(), 0);
  }

  /** Around each command: a shutdown asked meanwhile waits until it is answered. */
  async command<T>(work: () => Promise<T>): Promise<T> {
    this.commandsInHand++;
    try {
      return await work();
    } finally {
      this.commandsInHand--;
      if (this.requested) setTimeout(() => void this.shutdownIfAsked(), 0);
    }
  }

  private async shutdownIfAsked(): Promise<void> {
    if (!this.requested || this.commandsInHand > 0 || this.finishing) return;
    await this.steps.idle();
    // A command that arrived while the run settled is answered first; its end checks again.
    if (this.commandsInHand > 0) return;
    await this.exitWhenFinished();
  }

  private signal(name: "SIGTERM" | "SIGHUP"): void {
    const code = 128 + constants.signals[name];
    if (this.signalled) {
      // The second signal: the host will not wait any longer.
      this.steps.flush();
      process.exit(code);
    }
    this.signalled = true;
    this.exitCode = code;
    this.steps.mute();
    void this.steps
      .abort()
      .catch(() => {})
      .then(() => this.exitWhenFinished());
  }

  private async exitWhenFinished(): Promise<never> {
    await this.finish().catch((error) => process.stderr.write(`xcsh: shutdown: ${(error as Error).message}\n`));
    process.exit(this.exitCode);
  }
}
