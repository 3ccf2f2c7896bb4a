/**
 * Resolution of `apiKey` and header values in models.json:
 *   "!command"  → run through the shell, use its trimmed stdout (at request time, every time:
 *                 caching or TTLs are the command's business, see models.md)
 *   "NAME"      → the value of environment variable NAME, when it is set
 *   anything else, or NAME unset → the literal string
 */

/** Resolves a config value; a failing command throws an Error naming it and its stderr. */
export async function resolveConfigValue(value: string): Promise<string> {
  if (isCommand(value)) return runValueCommand(value.slice(1).trim());
  const fromEnv = process.env[value];
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : value;
}

/**
 * Whether a value would yield a credential, decided without running anything (for
 * availability checks, which must stay fast and side-effect free). A command counts as
 * configured; so does any other non-empty value, since it at least resolves to itself.
 */
export function isConfigValueConfigured(value: string | undefined): boolean {
  if (value === undefined) return false;
  if (isCommand(value)) return value.slice(1).trim() !== "";
  return value.trim() !== "";
}

function isCommand(value: string): boolean {
  return value.startsWith("!");
}

function shellArgv(command: string): string[] {
  return process.platform === "win32" ? ["cmd.exe", "/d", "/s", "/c", command] : ["/bin/sh", "-c", command];
}

async function runValueCommand(command: string): Promise<string> {
  if (command === "") throw new Error('Config value "!" has no command after the "!".');
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    // Pass env explicitly: Bun would otherwise hand the child the environment as it was at startup.
    proc = Bun.spawn(shellArgv(command), { env: process.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  } catch (error) {
    throw new Error(`Command "${command}" could not be started: ${(error as Error).message}`);
  }
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ]);
  if (exitCode !== 0) {
    const detail = stderr.trim() || "no output on stderr";
    throw new Error(`Command "${command}" failed with exit code ${exitCode}: ${detail}`);
  }
  const result = stdout.trim();
  if (result === "") throw new Error(`Command "${command}" printed nothing on stdout.`);
  return result;
}
