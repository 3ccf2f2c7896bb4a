/**
 * Where xcsh keeps its configuration. Every function reads the environment when it is
 * called, so tests (and embedders) can point XCSH_CODING_AGENT_DIR elsewhere at any time.
 */
import { join, resolve } from "node:path";

export const AGENT_DIR_ENV = "XCSH_CODING_AGENT_DIR";
/** Where sessions go, over settings' `sessionDir` (pi's PI_CODING_AGENT_SESSION_DIR); --session-dir wins over both. */
export const SESSION_DIR_ENV = "XCSH_CODING_AGENT_SESSION_DIR";
export const PROJECT_CONFIG_DIR_NAME = ".xcsh";

/**
 * The home directory: `$HOME`, else the account's (node:os, loaded only then: importing
 * it costs every start ~0.7 ms and some memory, and HOME is nearly always set).
 */
export function homeDir(): string {
  return process.env.HOME || (require("node:os") as typeof import("node:os")).homedir();
}

/** Expands a leading `~` (alone or followed by a separator) to the home directory. */
export function expandHome(path: string): string {
  if (path === "~") return homeDir();
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(homeDir(), path.slice(2));
  return path;
}

/** The global config root: `$XCSH_CODING_AGENT_DIR`, else `~/.xcsh/agent`. */
export function getAgentDir(): string {
  const fromEnv = process.env[AGENT_DIR_ENV];
  if (fromEnv) return resolve(expandHome(fromEnv));
  return join(homeDir(), PROJECT_CONFIG_DIR_NAME, "agent");
}

export function getModelsJsonPath(): string {
  return join(getAgentDir(), "models.json");
}

export function getSettingsPath(): string {
  return join(getAgentDir(), "settings.json");
}

export function getSessionsDir(): string {
  return join(getAgentDir(), "sessions");
}

/** The project-local config folder: `<cwd>/.xcsh`. */
export function getProjectConfigDir(cwd: string): string {
  return join(cwd, PROJECT_CONFIG_DIR_NAME);
}

export function getProjectSettingsPath(cwd: string): string {
  return join(getProjectConfigDir(cwd), "settings.json");
}
