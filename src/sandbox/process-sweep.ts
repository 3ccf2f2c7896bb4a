/**
 * Finding the processes a command started after they left its process group.
 *
 * xcsh kills a command by its process group. A command that starts `setsid sleep 300 &`
 * or daemonizes (fork, setsid, fork) puts the survivor in a new session and group, out of
 * reach of that kill — and of the watchdog, which also kills by group. So every command
 * carries a tag in its environment, XCSH_PROCESS_TAG=<run>/<command>, which its children
 * inherit whatever group or session they move to; on Linux, /proc/<pid>/environ shows the
 * environment a process started with, so the tagged ones can be found and killed: one
 * command's on abort or timeout, all of the run's when xcsh ends (exit hook, or the
 * watchdog after a SIGKILL of xcsh).
 *
 * Why not a child subreaper (prctl PR_SET_CHILD_SUBREAPER): orphans would become xcsh's
 * children, but Bun reaps only the children it spawned, so each orphan that exits would
 * stay a zombie until xcsh ends; and after a SIGKILL of xcsh they pass to init all the
 * same. Why not a cgroup: most users cannot create one for xcsh's processes.
 *
 * Limit: a command that clears its environment on purpose (`env -i setsid …`) is not
 * found. Under the sandbox (bubblewrap) every command also runs in its own PID namespace,
 * which the kernel empties when the command ends, environment or not.
 */
import { readdirSync, readFileSync } from "node:fs";

export const PROCESS_TAG_VARIABLE = "XCSH_PROCESS_TAG";

let runTag: string | undefined;
let commandSerial = 0;

/**
 * This xcsh process's tag: its pid and a random part (a pid alone is reused), under the
 * tag xcsh itself carries when a command of another xcsh started it — so that command's
 * kill reaches what this one starts too.
 */
export function runProcessTag(): string {
  const inherited = process.env[PROCESS_TAG_VARIABLE];
  runTag ??= `${inherited ? `${inherited}/` : ""}${process.pid}.${crypto.randomUUID().slice(0, 8)}`;
  return runTag;
}

/** A fresh tag for one command, under this run's. */
export function newCommandTag(): string {
  return `${runProcessTag()}/${++commandSerial}`;
}

/** Whether /proc can be searched (Linux). Elsewhere only process groups are killed. */
export const canSweep = process.platform === "linux";

/** The tag a process started with, if it has one and we may read its environment. */
function tagOf(pid: number): string | undefined {
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return undefined; // gone, or another user's
  }
  // NUL-separated NAME=value entries; a zombie's reads as empty.
  const key = `${PROCESS_TAG_VARIABLE}=`;
  let start: number;
  if (environ.startsWith(key)) start = key.length;
  else {
    const at = environ.indexOf(`\0${key}`);
    if (at === -1) return undefined;
    start = at + 1 + key.length;
  }
  const end = environ.indexOf("\0", start);
  return environ.slice(start, end === -1 ? undefined : end);
}

/**
 * Pids of live processes whose tag is `tag` or lies under it (`<tag>/…`): a command's
 * tag finds that command's processes, the run's tag finds every command's.
 */
export function findTagged(tag: string): number[] {
  if (!canSweep) return [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
    const processTag = tagOf(pid);
    if (processTag !== undefined && (processTag === tag || processTag.startsWith(`${tag}/`))) found.push(pid);
  }
  return found;
}

/** Sends `signal` to every process under `tag`; returns how many were found. */
export function signalTagged(tag: string, signal: NodeJS.Signals): number {
  const pids = findTagged(tag);
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone meanwhile.
    }
  }
  return pids.length;
}

/**
 * SIGKILLs everything under `tag`, again while new ones appear (a process may fork
 * between the search and the kill), a few rounds at most.
 */
export function killAllTagged(tag: string): void {
  for (let round = 0; round < 5 && signalTagged(tag, "SIGKILL") > 0; round++);
}
