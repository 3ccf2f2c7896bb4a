/**
 * In json and rpc modes stdout carries protocol frames only. Anything else that
 * would print there — console.log, or process.stdout.write from a library or an
 * extension — is sent to stderr instead, and frames are written whole, one JSON
 * object per line, through the one writer kept for them. A string is taken as
 * an already serialized line.
 *
 * Frames produced within one turn of the event loop are written together, in one
 * write: a streamed answer yields many small frames, and a write per frame costs a
 * system call each. The batch goes out before the loop turns over, so nothing
 * waits on it; `flushProtocolOutput()` writes it at once before an explicit exit.
 */
import { format } from "node:util";
import { serializeFrame } from "./rpc/jsonl.ts";

let frameWriter: ((frame: unknown) => void) | undefined;
let flushBatch: (() => void) | undefined;

/** Writes the frames still waiting for the end of this event-loop turn; call before process.exit. */
export function flushProtocolOutput(): void {
  flushBatch?.();
}

/** Exit code when stdout is closed under xcsh: 128 + SIGPIPE, as a shell reports a process killed by a broken pipe. */
export const EXIT_STDOUT_CLOSED = 141;

function stdoutClosed(error: unknown): never {
  const code = (error as { code?: string } | undefined)?.code ?? "write error";
  try {
    process.stderr.write(`xcsh: stdout was closed (${code}); stopping\n`);
  } catch {
    // stderr is gone too: nothing left to tell.
  }
  process.exit(EXIT_STDOUT_CLOSED);
}

export function claimStdoutForProtocol(): (frame: unknown) => void {
  if (frameWriter) return frameWriter;
  const toStderr = (...args: unknown[]) => {
    process.stderr.write(format(...args) + "\n");
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  // A reader that went away (`| head`, a host that died) is no reason for a stack trace.
  const protocolWrite = (data: string) => {
    try {
      stdoutWrite(data);
    } catch (error) {
      stdoutClosed(error);
    }
  };
  process.stdout.on("error", stdoutClosed);
  // Everyone else's writes to stdout go to stderr; the protocol keeps the original writer.
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  let batch: string[] = [];
  let scheduled = false;
  flushBatch = () => {
    scheduled = false;
    if (batch.length === 0) return;
    const lines = batch.length === 1 ? batch[0] : batch.join("");
    batch = [];
    protocolWrite(lines);
  };
  // An exit that skips the flush (process.exit from elsewhere) still writes what is queued.
  process.on("exit", flushBatch);
  frameWriter = (frame) => {
    batch.push(typeof frame === "string" ? frame : serializeFrame(frame));
    if (!scheduled) {
      scheduled = true;
      setImmediate(flushBatch!);
    }
  };
  return frameWriter;
}
