/**
 * A sandbox started before the command it will run. Starting bubblewrap (a second program,
 * new namespaces, a dozen mounts) takes 12–13 ms on a machine where starting bash takes 6:
 * most of a short command's time. So a sandbox is started while the model is still
 * answering (agent_start) and again when a sandboxed command ends, and waits: inside it a
 * small bash script (the shim) reads the command's argv and the changes to its environment
 * (the command's tag among them) from its stdin, then `exec`s the command with stdin from
 * /dev/null. Each sandbox runs one command and is never reused, so what a command leaves
 * behind dies with it, as with a sandbox started for it.
 *
 * A waiting sandbox is used only when it is what a fresh one would be now: the same bwrap
 * command line (computed again, so a protected path that has appeared since counts), the
 * same folder, an environment the shim can bring to exactly the command's, and the same
 * files behind every path it binds or hides — the protected paths, the placeholders, the
 * hidden folders and sockets of /tmp (device and inode: a `.mcp.json` replaced since would
 * otherwise be left writable, bound as the file it replaced). Otherwise it is
 * killed and the command gets a fresh sandbox. Linux (bubblewrap) only; a command too long
 * for the shim's byte-by-byte read of its pipe (MAX_ARGV_BYTES) gets a fresh sandbox too.
 */
import type { Subprocess } from "bun";
import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { commandPolicy } from "./active-policy.ts";
import { sandboxedArgv } from "./launcher.ts";
import { sandboxLayout } from "./layout.ts";
import { PROCESS_TAG_VARIABLE } from "./process-sweep.ts";

export type WarmProcess = Subprocess<"pipe", "pipe", "pipe">;

/**
 * Reads fields, each ended by a NUL, until the pipe closes: `E<name>=<value>` exports a
 * variable, `U<name>` unsets one (so the command gets exactly the environment it would have
 * had: the sandbox started with an older one), `A<arg>` appends to the command line; then
 * runs it. `--posix`: a non-interactive bash in POSIX mode reads no startup file, so
 * $BASH_ENV runs once, in the command's own shell, not twice. Its SHLVL goes up at start and
 * down at `exec`, so the command sees the one it was given.
 */
const SHIM_SCRIPT = [
  "set --",
  `while IFS= read -r -d '' __xcsh_field; do`,
  `  case $__xcsh_field in`,
  `    A*) set -- "$@" "\${__xcsh_field#A}" ;;`,
  `    E*) export "\${__xcsh_field#E}" || exit 126 ;;`,
  `    U*) unset "\${__xcsh_field#U}" || exit 126 ;;`,
  "  esac",
  "done",
  "unset __xcsh_field",
  `[ "$#" -gt 0 ] || exit 126`,
  `exec "$@" </dev/null`,
].join("\n");

/** bash reads a pipe a byte per system call; past this a fresh sandbox is quicker. */
export const MAX_ARGV_BYTES = 4096;

interface Waiting {
  handedOver?: boolean;
  /** The command line and folder, not the environment: that goes down the pipe as a difference. */
  key: string;
  env: NodeJS.ProcessEnv;
  identity: string;
  proc: WarmProcess;
}

let waiting: Waiting | undefined;
let shimShell: string | null | undefined;

function shellForShim(): string | undefined {
  if (shimShell === undefined) {
    shimShell = null;
    for (const candidate of ["/bin/bash", "/usr/bin/bash"]) {
      try {
        accessSync(candidate, constants.X_OK);
        shimShell = candidate;
        break;
      } catch {
        // Not here.
      }
    }
  }
  return shimShell ?? undefined;
}

/** Whether commands run under bubblewrap: in a PID namespace of their own, each. */
export function commandsRunInBubblewrap(): boolean {
  return process.platform === "linux" && commandPolicy().sandbox.mode !== "off";
}

/** The program that waits in a sandbox for its command; undefined without bash. */
export function shimArgv(): string[] | undefined {
  const shell = shellForShim();
  return shell ? [shell, "--posix", "-c", SHIM_SCRIPT, "xcsh-sandbox"] : undefined;
}

/** What a fresh sandbox for `cwd` would be, as a string; undefined when none can be warmed. */
function launchKey(cwd: string): { key: string; command: string[] } | undefined {
  const shim = shimArgv();
  if (!shim || !commandsRunInBubblewrap()) return undefined;
  try {
    const command = sandboxedArgv(shim, cwd);
    return { key: JSON.stringify([command, cwd]), command };
  } catch {
    // The sandbox cannot start: the command's own spawn says why.
    return undefined;
  }
}

