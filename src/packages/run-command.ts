/**
 * Runs one child process of an install (the binary's own Bun, npm, git) with its output
 * captured: a person sees one progress line per step on stderr, and on failure the
 * child's last lines, which say what the registry or git answered.
 */
import { childEnvironment } from "../sandbox/child-environment.ts";

export interface CommandResult {
  ok: boolean;
  output: string;
  /** Set when the program itself could not be started (not installed). */
  missing?: boolean;
}

export async function runCommand(argv: string[], options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<CommandResult> {
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn(argv, {
      cwd: options.cwd,
      // The package manager and git need the network and their own config, never a provider's key.
      env: { ...childEnvironment(process.env), ...options.env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
  } catch (error) {
    return { ok: false, output: (error as Error).message, missing: true };
  }
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ]);
  return { ok: code === 0, output: `${stdout}\n${stderr}`.trim() };
}

/** The binary's own package manager: the compiled xcsh is Bun when BUN_BE_BUN=1 (and `bun` itself when xcsh runs from source). */
export function ownBunCommand(): { argv: string[]; env: Record<string, string> } {
  return { argv: [process.execPath], env: { BUN_BE_BUN: "1" } };
}

/** A progress line for the person, on stderr (stdout stays clean for scripts). */
export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** The last few lines of a child's output, to quote in an error. */
export function lastLines(output: string, count = 6): string {
  return output.split("\n").map((line) => line.trimEnd()).filter((line) => line.trim() !== "").slice(-count).join("\n");
}
