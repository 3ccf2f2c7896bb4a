/**
 * Session export, as the CLI (`xcsh --export <file|id> [out]`) and RPC
 * (`export_html`) ask for it: HTML by default, or — for an output path ending in
 * `.jsonl` — the active branch as a linear session file. Reading the session
 * never changes it (an old version is migrated in memory only). Problems a user
 * can fix (no such session, an output that cannot be written) are UserErrors
 * with exit code 2; RPC turns them into a failed response.
 */
import { closeSync, writeSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ensurePrivateFolder, openPrivateFile } from "../config/private-files.ts";
import { findSessionFile } from "../core/find-session.ts";
import { UserError } from "../core/user-error.ts";
import { versionText } from "../cli/version.ts";
import { loadSessionFile } from "../session/load-session.ts";
import { SessionFileError } from "../session/session-file.ts";
import type { SessionManager } from "../session/session-manager.ts";
import { sessionHtmlPieces } from "./export-html.ts";
import { linearSessionLines } from "./export-jsonl.ts";
import { buildPageData, type SessionSnapshot } from "./session-tree-view.ts";

/** Where an export goes when no path is given: `xcsh-session-<id>.html` in `cwd`. */
export function defaultExportPath(sessionId: string, cwd: string): string {
  return resolve(cwd, `xcsh-session-${sessionId.replace(/[^A-Za-z0-9_-]/g, "_")}.html`);
}

/** Text gathered before each write: a page of a big session never exists as one string. */
const WRITE_CHARS = 1024 * 1024;
const COLLECT_EVERY_WRITES = 8;

function writeInPieces(path: string, pieces: Iterable<string>): void {
  // A whole conversation: 0600 like the session it comes from, even at a path the user chose.
  const fd = openPrivateFile(path, "w");
  try {
    let pending: string[] = [];
    let size = 0;
    const flush = () => {
      if (size > 0) {
        const bytes = Buffer.from(pending.join(""), "utf8");
        for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written);
      }
      pending = [];
      size = 0;
    };
    let writes = 0;
    for (const piece of pieces) {
      pending.push(piece);
      size += piece.length;
      if (size < WRITE_CHARS) continue;
      flush();
      // What was written is garbage: collected as we go, its memory serves the next pieces.
      if (++writes % COLLECT_EVERY_WRITES === 0) Bun.gc(true);
    }
    flush();
  } finally {
    closeSync(fd);
  }
}

/** Writes the export of `snapshot` to `outputPath` (default: see defaultExportPath). Returns the absolute path. */
export function exportSnapshot(snapshot: SessionSnapshot, outputPath: string | undefined, cwd: string): string {
  const path = outputPath ? resolve(cwd, outputPath) : defaultExportPath(snapshot.header.id, cwd);
  const content = path.toLowerCase().endsWith(".jsonl") ? [linearSessionLines(snapshot)] : sessionHtmlPieces(buildPageData(snapshot, versionText().split(" (")[0]));
  try {
    ensurePrivateFolder(dirname(path));
    writeInPieces(path, content);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reasons: Record<string, string> = {
      EACCES: "permission denied",
      EPERM: "permission denied",
      EISDIR: "it is a directory",
      ENOTDIR: "a part of its path is not a directory",
      EEXIST: "a part of its path is not a directory",
      ENOENT: "its directory cannot be created",
      EROFS: "the file system is read-only",
      ENOSPC: "no space left on the device",
    };
    const reason = (code && reasons[code]) ?? (error as Error).message;
    throw new UserError(`Cannot write ${path}: ${reason}`, 2);
  }
  return path;
}

/** The session an RPC client has open, as it is now (the export_html command). */
export function exportOpenSession(session: SessionManager, outputPath: string | undefined, cwd = process.cwd()): { path: string } {
  const snapshot = { header: session.getHeader(), entries: session.getEntries(), leafId: session.getLeafId() };
  return { path: exportSnapshot(snapshot, outputPath, cwd) };
}

/** Reads a session file without changing it. Throws UserError (exit code 2). */
export function readSnapshot(file: string): SessionSnapshot {
  let loaded;
  try {
    loaded = loadSessionFile(file);
  } catch (error) {
    if (error instanceof SessionFileError) throw new UserError(error.message, 2);
    throw error;
  }
  if (loaded.kind === "missing") throw new UserError(`Session file not found: ${file}`, 2);
  if (loaded.kind === "fresh") throw new UserError(`${file} holds no session yet; nothing to export.`, 2);
  for (const warning of loaded.warnings) process.stderr.write(`xcsh: ${warning}\n`);
  return { header: loaded.header, entries: loaded.entries, leafId: loaded.entries.at(-1)?.id ?? null };
}

/** `xcsh --export <file|id> [out]`: prints the written path, returns the exit code. */
export async function runExport(pathOrId: string, outputPath: string | undefined, sessionDir?: string): Promise<number> {
  const cwd = process.cwd();
  const file = await findSessionFile(cwd, pathOrId, sessionDir ? resolve(cwd, sessionDir) : undefined);
  const path = exportSnapshot(readSnapshot(file), outputPath, cwd);
  process.stdout.write(`Exported to ${path}\n`);
  return 0;
}
