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
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomHex } from "../session/ids.ts";

export const MAX_KEPT_FILES = 50;
export const MAX_FULL_OUTPUT_BYTES = 64 * 1024 * 1024;

let folder: string | undefined;
const kept: string[] = [];

/** This process's folder for full-output files, made on first use. */
export function toolOutputFolder(): string {
  if (folder) return folder;
  // node:os only now, at the first large output: start-up does without it.
  const { tmpdir } = require("node:os") as typeof import("node:os");
  folder = mkdtempSync(join(tmpdir(), "xcsh-"));
  const created = folder;
  process.once("exit", () => rmSync(created, { recursive: true, force: true }));
  return created;
}

/** A fresh path for a full-output file (or an image: another `extension`); the oldest kept file is deleted once there are too many. */
export function newTempFilePath(prefix: string, extension = ".log"): string {
  const path = join(toolOutputFolder(), `${prefix}${randomHex(8)}${extension}`);
  kept.push(path);
  while (kept.length > MAX_KEPT_FILES) rmSync(kept.shift()!, { force: true });
  return path;
}
