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
const PR_SET_DUMPABLE = 4;
const LIBC_NAMES = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"];

let done = false;

export function protectOwnEnvironment(): void {
  if (done || process.platform !== "linux") return;
  done = true;
  // bun:ffi loads only here, when the first command starts.
  const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
  for (const name of LIBC_NAMES) {
    try {
      const libc = dlopen(name, { prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 } });
      const result = libc.symbols.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
      libc.close();
      if (result === 0) return;
      break;
    } catch {
      // Not this libc; try the next name.
    }
  }
  process.stderr.write("xcsh: could not mark the process non-dumpable; commands may read its environment through /proc.\n");
}
