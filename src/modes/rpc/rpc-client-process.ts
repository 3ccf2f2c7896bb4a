/**
 * The child process behind an RpcClient: spawns it, writes frames to its stdin,
 * reads JSONL frames from its stdout (LF-only framing, shared with the server),
 * and keeps the tail of its stderr so failures can say what went wrong.
 */
import { readJsonlLines, serializeFrame } from "./jsonl.ts";
import type { RpcExit } from "./rpc-client-types.ts";

/** Enough stderr to show a stack trace or a few warnings, never unbounded. */
const STDERR_LIMIT = 64 * 1024;
/** How long exit handling waits for pipes a grandchild may still hold open. */
const DRAIN_LIMIT_MS = 2_000;

/** The last `limit` characters written to a stream. */
class TextTail {
  private text = "";
  constructor(private readonly limit: number) {}
  append(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.limit * 2) this.text = this.text.slice(-this.limit);
  }
  toString(): string {
    return this.text.length > this.limit ? this.text.slice(-this.limit) : this.text;
  }
}

/** Waits for `work`, but no longer than `ms`; the timer never outlives the wait. */
async function drainedOrTimeout(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface RpcProcessSpec {
  argv: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Every JSON object the server writes, in order. Called synchronously per frame. */
  onFrame(frame: Record<string, unknown>): void;
}

export class RpcProcess {
  private readonly child: Bun.Subprocess<"pipe", "pipe", "pipe">;
  private readonly stderr = new TextTail(STDERR_LIMIT);
  private inputClosed = false;
  /** Resolves once the process has exited and its output has been read. */
  readonly exited: Promise<RpcExit>;

  constructor(spec: RpcProcessSpec) {
    this.child = Bun.spawn(spec.argv, {
      cwd: spec.cwd,
      env: spec.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stdoutDone = this.readFrames(spec.onFrame);
    const stderrDone = this.readStderr();
    this.exited = this.child.exited.then(async () => {
      // Frames written just before exit must still be delivered before pending requests fail.
      await drainedOrTimeout(Promise.all([stdoutDone, stderrDone]), DRAIN_LIMIT_MS);
      const signal = this.child.signalCode;
      return { exitCode: signal ? null : this.child.exitCode, signal: signal === null ? null : String(signal) };
    });
  }

  get pid(): number {
    return this.child.pid;
  }

  /** What the process wrote to stderr lately (at most 64 KiB). */
  stderrText(): string {
    return this.stderr.toString();
  }

  /** The last lines of stderr: enough to explain a failure without flooding an error message. */
  stderrTail(maxLines = 20, maxChars = 4_000): string {
    const lines = this.stderr.toString().trimEnd().split("\n");
    const tail = lines.slice(-maxLines).join("\n");
    return tail.length > maxChars ? tail.slice(-maxChars) : tail;
  }

  /**
   * Writes one frame; false only once stdin has been closed by closeInput().
   * A write to a process that is dying is dropped silently: its exit is what
   * gets reported, with its stderr, to everyone still waiting.
   */
  write(frame: object): boolean {
    if (this.inputClosed) return false;
    try {
      this.child.stdin.write(serializeFrame(frame));
      void Promise.resolve(this.child.stdin.flush()).catch(() => {});
    } catch {
      // See above.
    }
    return true;
  }

  /** Closes stdin: xcsh finishes the work in progress and exits with code 0. */
  closeInput(): void {
    if (this.inputClosed) return;
    this.inputClosed = true;
    try {
      void Promise.resolve(this.child.stdin.end()).catch(() => {});
    } catch {
      // Already closed by the process exiting.
    }
  }

  kill(signal: NodeJS.Signals = "SIGTERM"): void {
    this.child.kill(signal);
  }

  private async readFrames(onFrame: (frame: Record<string, unknown>) => void): Promise<void> {
    try {
      for await (const line of readJsonlLines(this.child.stdout)) {
        if (line.trim() === "") continue;
        let frame: unknown;
        try {
          frame = JSON.parse(line);
        } catch {
          // xcsh keeps stdout for frames only; anything else is kept with stderr for diagnosis.
          this.stderr.append(`[stdout, not JSON] ${line}\n`);
          continue;
        }
        if (typeof frame !== "object" || frame === null || Array.isArray(frame)) continue;
        try {
          onFrame(frame as Record<string, unknown>);
        } catch (error) {
          // One bad frame handler must not stop every later frame from being read.
          console.error("RpcClient: handling a frame failed:", error);
        }
      }
    } catch {
      // The pipe broke; exit handling reports it.
    }
  }

  private async readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of this.child.stderr) this.stderr.append(decoder.decode(chunk, { stream: true }));
      this.stderr.append(decoder.decode());
    } catch {
      // As above.
    }
  }
}
