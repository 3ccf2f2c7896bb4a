/**
 * What every xcsh executable is built with, in one place: `bun run build` (the
 * host binary) and `scripts/build-binaries` (the release targets) must produce
 * the same program, differing only in the runtime they are wrapped in.
 */
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..");
export const ENTRY_POINT = join(ROOT, "src/cli/main.ts");
/**
 * Scripts run as worker threads, built in as entry points of their own. Bun
 * names each after its path under the entry points' common folder (`src/`):
 * src/tools/search-worker.ts is `tools/search-worker.js` beside the main
 * entry, which is where src/tools/grep-parallel.ts looks for it; the codemode
 * worker (QuickJS, its wasm embedded as a file) is `codemode/worker.js`.
 */
export const WORKER_ENTRY_POINTS = [join(ROOT, "src/tools/search-worker.ts"), join(ROOT, "src/codemode/worker.ts")];

/** Embedded by `--define` and shown by `xcsh --version`. */
export interface BuildInfo {
  commit: string;
  /** YYYY-MM-DD */
  date: string;
}

async function gitCommit(): Promise<string> {
  try {
    const proc = Bun.spawn(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
    const text = (await new Response(proc.stdout).text()).trim();
    return (await proc.exited) === 0 && text ? text : "unknown";
  } catch {
    return "unknown";
  }
}

export async function currentBuildInfo(): Promise<BuildInfo> {
  return { commit: await gitCommit(), date: new Date().toISOString().slice(0, 10) };
}

/** How many times more reluctant the JIT is while xcsh starts (see compileFlags). */
export const STARTUP_JIT_POLICY = 10;

let buildHelp: string | undefined;

/**
 * Whether this Bun's `bun build` knows `flag`. The start-up tuning flags are newer than
 * the oldest Bun xcsh builds with (package.json's engines); without them the build is
 * the same program, only with a larger start-up.
 */
export function bunBuildHas(flag: string): boolean {
  buildHelp ??= Bun.spawnSync([process.execPath, "build", "--help"], { stdout: "pipe", stderr: "pipe" }).stdout.toString();
  return buildHelp.includes(flag);
}

/**
 * The `bun build` arguments shared by every target. `--bytecode` is measured,
 * not assumed (`bun run bench --only bytecode`): on the 2-core dev machine it took
 * `xcsh --version` from ~57 ms to ~13 ms, the RPC cold start from ~87 ms to ~28 ms
 * and its peak RSS from 59 to 51 MiB, because start-up skips parsing the
 * ~100k-line bundle; it costs ~8 MB of file size.
 *
 * `--compile-jit-policy` scales JavaScriptCore's tier-up thresholds while xcsh
 * starts (src/core/startup-jit.ts puts them back): the RPC cold start's peak RSS
 * went from 47.2 to 42.9 MiB with a scale of 10 (4: 43.7; 100: no better), the
 * optimizing JIT no longer compiling the few spots of run-once start-up code.
 */
export function compileFlags(info: BuildInfo): string[] {
  return [
    "build",
    "--compile",
    "--minify",
    "--bytecode",
    // ESM chunks: each dynamic import() becomes its own chunk inside the executable, read
    // only when first imported, so provider SDKs and the extension runtime cost a run
    // nothing until it uses them.
    "--format=esm",
    "--splitting",
    // A bunfig.toml or .env in the user's project must not change how xcsh itself runs.
    "--no-compile-autoload-bunfig",
    "--no-compile-autoload-dotenv",
    ...(bunBuildHas("--compile-jit-policy") ? [`--compile-jit-policy=${STARTUP_JIT_POLICY}`] : []),
    `--define=__XCSH_BUILD__=${JSON.stringify(info)}`,
    ENTRY_POINT,
    ...WORKER_ENTRY_POINTS,
  ];
}

/** Runs `bun build` with the shared flags plus `extra`; resolves to the exit code. */
export async function runBunBuild(info: BuildInfo, extra: string[]): Promise<number> {
  const proc = Bun.spawn([process.execPath, ...compileFlags(info), ...extra], {
    cwd: ROOT,
    stdout: "inherit",
    stderr: "inherit",
  });
  return proc.exited;
}
