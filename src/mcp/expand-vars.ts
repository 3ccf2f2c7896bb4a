/**
 * `${VAR}` and `${VAR:-default}` in an MCP server's command, arguments, environment,
 * working directory, URL and headers, taken from xcsh's environment. A variable that
 * is unset (or, for `:-`, empty) with no default makes the server unusable: the caller
 * reports it by name rather than starting the server with a hole in its command line.
 * Nothing else is special: a `$` not followed by `{` stays as written.
 */

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export class MissingVariableError extends Error {
  constructor(readonly variable: string) {
    super(`\${${variable}} is not set`);
  }
}

export function expandVariables(text: string, env: Record<string, string | undefined> = process.env): string {
  return text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (fallback !== undefined) return value === undefined || value === "" ? fallback : value;
    if (value === undefined) throw new MissingVariableError(name);
    return value;
  });
}

/** Every value of a string map expanded; keys stay as written. */
export function expandMap(map: Record<string, string> | undefined, env?: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map ?? {})) out[key] = expandVariables(value, env);
  return out;
}
