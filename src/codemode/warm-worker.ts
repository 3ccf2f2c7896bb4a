/**
 * Script workers made before they are needed. Starting a worker thread, loading
 * QuickJS into it and compiling its WebAssembly took ~50 ms of a first script's
 * time. So the wasm is compiled once per process and handed to each worker as a
 * compiled `WebAssembly.Module` (instantiating one is a few ms), and one worker
 * is started in the background when the model begins writing a script (core calls
 * `warmCodemodeWorker` at the call's first streamed fragment: src/core/codemode-warmup.ts)
 * and again after each script. A waiting worker has made its QuickJS VM and does
 * nothing else; it runs one script and is then ended, so scripts never share a
 * VM, globals or anything else. Nothing here runs at process start-up, nor in a
 * session whose model never writes a script: this module is imported at the first
 * codemode call.
 *
 * A waiting worker and the compiled module hold ~11 MiB (bun run bench --only
 * codemodemem). There is only ever one spare, and it is released, with the module,
 * once it has waited unused for a while (a session with codemode on that has gone
 * quiet): the next script's call warms them again. With XCSH_TRACE_LOAD=1 each
 * worker's start is reported on stderr, saying whether it was warmed ahead.
 */
import { dirname, join } from "node:path";
import wasmPath from "quickjs-wasi/quickjs.wasm" with { type: "file" };
import { traceModuleLoad } from "../ai/load-trace.ts";
import type { HostMessage } from "./protocol.ts";

let compiled: Promise<WebAssembly.Module> | undefined;
let spare: Promise<Worker> | undefined;
/** Releases the spare when it has waited this long; XCSH_CODEMODE_SPARE_IDLE_MS sets it (ms). */
const DEFAULT_SPARE_IDLE_MS = 30_000;
let idleTimer: ReturnType<typeof setTimeout> | undefined;

function spareIdleMs(): number {
  const configured = Number(process.env.XCSH_CODEMODE_SPARE_IDLE_MS);
  return Number.isFinite(configured) && configured > 0 ? configured : DEFAULT_SPARE_IDLE_MS;
}

/** Ends the waiting worker and lets the compiled module go: an idle session keeps none of it. */
function releaseSpare(which: Promise<Worker>): void {
  if (spare !== which) return;
  spare = undefined;
  compiled = undefined;
  void which
    .then(
      (worker) =>
        new Promise<void>((closed) => {
          worker.addEventListener("close", () => closed(), { once: true });
          worker.terminate();
        }),
    )
    // The session is idle: a full collection now hands the worker's heap and the module back.
    .then(() => Bun.gc(true))
    .catch(() => undefined);
}
/** Whether the spare worker died while it waited (it is then not handed out). */
let spareFailed = false;

/**
 * Where the worker script is: beside this file from source, and in the compiled
 * executable the build entry point `codemode/worker.js` (scripts/build-flags.ts).
 */
function workerScript(): string {
  if (import.meta.url.endsWith(".ts")) return new URL("./worker.ts", import.meta.url).href;
  return join(dirname(Bun.main), "codemode", "worker.js");
}

/** QuickJS's wasm, compiled once for the whole process; a failure is tried again next time. */
function quickjsModule(): Promise<WebAssembly.Module> {
  compiled ??= Bun.file(wasmPath)
    .arrayBuffer()
    .then((bytes) => WebAssembly.compile(bytes))
    .catch((error: unknown) => {
      compiled = undefined;
      throw error;
    });
  return compiled;
}

/** A new worker, told to make its VM from the compiled module; the thread starts while the module compiles. */
async function startWorker(why: "ahead of a script" | "for a script, none waiting"): Promise<Worker> {
  traceModuleLoad(`codemode worker (${why})`);
  const worker = new Worker(workerScript());
  try {
    const wasm = await quickjsModule();
    worker.postMessage({ type: "prepare", wasm } satisfies HostMessage);
    return worker;
  } catch (error) {
    worker.terminate();
    throw error;
  }
}

/** Starts a spare worker if there is none; never throws. */
export function warmCodemodeWorker(): void {
  if (spare) return;
  spareFailed = false;
  const starting = startWorker("ahead of a script");
  spare = starting;
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => releaseSpare(starting), spareIdleMs());
  // The timer must not keep a finished xcsh alive either.
  idleTimer.unref?.();
  starting.then(
    (worker) => {
      // A waiting worker must not keep a finished xcsh (print mode) alive.
      worker.unref();
      worker.addEventListener("error", () => {
        if (spare === starting) spareFailed = true;
      });
    },
    () => {
      if (spare === starting) spare = undefined;
    },
  );
}

/** A worker for one script: the spare one when there is a good one, else a new one. Rejects when none can start. */
export async function takeCodemodeWorker(): Promise<Worker> {
  const waiting = spare;
  spare = undefined;
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = undefined;
  if (waiting) {
    const worker = await waiting.catch(() => undefined);
    if (worker && !spareFailed) {
      worker.ref();
      return worker;
    }
    worker?.terminate();
  }
  return startWorker("for a script, none waiting");
}
