/**
 * Where full-output files go: one folder per xcsh process under the system's
 * temp directory, removed when the process exits (normally, by a signal
 * handler's exit, or after an uncaught error), so TMPDIR holds nothing of
 * xcsh's afterwards. The folder is capped: past MAX_KEPT_FILES the oldest
 * file goes (a model rarely reads back that far), and each file stops growing
 * at MAX_FULL_OUTPUT_BYTES.
 *
 * The folder lies where sandboxed commands may write (the temp folder), and xcsh writes
 * into it later, outside the sandbox: a command that replaced it with a symlink to a
 * folder of the user's (~/.bashrc.d, whose files a shell runs) would have xcsh write the
 * command's output there. So under a sandbox it is made before the first command and
 * bound read-only into every sandbox (sandbox/layout.ts): commands read it, never move it.
 * A command of another xcsh's sandbox can still reach it (/tmp is shared), so on Linux
 * xcsh also holds the folder open and writes its files through that (openTempFile): a
 * folder renamed or replaced meanwhile does not move them.
 */
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { randomHex } from "../session/ids.ts";

export const MAX_KEPT_FILES = 50;
export const MAX_FULL_OUTPUT_BYTES = 64 * 1024 * 1024;

let folder: string | undefined;
/** The folder held open (Linux), to reach its files through /proc/self/fd whatever is at its path now. */
let folderDescriptor: number | undefined;
const kept: string[] = [];

/** This process's folder for full-output files, made on first use. */
export function toolOutputFolder(): string {
  if (folder) return folder;
  // node:os only now, at the first large output: start-up does without it.
  const { tmpdir } = require("node:os") as typeof import("node:os");
  folder = mkdtempSync(join(tmpdir(), "xcsh-"));
  if (process.platform === "linux") folderDescriptor = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY);
  const created = folder;
  process.once("exit", () => rmSync(created, { recursive: true, force: true }));
  return created;
}

/** A fresh path for a full-output file (or an image: another `extension`); the oldest kept file is deleted once there are too many. */
export function newTempFilePath(prefix: string, extension = ".log"): string {
  const path = join(toolOutputFolder(), `${prefix}${randomHex(8)}${extension}`);
  kept.push(path);
  while (kept.length > MAX_KEPT_FILES) rmSync(throughHeldFolder(kept.shift()!), { force: true });
  return path;
}

/** Where to open a kept file: through the held folder when it is one of its files. */
function throughHeldFolder(path: string): string {
  if (folderDescriptor === undefined || dirname(path) !== folder) return path;
  return `/proc/self/fd/${folderDescriptor}/${basename(path)}`;
}

/** Creates the file `newTempFilePath` named (0600, never through a symlink) and returns its descriptor. */
export function openTempFile(path: string): number {
  return openSync(throughHeldFolder(path), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
}

/** Writes `data` to a new file `newTempFilePath` named. */
export function writeTempFile(path: string, data: string | Uint8Array): void {
  const descriptor = openTempFile(path);
  try {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    for (let written = 0; written < bytes.length; ) written += writeSync(descriptor, bytes, written, bytes.length - written);
  } finally {
    closeSync(descriptor);
  }
}
