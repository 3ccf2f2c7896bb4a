/**
 * What an installed package contributes, from its package.json manifest — the `xcsh`
 * key, else pi's `pi` key — or, for a kind the manifest does not list, from the
 * conventional folder of that name (`extensions/`, `skills/`, `prompts/`, `themes/`).
 * Manifest lists take paths and globs relative to the package root, and `!` exclusions.
 * A settings entry's filters then narrow the result: `[]` loads none, plain paths and
 * globs keep what they match, `!`/`+`/`-` as in settings lists. Pure reading, no throws.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { applySettingsPatterns, isSettingsPattern, splitManifestEntries } from "../config/settings-patterns.ts";
import type { ResourceKind } from "./declarations.ts";

const MANIFEST_KEYS = ["xcsh", "pi"] as const;

/** The manifest's list for `kind`, undefined when it lists none (or has no manifest). */
export function manifestList(root: string, kind: ResourceKind): string[] | undefined {
  let content: unknown;
  try {
    content = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  } catch {
    return undefined;
  }
  if (typeof content !== "object" || content === null) return undefined;
  for (const key of MANIFEST_KEYS) {
    const section = (content as Record<string, unknown>)[key];
    if (typeof section !== "object" || section === null) continue;
    const list = (section as Record<string, unknown>)[kind];
    if (Array.isArray(list)) return list.filter((item): item is string => typeof item === "string");
  }
  return undefined;
}

/**
 * The paths (files or folders) of one kind a package offers, before settings filters:
 * the manifest's, or the conventional folder when it exists.
 */
export function offeredPaths(root: string, kind: Exclude<ResourceKind, "extensions">): string[] {
  const list = manifestList(root, kind);
  if (list === undefined) {
    const conventional = join(root, kind);
    return existsSync(conventional) ? [conventional] : [];
  }
  const { paths, globs, overrides } = splitManifestEntries(list);
  const found = paths.map((path) => resolve(root, path)).filter((path) => existsSync(path));
  for (const pattern of globs) {
    try {
      for (const match of new Bun.Glob(pattern).scanSync({ cwd: root, absolute: true, onlyFiles: false })) found.push(match);
    } catch {
      // an unreadable folder matches nothing
    }
  }
  const enabled = applySettingsPatterns(found, overrides, root);
  return found.filter((path) => enabled.has(path)).sort();
}

/**
 * A settings entry's filter over what a package offers (absent: all of it). Filters only
 * narrow: they never add a path the package did not offer.
 */
export function narrow(paths: string[], filter: string[] | undefined, root: string): string[] {
  if (filter === undefined) return paths;
  if (filter.length === 0) return [];
  const plain = filter.filter((entry) => !isSettingsPattern(entry)).map((entry) => resolve(root, entry));
  const patterns = filter.filter(isSettingsPattern);
  const globIncludes = patterns.filter((entry) => !/^[!+-]/.test(entry));
  const overrides = patterns.filter((entry) => /^[!+-]/.test(entry));
  let kept = paths;
  if (plain.length > 0 || globIncludes.length > 0) {
    const byGlob = globIncludes.length > 0 ? applySettingsPatterns(paths, globIncludes, root) : new Set<string>();
    kept = paths.filter((path) => byGlob.has(path) || plain.some((entry) => path === entry || path.startsWith(entry + "/")));
  }
  const enabled = applySettingsPatterns(kept, overrides, root);
  return kept.filter((path) => enabled.has(path));
}

export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
