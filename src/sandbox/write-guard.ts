/**
 * The write and edit tools write from inside xcsh, not through a sandboxed command, so
 * they check the same rules themselves before writing: under read-only nothing, under
 * workspace-write only inside the writable roots and outside the protected and hidden
 * paths (layout.ts), whether or not those exist yet. The
 * path is judged where it really leads: a symlink inside the project that points out
 * of it is outside.
 *
 * A command runs beside the tools and may swap a folder of the path for a symlink between
 * the check and the write (a write waiting in its file's queue waits long). So on Linux the
 * write itself is judged again and made through the folder held open (`holdFolderForWrite`):
 * the folder is opened, the kernel says where the open folder really is
 * (/proc/self/fd), and the file is written through that descriptor, never through the
 * path's symlinks again.
 */
import { closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative, isAbsolute, resolve } from "node:path";
import { commandPolicy } from "./active-policy.ts";
import { sandboxLayout } from "./layout.ts";

/**
 * Where `path` leads: its real path, or — for a path that does not exist yet — where it would
 * be made. A dangling symlink counts as what it names (`hook -> .git/hooks/pre-commit`, or
 * `-> ~/.bashrc.d/x` before it exists): writing it creates that file, so that file is judged.
 */
function realTarget(path: string, hops = 0): string {
  try {
    return realpathSync(path);
  } catch {
    // Missing (or a dangling symlink, or a loop): resolved by hand below.
  }
  let link: string | undefined;
  try {
    if (lstatSync(path).isSymbolicLink()) link = readlinkSync(path);
  } catch {
    // Not there at all.
  }
  // Past 40 links it is a loop: the write fails on it (ELOOP), wherever it is judged.
  if (link !== undefined && hops < 40) return realTarget(resolve(dirname(path), link), hops + 1);
  const parent = dirname(path);
  if (parent === path) return path;
  return join(realTarget(parent, hops), basename(path));
}

const isInside = (path: string, root: string) => {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
};

/** Throws an error the model can read when the active sandbox does not let `absolutePath` be written. */
export function assertMayWrite(absolutePath: string, cwd: string): void {
  judgeWrite(absolutePath, realTarget(absolutePath), cwd);
}

/** The rules of assertMayWrite for `target`, the real path `absolutePath` leads to. */
function judgeWrite(absolutePath: string, target: string, cwd: string): void {
  const policy = commandPolicy().sandbox;
  if (policy.mode === "off") return;
  if (policy.mode === "read-only") throw new Error(`Sandbox (read-only): writing files is not allowed, so ${absolutePath} was not written.`);
  const layout = sandboxLayout(policy, cwd);
  // A protected path may not exist yet (a missing `.mcp.json`): judged where it would lead, as the target is.
  const hidden = layout.hiddenPaths.find((path) => isInside(target, realTarget(path)));
  if (hidden) throw new Error(`Sandbox (workspace-write): ${hidden} is xcsh's or pi's config folder, which commands and tools may not touch, so ${absolutePath} was not written.`);
  const blocked = [...layout.protectedPaths, ...layout.ownFolders].find((path) => isInside(target, realTarget(path)));
  if (blocked) {
    const why =
      basename(blocked) === "node_modules"
        ? "its files are hard links shared with a package manager's store, which writing them would change for every project"
        : layout.ownFolders.includes(blocked)
          ? "xcsh writes there itself for the rest of the run"
          : "xcsh, pi or git reads it as configuration or code, which would run later outside the sandbox";
    throw new Error(`Sandbox (workspace-write): ${blocked} is read-only (${why}), so ${absolutePath} was not written.`);
  }
  if (!layout.writableRoots.some((root) => isInside(target, realTarget(root)))) {
    throw new Error(`Sandbox (workspace-write): ${absolutePath} is outside the writable folders (${layout.writableRoots.join(", ")}), so it was not written.`);
  }
}

/** A folder held open for one write: `path` names the file through the open folder. */
export interface HeldFolder {
  path: string;
  release(): void;
}

const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY;

/**
 * Under a sandbox on Linux: judges `absolutePath` now, at the write, opens the folder it
 * really leads to (making missing folders one by one inside the open one), and checks with
 * the kernel that the open folder is the one judged; the caller writes `path`, which
 * reaches the file through the open folder, with O_NOFOLLOW. Undefined when there is no
 * sandbox: write as usual. Throws a readable error when the path changed. Elsewhere than
 * Linux (no /proc): judged now, and the real path is written.
 */
export function holdFolderForWrite(absolutePath: string, cwd: string): HeldFolder | undefined {
  if (commandPolicy().sandbox.mode === "off") return undefined;
  const target = realTarget(absolutePath);
  judgeWrite(absolutePath, target, cwd);
  if (process.platform !== "linux") {
    // No /proc to ask: judged at the write, on the real path, which is all that can be done here.
    mkdirSync(dirname(target), { recursive: true });
    return { path: target, release: () => {} };
  }
  const changed = () => new Error(`${absolutePath} changed while it was being written (a folder of its path was moved or replaced), so it was not written.`);
  let folder = dirname(target);
  const missing: string[] = [];
  while (!existsSync(folder) && dirname(folder) !== folder) {
    missing.unshift(basename(folder));
    folder = dirname(folder);
  }
  let descriptor = openSync(folder, FOLDER_FLAGS);
  const through = () => `/proc/self/fd/${descriptor}`;
  try {
    // The open folder is the judged one only if the kernel names it so: no symlink was followed on the way.
    if (readlinkSync(through()) !== folder) throw changed();
    for (const name of missing) {
      try {
        mkdirSync(`${through()}/${name}`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const next = openSync(`${through()}/${name}`, FOLDER_FLAGS | constants.O_NOFOLLOW);
      closeSync(descriptor);
      descriptor = next;
    }
  } catch (error) {
    closeSync(descriptor);
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw changed();
    throw error;
  }
  const held = descriptor;
  return { path: `/proc/self/fd/${held}/${basename(target)}`, release: () => closeSync(held) };
}
