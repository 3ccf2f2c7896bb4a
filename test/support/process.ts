import { existsSync, readFileSync } from "node:fs";

/**
 * Whether a process still exists and has not terminated. A killed orphan stays
 * a zombie until init reaps it, and signal 0 still reaches a zombie; some
 * container inits reap late, so on Linux the process state tells dead from alive.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The state follows the parenthesized command name.
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return existsSync("/proc/self") ? false : true;
  }
}
