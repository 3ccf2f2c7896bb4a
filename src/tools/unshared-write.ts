/**
 * Writing a file that has other names. bun and pnpm install packages as hard links to one
 * copy in their global store, so `node_modules/x/index.js` in a project is also the store's
 * file, and every other project's installed from it. Writing through it would change them
 * all; what a person (or the model) editing a project means is to change the project's copy.
 * So the write and edit tools, when the file has more than one link (st_nlink > 1), write a
 * new file beside it (same mode) and rename it over the old name: this name gets the new
 * content, the other names keep the old. Whatever the sandbox mode; a file with one name is
 * written in place as before (its inode, owner and links kept).
 */
import { basename, dirname, join } from "node:path";
import { fsPromises } from "./fs-promises.ts";

export async function writeFileUnshared(absolutePath: string, content: string): Promise<void> {
  const fs = await fsPromises();
  const stat = await fs.stat(absolutePath).catch(() => undefined);
  if (!stat?.isFile() || stat.nlink <= 1) return fs.writeFile(absolutePath, content, "utf8");
  // The name the links share is the real file: a symlink to it is left a symlink.
  const target = await fs.realpath(absolutePath);
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
