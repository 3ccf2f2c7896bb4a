/**
 * Starting and ending the programs xcsh runs for the model, the user and extensions
 * (the bash tool, `!cmd` / RPC `bash`, `exec`), so that none outlives its command when
 * killed, nor xcsh however it ends:
 *
 *  - each runs in a new session (its own process group, no terminal), under the active
 *    sandbox (src/sandbox/launcher.ts), tagged in its environment (process-sweep.ts);
 *  - a kill signals the group and every process carrying the command's tag, which finds
 *    what left the group (`setsid`, daemons): SIGTERM, then SIGKILL after a grace;
 *  - on exit, every group still alive and every process with this run's tag is killed;
 *    after a SIGKILL of xcsh the watchdog (process-watchdog.ts) does the same.
 */
import type { Subprocess } from "bun";
import { sandboxedArgv } from "../sandbox/launcher.ts";
import { protectOwnEnvironment } from "../sandbox/own-process.ts";
import { killAllTagged, newCommandTag, PROCESS_TAG_VARIABLE, runProcessTag, signalTagged } from "../sandbox/process-sweep.ts";
import { unwatchGroup, watchGroup } from "./process-watchdog.ts";

/** How long a command gets to exit on SIGTERM before it is SIGKILLed. */
const KILL_GRACE_MS = 200;

export interface TrackedProcess {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** The tag its processes carry (XCSH_PROCESS_TAG). */
  tag: string;
}

// Process groups of commands, including background jobs (`server &`) left running after
// their shell exited: killed when xcsh exits (the watchdog covers a SIGKILL of xcsh).
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const group of liveGroups) signalGroup(group, "SIGKILL");
    killAllTagged(runProcessTag());
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Starts `argv` in `cwd` with `env` (already free of xcsh's credentials: the caller
 * decides what it holds), stdout and stderr piped. Throws when the sandbox the policy
 * asks for cannot start (SandboxUnavailableError) or the program cannot be started.
 */
export function spawnTracked(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv): TrackedProcess {
  protectOwnEnvironment();
  const command = sandboxedArgv(argv, cwd);
  const tag = newCommandTag();
  const proc = Bun.spawn(command, {
    cwd,
    env: { ...env, [PROCESS_TAG_VARIABLE]: tag },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    // A new session (setsid): the command and everything it starts share a
    // process group we can kill as one, and it has no terminal to read from.
    detached: true,
  });
  liveGroups.add(proc.pid);
  watchGroup(proc.pid);
  installExitHook();
  return { proc, tag };
}

/**
 * Tracks a process group started elsewhere like a command's: killed on exit, and by the
 * watchdog after a SIGKILL of xcsh. For an MCP server (src/mcp/stdio-transport.ts), which
 * needs its stdin and, being the user's own configured program, runs outside the sandbox.
 */
export function trackGroup(pid: number): void {
  liveGroups.add(pid);
  watchGroup(pid);
  installExitHook();
}

/**
 * Kills a command: SIGTERM to its group and its tagged processes so programs can clean
 * up, then SIGKILL for whatever is left (a trap, a child ignoring TERM) after a short grace.
 */
export function killProcessTree(pid: number, tag?: string): void {
  signalGroup(pid, "SIGTERM");
  if (tag) signalTagged(tag, "SIGTERM");
  setTimeout(() => {
    signalGroup(pid, "SIGKILL");
    if (tag) killAllTagged(tag);
  }, KILL_GRACE_MS).unref();
}

/** After its first process exits, a group is kept only while something still runs in it. */
export function releaseGroupIfEmpty(pid: number): void {
  try {
    process.kill(-pid, 0);
  } catch {
    liveGroups.delete(pid);
    unwatchGroup(pid);
  }
}
