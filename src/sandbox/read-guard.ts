/**
 * The read-side tools (read, ls, find, grep) run in xcsh's process, outside the sandbox.
 * Under a sandbox they keep hidden what the sandbox hides from commands: xcsh's and pi's
 * config folders (layout.ts), which hold API keys (models.json, auth.json) and every
 * session of every project. A model that cannot `cat ~/.xcsh/agent/auth.json` must not get
 * it from the read tool either. A path is judged where it really leads, so a symlink in the
 * project that points into a hidden folder is refused; the read tool also judges the file
 * it has opened (the kernel's name for it, /proc/self/fd on Linux), so a symlink swapped in
 * after the check is caught. The walks of find and grep skip the hidden folders that lie
 * below their root (they never follow a symlinked folder).
 */
import { constants, readlinkSync, realpathSync } from "node:fs";
import { relative, sep } from "node:path";
import { commandPolicy } from "./active-policy.ts";
import { hiddenConfigFolders } from "./layout.ts";

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

const isInside = (path: string, root: string) => {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep));
};

/** Whether the active policy hides anything from the tools (any sandbox mode but off). */
function guarding(): boolean {
  return commandPolicy().sandbox.mode !== "off";
}

/** The hidden folder `realPath` lies in, if any. */
function hiddenFolderOf(realPath: string): string | undefined {
  return hiddenConfigFolders().find((folder) => isInside(realPath, real(folder)));
}

function refusal(folder: string, absolutePath: string): Error {
  const mode = commandPolicy().sandbox.mode;
  return new Error(`Sandbox (${mode}): ${folder} is xcsh's or pi's config folder (API keys, sessions), which commands and tools may not read, so ${absolutePath} was not read.`);
}

/**
 * Whether `path` really leads into xcsh's or pi's config folders, whatever the sandbox: a
 * file of the project that does (a symlink `AGENTS.md -> ~/.xcsh/agent/auth.json`, planted by
 * a command or a repository) must not be read in as text the model sees.
 */
export function leadsIntoConfigFolder(path: string): boolean {
  return hiddenFolderOf(real(path)) !== undefined;
}

/** Throws an error the model can read when the active sandbox hides `absolutePath` (or where it leads). */
export function assertMayRead(absolutePath: string): void {
  if (!guarding()) return;
  const folder = hiddenFolderOf(real(absolutePath));
  if (folder) throw refusal(folder, absolutePath);
}

/** The hidden folders below `root` (a walk's root), as `/`-separated paths relative to it. */
export function hiddenBelow(root: string): string[] {
  if (!guarding()) return [];
  const realRoot = real(root);
  return hiddenConfigFolders()
    .map((folder) => relative(realRoot, real(folder)))
    .filter((rel) => rel !== "" && !rel.startsWith("..") && !rel.startsWith(sep))
    .map((rel) => rel.split(sep).join("/"));
}

/**
 * Reads a whole file as the sandbox allows. On Linux under a sandbox the file is opened
 * first and judged by the kernel's name for what was opened, so a symlink swapped in
 * between the check and the read does not lead into a hidden folder.
 */
export async function readFileGuarded(absolutePath: string): Promise<Buffer> {
  assertMayRead(absolutePath);
  // Loaded at the first read, not at start-up.
  const fs = await import("node:fs/promises");
  if (!guarding() || process.platform !== "linux") return fs.readFile(absolutePath);
  const file = await fs.open(absolutePath, constants.O_RDONLY);
  try {
    const folder = hiddenFolderOf(readlinkSync(`/proc/self/fd/${file.fd}`));
    if (folder) throw refusal(folder, absolutePath);
    return await file.readFile();
  } finally {
    await file.close();
  }
}
