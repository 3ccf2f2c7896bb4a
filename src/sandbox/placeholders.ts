/**
 * Empty stand-ins for protected project paths that do not exist yet. bubblewrap can keep
 * a path read-only only by mounting over it, so a missing `.xcsh/` would be free to be
 * created by a command — with settings or extensions that run, unsandboxed, at the next
 * start. So before the first sandbox, xcsh makes an empty folder at each such path
 * (`.mcp.json` too: a folder there is no file, and xcsh's MCP reader takes it as absent),
 * and mounts it read-only. A command cannot remove a mount point (EBUSY) nor write in it.
 *
 * When xcsh ends — exit, SIGTERM, SIGINT, SIGHUP, stdin's end in RPC mode — every
 * placeholder it made is removed again if it is still the same empty folder, so a run
 * leaves nothing in the project. After a SIGKILL they stay (empty, asking for nothing).
 */
import { mkdirSync, rmdirSync, statSync } from "node:fs";

/** Placeholders this process made, by path: the folder's device and inode when made. */
const made = new Map<string, string>();
let hooksInstalled = false;

function identity(path: string): string | undefined {
  try {
    const stat = statSync(path);
    return stat.isDirectory() ? `${stat.dev}:${stat.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/** Makes an empty folder at `path` (a missing protected path), when its parent exists. */
export function makePlaceholder(path: string): void {
  try {
    mkdirSync(path);
  } catch {
    // It exists (made meanwhile), or the folder cannot be written: bubblewrap leaves it as it is.
    return;
  }
  const id = identity(path);
  if (id) made.set(path, id);
  installHooks();
}

/** Removes the placeholders this process made that are still the same empty folder. */
export function removePlaceholders(): void {
  for (const [path, id] of made) {
    made.delete(path);
    if (identity(path) !== id) continue;
    try {
      rmdirSync(path); // fails, leaving it, when something was put in it
    } catch {
      // Not empty, or gone.
    }
  }
}

const EXIT_CODE: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * An exit hook, and for each ending signal a listener: where the mode has its own (RPC and
 * print end on SIGTERM through process.exit, which runs the exit hook) it only steps aside;
 * where none is there, the signal would end the process without exit hooks, so this one
 * removes the placeholders and exits with the signal's code.
 */
function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once("exit", removePlaceholders);
  for (const signal of ["SIGHUP", "SIGINT", "SIGTERM"] as const) {
    const listener = () => {
      if (process.listenerCount(signal) > 1) return;
      removePlaceholders();
      process.exit(EXIT_CODE[signal]);
    };
    process.on(signal, listener);
  }
}
