/**
 * `bun run build`: compiles the CLI into one self-contained executable for this
 * machine, dist/xcsh. Minified, with bytecode so start-up skips parsing, and
 * with the commit and date embedded for `xcsh --version`.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const outfile = process.argv[2] ?? join(root, "dist", process.platform === "win32" ? "xcsh.exe" : "xcsh");

async function gitCommit(): Promise<string> {
  try {
    const proc = Bun.spawn(["git", "rev-parse", "--short", "HEAD"], { cwd: root, stdout: "pipe", stderr: "ignore" });
    const text = (await new Response(proc.stdout).text()).trim();
    return (await proc.exited) === 0 && text ? text : "unknown";
  } catch {
    return "unknown";
  }
}

const buildInfo = { commit: await gitCommit(), date: new Date().toISOString().slice(0, 10) };
mkdirSync(join(outfile, ".."), { recursive: true });

const args = [
  "build",
  "--compile",
  "--minify",
  "--bytecode",
  // A bunfig.toml or .env in the user's project must not change how xcsh itself runs.
  "--no-compile-autoload-bunfig",
  "--no-compile-autoload-dotenv",
  `--define=__XCSH_BUILD__=${JSON.stringify(buildInfo)}`,
  join(root, "src/cli/main.ts"),
  "--outfile",
  outfile,
];
const proc = Bun.spawn([process.execPath, ...args], { cwd: root, stdout: "inherit", stderr: "inherit" });
const code = await proc.exited;
if (code !== 0) {
  console.error(`build failed (exit ${code})`);
  process.exit(code);
}
console.error(`built ${outfile} (${buildInfo.commit}, ${buildInfo.date})`);
