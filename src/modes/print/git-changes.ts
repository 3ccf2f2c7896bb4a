/**
 * Files a shell command changed, seen through git: what `bash` does to files is
 * not known to xcsh, but in a git work tree `git status` lists every file that
 * differs from the index, and hashing the ones already dirty before the command
 * tells a change the command made from one that was there before.
 *
 * Only inside a git work tree; elsewhere nothing is reported (and nothing is run).
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";

/** Path (relative to the repository root) → content hash, or "deleted", for every file git reports as changed. */
type DirtyState = Map<string, string>;

function git(cwd: string, args: string[]): string | undefined {
  try {
    const result = Bun.spawnSync(["git", ...args], { cwd, stdout: "pipe", stderr: "ignore", stdin: "ignore" });
    return result.exitCode === 0 ? result.stdout.toString() : undefined;
  } catch {
    return undefined; // no git on this machine
  }
}

function fingerprint(path: string): string {
  try {
    return Bun.hash(readFileSync(path)).toString(36);
  } catch {
    return "deleted";
  }
}

export class GitChanges {
  private constructor(
    private readonly root: string,
    private readonly cwd: string,
    private readonly before: DirtyState,
  ) {}

  /** A snapshot of the work tree's changed files; undefined outside a git work tree. */
  static snapshot(cwd: string): GitChanges | undefined {
    const root = git(cwd, ["rev-parse", "--show-toplevel"])?.trim();
    if (!root) return undefined;
    const state = GitChanges.dirtyState(root);
    return state ? new GitChanges(root, cwd, state) : undefined;
  }

  private static dirtyState(root: string): DirtyState | undefined {
    const status = git(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]);
    if (status === undefined) return undefined;
    const state: DirtyState = new Map();
    // Records are "XY path", NUL-terminated.
    for (const record of status.split("\0")) {
      if (record.length < 4) continue;
      const path = record.slice(3);
      state.set(path, fingerprint(join(root, path)));
    }
    return state;
  }

  /** Files whose state differs from the snapshot, relative to the working directory when inside it. */
  changedSince(): string[] {
    const after = GitChanges.dirtyState(this.root);
    if (!after) return [];
    const changed: string[] = [];
    for (const [path, hash] of after) if (this.before.get(path) !== hash) changed.push(path);
    // A file that was dirty before and is clean now was changed back (git checkout, a revert).
    for (const path of this.before.keys()) if (!after.has(path)) changed.push(path);
    return changed.map((path) => {
      const inside = relative(this.cwd, join(this.root, path));
      return inside && !inside.startsWith("..") && !isAbsolute(inside) ? inside : join(this.root, path);
    });
  }
}
