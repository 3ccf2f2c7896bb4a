/**
 * Writing session files (JSONL: a header line, then one entry per line), and the
 * cheap reads that need no whole file (the header line). Writing appends one
 * complete line per write, so a process killed at any moment leaves every
 * earlier entry intact. Reading a whole session is parse-session.ts.
 */
import { accessSync, closeSync, constants, fsyncSync, openSync, readSync, renameSync, rmSync, statSync, truncateSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { appendPrivateFile, ensurePrivateFolder, openPrivateFile, tightenPrivateFile } from "../config/private-files.ts";
import { isHeader, isObject, readSessionFile, type TornTail } from "./parse-session.ts";
import type { FileEntry, SessionEntry, SessionHeader } from "./types.ts";

export { parseSessionFile, readSessionFile, SessionFileError, type ParsedSessionFile, type TornTail } from "./parse-session.ts";

/**
 * Cuts a torn last line off the file, keeping a copy in `<file>.torn` so that
 * nothing is destroyed. Appends then continue from the last complete entry.
 */
export function cutTornTail(file: string, tail: TornTail): string {
  const saved = `${file}.torn`;
  appendPrivateFile(saved, tail.text + "\n");
  truncateSync(file, tail.startByte);
  return saved;
}

/**
 * The lines of a session file, header first, unmigrated. A missing file, an
 * empty one or one whose first write was torn gives `[]`; a file that is not a
 * session throws SessionFileError.
 */
export function loadEntriesFromFile(file: string): FileEntry[] {
  const parsed = readSessionFile(file);
  if (!parsed?.header) return [];
  const lines: FileEntry[] = parsed.entries;
  lines.unshift(parsed.header);
  return lines;
}

/**
 * The JSON objects of a session file's text, header included, skipping lines
 * that do not parse. Lenient on purpose: for tools that inspect any text;
 * loading a session goes through `parseSessionFile`, which reports problems.
 */
export function parseSessionEntries(content: string): FileEntry[] {
  const result: FileEntry[] = [];
  for (const line of content.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isObject(value) && typeof value.type === "string") result.push(value as unknown as FileEntry);
    } catch {
      // Not a line of a session; skipped by design (see above).
    }
  }
  return result;
}

export function serializeEntry(entry: FileEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/**
 * Appends one entry as one complete line in a single write. `needsNewline`
 * (the file ends mid-line, e.g. after a torn write) puts a "\n" in front, in
 * the same write, so the entry starts on a line of its own.
 */
export function appendEntryLine(file: string, entry: SessionEntry, needsNewline: boolean): void {
  const line = serializeEntry(entry);
  appendPrivateFile(file, needsNewline ? `\n${line}` : line);
}

/** Makes a session file from before (0644, in 0755 folders) private, as new ones are (config/private-files.ts). */
export function makeSessionFilePrivate(file: string): void {
  try {
    ensurePrivateFolder(dirname(file));
  } catch {
    // The append that follows reports a folder that cannot be written.
  }
  tightenPrivateFile(file);
}

/**
 * Creates a session file with its header and first entry in a single write.
 * `wx`: the name is fresh, so an existing file there is a mistake we must not overwrite.
 */
export function createSessionFile(file: string, header: SessionHeader, firstEntry: SessionEntry): void {
  ensurePrivateFolder(dirname(file));
  const fd = openPrivateFile(file, "wx");
  try {
    writeSync(fd, serializeEntry(header) + serializeEntry(firstEntry));
  } finally {
    closeSync(fd);
  }
}

/** Text gathered before each write when a session file is written whole. */
const REWRITE_BATCH_CHARS = 1024 * 1024;

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written);
}

/**
 * Replaces a session file as a whole (after a migration, a fork, a branch
 * extraction): written beside it, flushed to disk, then renamed over it, so a
 * crash leaves either the old file or the new one — never half of each.
 */
export function writeSessionFileAtomically(file: string, header: SessionHeader, entries: readonly SessionEntry[]): void {
  ensurePrivateFolder(dirname(file));
  const temp = `${file}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    const fd = openPrivateFile(temp, "w");
    try {
      // A megabyte at a time: a forked 100 MB session is never one string.
      let batch = serializeEntry(header);
      for (const entry of entries) {
        batch += serializeEntry(entry);
        if (batch.length < REWRITE_BATCH_CHARS) continue;
        writeAll(fd, batch);
        batch = "";
      }
      writeAll(fd, batch);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/**
 * The header of a session file, reading only its first line (for picking the
 * most recent session among many without parsing them all). undefined when the
 * file cannot be read or does not start with a header.
 */
export function readSessionHeader(file: string): SessionHeader | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    // A header is a few hundred bytes: the first read is small, later ones (a huge header) larger.
    for (let chunkBytes = 4 * 1024; ; chunkBytes = 64 * 1024) {
      const chunk = Buffer.allocUnsafe(chunkBytes);
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      size += read;
      if (chunk.subarray(0, read).includes(0x0a) || size > 1024 * 1024) break;
    }
    const bytes = Buffer.concat(chunks);
    const end = bytes.indexOf(0x0a);
    const firstLine = bytes.toString("utf8", 0, end === -1 ? bytes.length : end).replace(/^\uFEFF/, "");
    const value: unknown = JSON.parse(firstLine);
    return isHeader(value) ? value : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Why `file` could not be written, or undefined when it can: the file itself
 * when it exists, else the nearest folder on its path that exists (the rest is
 * created with the first write). Nothing is created: a run that writes nothing
 * leaves nothing behind.
 */
export function sessionWriteProblem(file: string): string | undefined {
  let path = file;
  for (;;) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = dirname(path);
      if ((code === "ENOENT" || code === "ENOTDIR") && parent !== path) {
        path = parent;
        continue;
      }
      return (error as Error).message;
    }
    if (path !== file && !isDirectory) return `${path} is a file, not a folder`;
    try {
      accessSync(path, constants.W_OK);
      return undefined;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === "EROFS" ? "read-only file system" : code === "EACCES" || code === "EPERM" ? "permission denied" : (error as Error).message;
      return `${path}: ${why}`;
    }
  }
}
