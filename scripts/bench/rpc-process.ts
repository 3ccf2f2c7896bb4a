/**
 * Drives an agent in RPC mode as a host would: JSONL commands on stdin, frames
 * read off stdout as they arrive, each stamped with the moment it was seen.
 *
 * Built for measuring as well as checking: a frame's top-level `type` is read
 * from the start of its line without parsing it, because some frames are huge
 * (a 100 MB `get_messages` answer, 2 500 `message_update`s that each repeat the
 * whole message), and parsing them here would time this process, not the agent.
 * Full lines are kept (and parseable) only when `keepLines` is set.
 */
import type { Subprocess } from "bun";

export interface FrameInfo {
  /** The frame's top-level `type` (the first `"type"` on its line). */
  type: string | undefined;
  /** `command` of a response frame. */
  command: string | undefined;
  /** Bytes of the line, newline included. */
  bytes: number;
  /** performance.now() when the line's last byte arrived. */
  at: number;
  /** The whole line, when the process was started with keepLines. */
  text?: string;
}

export interface RpcProcessOptions {
  env: Record<string, string>;
  cwd: string;
  keepLines?: boolean;
  /** Kills the process if it is still running after this long. Default 60 s. */
  killAfterMs?: number;
}

interface Waiter {
  matches(frame: FrameInfo): boolean;
  resolve(frame: FrameInfo): void;
}

const NEWLINE = 0x0a;
/** Enough of a line to hold `{"id":"…","type":"…","command":"…"` in any key order. */
const HEAD_BYTES = 256;
const TYPE_PATTERN = /"type"\s*:\s*"([^"]*)"/;
const COMMAND_PATTERN = /"command"\s*:\s*"([^"]*)"/;

export class RpcProcess {
  readonly process: Subprocess<"pipe", "pipe", "pipe">;
  readonly startedAt: number;
  readonly frames: FrameInfo[] = [];
  stdoutBytes = 0;
  stderr = "";
  readonly exited: Promise<number>;
  /** performance.now() when the process had exited and its output was read. */
  exitedAt = Number.NaN;
  private waiters: Waiter[] = [];
  private readonly killTimer: ReturnType<typeof setTimeout>;
  private readonly decoder = new TextDecoder();

  constructor(command: string[], private readonly options: RpcProcessOptions) {
    this.startedAt = performance.now();
    this.process = Bun.spawn(command, { env: options.env, cwd: options.cwd, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    this.killTimer = setTimeout(() => this.process.kill("SIGKILL"), options.killAfterMs ?? 60_000);
    const stdoutDone = this.readStdout();
    const stderrDone = new Response(this.process.stderr).text().then((text) => {
      this.stderr = text;
    });
    this.exited = Promise.all([this.process.exited, stdoutDone, stderrDone]).then(([code]) => {
      clearTimeout(this.killTimer);
      this.exitedAt = performance.now();
      return code;
    });
  }

  send(frame: Record<string, unknown>): void {
    this.process.stdin.write(JSON.stringify(frame) + "\n");
    this.process.stdin.flush();
  }

  closeStdin(): void {
    this.process.stdin.end();
  }

  /** The first frame (already seen or still to come) that matches; rejects on exit or timeout. */
  waitFor(matches: (frame: FrameInfo) => boolean, timeoutMs = 30_000): Promise<FrameInfo> {
    const seen = this.frames.find(matches);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== entry);
        reject(new Error(`no matching frame within ${timeoutMs} ms; stderr: ${this.stderr.slice(0, 500)}`));
      }, timeoutMs);
      const entry: Waiter = {
        matches,
        resolve: (frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
      };
      this.waiters.push(entry);
      this.exited.then((code) => {
        if (!this.waiters.includes(entry)) return;
        clearTimeout(timer);
        reject(new Error(`exited (${code}) before a matching frame; stderr: ${this.stderr.slice(0, 500)}`));
      });
    });
  }

  kill(): void {
    this.process.kill("SIGKILL");
  }

  private async readStdout(): Promise<void> {
    let head: Uint8Array[] = [];
    let headLength = 0;
    let lineBytes = 0;
    let kept: Uint8Array[] = [];
    for await (const chunk of this.process.stdout as ReadableStream<Uint8Array>) {
      this.stdoutBytes += chunk.length;
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, start);
        const end = newline === -1 ? chunk.length : newline + 1;
        const piece = chunk.subarray(start, end);
        lineBytes += piece.length;
        if (headLength < HEAD_BYTES) {
          head.push(piece.subarray(0, HEAD_BYTES - headLength));
          headLength += Math.min(piece.length, HEAD_BYTES - headLength);
        }
        if (this.options.keepLines) kept.push(piece);
        if (newline !== -1) {
          this.completeLine(head, lineBytes, kept);
          head = [];
          headLength = 0;
          lineBytes = 0;
          kept = [];
        }
        start = end;
      }
    }
  }

  private completeLine(head: Uint8Array[], bytes: number, kept: Uint8Array[]): void {
    const headText = this.decoder.decode(Buffer.concat(head));
    const frame: FrameInfo = {
      type: TYPE_PATTERN.exec(headText)?.[1],
      command: COMMAND_PATTERN.exec(headText)?.[1],
      bytes,
      at: performance.now(),
    };
    if (this.options.keepLines) frame.text = this.decoder.decode(Buffer.concat(kept)).trimEnd();
    this.frames.push(frame);
    for (const waiter of [...this.waiters]) {
      if (waiter.matches(frame)) {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        waiter.resolve(frame);
      }
    }
  }
}

export const isResponse = (command: string) => (frame: FrameInfo) => frame.type === "response" && frame.command === command;
export const isEvent = (type: string) => (frame: FrameInfo) => frame.type === type;
