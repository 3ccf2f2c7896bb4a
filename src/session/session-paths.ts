/**
 * Where session files live: one folder per working directory under the config
 * root's `sessions/`, one `<timestamp>_<uuid>.jsonl` file per session. The
 * folder name is the reference agent's encoding, so both agents find the same
 * sessions for a project.
 */
import { join, resolve } from "node:path";
import { getSessionsDir } from "../config/paths.ts";

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
 * is used); without it, the current config root. Nothing is created here: the
 * folder appears with the first session file written into it.
 */
export function getDefaultSessionDir(cwd: string, agentDir?: string): string {
  const sessionsRoot = agentDir ? join(resolve(agentDir), "sessions") : getSessionsDir();
  return join(sessionsRoot, encodeCwdForDirName(cwd));
}

/** `2024-12-03T14:00:00.000Z` + uuid → `2024-12-03T14-00-00-000Z_<uuid>.jsonl`. */
export function sessionFileName(isoTimestamp: string, sessionId: string): string {
  return `${isoTimestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}
