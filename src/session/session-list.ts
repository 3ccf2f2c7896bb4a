/**
 * Finding sessions on disk: the listing behind `/resume`, `pi -r` and ACP's
 * session/list (every session of a project, or of all projects), the most
 * recent session for `--continue`, and sessions by id for `--session <id>`.
 * None of them reads a whole file: a listing reads each file's head and tail
 * (session-summary.ts), the others only its first line. Files are summarized
 * a batch at a time with progress per file, and the event loop gets a turn
 * between batches, so a picker keeps drawing while thousands load. Files that
 * are not readable sessions are left out (they cannot be resumed; opening one
 * reports why).
 */
import { fsPromises } from "../tools/fs-promises.ts";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { getSessionsDir } from "../config/paths.ts";
import { readSessionHeader } from "./session-file.ts";
import { summarizeSessionFile } from "./session-summary.ts";
import type { SessionHeader, SessionInfo, SessionListProgress } from "./types.ts";

/** Files summarized between turns of the event loop. */
const FILES_PER_TURN = 32;

async function sessionFilesIn(dir: string): Promise<string[]> {
  try {
    const names = await (await fsPromises()).readdir(dir);
    return names.filter((name) => name.endsWith(".jsonl")).map((name) => join(dir, name));
  } catch {
    return []; // no sessions for this project yet
  }
}

async function listFiles(files: string[], onProgress?: SessionListProgress): Promise<SessionInfo[]> {
  const infos: SessionInfo[] = [];
  for (let index = 0; index < files.length; index++) {
    const info = summarizeSessionFile(files[index]);
    if (info) infos.push(info);
    onProgress?.(index + 1, files.length);
    if ((index + 1) % FILES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return infos.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

/** The sessions in one folder, most recently active first. */
export async function listSessions(sessionDir: string, onProgress?: SessionListProgress): Promise<SessionInfo[]> {
  return listFiles(await sessionFilesIn(sessionDir), onProgress);
}

/** The sessions of every project under the config root's `sessions/`, most recently active first. */
export async function listAllSessions(onProgress?: SessionListProgress): Promise<SessionInfo[]> {
  return listFiles(await allSessionFiles(), onProgress);
}

async function allSessionFiles(): Promise<string[]> {
  const root = getSessionsDir();
  let folders: string[];
  try {
    const children = await (await fsPromises()).readdir(root, { withFileTypes: true });
    folders = children.filter((child) => child.isDirectory()).map((child) => join(root, child.name));
  } catch {
    return [];
  }
  return (await Promise.all(folders.map(sessionFilesIn))).flat();
}

/**
 * The sessions whose id starts with `prefix`, in one folder or (no folder) in
 * every project's, reading only each file's first line. Header and path of each.
 */
export async function findSessionsByIdPrefix(prefix: string, sessionDir?: string): Promise<Array<{ path: string; header: SessionHeader }>> {
  const files = sessionDir === undefined ? await allSessionFiles() : await sessionFilesIn(sessionDir);
  const found: Array<{ path: string; header: SessionHeader }> = [];
  for (const path of files) {
    const header = readSessionHeader(path);
    if (header && typeof header.id === "string" && header.id.startsWith(prefix)) found.push({ path, header });
  }
  return found;
}

/**
 * The most recently modified session file in a folder that starts with a
 * session header, or null. Only first lines are read.
 */
export function findMostRecentSession(sessionDir: string): string | null {
  let names: string[];
  try {
    names = readdirSync(sessionDir);
  } catch {
    return null;
  }
  const candidates: Array<{ path: string; modified: number }> = [];
  for (const name of names) {
    if (!name.endsWith(".jsonl")) continue;
    const path = join(sessionDir, name);
    try {
      candidates.push({ path, modified: statSync(path).mtimeMs });
    } catch {
      // vanished or unreadable: not a candidate
    }
  }
  candidates.sort((a, b) => b.modified - a.modified);
  for (const candidate of candidates) {
    if (readSessionHeader(candidate.path)) return candidate.path;
  }
  return null;
}
