/**
 * Other programs' Unix sockets in the shared /tmp. A sandboxed command reaches a socket
 * whatever the mounts say (connecting needs no write to the file system), and some servers
 * there run anything they are asked to: a tmux server (/tmp/tmux-<uid>/default) runs
 * commands in its panes, outside every sandbox; an X server (/tmp/.X11-unix) takes
 * keystrokes for other windows; an ssh agent (/tmp/ssh-*) signs as you. So bubblewrap covers
 * each folder directly in /tmp that holds a socket with an empty tmpfs, and each socket lying
 * directly in /tmp with /dev/null — except the paths settings' `sandbox.tmpSockets` lists.
 *
 * Looked for before every command (a server may start meanwhile) in /proc/net/unix, the
 * kernel's list of the sockets bound in xcsh's network namespace, with their paths: one read
 * (~0.1 ms) where walking /tmp's folders cost ~2 µs per entry, and more the first time. Where
 * /proc cannot be read, /tmp's folders are looked into instead, one level deep. A socket that
 * a program in another network namespace (a container) bound in /tmp is not in that list.
 */
import { lstatSync, readdirSync, readFileSync, statSync, type Dirent } from "node:fs";
import { join } from "node:path";

export const SHARED_TMP = "/tmp";

export interface TmpSockets {
  /** Folders directly in /tmp that hold a socket. */
  folders: string[];
  /** Sockets directly in /tmp. */
  files: string[];
}

/** Per folder: its stamp when last read, and whether it held a socket then. */
const folderLooks = new Map<string, { stamp: string; holdsSocket: boolean }>();

function entries(folder: string): Dirent[] | undefined {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch {
    return undefined;
  }
}

function holdsSocket(folder: string): boolean {
  let stamp: string;
  try {
    const stat = statSync(folder);
    stamp = `${stat.ino}:${stat.mtimeMs}`;
  } catch {
    return false;
  }
  const known = folderLooks.get(folder);
  if (known?.stamp === stamp) return known.holdsSocket;
  const found = entries(folder)?.some((entry) => entry.isSocket()) ?? false;
  folderLooks.set(folder, { stamp, holdsSocket: found });
  return found;
}

/**
 * The last answer, kept until the current piece of synchronous work ends: a command's launch
 * computes its layout two or three times in a row (the command line, the warm sandbox's check
 * of it), and a look costs ~2 µs per entry of /tmp.
 */
let memo: { allowed: string; found: TmpSockets } | undefined;

/** The socket places in /tmp to hide, but `allowed` (absolute paths) and what lies in them. */
export function tmpSocketsToHide(allowed: readonly string[]): TmpSockets {
  const key = allowed.join("\0");
  if (memo?.allowed === key) return memo.found;
  const found = socketsInKernelList(allowed) ?? lookForSockets(allowed);
  memo = { allowed: key, found };
  queueMicrotask(() => {
    memo = undefined;
  });
  return found;
}

const isAllowedBy = (allowed: readonly string[]) => (path: string) =>
  allowed.some((entry) => entry === path || entry.startsWith(`${path}/`) || path.startsWith(`${entry}/`));

/**
 * From /proc/net/unix ("Num RefCount Protocol Flags Type St Inode Path" lines; abstract
 * sockets, `@…`, have no file): the folder of /tmp or the socket in /tmp each path lies in,
 * if still there. Undefined when the list cannot be read.
 */
function socketsInKernelList(allowed: readonly string[]): TmpSockets | undefined {
  let list: string;
  try {
    list = readFileSync("/proc/net/unix", "latin1");
  } catch {
    return undefined;
  }
  const isAllowed = isAllowedBy(allowed);
  const places = new Set<string>();
  const prefix = ` ${SHARED_TMP}/`;
  for (let at = list.indexOf(prefix); at !== -1; at = list.indexOf(prefix, at + 1)) {
    const end = list.indexOf("\n", at);
    const rest = list.slice(at + prefix.length, end === -1 ? undefined : end);
    const slash = rest.indexOf("/");
    places.add(join(SHARED_TMP, slash === -1 ? rest : rest.slice(0, slash)));
  }
  const found: TmpSockets = { folders: [], files: [] };
  for (const place of places) {
    if (isAllowed(place)) continue;
    try {
      const stat = lstatSync(place);
      if (stat.isDirectory()) found.folders.push(place);
      else if (stat.isSocket()) found.files.push(place);
    } catch {
      // Its file is gone (the server removed it, or it never had one in this mount namespace).
    }
  }
  return found;
}

function lookForSockets(allowed: readonly string[]): TmpSockets {
  const isAllowed = isAllowedBy(allowed);
  const found: TmpSockets = { folders: [], files: [] };
  for (const entry of entries(SHARED_TMP) ?? []) {
    const path = join(SHARED_TMP, entry.name);
    if (entry.isSocket()) {
      if (!isAllowed(path)) found.files.push(path);
    } else if (entry.isDirectory() && holdsSocket(path) && !isAllowed(path)) {
      found.folders.push(path);
    }
  }
  return found;
}
