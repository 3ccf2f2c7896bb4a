/**
 * `pi.exec(command, args, options)`: runs a program without a shell and collects
 * its output. The child gets its own process group so a timeout or an abort
 * ends it and everything it started; its stdout never reaches ours.
 */
import { killProcessTree } from "../tools/bash-operations.ts";
import type { ExecOptions, ExecResult } from "./types.ts";

export async function execCommand(cwd: string, command: string, args: string[] = [], options: ExecOptions = {}): Promise<ExecResult> {
  let child: ReturnType<typeof Bun.spawn>;
  try {
    child = Bun.spawn([command, ...args.map(String)], {
      cwd: options.cwd ?? cwd,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    });
  } catch (error) {
    // Not found or not executable: an answer the extension can read, not a crash.
    return { stdout: "", stderr: (error as Error).message, code: 127, killed: false };
  }
  let killed = false;
  const kill = () => {
    killed = true;
    if (child.pid) killProcessTree(child.pid);
  };
  const timer = options.timeout && options.timeout > 0 ? setTimeout(kill, options.timeout) : undefined;
  if (options.signal?.aborted) kill();
  options.signal?.addEventListener("abort", kill, { once: true });
  try {
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout as ReadableStream).text(),
      new Response(child.stderr as ReadableStream).text(),
      child.exited,
    ]);
    return { stdout, stderr, code: code ?? (killed ? 137 : 1), killed };
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener("abort", kill);
  }
}
