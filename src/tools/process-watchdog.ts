/**
 * No tool process outlives xcsh, however xcsh ends. Commands run in their own
 * process groups; an exit hook kills them on any orderly exit, but a SIGKILL
 * runs no hook. So the first command also starts a watchdog: a second xcsh
 * process (`xcsh --watchdog`) that reads the group ids on a pipe from this one
 * and, when the pipe closes because this process is gone, kills those groups and
 * every process carrying this run's tag (the ones that left their group with
 * `setsid`: src/sandbox/process-sweep.ts). It starts with the first command, not
 * at start-up, so cold start pays nothing. It gets none of xcsh's credentials.
 *
 * Lines on the pipe: `+<pgid>` watch a group, `-<pgid>` forget it, `#<tag>` the run's tag.
 */
import { ownProgram } from "../sandbox/own-programs.ts";
import { killAllTagged, runProcessTag } from "../sandbox/process-sweep.ts";

let watchdog: { write(line: string): void } | undefined;
let unavailable = false;

/** How this program is started again: the binary itself, or bun with the entry script from source. */
function selfCommand(): string[] {
  const script = process.argv[1];
  const fromSource = script !== undefined && !script.startsWith("/$bunfs") && /\.[cm]?[jt]s$/.test(script);
  return fromSource ? [process.execPath, script] : [process.execPath];
}

function ensureWatchdog(): typeof watchdog {
  if (watchdog || unavailable || process.platform === "win32") return watchdog;
  try {
    const child = Bun.spawn({
      ...ownProgram([...selfCommand(), "--watchdog"]),
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
      // Its own session: signals to our process group (Ctrl+C in a terminal) do not reach it first.
      detached: true,
    });
    child.unref();
    const stdin = child.stdin;
    watchdog = {
      write(line) {
        try {
          stdin.write(line);
          void stdin.flush();
        } catch {
          // The watchdog died; the exit hook still covers orderly exits.
        }
      },
    };
    watchdog.write(`#${runProcessTag()}\n`);
  } catch {
    unavailable = true;
  }
  return watchdog;
}

/** Tells the watchdog about a process group to kill if xcsh dies. */
export function watchGroup(pid: number): void {
  ensureWatchdog()?.write(`+${pid}\n`);
}

/** The group ended; the watchdog forgets it (its id may be reused by an unrelated program). */
export function unwatchGroup(pid: number): void {
  watchdog?.write(`-${pid}\n`);
}

/** The watchdog process: collects group ids until stdin closes, then kills what is left. */
export async function runWatchdog(): Promise<number> {
  const groups = new Set<number>();
  let runTag: string | undefined;
  const decoder = new TextDecoder();
  let buffered = "";
  // Keep running when the terminal or parent goes away: that is exactly when we act.
  for (const signal of ["SIGHUP", "SIGINT", "SIGTERM", "SIGPIPE"] as const) process.on(signal, () => {});
  for await (const chunk of Bun.stdin.stream()) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.startsWith("#") && line.length > 1) runTag = line.slice(1);
      const pid = Number(line.slice(1));
      if (Number.isInteger(pid) && pid > 1) {
        if (line.startsWith("+")) groups.add(pid);
        else if (line.startsWith("-")) groups.delete(pid);
      }
      newline = buffered.indexOf("\n");
    }
  }
  for (const pid of groups) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  if (runTag) killAllTagged(runTag);
  return 0;
}
