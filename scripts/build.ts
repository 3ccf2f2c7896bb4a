/**
 * `bun run build`: compiles the CLI into one self-contained executable for this
 * machine, dist/xcsh. The flags (minified, bytecode, bunfig/.env autoload off,
 * commit and date embedded for `xcsh --version`) live in build-flags.ts, shared
 * with scripts/build-binaries, and so does the start-up profile the bytecode is
 * laid out by (bytecode-order.ts).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { currentBuildInfo, ROOT, runBunBuild } from "./build-flags.ts";
import { bytecodeOrderFor } from "./bytecode-order.ts";

const outfile = process.argv[2] ?? join(ROOT, "dist", process.platform === "win32" ? "xcsh.exe" : "xcsh");

const buildInfo = await currentBuildInfo();
mkdirSync(join(outfile, ".."), { recursive: true });

// Two builds: the first is run to profile start-up, the second laid out by it (bytecode-order.ts).
const scratch = mkdtempSync(join(tmpdir(), "xcsh-build-"));
let code: number;
try {
  code = await runBunBuild(buildInfo, [...(await bytecodeOrderFor(buildInfo, scratch)), "--outfile", outfile]);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (code !== 0) {
  console.error(`build failed (exit ${code})`);
  process.exit(code);
}
console.error(`built ${outfile} (${buildInfo.commit}, ${buildInfo.date})`);
