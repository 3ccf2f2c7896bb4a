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
 *
 * In every mode, xcsh's own process is out of their reach: `/proc/self`, `/proc/<xcsh's
 * pid>`, `/dev/fd`, `/dev/stdin`… Its environment holds the API keys that commands are
 * kept from (xcsh makes itself non-dumpable so that no command can read it), its memory
 * too, and its input is the RPC stream. Under a sandbox other processes' /proc folders
 * are refused as well: a sandboxed command sees only its own.
 */
import { constants, readlinkSync, realpathSync, statSync, type Stats } from "node:fs";
import { relative, resolve, sep } from "node:path";
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

/** xcsh's own process, by any of its names: its environment, memory, file descriptors and input. */
function isOwnProcess(path: string): boolean {
  const own = new RegExp(`^/proc/(self|thread-self|${process.pid})(/|$)`);
  return own.test(path) || /^\/dev\/(fd|stdin|stdout|stderr)(\/|$)/.test(path);
}

/** Any process's folder in /proc. */
const PROCESS_FOLDER = /^\/proc\/(self|thread-self|\d+)(\/|$)/;

/** The refusal for a path of a process's, or undefined. */
function processRefusal(absolutePath: string): Error | undefined {
  for (const path of new Set([resolve(absolutePath), real(absolutePath)])) {
    if (isOwnProcess(path)) return new Error(`${absolutePath} is xcsh's own process (its environment holds your API keys, its input is the conversation), which tools may not read.`);
    if (guarding() && PROCESS_FOLDER.test(path)) {
      return new Error(`Sandbox (${commandPolicy().sandbox.mode}): ${absolutePath} belongs to another process, which commands in the sandbox cannot see either, so it was not read.`);
    }
  }
  return undefined;
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
  const ofProcess = processRefusal(absolutePath);
  if (ofProcess) throw ofProcess;
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

function notAFile(absolutePath: string): Error {
  return new Error(`${absolutePath} is not a regular file (a device, a pipe or a socket): reading it might never end, or take another program's input, so it was not read.`);
}

/**
 * For the read tool, which reads files whole: throws for a device, pipe or socket
 * (`/dev/zero` would fill xcsh's memory, a FIFO would hold the call forever). A missing
 * path or a directory is left to the tool's own errors.
 */
export function assertFileToRead(absolutePath: string): void {
  assertMayRead(absolutePath);
  let stats: Stats;
  try {
    stats = statSync(absolutePath);
  } catch {
    return;
  }
  if (!stats.isFile() && !stats.isDirectory()) throw notAFile(absolutePath);
}

/**
 * Reads a whole file as the rules above allow, judged by what was opened: opened without
 * waiting (a FIFO swapped in is not waited on), refused unless it is a regular file, and on
 * Linux under a sandbox judged by the kernel's name for it, so a symlink swapped in between
 * the check and the read does not lead into a hidden folder.
 */
export async function readFileGuarded(absolutePath: string): Promise<Buffer> {
  assertFileToRead(absolutePath);
  // Loaded at the first read, not at start-up.
  const fs = await import("node:fs/promises");
  const file = await fs.open(absolutePath, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!(await file.stat()).isFile()) throw notAFile(absolutePath);
    if (process.platform === "linux") {
      const opened = readlinkSync(`/proc/self/fd/${file.fd}`);
      if (isOwnProcess(opened)) throw processRefusal(opened)!;
      const folder = guarding() ? hiddenFolderOf(opened) : undefined;
      if (folder) throw refusal(folder, absolutePath);
    }
    return await file.readFile();
  } finally {
    await file.close();
  }
}
