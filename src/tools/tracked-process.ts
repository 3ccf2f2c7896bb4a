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
import { commandsRunInBubblewrap, takeWarmSandbox, warmSandbox } from "../sandbox/warm-sandbox.ts";
import { protectOwnEnvironment } from "../sandbox/own-process.ts";
import { killAllTagged, newCommandTag, PROCESS_TAG_VARIABLE, runProcessTag, signalTagged } from "../sandbox/process-sweep.ts";
import { unwatchGroup, watchGroup } from "./process-watchdog.ts";

/** After a sandboxed command ends, how long before the next one's sandbox is started. */
const REWARM_DELAY_MS = 20;
/** How long a command gets to exit on SIGTERM before it is SIGKILLed. */
const KILL_GRACE_MS = 200;

export interface TrackedProcess {
  /** Its stdin is /dev/null (a warm sandbox's pipe is closed once the command is handed over). */
  proc: Subprocess<"ignore" | "pipe", "pipe", "pipe">;
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
  const tag = newCommandTag();
  const proc =
    takeWarmSandbox(argv, cwd, env, tag) ??
    Bun.spawn(sandboxedArgv(argv, cwd), {
      cwd,
      env: { ...env, [PROCESS_TAG_VARIABLE]: tag },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      // A new session (setsid): the command and everything it starts share a
      // process group we can kill as one, and it has no terminal to read from.
      detached: true,
    });
  const inBubblewrap = commandsRunInBubblewrap();
  trackCommandGroup(proc.pid, inBubblewrap);
  // The next command's sandbox starts once this one is done and its result is on its way:
  // not while it competes for the CPU, nor between its exit and its caller seeing it.
  if (inBubblewrap) void proc.exited.then(() => setTimeout(() => warmCommandSandbox(cwd, env), REWARM_DELAY_MS).unref());
  return { proc, tag };
}

/**
 * Keeps a group to kill at exit. The watchdog (a second xcsh process, for after a SIGKILL
 * of this one) is not needed under bubblewrap: every command there is in a PID namespace of
 * its own, killed with bwrap, which `--die-with-parent` kills with xcsh.
 */
function trackCommandGroup(pid: number, inBubblewrap: boolean): void {
  liveGroups.add(pid);
  if (!inBubblewrap) watchGroup(pid);
  installExitHook();
}

/**
 * Starts the sandbox the next command in `cwd` will run in, so it need not wait for one
 * (src/sandbox/warm-sandbox.ts); nothing without a bubblewrap sandbox. `env`: what the
 * command will get, as spawnTracked is given it.
 */
export function warmCommandSandbox(cwd: string, env: NodeJS.ProcessEnv): void {
  warmSandbox(cwd, env, (pid) => trackCommandGroup(pid, true), releaseGroupIfEmpty);
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
