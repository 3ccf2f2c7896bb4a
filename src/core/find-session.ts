/**
 * Which session file a command-line argument names: a path to a file, or the
 * start of a session id looked up among the stored sessions (`--session`,
 * `--export`). A missing file, an id that matches none or several sessions is a
 * usage error (exit code 2) that says what to give instead. Only the first line
 * (the header, which holds the id) of each stored session is read.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { uniqueIdPrefixes } from "../session/id-prefix.ts";
import { findSessionsByIdPrefix } from "../session/session-list.ts";
import { getConfiguredSessionDir } from "../session/session-paths.ts";
import { UserError } from "./user-error.ts";

export async function findSessionFile(cwd: string, pathOrId: string, sessionDir?: string): Promise<string> {
  const asPath = resolve(cwd, pathOrId);
  if (existsSync(asPath)) return asPath;
  // Something that can only be a path is not looked up as an id.
  if (/[\\/]|\.jsonl$/i.test(pathOrId)) throw new UserError(`Session file not found: ${asPath}`, 2);
  // settings' sessionDir (or its environment variable) holds the sessions when no --session-dir is given.
  const folder = sessionDir ?? getConfiguredSessionDir(cwd);
  // Only each file's first line is read: thousands of multi-megabyte sessions are looked through at once.
  const matches = await findSessionsByIdPrefix(pathOrId, folder ? resolve(folder) : undefined);
  if (matches.length === 1) return matches[0].path;
  if (matches.length > 1) {
    // Each match by the shortest start that names it alone: what to type instead.
    const prefixes = uniqueIdPrefixes(matches.map((match) => match.header.id));
    const listed = matches.slice(0, 10).map((match) => `  ${prefixes.get(match.header.id)}  ${match.header.timestamp ?? ""}  ${match.path}`);
    throw new UserError(`Session id "${pathOrId}" is ambiguous (${matches.length} sessions start with it); give one of these ids (or the file path):\n${listed.join("\n")}`, 2);
  }
  throw new UserError(`No session file or id matches "${pathOrId}". Give a .jsonl path or the start of a session id.`, 2);
}

/**
 * `--session`'s file: an existing session found as findSessionFile finds it, or — for
 * a path that does not exist yet — a new session to be written there, as every pi
 * does. Its folder is made now, so a path that can never be written is a clear usage
 * error at start rather than a failure at the first message.
 */
export async function sessionFileToOpen(cwd: string, pathOrId: string, sessionDir?: string): Promise<{ path: string; isNew: boolean }> {
  const asPath = resolve(cwd, pathOrId);
  if (existsSync(asPath) || !/[\\/]|\.jsonl$/i.test(pathOrId)) return { path: await findSessionFile(cwd, pathOrId, sessionDir), isNew: false };
  try {
    mkdirSync(dirname(asPath), { recursive: true });
  } catch (error) {
    throw new UserError(`--session ${pathOrId}: cannot create the folder for a new session file (${(error as Error).message})`, 2);
  }
  return { path: asPath, isNew: true };
}
