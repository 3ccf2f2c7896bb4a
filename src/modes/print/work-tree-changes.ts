/**
 * Files a shell command changed, read from the files themselves: what `bash` does to
 * files is not known to xcsh, so before the run's first command the work tree is walked
 * and each file's fingerprint (size, modification and change times in nanoseconds, inode,
 * mode — one lstat, no reading) is noted; at the end it is walked again, and a file that
 * appeared, disappeared or whose fingerprint moved is a change. A file rewritten with the
 * same bytes counts as changed; a file changed before the run and left alone does not.
 *
 * No git: git run in a repository xcsh did not make runs that repository's programs
 * (core.fsmonitor, filter drivers, hooks, a `.git/commondir` elsewhere) with xcsh's keys —
 * docs/security.md, "Programs xcsh runs for itself". The walk only lists folders, reads
 * .gitignore files and takes lstats.
 *
 * As before, only inside a git work tree (a `.git` found walking up from the working
 * folder) and from its root; what .gitignore files and .git/info/exclude ignore is left
 * out, as git leaves it out, and `.git` itself. Bounded: a tree of more than MAX_FILES
 * files, or a walk longer than MAX_WALK_MS, reports nothing rather than hold the run up.
 */
import { lstatSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { findRepositoryRoot, STOP_WALK, walkDirectory } from "../../tools/file-walker.ts";

/** Files noted, at most: a work tree larger than this (a home folder under git) reports nothing. */
export const MAX_FILES = 100_000;
/** How long one walk may take, at most. */
export const MAX_WALK_MS = 3_000;

/** Path relative to the repository root, `/`-separated → fingerprint. */
type TreeState = Map<string, string>;

function fingerprint(path: string): string | undefined {
  try {
    const stats = lstatSync(path, { bigint: true });
    return `${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.ino}:${stats.mode}`;
  } catch {
    return undefined; // gone between the listing and the lstat: not there
  }
}

/** Every file of the work tree with its fingerprint; undefined when the tree is past the bounds or cannot be read. */
async function treeState(root: string): Promise<TreeState | undefined> {
  const state: TreeState = new Map();
  const deadline = performance.now() + MAX_WALK_MS;
  let withinBounds = true;
  try {
    await walkDirectory(
      root,
      (entry) => {
        // A `.git` file (a worktree's or submodule's pointer) is git's, not the project's.
        if (entry.isDirectory || entry.name === ".git") return;
        if (state.size >= MAX_FILES || performance.now() > deadline) {
          withinBounds = false;
          return STOP_WALK;
        }
        const print = fingerprint(entry.absolutePath);
        if (print !== undefined) state.set(entry.path, print);
      },
      // `.git` only: node_modules is skipped when .gitignore says so, as git skips it.
      { skipDirectories: [".git"] },
    );
  } catch {
    return undefined;
  }
  return withinBounds ? state : undefined;
}

export class WorkTreeChanges {
  private constructor(
    private readonly root: string,
    private readonly cwd: string,
    private readonly before: TreeState,
  ) {}

  /** The work tree's files as they are now; undefined outside a git work tree or past the bounds. */
  static async snapshot(cwd: string): Promise<WorkTreeChanges | undefined> {
    const root = findRepositoryRoot(cwd);
    if (!root) return undefined;
    const state = await treeState(root);
    return state ? new WorkTreeChanges(root, cwd, state) : undefined;
  }

  /** Files created, changed or deleted since the snapshot, relative to the working folder when inside it. */
  async changedSince(): Promise<string[]> {
    const after = await treeState(this.root);
    if (!after) return [];
    const changed: string[] = [];
    for (const [path, print] of after) if (this.before.get(path) !== print) changed.push(path);
    for (const path of this.before.keys()) if (!after.has(path)) changed.push(path);
    return changed.map((path) => {
      const absolute = join(this.root, path);
      const inside = relative(this.cwd, absolute);
      return inside && !inside.startsWith("..") && !isAbsolute(inside) ? inside : absolute;
    });
  }
}