/** Device and inode of every path a sandbox for `cwd` binds or hides ("-" for a missing one). */
function boundFiles(cwd: string): string {
  const layout = sandboxLayout(commandPolicy().sandbox, cwd);
  const parts: string[] = [];
  for (const path of [...layout.writableRoots, ...layout.protectedPaths, ...layout.hiddenPaths, ...layout.hiddenSockets.folders, ...layout.hiddenSockets.files, ...layout.ownFolders]) {
    try {
      const stat = statSync(path);
      parts.push(`${path}:${stat.dev}:${stat.ino}`);
    } catch {
      parts.push(`${path}:-`);
    }
  }
  return parts.join("\n");
}

const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Variables bash keeps for itself (read-only, or set as it runs): a change to one goes the fresh way. */
const BASH_OWN = new Set(["SHELLOPTS", "BASHOPTS", "SHLVL", "PWD", "OLDPWD", "_", "PPID", "UID", "EUID", "GROUPS", "BASHPID", "__xcsh_field"]);

/**
 * Whether the shim can hand on `env` exactly: bash re-writes exported functions
 * (BASH_FUNC_*) in its own words, which a program other than bash would see.
 */
function canPass(env: NodeJS.ProcessEnv): boolean {
  for (const name of Object.keys(env)) if (name.startsWith("BASH_FUNC_")) return false;
  return true;
}

/**
 * The shim's fields that turn the environment the sandbox started with into `wanted` and
 * then run `argv`; undefined when they cannot (a NUL in a field, or a variable to change
 * whose name bash cannot export or unset).
 */
export function commandFields(argv: readonly string[], started: NodeJS.ProcessEnv, wanted: NodeJS.ProcessEnv): string[] | undefined {
  // A program found on PATH (by bash here, by bwrap's execvp there) could be told apart; a shell's full path cannot.
  if (argv.length === 0 || !isAbsolute(argv[0]) || !canPass(wanted)) return undefined;
  const fields: string[] = [];
  for (const [name, value] of Object.entries(wanted)) {
    if (value === undefined || started[name] === value) continue;
    if (!SHELL_NAME.test(name) || BASH_OWN.has(name)) return undefined;
    fields.push(`E${name}=${value}`);
  }
  for (const name of Object.keys(started)) {
    if (wanted[name] !== undefined) continue;
    if (!SHELL_NAME.test(name) || BASH_OWN.has(name)) return undefined;
    fields.push(`U${name}`);
  }
  for (const arg of argv) fields.push(`A${arg}`);
  // A NUL cannot be in an argument or a variable (nor pass through the shim); the fresh spawn refuses it.
  return fields.some((field) => field.includes("\0")) ? undefined : fields;
}

function discard(): void {
  const stale = waiting;
  waiting = undefined;
  if (!stale) return;
  try {
    process.kill(-stale.proc.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/**
 * Starts a sandbox for the next command in `cwd` with `env`, unless one is waiting already.
 * `track` is given its process group, to be killed with xcsh's other commands at exit;
 * `release` is called with it when it ends without having run a command.
 */
export function warmSandbox(cwd: string, env: NodeJS.ProcessEnv, track: (pid: number) => void, release: (pid: number) => void): void {
  const launch = launchKey(cwd);
  if (!launch || !canPass(env)) return;
  if (waiting?.key === launch.key && waiting.proc.exitCode === null) return;
  discard();
  let proc: WarmProcess;
  try {
    proc = Bun.spawn(launch.command, { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe", detached: true });
  } catch {
    return;
  }
  // A waiting sandbox must not keep xcsh running: a print-mode run ends when its work does.
  proc.unref();
  track(proc.pid);
  const entry: Waiting = { key: launch.key, env, identity: boundFiles(cwd), proc };
  waiting = entry;
  void proc.exited.then(() => {
    if (waiting === entry) waiting = undefined;
    if (!entry.handedOver) release(proc.pid);
  });
}

/**
 * The waiting sandbox, given `argv` to run with `tag`, when it is the one a fresh spawn
 * would start now; undefined otherwise (a mismatched one is killed).
 */
export function takeWarmSandbox(argv: readonly string[], cwd: string, env: NodeJS.ProcessEnv, tag: string): WarmProcess | undefined {
  const candidate = waiting;
  if (!candidate || candidate.proc.exitCode !== null) return undefined;
  const fields = commandFields(argv, candidate.env, { ...env, [PROCESS_TAG_VARIABLE]: tag });
  if (!fields) return undefined;
  const payload = `${fields.join("\0")}\0`;
  if (Buffer.byteLength(payload) > MAX_ARGV_BYTES) return undefined;
  const launch = launchKey(cwd);
  if (!launch || launch.key !== candidate.key || boundFiles(cwd) !== candidate.identity) {
    discard();
    return undefined;
  }
  waiting = undefined;
  candidate.handedOver = true;
  candidate.proc.ref();
  try {
    candidate.proc.stdin.write(payload);
    void candidate.proc.stdin.end();
  } catch {
    discard();
    return undefined;
  }
  return candidate.proc;
}
