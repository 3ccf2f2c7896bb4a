/**
 * Where session files live: one folder per working directory under the config
 * root's `sessions/`, one `<timestamp>_<uuid>.jsonl` file per session. The
 * folder name is the reference agent's encoding, so both agents find the same
 * sessions for a project.
 */
import { join, resolve } from "node:path";
import { expandHome, getSessionsDir, SESSION_DIR_ENV } from "../config/paths.ts";
import { readSessionDirSetting } from "../config/settings.ts";

/**
 * `/home/u/p` → `--home-u-p--`: the leading separator is dropped, every other
 * `/`, `\` or `:` becomes `-` (the reference agent names folders this way).
 */
export function encodeCwdForDirName(cwd: string): string {
  const withoutRoot = resolve(cwd).replace(/^[/\\]/, "");
  return `--${withoutRoot.replace(/[/\\:]/g, "-")}--`;
}

/**
 * The folder for `cwd`'s sessions. `agentDir` is a config root (its `sessions/`
 * is used). Without it: the folder the person chose, $XCSH_CODING_AGENT_SESSION_DIR
 * or else settings' `sessionDir` (both taken from `cwd` when relative, and used as
 * they are: no per-project folder inside), else the project's folder under the
 * current config root. (--session-dir is passed by the caller and wins over all.)
 * Nothing is created here: the folder appears with the first session file written into it.
 */
export function getDefaultSessionDir(cwd: string, agentDir?: string): string {
  if (agentDir) return join(resolve(agentDir), "sessions", encodeCwdForDirName(cwd));
  return getConfiguredSessionDir(cwd) ?? join(getSessionsDir(), encodeCwdForDirName(cwd));
}

/** The session folder the environment or the settings name for `cwd`, if any. */
export function getConfiguredSessionDir(cwd: string): string | undefined {
  const fromEnv = process.env[SESSION_DIR_ENV];
  if (fromEnv && fromEnv.trim() !== "") return resolve(cwd, expandHome(fromEnv));
  return readSessionDirSetting(cwd);
}

/** `2024-12-03T14:00:00.000Z` + uuid → `2024-12-03T14-00-00-000Z_<uuid>.jsonl`. */
export function sessionFileName(isoTimestamp: string, sessionId: string): string {
  return `${isoTimestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}
