/**
 * The concrete folders a policy means for one command or file write: which may be
 * written (the session's folder and `writableRoots`, the temp folder), which stay
 * read-only inside those, and which are hidden altogether (xcsh's and pi's config
 * folders, where API keys and sessions live). Shared by the launchers and the
 * in-process write guard, so the write tool and a command see the same rules.
 */
import { mkdirSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expandHome, getAgentDir, homeDir, PROJECT_CONFIG_DIR_NAME } from "../config/paths.ts";
import { toolOutputFolder } from "../tools/temp-files.ts";
import { keptFolders } from "./kept-folders.ts";
import { sharesFilesWithStore } from "./linked-installs.ts";
import { codeNamedBySettings } from "./named-code.ts";
import type { SandboxPolicy } from "./policy.ts";
import { tmpSocketsToHide, type TmpSockets } from "./tmp-sockets.ts";

export interface SandboxLayout {
  cwd: string;
  /** Empty under read-only. */
  writableRoots: string[];
  /** Inside the writable roots, kept read-only (a missing one may be created unless it has a placeholder). */
  protectedPaths: string[];
  /** Not readable at all (an empty folder in their place). */
  hiddenPaths: string[];
  /** Other programs' sockets in /tmp, out of reach (Linux; empty elsewhere and when off). */
  hiddenSockets: TmpSockets;
  /**
   * Folders xcsh writes into later, outside the sandbox, that may lie in a writable folder
   * (the tools' full-output files in the temp folder, the session's folder: kept-folders.ts):
   * readable by commands, but neither written, moved nor replaced. They exist (made now).
   */
  ownFolders: string[];
}

/**
 * What a writable root keeps read-only, because xcsh, pi or git reads it as configuration or
 * code — writing it is running code later, outside the sandbox (docs/security.md has the table):
 * git's folder (hooks, config, `commondir`, `info/`; the entry itself, so it cannot be moved
 * aside and replaced), xcsh's and pi's project folders (settings, extensions, packages,
 * skills, prompts, SYSTEM.md) and `.mcp.json` (MCP servers are programs xcsh starts).
 */
export const PROTECTED_NAMES = [".git", PROJECT_CONFIG_DIR_NAME, ".pi", ".mcp.json"] as const;

/** Of those, the ones given an empty placeholder when missing (placeholders.ts); a missing `.git` is not. */
export const PLACEHOLDER_NAMES: readonly string[] = [PROJECT_CONFIG_DIR_NAME, ".pi", ".mcp.json"];

/** The temp folders a command may write to: $TMPDIR (as Node resolves it) and /tmp. */
function tempFolders(): string[] {
  const folders = new Set([resolve(tmpdir())]);
  if (process.platform !== "win32") folders.add("/tmp");
  return [...folders];
}

/**
 * Paths under a writable root that stay read-only: PROTECTED_NAMES; the code its
 * `.xcsh/settings.json` names by path (named-code.ts); and its `node_modules` when that
 * shares its files with a package manager's store by hard links (linked-installs.ts):
 * writing one would change the store, outside the writable folders.
 */
export function protectedPathsUnder(root: string): string[] {
  const paths = [...PROTECTED_NAMES.map((name) => join(root, name)), ...codeNamedBySettings(root)];
  const nodeModules = join(root, "node_modules");
  if (sharesFilesWithStore(nodeModules)) paths.push(nodeModules);
  return paths;
}

/**
 * xcsh's and pi's config folders, wherever the environment points xcsh now: the one in use
 * and the default ones, and pi's `$PI_CODING_AGENT_DIR` — each may hold keys and sessions.
 */
export function hiddenConfigFolders(): string[] {
  const home = homeDir();
  const folders = [getAgentDir(), join(home, PROJECT_CONFIG_DIR_NAME, "agent"), join(home, ".pi", "agent")];
  const piDir = process.env.PI_CODING_AGENT_DIR;
  if (piDir) folders.push(resolve(expandHome(piDir)));
  return [...new Set(folders)];
}

/** Those of tmp-sockets.ts, but a folder that holds the command's folder or a writable one (a project in /tmp). */
function socketsToHide(policy: SandboxPolicy, kept: string[]): TmpSockets {
  const found = tmpSocketsToHide(policy.tmpSockets ?? []);
  return { folders: found.folders.filter((folder) => !kept.some((path) => path === folder || path.startsWith(`${folder}/`))), files: found.files };
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Made now, before the first command, if missing: one made later could be put in place by a
 * command already running — a symlink to a folder of the user's, which xcsh would then write into.
 */
function ownFolders(hidden: readonly string[]): string[] {
  const folders = [toolOutputFolder()];
  // One in a hidden folder (the default session folder, in the agent dir) is out of reach already; binding it would show it.
  const realHidden = hidden.map(realPath);
  const outsideHidden = (folder: string) => !realHidden.some((path) => { const real = realPath(folder); return real === path || real.startsWith(`${path}/`); });
  for (const folder of keptFolders().filter(outsideHidden)) {
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      folders.push(folder);
    } catch {
      // Cannot be made (a file in the way): xcsh's own write there fails as well.
    }
  }
  return [...new Set(folders)];
}

/** `cwd`: where the command runs (or the tool resolves paths from); it adds no writable folder. */
export function sandboxLayout(policy: SandboxPolicy, cwd: string): SandboxLayout {
  const projectRoots = policy.mode === "workspace-write" ? policy.writableRoots : [];
  const writableRoots = policy.mode === "workspace-write" ? [...projectRoots, ...tempFolders()] : [];
  const hiddenPaths = hiddenConfigFolders();
  return {
    cwd: resolve(cwd),
    writableRoots: [...new Set(writableRoots)],
    protectedPaths: [...new Set(projectRoots.flatMap(protectedPathsUnder))],
    hiddenPaths,
    hiddenSockets: process.platform === "linux" && policy.mode !== "off" ? socketsToHide(policy, [resolve(cwd), ...writableRoots]) : { folders: [], files: [] },
    ownFolders: policy.mode === "workspace-write" ? ownFolders(hiddenPaths) : [],
  };
}
