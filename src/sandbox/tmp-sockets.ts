/**
 * Other programs' Unix sockets in the shared /tmp. A sandboxed command reaches a socket
 * whatever the mounts say (connecting needs no write to the file system), and some servers
 * there run anything they are asked to: a tmux server (/tmp/tmux-<uid>/default) runs
 * commands in its panes, outside every sandbox; an X server (/tmp/.X11-unix) takes
 * keystrokes for other windows; an ssh agent (/tmp/ssh-*) signs as you. So bubblewrap covers
 * each folder directly in /tmp that holds a socket with an empty tmpfs, and each socket lying
 * directly in /tmp with /dev/null — except the paths settings' `sandbox.tmpSockets` lists.
 *
 * Looked for before every command (a server may start meanwhile), one level deep: /tmp's
 * entries, and the entries of a folder only when its inode or modification time changed
 * since the last look (a stat per folder: ~2 µs per entry of /tmp). Folders that cannot be read are left alone (a command running as the
 * same user cannot list them either).
 */
import { readdirSync, statSync, type Dirent } from "node:fs";
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
  const found = lookForSockets(allowed);
  memo = { allowed: key, found };
  queueMicrotask(() => {
    memo = undefined;
  });
  return found;
}

function lookForSockets(allowed: readonly string[]): TmpSockets {
  const isAllowed = (path: string) => allowed.some((entry) => entry === path || entry.startsWith(`${path}/`) || path.startsWith(`${entry}/`));
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
