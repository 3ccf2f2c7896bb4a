/**
 * `scripts/build-binaries` (`bun run build:all`): the release executables, one per
 * platform, as dist/xcsh-<os>-<arch>[.exe], plus dist/SHA256SUMS in `sha256sum`
 * format (so `sha256sum -c SHA256SUMS` checks them).
 *
 *   scripts/build-binaries [--outdir DIR] [--targets linux-x64,darwin-arm64,...]
 *
 * Cross-compiling needs the Bun runtime of each target. `bun build --compile
 * --target=bun-<os>-<arch>` downloads it from the npm registry (package
 * `@oven/bun-<os>-<arch|aarch64>`, the same version as the building Bun) and caches
 * it in ~/.bun/install/cache. Where that download is impossible, put the runtimes
 * in a folder named by XCSH_BUN_RUNTIME_DIR as `bun-<os>-<arch>[.exe]` (the
 * `bin/bun` of that npm package, e.g. from `npm pack @oven/bun-linux-aarch64@1.4.5`)
 * and they are used through `--compile-executable-path` instead.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { currentBuildInfo, ROOT, runBunBuild, type BuildInfo } from "./build-flags.ts";
import { bytecodeOrderFor } from "./bytecode-order.ts";

export interface ReleaseTarget {
  /** `<os>-<arch>`, as in the file name and in install.sh. */
  name: string;
  /** Bun's `--target`. */
  bunTarget: string;
  exe: boolean;
}

export const RELEASE_TARGETS: ReleaseTarget[] = [
  { name: "linux-x64", bunTarget: "bun-linux-x64", exe: false },
  { name: "linux-arm64", bunTarget: "bun-linux-arm64", exe: false },
  { name: "darwin-x64", bunTarget: "bun-darwin-x64", exe: false },
  { name: "darwin-arm64", bunTarget: "bun-darwin-arm64", exe: false },
  { name: "windows-x64", bunTarget: "bun-windows-x64", exe: true },
];

export const binaryName = (target: ReleaseTarget) => `xcsh-${target.name}${target.exe ? ".exe" : ""}`;

/** The release target this machine runs, if it is one. */
export function hostTarget(): ReleaseTarget | undefined {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return RELEASE_TARGETS.find((target) => target.name === `${os}-${process.arch}`);
}

export async function sha256File(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  const stream = Bun.file(path).stream();
  for await (const chunk of stream) hasher.update(chunk);
  return hasher.digest("hex");
}

function option(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  if (index !== -1) return argv[index + 1];
  const inline = argv.find((arg) => arg.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

function selectTargets(list: string | undefined): ReleaseTarget[] {
  if (!list) return RELEASE_TARGETS;
  return list.split(",").map((name) => {
    const target = RELEASE_TARGETS.find((candidate) => candidate.name === name.trim());
    if (!target) throw new Error(`unknown target ${name}; known: ${RELEASE_TARGETS.map((t) => t.name).join(", ")}`);
    return target;
  });
}

function runtimeOverride(target: ReleaseTarget): string[] {
  const dir = process.env.XCSH_BUN_RUNTIME_DIR;
  if (!dir) return [];
  const path = join(dir, `bun-${target.name}${target.exe ? ".exe" : ""}`);
  if (!existsSync(path)) throw new Error(`XCSH_BUN_RUNTIME_DIR is set but ${path} does not exist`);
  return [`--compile-executable-path=${path}`];
}

async function main(argv: string[]): Promise<number> {
  const outdir = option(argv, "--outdir") ?? join(ROOT, "dist");
  const targets = selectTargets(option(argv, "--targets"));
  const info = await currentBuildInfo();
  mkdirSync(outdir, { recursive: true });

  // One start-up profile, recorded on this machine, lays out every target's bytecode (bytecode-order.ts).
  const scratch = mkdtempSync(join(tmpdir(), "xcsh-build-"));
  try {
    return await buildTargets(info, targets, outdir, await bytecodeOrderFor(info, scratch));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function buildTargets(info: BuildInfo, targets: ReleaseTarget[], outdir: string, orderFlags: string[]): Promise<number> {
  const sums: string[] = [];
  for (const target of targets) {
    const outfile = join(outdir, binaryName(target));
    rmSync(outfile, { force: true });
    const started = performance.now();
    const code = await runBunBuild(info, [`--target=${target.bunTarget}`, ...runtimeOverride(target), ...orderFlags, "--outfile", outfile]);
    if (code !== 0 || !existsSync(outfile)) {
      console.error(`build-binaries: ${target.name} failed (exit ${code})`);
      return code || 1;
    }
    sums.push(`${await sha256File(outfile)}  ${basename(outfile)}`);
    console.error(`build-binaries: ${basename(outfile)} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  writeFileSync(join(outdir, "SHA256SUMS"), sums.join("\n") + "\n");
  console.error(`build-binaries: ${targets.length} binaries and SHA256SUMS in ${outdir} (${info.commit}, ${info.date})`);
  return 0;
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(`build-binaries: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}
