/**
 * `pi.exec(command, args, options)`: runs a program without a shell and collects
 * its output. Like the bash tool's commands, the child gets xcsh's environment
 * without its credentials, runs under the sandbox when one is on, and gets its own
 * process group, tracked so that a timeout, an abort or xcsh's exit ends it and
 * everything it started (src/tools/tracked-process.ts); its stdout never reaches ours.
 *
 * As in pi 1.x: a command ended by a signal (xcsh's or another's) reports 128 + the
 * signal's number as its code, like a shell (143 for SIGTERM); stdout and stderr
 * together are capped at `maxBuffer` bytes (256 MiB by default), past which the command
 * is ended and the result says `truncated: true`; text is decoded as a stream, so a
 * character split between two reads stays whole.
 */
import { constants } from "node:os";
import { commandEnvironment } from "../sandbox/active-policy.ts";
import { killProcessTree, releaseGroupIfEmpty, spawnTracked, type TrackedProcess } from "../tools/tracked-process.ts";
import type { ExecOptions, ExecResult } from "./types.ts";

const DEFAULT_MAX_BUFFER = 256 * 1024 * 1024;

/** A shell's exit code: the process's own, or 128 + the number of the signal that ended it. */
function exitCodeOf(exitCode: number | null, signal: string | number | null | undefined, killed: boolean): number {
  const number = typeof signal === "number" ? signal : signal ? (constants.signals as Record<string, number>)[signal] : undefined;
  if (number !== undefined) return 128 + number;
  return exitCode ?? (killed ? 137 : 1);
}

export async function execCommand(cwd: string, command: string, args: string[] = [], options: ExecOptions = {}): Promise<ExecResult> {
  let child: TrackedProcess;
  try {
    child = spawnTracked([command, ...args.map(String)], options.cwd ?? cwd, commandEnvironment());
  } catch (error) {
    // Not found, not executable, or no sandbox to run it in: an answer the extension can read, not a crash.
    return { stdout: "", stderr: (error as Error).message, code: 127, killed: false, truncated: false };
  }
  const { proc, tag } = child;
  const maxBuffer = typeof options.maxBuffer === "number" && options.maxBuffer >= 0 ? options.maxBuffer : DEFAULT_MAX_BUFFER;
  let received = 0;
  let truncated = false;
  let killed = false;
  const kill = () => {
    killed = true;
    if (proc.pid) killProcessTree(proc.pid, tag);
  };
  const timer = options.timeout && options.timeout > 0 ? setTimeout(kill, options.timeout) : undefined;
  if (options.signal?.aborted) kill();
  options.signal?.addEventListener("abort", kill, { once: true });
  try {
    /** Reads one stream to its end; bytes past the shared cap are dropped and end the command. */
    const collect = async (stream: ReadableStream<Uint8Array>): Promise<string> => {
      const decoder = new TextDecoder();
      let text = "";
      for await (const chunk of stream) {
        if (truncated) continue; // drained, so the child is never blocked on a full pipe
        const room = maxBuffer - received;
        const kept = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
        received += kept.byteLength;
        text += decoder.decode(kept, { stream: true });
        if (kept !== chunk) {
          truncated = true;
          kill();
        }
      }
      return text + decoder.decode();
    };
    const [stdout, stderr, exitCode] = await Promise.all([collect(proc.stdout), collect(proc.stderr), proc.exited]);
    return { stdout, stderr, code: exitCodeOf(exitCode, proc.signalCode, killed), killed, truncated };
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener("abort", kill);
    releaseGroupIfEmpty(proc.pid);
  }
}
