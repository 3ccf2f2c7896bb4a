import { UserError } from "../core/user-error.ts";

/**
 * Prints one line to stderr and returns the exit code. Errors the user can fix
 * (config, model, key) are printed as they are; anything else is reported as an
 * internal error, with the stack only under XCSH_DEBUG.
 */
export function reportFatal(error: unknown, exitCode: number): number {
  const isUserFacing = typeof error === "string" || (error instanceof Error && (error.name === "UserError" || error.name === "ConfigError"));
  const text = typeof error === "string" ? error : error instanceof Error ? error.message : String(error);
  process.stderr.write(`xcsh: ${isUserFacing ? text : `internal error: ${text}`}\n`);
  if (process.env.XCSH_DEBUG && error instanceof Error && error.stack) process.stderr.write(error.stack + "\n");
  // A broken config file is a configuration error: exit code 2, as for bad flags (docs/headless.md).
  if (error instanceof Error && error.name === "ConfigError") return 2;
  return error instanceof UserError ? error.exitCode : exitCode;
}
