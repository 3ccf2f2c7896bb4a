/**
 * `bun run build`: compiles the CLI into one self-contained executable for this
 * machine, dist/xcsh. The flags (minified, bytecode, bunfig/.env autoload off,
 * commit and date embedded for `xcsh --version`) live in build-flags.ts, shared
 * with scripts/build-binaries.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { currentBuildInfo, ROOT, runBunBuild } from "./build-flags.ts";

const outfile = process.argv[2] ?? join(ROOT, "dist", process.platform === "win32" ? "xcsh.exe" : "xcsh");

const buildInfo = await currentBuildInfo();
mkdirSync(join(outfile, ".."), { recursive: true });

const code = await runBunBuild(buildInfo, ["--outfile", outfile]);
if (code !== 0) {
  console.error(`build failed (exit ${code})`);
  process.exit(code);
}
console.error(`built ${outfile} (${buildInfo.commit}, ${buildInfo.date})`);
