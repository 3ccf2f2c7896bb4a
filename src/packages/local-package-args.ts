/**
 * `-e <folder>` where the folder is a package (pi's layout: a manifest listing resources, or
 * skills/, prompts/, themes/ folders): as in pi, its skills and prompt templates load for
 * this run too. The command line is rewritten to name them with `--skill` /
 * `--prompt-template`, the same route `-e npm:…` takes (temporary.ts); which extensions the
 * folder holds is discovery's business (src/extensions/discovery.ts).
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { expandHome } from "../config/paths.ts";
import { offeredPaths } from "./manifest.ts";

const EXTENSION_FLAGS = ["-e", "--extension"];

/** The command line with each local package folder's skills and prompts added after its `-e`. */
export function withLocalPackageResources(argv: readonly string[], cwd: string): string[] {
  const result: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    result.push(arg);
    const next = argv[index + 1];
    if (!EXTENSION_FLAGS.includes(arg) || next === undefined) continue;
    result.push(next);
    index++;
    const folder = resolve(cwd, expandHome(next.trim()));
    if (statSync(folder, { throwIfNoEntry: false })?.isDirectory() !== true) continue;
    for (const path of offeredPaths(folder, "skills")) result.push("--skill", path);
    for (const path of offeredPaths(folder, "prompts")) result.push("--prompt-template", path);
  }
  return result;
}
