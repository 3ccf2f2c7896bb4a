/**
 * The write and edit tools write from inside xcsh, not through a sandboxed command, so
 * they check the same rules themselves before writing: under read-only nothing, under
 * workspace-write only inside the writable roots and outside the protected and hidden
 * paths (layout.ts), whether or not those exist yet. The
 * path is judged where it really leads: a symlink inside the project that points out
 * of it is outside. (A symlink swapped in between the check and the write is not
 * caught; the sandboxed commands are held by the kernel instead.)
 */
import { realpathSync } from "node:fs";
import { basename, dirname, join, relative, isAbsolute } from "node:path";
import { commandPolicy } from "./active-policy.ts";
import { sandboxLayout } from "./layout.ts";

/** Where `path` leads: the real path of its nearest existing ancestor, with the rest appended. */
function realTarget(path: string): string {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

const isInside = (path: string, root: string) => {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
};

/** Throws an error the model can read when the active sandbox does not let `absolutePath` be written. */
export function assertMayWrite(absolutePath: string, cwd: string): void {
  const policy = commandPolicy().sandbox;
  if (policy.mode === "off") return;
  if (policy.mode === "read-only") throw new Error(`Sandbox (read-only): writing files is not allowed, so ${absolutePath} was not written.`);
  const layout = sandboxLayout(policy, cwd);
  const target = realTarget(absolutePath);
  // A protected path may not exist yet (a missing `.mcp.json`): judged where it would lead, as the target is.
  const hidden = layout.hiddenPaths.find((path) => isInside(target, realTarget(path)));
  if (hidden) throw new Error(`Sandbox (workspace-write): ${hidden} is xcsh's or pi's config folder, which commands and tools may not touch, so ${absolutePath} was not written.`);
  const blocked = layout.protectedPaths.find((path) => isInside(target, realTarget(path)));
  if (blocked) {
    const why =
      basename(blocked) === "node_modules"
        ? "its files are hard links shared with a package manager's store, which writing them would change for every project"
        : "xcsh, pi or git reads it as configuration or code, which would run later outside the sandbox";
    throw new Error(`Sandbox (workspace-write): ${blocked} is read-only (${why}), so ${absolutePath} was not written.`);
  }
  if (!layout.writableRoots.some((root) => isInside(target, realTarget(root)))) {
    throw new Error(`Sandbox (workspace-write): ${absolutePath} is outside the writable folders (${layout.writableRoots.join(", ")}), so it was not written.`);
  }
}
