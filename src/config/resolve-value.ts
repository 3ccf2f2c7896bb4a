/**
 * Resolution of `apiKey` and header values in models.json. Both spellings pi has used
 * work, so a file written for either version sends the key its author meant:
 *   "!command"        → run through the shell, use its trimmed stdout (at request time, every
 *                       time: caching or TTLs are the command's business, see models.md)
 *   "$NAME", "${NAME}" → the environment variable, also inside a longer text
 *                       ("Bearer ${TOKEN}"); `$$` is a literal `$`, `$!` a literal `!`
 *                       (pi 0.87.1). A variable that is unset or empty is an error naming it:
 *                       sending "${NAME}" as the key would fail far from the cause.
 *   "NAME"            → the value of environment variable NAME when it is set (pi 0.73.1)
 *   anything else     → the literal string ("sk-…", "ollama")
 */

import { ownProgram } from "../sandbox/own-programs.ts";

/** A `$NAME` or `${NAME}` in a value names a variable that is unset or empty. Carries names only, never values. */
export class UnsetVariableError extends Error {
  constructor(readonly variables: readonly string[]) {
    const list = variables.join(", ");
    super(`environment variable${variables.length > 1 ? "s" : ""} ${list} ${variables.length > 1 ? "are" : "is"} not set`);
    this.name = "UnsetVariableError";
  }
}

/**
 * A configured key or header that cannot be had (its variable unset, its command failing):
 * the registry's error, naming the value and the file, which callers pass on rather than
 * fall back to "no API key".
 */
export class UnresolvableValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnresolvableValueError";
  }
}

/** Resolves a models.json value; throws UnsetVariableError, or an Error naming a failing command and its stderr. */
export async function resolveConfigValue(value: string): Promise<string> {
  if (isCommand(value)) return runValueCommand(value.slice(1).trim());
  if (isInterpolated(value)) {
    const missing = missingVariables(value);
    if (missing.length > 0) throw new UnsetVariableError(missing);
    return interpolateEnv(value);
  }
  return bareVariable(value) ?? value;
}

/**
 * Whether a value would yield a credential, decided without running anything (for
 * availability checks, which must stay fast and side-effect free). A command counts as
 * configured; an interpolated value when every variable it names is set; any other
 * non-empty value, since it at least resolves to itself.
 */
export function isConfigValueConfigured(value: string | undefined): boolean {
  if (value === undefined) return false;
  if (isCommand(value)) return value.slice(1).trim() !== "";
  if (isInterpolated(value)) return missingVariables(value).length === 0 && interpolateEnv(value) !== "";
  return value.trim() !== "";
}

/** The variables a `$`-value names that are unset or empty (none for commands and bare values). */
export function missingVariables(value: string): string[] {
  if (!isInterpolated(value)) return [];
  const missing: string[] = [];
  for (const match of value.matchAll(INTERPOLATION)) {
    const name = match[3] ?? match[4];
    if (name !== undefined && !envValue(name) && !missing.includes(name)) missing.push(name);
  }
  return missing;
}

/** A value with `$` in it (and not a command) is read as interpolation. */
export function isInterpolated(value: string): boolean {
  return !isCommand(value) && value.includes("$");
}

/**
 * Replaces `$NAME` and `${NAME}` by the environment variable (unset → empty), `$$` by `$`
 * and `$!` by `!`; a `$` before anything else stays as it is.
 */
export function interpolateEnv(value: string): string {
  return value.replace(INTERPOLATION, (_match, dollar, bang, braced, bare) => {
    if (dollar) return "$";
    if (bang) return "!";
    return envValue(braced ?? bare) ?? "";
  });
}

/** `NAME` alone, as pi 0.73.1 read it: the variable's value when it is set and not empty. */
export function bareVariable(value: string): string | undefined {
  return ENV_NAME.test(value) ? envValue(value) : undefined;
}

const INTERPOLATION = /\$(?:(\$)|(!)|\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function envValue(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
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
    // A program of xcsh's own: from the home folder, without the provider keys (sandbox/own-programs.ts).
    proc = Bun.spawn({ ...ownProgram(shellArgv(command)), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
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
