/**
 * Finding sessions on disk: the listing behind `/resume` and `pi -r` (every
 * session of a project, or of all projects), and the most recent session for
 * `--continue`. Files are read concurrently with a small pool, and progress is
 * reported per file, so a folder of many large sessions neither stalls nor
 * exhausts file handles. Files that are not readable sessions are left out of
 * a listing (they cannot be resumed; opening one reports why).
 */
import { fsPromises } from "../tools/fs-promises.ts";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { getSessionsDir } from "../config/paths.ts";
import type { AgentMessage } from "../agent/types.ts";
import { parseSessionFile, readSessionHeader, type ParsedSessionFile } from "./session-file.ts";
import type { SessionInfo, SessionListProgress } from "./types.ts";

const READ_CONCURRENCY = 16;

/** The text of a user or assistant message (text blocks only). */
function messageText(message: AgentMessage): string {
  if (message.role !== "user" && message.role !== "assistant") return "";
  const content = message.content;
  if (typeof content === "string") return content;
  const parts: string[] = [];
  for (const block of content) if (block.type === "text") parts.push(block.text);
  return parts.join(" ");
}

function summarize(path: string, parsed: ParsedSessionFile, fileModified: Date): SessionInfo | undefined {
  const header = parsed.header;
  if (!header) return undefined;
  let messageCount = 0;
  let firstMessage = "";
  const texts: string[] = [];
  let lastActivity = 0;
  let name: string | undefined;
  for (const entry of parsed.entries) {
    if (entry.type === "session_info") name = entry.name?.trim() || undefined;
    if (entry.type !== "message" || !entry.message) continue;
    messageCount++;
    const message = entry.message;
    const text = messageText(message);
    if (text) texts.push(text);
    if (!firstMessage && message.role === "user" && text) firstMessage = text;
    const at = typeof message.timestamp === "number" ? message.timestamp : Date.parse(entry.timestamp);
    if (Number.isFinite(at) && at > lastActivity) lastActivity = at;
  }
  return {
    path,
    id: header.id,
    cwd: header.cwd ?? "",
    name,
    parentSessionPath: header.parentSession,
    created: new Date(header.timestamp),
    // When the conversation last moved; the file time only when it holds no messages.
    modified: lastActivity > 0 ? new Date(lastActivity) : fileModified,
    messageCount,
    firstMessage: firstMessage || "(no messages)",
    allMessagesText: texts.join(" "),
  };
}

async function readSessionInfo(path: string): Promise<SessionInfo | undefined> {
  try {
    const [text, stats] = await Promise.all([Bun.file(path).text(), (await fsPromises()).stat(path)]);
    return summarize(path, parseSessionFile(text, path), stats.mtime);
  } catch {
    return undefined;
  }
}

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
  let next = 0;
  let loaded = 0;
  const worker = async () => {
    while (next < files.length) {
      const info = await readSessionInfo(files[next++]);
      if (info) infos.push(info);
      onProgress?.(++loaded, files.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, files.length) }, worker));
  return infos.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

/** The sessions in one folder, most recently active first. */
export async function listSessions(sessionDir: string, onProgress?: SessionListProgress): Promise<SessionInfo[]> {
  return listFiles(await sessionFilesIn(sessionDir), onProgress);
}

/** The sessions of every project under the config root's `sessions/`, most recently active first. */
export async function listAllSessions(onProgress?: SessionListProgress): Promise<SessionInfo[]> {
  const root = getSessionsDir();
  let folders: string[];
  try {
    const children = await (await fsPromises()).readdir(root, { withFileTypes: true });
    folders = children.filter((child) => child.isDirectory()).map((child) => join(root, child.name));
  } catch {
    return [];
  }
  const files = (await Promise.all(folders.map(sessionFilesIn))).flat();
  return listFiles(files, onProgress);
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
