/**
 * Takes `--api-key <key>` out of xcsh's command line. A process's arguments are readable
 * by every user of the machine (/proc/<pid>/cmdline, `ps`) for as long as it runs; its
 * environment only by the same user (and root), by root only once xcsh is not dumpable.
 * So on Linux, when the key is on the command line, xcsh replaces its own process image
 * (execve: same pid, same open stdin/stdout/stderr) with the same arguments minus the key,
 * and hands the key over in XCSH_ARGV_API_KEY. The new image takes the variable out of its
 * environment at once (no child ever gets it; the name is a credential for the child
 * filter too) and puts `--api-key=<key>` back where it stood, so parsing, precedence and
 * errors are exactly those of a run that kept it. The key is on the command line only for
 * the few milliseconds before the exec.
 *
 * Runs that have no --api-key pay one scan of argv in main.ts: this module, and bun:ffi with
 * it, load only for a run that has the key or the one it re-executes. When
 * the exec fails, xcsh warns once and carries on with the key where it was. Elsewhere
 * (macOS, Windows: no libc binding here) nothing changes.
 */
import type { Pointer } from "bun:ffi";
import { openLibc } from "../sandbox/libc.ts";
import { protectOwnEnvironment } from "../sandbox/own-process.ts";

/** `<index in argv>:<key>`; set by the image that had the key on its command line, read by the one it becomes. */
export const ARGV_API_KEY_VARIABLE = "XCSH_ARGV_API_KEY";

const OPTION = "--api-key";

/** Where the key stands in argv: the last --api-key wins, as in parseArgs; all of them are taken out. */
interface KeyPlace {
  /** argv without any --api-key (and their values). */
  rest: string[];
  /** Where `--api-key=<key>` goes back into `rest`. */
  index: number;
  key: string;
}

/**
 * The --api-key occurrences before `--`, or undefined when there is none or one lacks a
 * value (parseArgs then says what is wrong, with the arguments as given).
 */
export function findApiKey(argv: readonly string[]): KeyPlace | undefined {
  const rest: string[] = [];
  let found: { index: number; key: string } | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    let key: string | undefined;
    if (arg === OPTION) key = argv[++i];
    else if (arg.startsWith(`${OPTION}=`)) key = arg.slice(OPTION.length + 1);
    else {
      rest.push(arg);
      continue;
    }
    if (key === undefined || key === "") return undefined;
    found = { index: rest.length, key };
  }
  return found && { rest, ...found };
}

/**
 * The arguments main() should parse. In the image started after the exec: argv with the
 * key put back. With the key on the command line: does not return when the exec works.
 */
export function moveApiKeyOutOfCommandLine(argv: string[]): string[] {
  const handedOver = process.env[ARGV_API_KEY_VARIABLE];
  if (handedOver !== undefined) return restoreApiKey(argv, handedOver);
  if (process.platform !== "linux" || !argv.some((arg) => arg === OPTION || arg.startsWith(`${OPTION}=`))) return argv;
  const place = findApiKey(argv);
  if (!place) return argv;
  const problem = execWithoutKey(place);
  process.stderr.write(`xcsh: could not take --api-key out of the command line (${problem}); other users can read it with ps while xcsh runs. Prefer the provider's key variable or auth.json.\n`);
  return argv;
}

function restoreApiKey(argv: string[], handedOver: string): string[] {
  eraseFromInitialEnvironment(ARGV_API_KEY_VARIABLE);
  delete process.env[ARGV_API_KEY_VARIABLE];
  // /proc/<pid>/environ: readable by this user until xcsh is not dumpable; close that now, not at the first command.
  protectOwnEnvironment();
  const colon = handedOver.indexOf(":");
  const index = Number(handedOver.slice(0, colon));
  const key = handedOver.slice(colon + 1);
  if (colon < 1 || !Number.isInteger(index) || index < 0 || index > argv.length || key === "") return argv;
  return [...argv.slice(0, index), `${OPTION}=${key}`, ...argv.slice(index)];
}

/**
 * Overwrites the variable's value where the kernel shows it: /proc/<pid>/environ is the
 * environment block execve left in memory, which deleting from process.env (a copy) does not
 * touch, and which root reads whatever the dumpable mark says. libc's getenv points into
 * that block until something sets the variable again.
 */
function eraseFromInitialEnvironment(name: string): void {
  const libc = openLibc((type) => ({ getenv: { args: [type.cstring], returns: type.ptr } }));
  if (!libc) return;
  const ffi = require("bun:ffi") as typeof import("bun:ffi");
  const value = libc.symbols.getenv(Buffer.from(`${name}\0`, "utf8")) as Pointer | null;
  if (value) {
    // "*" over every byte: the block keeps its length, the key is gone.
    new Uint8Array(ffi.toArrayBuffer(value, 0, strlen(ffi, value))).fill(0x2a);
  }
  libc.close();
}

function strlen(ffi: typeof import("bun:ffi"), pointer: Pointer): number {
  let length = 0;
  while (ffi.read.u8(pointer, length) !== 0) length++;
  return length;
}

/**
 * execve(2) of this same program with `place.rest`; returns why it failed (it returns only
 * then). The compiled binary is its own program (argv: the name it was started by, then
 * the arguments); under `bun src/cli/main.ts` the program is bun and the script comes
 * first (bun's own flags, if any, are not kept).
 */
function execWithoutKey(place: KeyPlace): string {
  const libc = openLibc((type) => ({
    execve: { args: [type.ptr, type.ptr, type.ptr], returns: type.i32 },
    __errno_location: { args: [], returns: type.ptr },
  }));
  if (!libc) return "the C library could not be loaded";
  const ffi = require("bun:ffi") as typeof import("bun:ffi");
  const compiled = Bun.main.startsWith("/$bunfs/");
  const args = compiled ? [process.argv0, ...place.rest] : [process.argv0, Bun.main, ...place.rest];
  const env = Object.entries({ ...process.env, [ARGV_API_KEY_VARIABLE]: `${place.index}:${place.key}` })
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${value}`);
  // The strings must stay reachable until execve returns: `keep` holds them.
  const keep: (Buffer | BigUint64Array)[] = [];
  const cString = (text: string) => {
    const bytes = Buffer.from(`${text}\0`, "utf8");
    keep.push(bytes);
    return ffi.ptr(bytes);
  };
  const pointerArray = (texts: string[]) => {
    const array = new BigUint64Array(texts.length + 1);
    keep.push(array);
    texts.forEach((text, i) => (array[i] = BigInt(cString(text))));
    return ffi.ptr(array);
  };
  const argvPointer = pointerArray(args);
  const envPointer = pointerArray(env);
  libc.symbols.execve(cString(process.execPath), argvPointer, envPointer);
  const errnoPointer = libc.symbols.__errno_location();
  const errno = errnoPointer ? ffi.read.i32(errnoPointer, 0) : 0;
  libc.close();
  return errno ? `execve failed, errno ${errno}` : "execve failed";
}
