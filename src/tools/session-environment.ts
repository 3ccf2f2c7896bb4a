/**
 * What commands learn from their environment about the agent that runs them
 * (pi's environment-variables.md, with xcsh twins):
 *
 * - Process markers, set once on xcsh's own environment at start, so every child
 *   inherits them: `AI_AGENT=xcsh` (the generic "which agent launched me" marker;
 *   pi puts its own name there, xcsh puts its own), `PI_CODING_AGENT=true` (scripts
 *   written for pi detect a compatible agent) and `XCSH_CODING_AGENT=true`.
 * - Session variables, for commands the model runs with the bash tool only (not
 *   the user's `!` / RPC `bash`, as in pi): the session id and file, the selected
 *   provider and model, and the effective reasoning level — under `PI_*` names and
 *   as `XCSH_*` twins. They are read when each command starts, so a model switch
 *   shows in the next command. Inherited values (a nested agent's parent) are
 *   always removed first, so a command never sees another session's.
 */

/** What the bash tool asks the session for when a command starts; pi's tool context has this shape. */
export interface ShellSessionContext {
  sessionManager?: { getSessionId(): string; getSessionFile(): string | undefined };
  model?: { provider: string; id: string };
  /** The effective level (already "off" for a model without reasoning). */
  thinkingLevel?: string;
}

export const PROCESS_MARKERS: Readonly<Record<string, string>> = {
  AI_AGENT: "xcsh",
  PI_CODING_AGENT: "true",
  XCSH_CODING_AGENT: "true",
};

/** Sets the process markers on `env` (xcsh's own environment at start-up). */
export function markAgentProcess(env: NodeJS.ProcessEnv = process.env): void {
  Object.assign(env, PROCESS_MARKERS);
}

/** The session variables' names without their `PI_` / `XCSH_` prefix. */
const SESSION_KEYS = ["SESSION_ID", "SESSION_FILE", "PROVIDER", "MODEL", "REASONING_LEVEL"] as const;
type SessionKey = (typeof SESSION_KEYS)[number];
const PREFIXES = ["PI_", "XCSH_"] as const;

/** Every session variable name, both spellings. */
export const SESSION_VARIABLES: readonly string[] = PREFIXES.flatMap((prefix) => SESSION_KEYS.map((key) => prefix + key));

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * The values a context gives, each checked: a host or an extension may hand the tool
 * any object, and a field of the wrong type is left out rather than set to "undefined".
 */
function sessionValues(context: ShellSessionContext): Partial<Record<SessionKey, string>> {
  const manager = context.sessionManager;
  const model = context.model;
  const values: Partial<Record<SessionKey, string | undefined>> = {
    SESSION_ID: typeof manager?.getSessionId === "function" ? text(manager.getSessionId()) : undefined,
    // Absent for a session kept in memory (--no-session): there is no file to read.
    SESSION_FILE: typeof manager?.getSessionFile === "function" ? text(manager.getSessionFile()) : undefined,
    PROVIDER: text(model?.provider),
    MODEL: text(model?.id),
    REASONING_LEVEL: text(context.thinkingLevel),
  };
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/**
 * A copy of `base` without inherited session variables and with the current
 * session's (none when `context` is undefined: the tool was made without a session,
 * or with `exposeSessionEnvironment: false`).
 */
export function withSessionEnvironment(base: NodeJS.ProcessEnv, context: ShellSessionContext | undefined): NodeJS.ProcessEnv {
  const env = { ...base };
  for (const name of SESSION_VARIABLES) delete env[name];
  if (!context) return env;
  for (const [key, value] of Object.entries(sessionValues(context))) {
    for (const prefix of PREFIXES) env[prefix + key] = value;
  }
  return env;
}
