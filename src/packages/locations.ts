/**
 * Where packages of each scope are declared and installed. pi's layout under xcsh's
 * folders: user packages are declared in `<agentDir>/settings.json` and installed under
 * `<agentDir>/npm/` (one npm project, `node_modules/<name>`) and `<agentDir>/git/<host>/<path>`;
 * project packages in `<cwd>/.xcsh/settings.json`, `<cwd>/.xcsh/npm/` and `<cwd>/.xcsh/git/`.
 * Local sources are used where they are, never copied.
 */
import { join } from "node:path";
import { getProjectConfigDir, getProjectSettingsPath } from "../config/paths.ts";
import type { PackageSource } from "./source.ts";

export type PackageScope = "user" | "project";

export interface ScopePlaces {
  scope: PackageScope;
  /** The settings.json holding the scope's `packages` list. */
  settingsFile: string;
  /** The folder that file's relative paths are taken from. */
  baseDir: string;
  npmRoot: string;
  gitRoot: string;
}

export function scopePlaces(scope: PackageScope, cwd: string, agentDir: string): ScopePlaces {
  const baseDir = scope === "user" ? agentDir : getProjectConfigDir(cwd);
  return {
    scope,
    settingsFile: scope === "user" ? join(agentDir, "settings.json") : getProjectSettingsPath(cwd),
    baseDir,
    npmRoot: join(baseDir, "npm"),
    gitRoot: join(baseDir, "git"),
  };
}

/** The folder a declared package is loaded from (it may not exist yet). */
export function installedRoot(source: PackageSource, places: ScopePlaces): string {
  if (source.type === "npm") return join(places.npmRoot, "node_modules", ...source.name.split("/"));
  if (source.type === "git") return join(places.gitRoot, source.host, ...source.path.split("/"));
  return source.path;
}
