/**
 * Where a file xcsh reads for the model may lead when it is a link. A cloned repository
 * chooses its links: `AGENTS.md -> /home/runner/.aws/credentials`, a prompt template
 * linked to `~/.ssh/config`, `SYSTEM.md -> /proc/self/environ` (xcsh's own environment,
 * every key it started with). What such a file holds goes to the provider, so a link in
 * the project is followed only to a file inside `confine` (by real path), and no link
 * ever into the kernel's folders. The person's own folders pass no `confine`.
 */
import { realpathSync } from "node:fs";
import { sep } from "node:path";

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

/** Why the file at real path `real` must not be read, or undefined when it may. */
export function linkProblem(real: string, confine?: string): string | undefined {
  if (KERNEL_FOLDERS.some((folder) => inside(real, folder))) {
    return "it is a link into the kernel's files (/proc, /sys or /dev), which may hold xcsh's own keys";
  }
  if (confine !== undefined && !inside(real, realFolder(confine))) return `it leads out of ${confine}`;
  return undefined;
}
