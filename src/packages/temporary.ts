/**
 * `-e npm:<name>` / `-e git:<host>/<owner>/<repo>`: a package for this run only, as in pi.
 * It is installed (once; later runs reuse the copy) under `<agentDir>/tmp/packages/`,
 * never declared in settings, and the command line is rewritten to what it offers: the
 * package folder as `-e` (its manifest or `extensions/` decides the entries), and its
 * skill and prompt folders as `--skill` / `--prompt-template`.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { getAgentDir } from "../config/paths.ts";
import { installGit } from "./git-install.ts";
import { installedRoot, type ScopePlaces } from "./locations.ts";
import { offeredPaths } from "./manifest.ts";
import { installNpm } from "./npm-install.ts";
import { parseSource } from "./source.ts";

const EXTENSION_FLAGS = ["-e", "--extension"];

/** Whether the command line names a package source after -e (cheap: decides whether this module loads). */
export function namesTemporaryPackage(argv: readonly string[]): boolean {
  return argv.some((arg, index) => EXTENSION_FLAGS.includes(argv[index - 1] ?? "") && isPackageSource(arg));
}

function isPackageSource(value: string): boolean {
  return /^(npm:|git:|https?:\/\/|ssh:\/\/|git:\/\/)/.test(value.trim());
}

/** The command line with each `-e <package source>` replaced by the installed package's places. Throws when an install fails. */
export async function resolveTemporaryPackages(argv: readonly string[], agentDir = getAgentDir()): Promise<string[]> {
  const places = temporaryPlaces(agentDir);
  const result: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    const next = argv[index + 1];
    if (!EXTENSION_FLAGS.includes(arg) || next === undefined || !isPackageSource(next)) {
      result.push(arg);
      continue;
    }
    index++;
    const source = parseSource(next, process.cwd());
    if ("error" in source) throw new Error(`-e ${source.error}`);
    if (source.type === "local") {
      result.push(arg, next);
      continue;
    }
    const root = installedRoot(source, places);
    // A copy from an earlier run is used as it is (offline too); `xcsh install` is for keeping packages current.
    if (!existsSync(root)) {
      if (source.type === "npm") await installNpm(source, places, undefined);
      else await installGit(source, places, undefined);
    }
    result.push("-e", root);
    for (const path of offeredPaths(root, "skills")) result.push("--skill", path);
    for (const path of offeredPaths(root, "prompts")) result.push("--prompt-template", path);
  }
  return result;
}

function temporaryPlaces(agentDir: string): ScopePlaces {
  const baseDir = join(agentDir, "tmp", "packages");
  return { scope: "user", settingsFile: "", baseDir, npmRoot: join(baseDir, "npm"), gitRoot: join(baseDir, "git") };
}
