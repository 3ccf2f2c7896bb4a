/**
 * Whether a project's `node_modules` shares its files with a package manager's global
 * store. bun (its default "hardlink" backend on Linux) and pnpm install a package by
 * hard-linking every file to one copy in their cache (~/.bun/install/cache, the pnpm
 * store): the project's `node_modules/x/index.js` and the cache's are one file. A command
 * allowed to write the project could then change the cache, and through it every project
 * installed from it later — a write outside the folders workspace-write promises. Such a
 * `node_modules` is kept read-only (layout.ts).
 *
 * A command cannot make new links of that kind: Linux refuses link() between two mounts
 * (EXDEV), and the sandbox's writable folders are mounts of their own. So only links made
 * outside the sandbox (an install you ran) matter, and they are found by looking: the
 * `package.json` of a few packages (pnpm's and bun's isolated layouts keep packages under
 * `.pnpm/` / `.bun/`), st_nlink > 1 meaning a second name somewhere. A few system calls;
 * a folder once seen linked stays so for the run (a command may add unlinked packages to
 * hide the linked ones from the next look), and an unlinked one is looked at again only
 * when the folder itself has changed (its inode or modification time).
 */
import { lstatSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** How many packages are looked at. */
const SAMPLE = 4;

const linked = new Set<string>();
const unlinkedAt = new Map<string, string>();

/** Package folders of `node_modules` to look at: a scope's first package stands for the scope. */
function packageFolders(nodeModules: string): string[] {
  const folders: string[] = [];
  for (const store of [".pnpm", ".bun"]) {
    for (const id of entries(join(nodeModules, store))) {
      if (id.startsWith(".") || id === "node_modules" || id === "lock.yaml") continue;
      const inner = join(nodeModules, store, id, "node_modules");
      const name = entries(inner).find((entry) => !entry.startsWith("."));
      if (name) folders.push(firstOfScope(join(inner, name)));
      if (folders.length >= SAMPLE) return folders;
    }
  }
  for (const name of entries(nodeModules)) {
    if (name.startsWith(".")) continue;
    folders.push(firstOfScope(join(nodeModules, name)));
    if (folders.length >= SAMPLE * 2) break;
  }
  return folders;
}

function firstOfScope(folder: string): string {
  const base = folder.slice(folder.lastIndexOf("/") + 1);
  if (!base.startsWith("@")) return folder;
  const first = entries(folder)[0];
  return first ? join(folder, first) : folder;
}

function entries(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

function hasLinkedFile(folders: string[]): boolean {
  for (const folder of folders) {
    try {
      const stat = lstatSync(join(folder, "package.json"));
      if (stat.isFile() && stat.nlink > 1) return true;
    } catch {
      // A symlinked workspace package or a broken folder: nothing to learn here.
    }
  }
  return false;
}

/** Whether `nodeModules` (a folder that may not exist) holds files hard-linked elsewhere. */
export function sharesFilesWithStore(nodeModules: string): boolean {
  if (linked.has(nodeModules)) return true;
  let stamp: string;
  try {
    const stat = statSync(nodeModules);
    if (!stat.isDirectory()) return false;
    stamp = `${stat.dev}:${stat.ino}:${stat.mtimeMs}`;
  } catch {
    return false;
  }
  if (unlinkedAt.get(nodeModules) === stamp) return false;
  if (hasLinkedFile(packageFolders(nodeModules))) {
    linked.add(nodeModules);
    unlinkedAt.delete(nodeModules);
    return true;
  }
  unlinkedAt.set(nodeModules, stamp);
  return false;
}
