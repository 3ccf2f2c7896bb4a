/**
 * Codemode costs a session that never runs a script nothing: the QuickJS
 * runtime is only in the worker's entry point, and neither it nor the script
 * runner is among the modules loaded with xcsh's main entry or with the
 * codemode tool's definition (which every session loads): both are reached by
 * dynamic import or a worker only. Checked on a build with the release flags'
 * splitting, whose output files can be read (the executable's cannot).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { ENTRY_POINT, WORKER_ENTRY_POINTS } from "../../scripts/build-flags.ts";

const outdir = mkdtempSync(join(tmpdir(), "xcsh-lazy-"));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** Files reached from `file` by static imports only (`import … from "./x.js"`, `import "./x.js"`). */
function staticallyLoaded(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const source = readFileSync(file, "utf8");
  for (const match of source.matchAll(/(?<![\w$.(])(?:import|export)\s*(?:[\w${},*\s]+?from\s*)?["'](\.{1,2}\/[^"']+)["']/g)) {
    staticallyLoaded(resolve(dirname(file), match[1]), seen);
  }
  return seen;
}

test("the QuickJS runtime and the script runner are not among the modules xcsh loads at start", async () => {
  const build = await Bun.build({
    entrypoints: [ENTRY_POINT, ...WORKER_ENTRY_POINTS],
    outdir,
    target: "bun",
    format: "esm",
    splitting: true,
    define: { __XCSH_BUILD__: JSON.stringify({ commit: "test", date: "2026-01-01" }) },
  });
  expect(build.success).toBe(true);
  const outputs = build.outputs.map((output) => output.path).filter((path) => path.endsWith(".js"));
  const quickjs = outputs.filter((path) => readFileSync(path, "utf8").includes("executePendingJobs"));
  expect(quickjs.length).toBeGreaterThan(0);
  const runner = outputs.filter((path) => readFileSync(path, "utf8").includes("The // @options: line must be the script's first line."));
  expect(runner.length).toBe(1);

  const main = outputs.find((path) => relative(outdir, path) === join("cli", "main.js"));
  expect(main).toBeDefined();
  const atStart = staticallyLoaded(main!);
  expect(atStart.size).toBeGreaterThan(1);
  for (const path of [...quickjs, ...runner]) expect(atStart.has(path)).toBe(false);
  // A session loads the tool's definition; that must not bring the runner or the runtime with it.
  const definition = outputs.filter((path) => readFileSync(path, "utf8").includes("Runs a JavaScript script that calls the other tools"));
  expect(definition.length).toBe(1);
  expect(runner).not.toContain(definition[0]);
  const withSession = staticallyLoaded(definition[0]);
  for (const path of [...quickjs, ...runner]) expect(withSession.has(path)).toBe(false);
  // The worker entry is where the runtime is.
  expect(quickjs.some((path) => staticallyLoaded(join(outdir, "codemode", "worker.js")).has(path))).toBe(true);
}, 60_000);
