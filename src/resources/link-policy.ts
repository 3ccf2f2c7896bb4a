/**
 * Where a file xcsh reads for the model may lead when it is a link. A cloned repository
 * chooses its links: `AGENTS.md -> /home/runner/.aws/credentials`, a prompt template
 * linked to `~/.ssh/config`, `SYSTEM.md -> /proc/self/environ` (xcsh's own environment,
 * every key it started with). What such a file holds goes to the provider, so a link in
 * the project is followed only to a file the repository owns, never into the kernel's
 * folders, and never into xcsh's or pi's config folders (where the keys are). The
 * person's own folders pass no `confine`, and may lead anywhere else.
 *
 * What "the repository owns": the caller names the folder the file was found in
 * (`confine`: the working folder or one above it). A link may lead anywhere in that
 * folder, and — so that a monorepo's `pkg/CLAUDE.md -> ../AGENTS.md` works — anywhere in
 * the git work tree around it: the nearest folder at or above `confine` that holds a
 * `.git` (a folder, or the file of a worktree or submodule). Outside a work tree the
 * rule stays the folder. It stays the folder too when the work tree's root is the home
 * folder or above it: a dotfiles repository in `~` would otherwise let a link reach
 * `~/.aws` again.
 *
 * Why the walk up cannot be widened by the repository: everything a clone plants lies
 * inside its own root, so a `.git` it plants (`pkg/.git`) is found before the real one
 * and only narrows the work tree — and the folder rule stays as a floor under it. The walk
 * starts at the folder xcsh chose, not at the link, so a planted folder link
 * (`.xcsh/skills -> ~/code/other-repo`) cannot carry it into another repository of
 * yours. The case left: a repository copied without its `.git` (an unpacked archive)
 * into a work tree of yours is taken for part of it, so its links may reach the rest
 * of that work tree — your project's files, still not your home folder's or the keys.
 */
import { lstatSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { homeDir } from "../files/paths.ts";
import { leadsIntoConfigFolder } from "../sandbox/read-guard.ts";

/** The kernel's own file systems: what they hold is live process state, never instructions. */
const KERNEL_FOLDERS = ["/proc", "/sys", "/dev"];

const inside = (path: string, folder: string): boolean => path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);

/** The real path of `folder`, or the folder as given when it cannot be resolved. */
function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}

/**
 * The nearest folder at or above `folder` with a `.git` entry of any kind; undefined outside
 * a work tree, and when a folder on the way cannot be asked (the folder rule is kept then).
 */
function workTreeRoot(folder: string): string | undefined {
  let dir = folder;
  try {
    while (!lstatSync(join(dir, ".git"), { throwIfNoEntry: false })) {
      const parent = dirname(dir);
      if (parent === dir) return undefined;
      dir = parent;
    }
    return dir;
  } catch {
    return undefined;
  }
}

/** Whether `root` is the home folder or one above it, by the path given and by the real one. */
function holdsHome(root: string): boolean {
  const home = homeDir();
  return inside(home, root) || inside(realFolder(home), realFolder(root));
}

/** Why the file at real path `real` must not be read, or undefined when it may. */
export function linkProblem(real: string, confine?: string): string | undefined {
  if (KERNEL_FOLDERS.some((folder) => inside(real, folder))) {
    return "it is a link into the kernel's files (/proc, /sys or /dev), which may hold xcsh's own keys";
  }
  if (confine === undefined) return undefined;
  if (leadsIntoConfigFolder(real)) return "it leads into xcsh's config folder, where the keys are";
  if (inside(real, realFolder(confine))) return undefined;
  // Only a link that leaves its folder pays for the walk up.
  const root = workTreeRoot(confine);
  if (root === undefined) return `it leads out of ${confine}`;
  if (holdsHome(root)) return `it leads out of ${confine} (a link is held to its folder here: the git repository at ${root} holds your home folder)`;
  if (inside(real, realFolder(root))) return undefined;
  return `it leads out of the repository ${root}`;
}
