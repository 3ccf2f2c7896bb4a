/**
 * Keeps xcsh's own environment out of its children's reach. Taking the API keys out of
 * a command's environment is not enough on Linux: the command may read its parent's,
 * `cat /proc/$PPID/environ`, which still holds every key xcsh started with (and
 * /proc/<pid>/mem the rest). A process marked not dumpable (prctl PR_SET_DUMPABLE 0,
 * as ssh-agent does) has those files readable by root only and cannot be traced by
 * processes of its own user. Set before the first command starts; it costs xcsh its
 * core dumps, nothing else. Root and other processes that started with the same
 * environment are not covered (docs/security.md).
 */
import { openLibc } from "./libc.ts";

const PR_SET_DUMPABLE = 4;

let done = false;

export function protectOwnEnvironment(): void {
  if (done || process.platform !== "linux") return;
  done = true;
  const libc = openLibc((type) => ({ prctl: { args: [type.i32, type.u64, type.u64, type.u64, type.u64], returns: type.i32 } }));
  const result = libc?.symbols.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  libc?.close();
  if (result === 0) return;
  process.stderr.write("xcsh: could not mark the process non-dumpable; commands may read its environment through /proc.\n");
}
