/**
 * Writing a file that has other names. bun and pnpm install packages as hard links to one
 * copy in their global store, so `node_modules/x/index.js` in a project is also the store's
 * file, and every other project's installed from it. Writing through it would change them
 * all; what a person (or the model) editing a project means is to change the project's copy.
 * So the write and edit tools, when the file has more than one link (st_nlink > 1), write a
 * new file beside it (same mode) and rename it over the old name: this name gets the new
 * content, the other names keep the old. Whatever the sandbox mode; a file with one name is
 * written in place as before (its inode, owner and links kept).
 *
 * Under a sandbox the write goes through the folder held open by the write guard
 * (sandbox/write-guard.ts), judged at the moment of writing: `writeFileChecked`.
 */
import { constants } from "node:fs";
import { basename, dirname, join } from "node:path";
import { holdFolderForWrite } from "../sandbox/write-guard.ts";
import { fsPromises } from "./fs-promises.ts";

/**
 * The local write of the write and edit tools: as the active sandbox allows, judged at the
 * write (not only when the call started: it may have waited in its file's queue), and never
 * through a file's other names. `makeParents`: create missing folders (the write tool).
 */
export async function writeFileChecked(absolutePath: string, content: string, cwd: string, makeParents: boolean): Promise<void> {
  const held = holdFolderForWrite(absolutePath, cwd);
  if (!held) {
    if (makeParents) await (await fsPromises()).mkdir(dirname(absolutePath), { recursive: true });
    return writeFileUnshared(absolutePath, content);
  }
  try {
    await writeFileUnshared(held.path, content, true);
  } finally {
    held.release();
  }
}

/** `held`: `absolutePath` reaches the file through a held folder; its last part must not be a symlink. */
export async function writeFileUnshared(absolutePath: string, content: string, held = false): Promise<void> {
  const fs = await fsPromises();
  const stat = await (held ? fs.lstat(absolutePath) : fs.stat(absolutePath)).catch(() => undefined);
  if (stat?.isSymbolicLink()) throw new Error(`${absolutePath} became a symbolic link while it was being written, so it was not written.`);
  if (!stat?.isFile() || stat.nlink <= 1) {
    if (!held) return fs.writeFile(absolutePath, content, "utf8");
    // O_NOFOLLOW: a symlink put there since the lstat is refused (ELOOP), not followed.
    const file = await fs.open(absolutePath, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o666);
    try {
      await file.writeFile(content, "utf8");
    } finally {
      await file.close();
    }
    return;
  }
  // The name the links share is the real file: a symlink to it is left a symlink (a held path has none).
  const target = held ? absolutePath : await fs.realpath(absolutePath);
  const temp = join(dirname(target), `.${basename(target)}.xcsh-${process.pid}-${crypto.randomUUID().slice(0, 8)}`);
  const mode = stat.mode & 0o7777;
  try {
    await fs.writeFile(temp, content, { encoding: "utf8", flag: "wx", mode });
    await fs.chmod(temp, mode); // the umask may have taken bits off
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}
