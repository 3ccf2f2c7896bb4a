/**
 * The C library, for the few system calls Bun does not expose (prctl, madvise), through
 * bun:ffi. Loaded by the caller that needs it, never at start-up; glibc and musl go by
 * different file names, so each is tried. Linux only.
 */
import type { FFIFunction, FFIType, Library } from "bun:ffi";

const LIBC_NAMES = ["libc.so.6", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1", "libc.so"];

/**
 * The C library with the symbols `describe` gives (from bun:ffi's types) bound, or undefined
 * where none of its names loads (not Linux, no FFI).
 */
export function openLibc<Symbols extends Record<string, FFIFunction>>(describe: (types: typeof FFIType) => Symbols): Library<Symbols> | undefined {
  if (process.platform !== "linux") return undefined;
  // bun:ffi loads only here, with the first call that needs it.
  const ffi = require("bun:ffi") as typeof import("bun:ffi");
  const symbols = describe(ffi.FFIType);
  for (const name of LIBC_NAMES) {
    try {
      return ffi.dlopen(name, symbols);
    } catch {
      // Not this libc; try the next name.
    }
  }
  return undefined;
}
