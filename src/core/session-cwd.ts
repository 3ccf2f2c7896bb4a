/**
 * Where a resumed session runs (pi 1.6.0): in the working directory its header
 * recorded, not the one xcsh was started in — `--session <file|id>`, `--continue` and
 * `--resume` may pick a session of another project (or of a shared `--session-dir`),
 * and its tools, AGENTS.md, project settings and extensions are that project's. A
 * recorded folder that no longer exists is a MissingSessionCwdError: the terminal UI
 * catches it and asks whether to continue here, fork here or cancel (as pi 1.6.0 does);
 * the other modes report it and exit 1, as pi. The paths the command line gave stay relative to
 * where xcsh was started: anchorCliPaths makes them absolute before the switch.
 */
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { RunOptions } from "./run-options.ts";
import type { SessionChoice } from "./create-session.ts";
import { findSessionFile } from "./find-session.ts";
import { UserError } from "./user-error.ts";
import { readSessionHeader } from "../session/session-file.ts";
import { findMostRecentSession } from "../session/session-list.ts";
import { getDefaultSessionDir } from "../session/session-paths.ts";

/** A resumed session whose recorded working directory is gone: what the person is asked about, or told. */
export interface MissingSessionCwd {
  /** The session file that would have been opened. */
  sessionFile: string;
  /** The directory its header recorded, which no longer exists. */
  sessionCwd: string;
  /** Where xcsh was started: where "continue" or "fork" runs it. */
  launchCwd: string;
}

/**
 * The typed error for a session whose folder is gone. A UserError (its message is for the
 * person as it is) with exit code 1, pi's code for this case in print, json and rpc mode.
 */
export class MissingSessionCwdError extends UserError {
  constructor(readonly issue: MissingSessionCwd) {
    super(
      `The session's working directory no longer exists: ${issue.sessionCwd}\n` +
        `  session file: ${issue.sessionFile}\n  current directory: ${issue.launchCwd}\n` +
        `Restore that folder, or continue the conversation here as a new session with --fork ${issue.sessionFile}.`,
      1,
    );
  }
}

/** The existing session file the choice opens, if it opens one (a new session, a fork or an id of this project: none). */
async function fileToResume(choice: SessionChoice, launchCwd: string): Promise<string | undefined> {
  if (choice.noSession || choice.fork !== undefined || choice.sessionId !== undefined) return undefined;
  const sessionDir = choice.sessionDir ? resolve(launchCwd, choice.sessionDir) : undefined;
  if (choice.session !== undefined) {
    // A path that does not exist yet starts a new session here (find-session.ts).
    if (/[\\/]|\.jsonl$/i.test(choice.session) && !existsSync(resolve(launchCwd, choice.session))) return undefined;
    return findSessionFile(launchCwd, choice.session, sessionDir);
  }
  if (choice.continueRecent) return findMostRecentSession(sessionDir ?? getDefaultSessionDir(launchCwd)) ?? undefined;
  return undefined;
}

/**
 * The directory the session runs in: the resumed session's recorded cwd, else `launchCwd`.
 * Throws MissingSessionCwdError when the recorded directory is gone.
 */
export async function sessionWorkingDirectory(choice: SessionChoice, launchCwd: string): Promise<string> {
  const file = await fileToResume(choice, launchCwd);
  const recorded = file ? readSessionHeader(file)?.cwd : undefined;
  if (!recorded || resolve(recorded) === resolve(launchCwd)) return launchCwd;
  if (!existsSync(recorded)) throw new MissingSessionCwdError({ sessionFile: file!, sessionCwd: recorded, launchCwd });
  return recorded;
}

/** Not a path on this disk: a package source or an address (`npm:x`, `git:…`, `https://…`). */
function isSource(value: string): boolean {
  return /^(npm|git):/.test(value) || value.includes("://");
}

/** The command line's paths made absolute against the directory xcsh was started in. */
export function anchorCliPaths(args: RunOptions, launchCwd: string): RunOptions {
  const anchor = (path: string) => (isAbsolute(path) || isSource(path) || path.startsWith("~") ? path : resolve(launchCwd, path));
  const list = (paths: string[] | undefined) => paths?.map(anchor);
  return {
    ...args,
    extensionPaths: args.extensionPaths.map(anchor),
    skillPaths: args.skillPaths.map(anchor),
    promptTemplatePaths: args.promptTemplatePaths.map(anchor),
    fileArgs: args.fileArgs.map(anchor),
    ...(args.themePaths ? { themePaths: list(args.themePaths) } : {}),
    ...(args.mcpConfigPaths ? { mcpConfigPaths: list(args.mcpConfigPaths) } : {}),
    ...(args.sessionDir !== undefined ? { sessionDir: anchor(args.sessionDir) } : {}),
    // A path (not an id prefix) names a file from where xcsh was started.
    ...(args.session !== undefined && /[\\/]|\.jsonl$/i.test(args.session) ? { session: anchor(args.session) } : {}),
    ...(args.fork !== undefined && /[\\/]|\.jsonl$/i.test(args.fork) ? { fork: anchor(args.fork) } : {}),
  };
}
