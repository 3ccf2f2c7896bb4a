/**
 * In json and rpc modes stdout carries protocol frames only. Anything else that
 * would print there — console.log, or process.stdout.write from a library or an
 * extension — goes to stderr instead: `process.stdout` itself becomes stderr.
 * Frames are written whole, one JSON object per line, through Bun's own writer
 * for file descriptor 1. A string is taken as an already serialized line.
 *
 * Node's stream classes are not needed for the frames, and loading them costs
 * start-up ~14 ms: `guardProcessStdout()` replaces `process.stdout` without creating
 * the real stream (see there). RPC mode still defers it (`deferStdoutGuard`) until
 * code that is not xcsh's may run — an extension loads, or the agent starts its
 * first run and with it a provider SDK.
 *
 * Frames produced within one turn of the event loop are written together, in one
 * write: a streamed answer yields many small frames, and a write per frame costs a
 * system call each. The batch goes out before the loop turns over, so nothing
 * waits on it; `flushProtocolOutput()` writes it at once before an explicit exit.
 */
import { serializeFrame, serializeFramePieces } from "./rpc/jsonl.ts";

let frameWriter: ((frame: unknown) => void) | undefined;
let flushBatch: (() => void) | undefined;
let pieceWriter: ((frame: unknown) => Promise<void>) | undefined;

/** Text handed to stdout at once while a frame is written in pieces; then the writer drains. */
const STREAM_WRITE_CHARS = 1024 * 1024;
/** Writes between collections of the text already written. */
const COLLECT_EVERY_WRITES = 8;

/**
 * Writes one frame that holds a StreamedArray (jsonl.ts) a megabyte at a time,
 * waiting for stdout to take each before the next is made, so a 100 MB answer
 * never exists as one string nor as one buffer. Frames written meanwhile go out
 * after it, whole and in order. The text is exactly what the frame writer would
 * have written.
 */
export function writeFrameInPieces(frame: unknown): Promise<void> {
  if (!pieceWriter) throw new Error("writeFrameInPieces before claimStdoutForProtocol");
  return pieceWriter(frame);
}

/** Writes the frames still waiting for the end of this event-loop turn; call before process.exit. */
export function flushProtocolOutput(): void {
  flushBatch?.();
}

/** Exit code when stdout is closed under xcsh: 128 + SIGPIPE, as a shell reports a process killed by a broken pipe. */
export const EXIT_STDOUT_CLOSED = 141;

let closing = false;

function stdoutClosed(error: unknown): never {
  if (!closing) {
    closing = true;
    const code = (error as { code?: string } | undefined)?.code ?? "write error";
    try {
      process.stderr.write(`xcsh: stdout was closed (${code}); stopping\n`);
    } catch {
      // stderr is gone too: nothing left to tell.
    }
  }
  process.exit(EXIT_STDOUT_CLOSED);
}

let stdoutGuarded = false;

/** From now on `process.stdout` is stderr for every reader; idempotent. */
export function guardProcessStdout(): void {
  if (stdoutGuarded) return;
  stdoutGuarded = true;
  // Bun creates process.stdout on first touch, and redefining the property touches it
  // (~14 ms: node's stream classes load). Assigning to it first replaces the lazy
  // property without creating the stream; stderr's is then created only if used.
  (process as { stdout: unknown }).stdout = undefined;
  Object.defineProperty(process, "stdout", { configurable: true, enumerable: true, get: () => process.stderr });
}

export interface ClaimOptions {
  /** The caller will call guardProcessStdout() before any foreign code runs. */
  deferStdoutGuard?: boolean;
}

/** console.log, console.info and console.debug write to stderr from now on. */
export function routeConsoleToStderr(): void {
  // node:util costs start-up milliseconds; it loads only when something logs.
  const toStderr = (...args: unknown[]) => {
    const { format } = require("node:util") as typeof import("node:util");
    process.stderr.write(format(...args) + "\n");
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

export function claimStdoutForProtocol(options: ClaimOptions = {}): (frame: unknown) => void {
  if (frameWriter) return frameWriter;
  routeConsoleToStderr();
  if (!options.deferStdoutGuard) guardProcessStdout();
  const sink = Bun.stdout.writer();
  // A reader that went away (`| head`, a host that died) is no reason for a stack trace.
  const protocolWrite = (data: string) => {
    if (closing) return;
    try {
      sink.write(data);
      const flushed = sink.flush();
      if (flushed instanceof Promise) flushed.catch(stdoutClosed);
    } catch (error) {
      stdoutClosed(error);
    }
  };
  let batch: string[] = [];
  let scheduled = false;
  /** Set while a frame is being written in pieces: the batch waits for it to end. */
  let streaming: Promise<void> | undefined;
  flushBatch = () => {
    scheduled = false;
    if (batch.length === 0 || streaming) return;
    const lines = batch.length === 1 ? batch[0] : batch.join("");
    batch = [];
    protocolWrite(lines);
  };
  // An exit that skips the flush (process.exit from elsewhere) still writes what is queued.
  process.on("exit", flushBatch);
  const writeAndDrain = async (data: string) => {
    if (closing || data.length === 0) return;
    try {
      sink.write(data);
      const flushed = sink.flush();
      if (flushed instanceof Promise) await flushed.catch(stdoutClosed);
    } catch (error) {
      stdoutClosed(error);
    }
  };
  pieceWriter = async (frame) => {
    while (streaming) await streaming;
    flushBatch!();
    let finished!: () => void;
    streaming = new Promise<void>((resolve) => (finished = resolve));
    try {
      let pending: string[] = [];
      let size = 0;
      let written = 0;
      for (const piece of serializeFramePieces(frame)) {
        pending.push(piece);
        size += piece.length;
        if (size < STREAM_WRITE_CHARS) continue;
        await writeAndDrain(pending.join(""));
        pending = [];
        size = 0;
        // The pieces written are garbage now; collected as we go, their memory serves the next
        // ones instead of piling up until the collector's own pace reaches them.
        if (++written % COLLECT_EVERY_WRITES === 0) Bun.gc(true);
      }
      await writeAndDrain(pending.join(""));
    } finally {
      streaming = undefined;
      finished();
      flushBatch!();
    }
  };
  frameWriter = (frame) => {
    batch.push(typeof frame === "string" ? frame : serializeFrame(frame));
    if (!scheduled) {
      scheduled = true;
      setImmediate(flushBatch!);
    }
  };
  return frameWriter;
}
