/**
 * The value of a stored API key (`"key"` of an auth.json entry), as pi reads it:
 *   "!command"          → run through the shell once per process; its trimmed stdout is
 *                         the key. A failure (nonzero exit, no output, 10 s timeout) is
 *                         remembered too: the key stays unresolved until xcsh restarts,
 *                         rather than re-running a failing secret manager on every request.
 *   "$NAME", "${NAME}"  → the variable, from the entry's `env` first, then the process
 *                         environment; `$$` is a literal `$`, `$!` a literal `!`
 *   anything else       → the key itself
 * Unlike models.json (config/resolve-value.ts) a bare NAME is a literal, and variables
 * come from the entry's own `env` first — hence a resolver of its own.
 */

import { ownProgramLaunch } from "../ai/own-program-seam.ts";

const COMMAND_TIMEOUT_MS = 10_000;

/** A stored key that cannot be had; the message names the provider and file, never the key. */
export class StoredKeyError extends Error {
  override readonly name = "UnresolvableValueError"; // what model-control lets through to the user
}

const commandResults = new Map<string, Promise<string>>();

export async function resolveStoredKey(key: string, env: Record<string, string> | undefined, where: string): Promise<string> {
  if (key.startsWith("!")) {
    const command = key.slice(1).trim();
    if (command === "") throw new StoredKeyError(`The key of ${where} is "!" without a command.`);
    let result = commandResults.get(command);
    if (!result) {
      result = runKeyCommand(command);
      commandResults.set(command, result);
    }
    try {
      return await result;
    } catch (error) {
      throw new StoredKeyError(`The key command of ${where} failed: ${(error as Error).message} It is not retried until xcsh restarts.`);
    }
  }
  if (!key.includes("$")) return key;
  const missing: string[] = [];
  const value = key.replace(INTERPOLATION, (_match, dollar, bang, braced, bare) => {
    if (dollar) return "$";
    if (bang) return "!";
    const name = (braced ?? bare) as string;
    const found = env?.[name] || process.env[name];
    if (!found) missing.push(name);
    return found ?? "";
  });
  if (missing.length > 0) {
    throw new StoredKeyError(`The key of ${where} names ${missing.join(", ")}, which ${missing.length > 1 ? "are" : "is"} not set.`);
  }
  return value;
}

/** Whether the stored key would yield something, decided without running a command. */
export function isStoredKeyConfigured(key: string | undefined): boolean {
  return key !== undefined && key.trim() !== "" && key.trim() !== "!";
}

const INTERPOLATION = /\$(?:(\$)|(!)|\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

async function runKeyCommand(command: string): Promise<string> {
  const argv = process.platform === "win32" ? ["cmd.exe", "/d", "/s", "/c", command] : ["/bin/sh", "-c", command];
  // A program of xcsh's own: from the home folder, without the provider keys (sandbox/own-programs.ts).
  const proc = Bun.spawn({ ...ownProgramLaunch(argv), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), COMMAND_TIMEOUT_MS);
  try {
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    if (proc.signalCode === "SIGKILL") throw new Error(`it did not finish within ${COMMAND_TIMEOUT_MS / 1000} s.`);
    // stderr is the command's own diagnostics (a secret manager's "item not found"), not the key.
    if (exitCode !== 0) throw new Error(`exit code ${exitCode}${stderr.trim() ? `: ${stderr.trim().slice(0, 300)}` : ""}.`);
    const key = stdout.trim();
    if (key === "") throw new Error("it printed nothing on stdout.");
    return key;
  } finally {
    clearTimeout(timer);
  }
}
