/**
 * Files only their owner may read. What xcsh writes holds conversations (sessions, prompt
 * history, exports, full tool output) or configuration that may carry keys (auth.json,
 * settings.json, mcp.json, trust.json): each is created 0600, and the folders xcsh creates
 * for them 0700. Every writer of such a file goes through here.
 *
 * The rule for what exists already (docs/security.md, "Files xcsh writes"):
 *  - a file xcsh replaces or appends to is made 0600, as auth.json always was;
 *  - a folder of xcsh's own — the agent dir (`~/.xcsh/agent`) and the folders in it — is
 *    tightened to 0700 when it is looser and belongs to this user (earlier versions made
 *    them 0755);
 *  - any other folder (a --session-dir, an export's folder, a project's `.xcsh/`) keeps its
 *    mode: the user chose it, and may share it on purpose.
 * Windows has no such modes: there all of this is a plain write.
 */
import { appendFileSync, chmodSync, closeSync, fchmodSync, fstatSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname, relative, isAbsolute, join, resolve } from "node:path";
import { getAgentDir } from "./paths.ts";

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_FOLDER_MODE = 0o700;

const modesApply = process.platform !== "win32";

/** Whether `mode` lets anyone but the owner in (group or other bits set). */
export function isLooserThanPrivate(mode: number): boolean {
  return (mode & 0o077) !== 0;
}

/**
 * Creates `folder` and its missing parents 0700. When it lies in the agent dir, it and the
 * folders between are tightened to 0700 if looser (see the header).
 */
export function ensurePrivateFolder(folder: string): void {
  const target = resolve(folder);
  mkdirSync(target, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  if (!modesApply) return;
  const agentDir = resolve(getAgentDir());
  const inside = relative(agentDir, target);
  if (inside.startsWith("..") || isAbsolute(inside)) return;
  let path = agentDir;
  tightenFolder(path);
  for (const part of inside.split(/[\\/]/).filter(Boolean)) tightenFolder((path = join(path, part)));
}

function tightenFolder(path: string): void {
  try {
    const stats = statSync(path);
    if (stats.isDirectory() && stats.uid === process.getuid?.() && isLooserThanPrivate(stats.mode)) chmodSync(path, PRIVATE_FOLDER_MODE);
  } catch {
    // Not ours to change, or gone: the files in it are private all the same.
  }
}

/** Makes an existing file 0600 if it is looser (written by an earlier version, or by hand). */
export function tightenPrivateFile(file: string): void {
  if (!modesApply) return;
  try {
    const stats = statSync(file);
    if (stats.isFile() && isLooserThanPrivate(stats.mode)) chmodSync(file, PRIVATE_FILE_MODE);
  } catch {
    // Missing or not ours: the next write creates or fails on its own.
  }
}

/**
 * Opens `file` for writing ("w" truncates, "wx" must be new, "a" appends); a new file is
 * created 0600, an existing one made 0600 before anything is written to it.
 */
export function openPrivateFile(file: string, flags: "w" | "wx" | "a"): number {
  const fd = openSync(file, flags, PRIVATE_FILE_MODE);
  if (modesApply) {
    try {
      if (isLooserThanPrivate(fstatSync(fd).mode)) fchmodSync(fd, PRIVATE_FILE_MODE);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }
  return fd;
}

/** Appends `text` in one write, creating the file 0600 (its folder: see ensurePrivateFolder). */
export function appendPrivateFile(file: string, text: string): void {
  appendFileSync(file, text, { mode: PRIVATE_FILE_MODE });
}

/**
 * Replaces `file` atomically: the text goes to a temp file beside it, created 0600 (never
 * readable by others, not even for a moment), then renamed over it. A reader, or a crash,
 * sees the old file or the new one. `durable`: flushed to disk before the rename.
 */
export function writePrivateFileAtomically(file: string, text: string | Uint8Array, durable = false): void {
  ensurePrivateFolder(dirname(file));
  const temp = `${file}.${process.pid}.${crypto.getRandomValues(new Uint32Array(1))[0].toString(36)}.tmp`;
  let fd: number | undefined;
  try {
    fd = openSync(temp, "wx", PRIVATE_FILE_MODE);
    // The umask may have narrowed the mode (0400 would lock the owner out of the next write); set it exactly.
    if (modesApply) fchmodSync(fd, PRIVATE_FILE_MODE);
    const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written);
    if (durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, file);
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
}
