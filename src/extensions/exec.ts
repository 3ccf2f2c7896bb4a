/**
 * `pi.exec(command, args, options)`: runs a program without a shell and collects
 * its output. Like the bash tool's commands, the child gets xcsh's environment
 * without its credentials, runs under the sandbox when one is on, and gets its own
 * process group, tracked so that a timeout, an abort or xcsh's exit ends it and
 * everything it started (src/tools/tracked-process.ts); its stdout never reaches ours.
 */
import { commandEnvironment } from "../sandbox/active-policy.ts";
import { killProcessTree, releaseGroupIfEmpty, spawnTracked, type TrackedProcess } from "../tools/tracked-process.ts";
import type { ExecOptions, ExecResult } from "./types.ts";

export async function execCommand(cwd: string, command: string, args: string[] = [], options: ExecOptions = {}): Promise<ExecResult> {
  let child: TrackedProcess;
  try {
    child = spawnTracked([command, ...args.map(String)], options.cwd ?? cwd, commandEnvironment());
  } catch (error) {
    // Not found, not executable, or no sandbox to run it in: an answer the extension can read, not a crash.
    return { stdout: "", stderr: (error as Error).message, code: 127, killed: false };
  }
  const { proc, tag } = child;
  let killed = false;
  const kill = () => {
    killed = true;
    if (proc.pid) killProcessTree(proc.pid, tag);
  };
  const timer = options.timeout && options.timeout > 0 ? setTimeout(kill, options.timeout) : undefined;
  if (options.signal?.aborted) kill();
  options.signal?.addEventListener("abort", kill, { once: true });
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { stdout, stderr, code: code ?? (killed ? 137 : 1), killed };
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener("abort", kill);
    releaseGroupIfEmpty(proc.pid);
  }
}
