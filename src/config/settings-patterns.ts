/**
 * The filter language of settings `extensions` lists and package manifests (settings.md
 * "Resources", packages.md "Package Filtering"): a plain entry is a path; `*`/`?` globs
 * keep only what they match; `!pattern` excludes; `+path` puts back an exact path an
 * exclusion removed; `-path` removes an exact path whatever else says. Globs are tried
 * against the path relative to the list's base folder, the file name, and the absolute
 * path, so `"!legacy.ts"` works without spelling out where legacy.ts lives.
 */
import { basename, relative, sep } from "node:path";

/** Whether a list entry filters rather than names a path. */
export function isSettingsPattern(entry: string): boolean {
  return isOverride(entry) || isGlob(entry);
}

/** The entries of `paths` the patterns leave enabled (plain entries among `patterns` are ignored). */
export function applySettingsPatterns(paths: readonly string[], patterns: readonly string[], baseDir: string): Set<string> {
  const includes = patterns.filter((entry) => !isOverride(entry) && isGlob(entry));
  const excludes = stripped(patterns, "!");
  const forceIncludes = stripped(patterns, "+");
  const forceExcludes = stripped(patterns, "-");
  const enabled = new Set(includes.length === 0 ? paths : paths.filter((path) => matchesAnyGlob(path, includes, baseDir)));
  for (const path of paths) {
    if (excludes.length > 0 && matchesAnyGlob(path, excludes, baseDir)) enabled.delete(path);
  }
  for (const path of paths) {
    if (matchesAnyExact(path, forceIncludes, baseDir)) enabled.add(path);
  }
  for (const path of paths) {
    if (matchesAnyExact(path, forceExcludes, baseDir)) enabled.delete(path);
  }
  return enabled;
}

/**
 * Whether a scope's settings list switches off an auto-discovered file. Only `!`, `+` and
 * `-` entries apply there: a glob include narrows the list's own paths, not the folder.
 */
export function matchesExclusions(path: string, settingsList: readonly string[], baseDir: string): boolean {
  const overrides = settingsList.filter(isOverride);
  if (overrides.length === 0) return false;
  return !applySettingsPatterns([path], overrides, baseDir).has(path);
}

/** A manifest's entries by kind: plain paths, globs to expand, and `!`/`+`/`-` filters. */
export function splitManifestEntries(list: readonly string[]): { paths: string[]; globs: string[]; overrides: string[] } {
  return {
    paths: list.filter((entry) => !isOverride(entry) && !isGlob(entry)),
    globs: list.filter((entry) => !isOverride(entry) && isGlob(entry)),
    overrides: list.filter(isOverride),
  };
}

function isOverride(entry: string): boolean {
  return entry.startsWith("!") || entry.startsWith("+") || entry.startsWith("-");
}

function isGlob(entry: string): boolean {
  return entry.includes("*") || entry.includes("?");
}

function stripped(patterns: readonly string[], prefix: string): string[] {
  return patterns.filter((entry) => entry.startsWith(prefix)).map((entry) => withoutDotSlash(entry.slice(1)));
}

function matchesAnyGlob(path: string, globs: readonly string[], baseDir: string): boolean {
  const candidates = [toPosix(relative(baseDir, path)), basename(path), toPosix(path)];
  return globs.some((pattern) => {
    const glob = new Bun.Glob(toPosix(withoutDotSlash(pattern)));
    return candidates.some((candidate) => glob.match(candidate));
  });
}

function matchesAnyExact(path: string, exact: readonly string[], baseDir: string): boolean {
  if (exact.length === 0) return false;
  const relativePath = toPosix(relative(baseDir, path));
  const absolutePath = toPosix(path);
  return exact.some((entry) => {
    const wanted = toPosix(entry);
    return wanted === relativePath || wanted === absolutePath;
  });
}

function withoutDotSlash(entry: string): string {
  return entry.startsWith("./") || entry.startsWith(".\\") ? entry.slice(2) : entry;
}

function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}
