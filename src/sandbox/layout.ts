/**
 * The concrete folders a policy means for one command or file write: which may be
 * written (the session's folder and `writableRoots`, the temp folder), which stay
 * read-only inside those, and which are hidden altogether (xcsh's and pi's config
 * folders, where API keys and sessions live). Shared by the launchers and the
 * in-process write guard, so the write tool and a command see the same rules.
 */
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getAgentDir, homeDir } from "../config/paths.ts";
import type { SandboxPolicy } from "./policy.ts";

export interface SandboxLayout {
  cwd: string;
  /** Empty under read-only. */
  writableRoots: string[];
  /** Inside the writable roots, kept read-only. */
  protectedPaths: string[];
  /** Not readable at all (an empty folder in their place). */
  hiddenPaths: string[];
}

/** The temp folders a command may write to: $TMPDIR (as Node resolves it) and /tmp. */
function tempFolders(): string[] {
  const folders = new Set([resolve(tmpdir())]);
  if (process.platform !== "win32") folders.add("/tmp");
  return [...folders];
}

/** Paths under a writable root that stay read-only: writing them is running code later, outside the sandbox. */
export function protectedPathsUnder(root: string): string[] {
  return [join(root, ".git", "hooks"), join(root, ".git", "config"), join(root, ".xcsh")];
}

/** `cwd`: where the command runs (or the tool resolves paths from); it adds no writable folder. */
export function sandboxLayout(policy: SandboxPolicy, cwd: string): SandboxLayout {
  const projectRoots = policy.mode === "workspace-write" ? policy.writableRoots : [];
  const writableRoots = policy.mode === "workspace-write" ? [...projectRoots, ...tempFolders()] : [];
  return {
    cwd: resolve(cwd),
    writableRoots: [...new Set(writableRoots)],
    protectedPaths: [...new Set(projectRoots.flatMap(protectedPathsUnder))],
    hiddenPaths: [...new Set([getAgentDir(), join(homeDir(), ".pi", "agent")])],
  };
}
