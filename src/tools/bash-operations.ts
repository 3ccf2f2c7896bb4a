/**
 * The local shell backend of the bash tool (and of the user's `!` commands):
 * finds a shell, runs a command in its own process group (under the sandbox, when one
 * is on: tracked-process.ts), streams its output (stderr into stdout, in write order), and kills the whole process tree on
 * abort or timeout. A command given no environment gets xcsh's without its credentials.
 */
import { accessSync, constants, existsSync } from "node:fs";
import { basename } from "node:path";
import { commandEnvironment } from "../sandbox/active-policy.ts";
import { commandsRunInBubblewrap } from "../sandbox/warm-sandbox.ts";
import { killProcessTree, releaseGroupIfEmpty, spawnTracked, warmCommandSandbox } from "./tracked-process.ts";

export interface BashExecOptions {
  /** Called with stdout and stderr bytes as they arrive. */
  onData: (data: Buffer) => void;
  signal?: AbortSignal;
  /** Seconds; no limit when absent. */
  timeout?: number;
  /** The command's environment, as given; absent: xcsh's, without its credentials (settings' shellEnv). */
  env?: NodeJS.ProcessEnv;
}

export interface BashOperations {
  /** Runs `command` in `cwd`; `exitCode` is null when the command was killed. */
  exec: (command: string, cwd: string, options: BashExecOptions) => Promise<{ exitCode: number | null }>;
}

export interface LocalBashOperationsOptions {
  /** Shell to run commands with (`<shell> -c <command>`), instead of the detected one (settings' shellPath). */
  shellPath?: string;
}

/**
 * After the shell exits, how long to keep reading output with nothing arriving.
 * A background job (`server &`) keeps the pipes open forever; its output after
 * the shell ends is not waited for.
 */
const DRAIN_IDLE_MS = 100;
/**
 * The longest the drain may take in all: a background job that keeps printing
 * (a dev server) must not hold the call open; the call ends, the job runs on.
 */
const DRAIN_MAX_MS = 1000;

const SHELL_NAMES = new Set(["bash", "zsh"]);

/**
 * The command's stderr goes into its stdout pipe, so the model reads both in the order the
 * command wrote them: read from two pipes, a line on stderr just before one on stdout could
 * come second (bash-spawn-hook's "no such file" for ~/.profile came after the first output).
 * A plain `sh` execs the real shell with `2>&1`; that shell gets `-c <command>` and the same
 * `$0` as before, and `sh -c` reads no startup files (zsh would read .zshenv twice).
 */
const MERGE_STREAMS = 'exec "$0" -c "$1" 2>&1';
const PLAIN_SH = "/bin/sh";

function mergedCommandArgv(shell: string, command: string): string[] {
  const launcher = isExecutable(PLAIN_SH) ? PLAIN_SH : shell;
  return [launcher, "-c", MERGE_STREAMS, shell, command];
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

let detectedShell: string | undefined;

/** `$SHELL` when it is bash or zsh, else /bin/bash, else whatever `sh` is on PATH. */
export function detectShell(): string {
  if (detectedShell) return detectedShell;
  const fromEnv = process.env.SHELL;
  if (fromEnv && SHELL_NAMES.has(basename(fromEnv)) && isExecutable(fromEnv)) detectedShell = fromEnv;
  else if (isExecutable("/bin/bash")) detectedShell = "/bin/bash";
  else detectedShell = Bun.which("bash") ?? Bun.which("sh") ?? "sh";
  return detectedShell;
}

export { killProcessTree } from "./tracked-process.ts";

/** The environment a command gets when none is given: xcsh's, without its credentials. */
function defaultCommandEnvironment(): NodeJS.ProcessEnv {
  return commandEnvironment();
}

/**
 * Starts the sandbox the next bash command in `cwd` will run in, while the model is still
 * answering (src/sandbox/warm-sandbox.ts); nothing when commands run unsandboxed.
 */
export function warmBashSandbox(cwd: string): void {
  // Before the environment is worked out: most runs have no sandbox to warm.
  if (!commandsRunInBubblewrap()) return;
  warmCommandSandbox(cwd, defaultCommandEnvironment());
}

/** Reads a stream to its end, or until `stop` resolves. */
async function pump(
  stream: ReadableStream<Uint8Array>,
  onData: (data: Buffer) => void,
  stop: Promise<void>,
): Promise<void> {
  const reader = stream.getReader();
  // Cancelling ends a pending read. (Racing each read against `stop` instead
  // would pile a reaction per chunk onto `stop`, keeping every chunk alive.)
  let finished = false;
  void stop.then(() => {
    if (!finished) reader.cancel().catch(() => {});
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.byteLength > 0) onData(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    }
  } finally {
    finished = true;
    reader.releaseLock();
  }
}

export function createLocalBashOperations(options: LocalBashOperationsOptions = {}): BashOperations {
  return {
    async exec(command, cwd, { onData, signal, timeout, env }) {
      if (signal?.aborted) return { exitCode: null };
      const shell = options.shellPath || detectShell();
      // Said plainly: Bun's own error for a missing executable does not name the setting.
      if (options.shellPath && !existsSync(shell)) throw new Error(`Shell not found: ${shell} (shellPath in settings.json).`);
      const { proc, tag } = spawnTracked(mergedCommandArgv(shell, command), cwd, env ?? defaultCommandEnvironment());

      let killed = false;
      const kill = () => {
        if (killed) return;
        killed = true;
        killProcessTree(proc.pid, tag);
      };
      signal?.addEventListener("abort", kill, { once: true });
      const timer = timeout !== undefined && timeout > 0 ? setTimeout(kill, timeout * 1000) : undefined;

      // Stop reading once the shell has exited and output has gone quiet.
      let lastDataAt = Date.now();
      const noteData = (data: Buffer) => {
        lastDataAt = Date.now();
        onData(data);
      };
      const drained = proc.exited.then(async () => {
        const deadline = Date.now() + DRAIN_MAX_MS;
        for (;;) {
          const idle = Date.now() - lastDataAt;
          if (idle >= DRAIN_IDLE_MS || Date.now() >= deadline) return;
          await Bun.sleep(Math.min(DRAIN_IDLE_MS - idle, deadline - Date.now()));
        }
      });

      try {
        await Promise.all([pump(proc.stdout, noteData, drained), pump(proc.stderr, noteData, drained)]);
        const exitCode = await proc.exited;
        return { exitCode: killed ? null : exitCode };
      } catch (error) {
        // A failing onData must not leave the command running unobserved.
        kill();
        throw error;
      } finally {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", kill);
        releaseGroupIfEmpty(proc.pid);
      }
    },
  };
}
