/**
 * Where extensions come from (seed 003 "Extension Locations"): the paths given with
 * `-e`, the `extensions` lists of the project and global settings.json, and the
 * auto-discovered folders `<cwd>/.xcsh/extensions/` and `<agentDir>/extensions/`.
 * This module only finds entry files; loading them is the loader's job.
 *
 * Order, which is also load order (handler order, `/cmd:1` vs `/cmd:2` suffixes), follows
 * pi: CLI paths, project settings, project folder, user settings, user folder. Each entry
 * file loads once, by real path (symlinks included): the first place that names it wins,
 * so a `-e` copy of an installed extension replaces it rather than running twice.
 * Project sources are skipped until the project is trusted (`includeProject`);
 * `--no-extensions` keeps only the CLI paths, as pi's help says ("explicit -e paths still work").
 *
 * A folder resolves to the entries its package.json lists under `"xcsh": {"extensions"}`
 * (or pi's `"pi": {"extensions"}`), else its index.ts / index.js. A folder named
 * explicitly (settings or -e) that has neither is scanned like an extensions folder.
 * `-e` takes a folder as pi takes a package (its skills, prompts and themes too; see
 * resolveExplicitPath); a settings `extensions` entry, as in pi, only ever as extensions.
 * Installed packages (src/packages/) come last, project ones only once trusted.
 * Settings lists also take pi's patterns (see discovery-patterns.ts). Nothing here throws:
 * a path that yields nothing becomes an error entry saying what was expected.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { expandHome, getProjectConfigDir } from "../config/paths.ts";
import { applySettingsPatterns, isSettingsPattern, matchesExclusions, splitManifestEntries } from "../config/settings-patterns.ts";
import { declaredPackages } from "../packages/installed.ts";
import { manifestList, narrow } from "../packages/manifest.ts";

export type ExtensionScope = "user" | "project" | "temporary";

export interface ExtensionSource {
  /** Absolute path of the entry file. */
  path: string;
  /** How it was found, as in pi's `sourceInfo.source`: `cli` (-e), `local` (a settings path), `auto` (an extensions folder). */
  source: "cli" | "local" | "auto";
  scope: ExtensionScope;
  /** `package` when a package.json manifest listed it. */
  origin: "package" | "top-level";
  /** The folder the extension lives in: its package root for packages. */
  baseDir?: string;
}

export interface DiscoveryError {
  path: string;
  error: string;
}

export interface DiscoveryOptions {
  cwd: string;
  agentDir: string;
  /** `-e` / `--extension` values as typed; relative ones are taken from cwd. */
  cliPaths: string[];
  /** `extensions` of the global settings.json; relative ones are taken from agentDir. */
  userSettingsPaths: string[];
  /** `extensions` of `.xcsh/settings.json`; relative ones are taken from `<cwd>/.xcsh`. */
  projectSettingsPaths: string[];
  /** False until the project is trusted: its folder and settings paths are skipped. */
  includeProject: boolean;
  /** `--no-extensions`: only the CLI paths load. */
  noExtensions: boolean;
}

export interface DiscoveryResult {
  sources: ExtensionSource[];
  errors: DiscoveryError[];
}

/** Files auto-discovery picks up; a path named explicitly may be any module Bun imports. */
const AUTO_ENTRY_SUFFIXES = [".ts", ".js"];
const EXPLICIT_ENTRY_SUFFIXES = [".ts", ".js", ".mts", ".mjs", ".cts", ".cjs", ".tsx", ".jsx"];
const INDEX_FILES = ["index.ts", "index.js"];
/** package.json keys holding a manifest; ours first, then pi's so pi packages load unchanged. */
const MANIFEST_KEYS = ["xcsh", "pi"] as const;
/** The resource kinds besides extensions a package may offer (pi's package layout). */
const OTHER_RESOURCES = ["skills", "prompts", "themes"] as const;
const EXPECTED = 'expected a .ts/.js file, a folder with index.ts, or a package.json with "xcsh.extensions"';

export interface Entry {
  path: string;
  origin: ExtensionSource["origin"];
  baseDir: string;
}

export interface Found {
  entries: Entry[];
  errors: DiscoveryError[];
}

export function discoverExtensions(options: DiscoveryOptions): DiscoveryResult {
  const result = new SourceList();
  try {
    addCliPaths(result, options);
    if (!options.noExtensions) {
      if (options.includeProject) {
        const projectDir = getProjectConfigDir(options.cwd);
        addSettingsPaths(result, options.projectSettingsPaths, projectDir, "project");
        addAutoFolder(result, join(projectDir, "extensions"), options.projectSettingsPaths, projectDir, "project");
      }
      addSettingsPaths(result, options.userSettingsPaths, options.agentDir, "user");
      addAutoFolder(result, join(options.agentDir, "extensions"), options.userSettingsPaths, options.agentDir, "user");
      addInstalledPackages(result, options);
    }
  } catch (error) {
    // Defensive: every disk access below handles its own failures, but discovery must
    // never take start-up down with it.
    result.addError({ path: options.cwd, error: `Extension discovery failed: ${(error as Error).message}` });
  }
  return result.toResult();
}

/**
 * Packages declared in settings (`xcsh install`), project ones first and only once trusted:
 * each package's manifest entries, else its `extensions/` folder, else its index file,
 * narrowed by the declaration's `extensions` filter.
 */
function addInstalledPackages(result: SourceList, options: DiscoveryOptions): void {
  const declared = declaredPackages(options.cwd, options.agentDir, options.includeProject);
  declared.problems.forEach((problem) => result.addError({ path: problem.file, error: problem.message }));
  for (const pkg of declared.packages) {
    const stats = pkg.installed ? statOf(pkg.root) : undefined;
    if (stats?.isFile()) result.addFound(resolveExplicitPath(pkg.root, "package"), "local", pkg.scope); // a local source naming one extension file
    if (stats?.isDirectory() !== true) continue;
    const found = packageEntries(pkg.root);
    const kept = new Set(narrow(found.entries.map((entry) => entry.path), pkg.declaration.filters.extensions, pkg.root));
    result.addFound({ entries: found.entries.filter((entry) => kept.has(entry.path)), errors: found.errors }, "local", pkg.scope);
  }
}

export function packageEntries(root: string): Found {
  const manifest = readManifest(root);
  if (manifest.entries) return resolveManifestEntries(root, manifest.packageJson, manifest.key, manifest.entries, new Set());
  if (manifest.errors.length > 0) return { entries: [], errors: manifest.errors };
  const conventional = scanPackageConventionFolder(root, new Set());
  if (conventional) return conventional;
  if (offersOtherResources(root)) return { entries: [], errors: [] };
  const index = indexEntry(root);
  return { entries: index ? [{ ...index, origin: "package" }] : [], errors: [] };
}

/** Whether `<cwd>/.xcsh/extensions` holds anything that would load. */
export function hasProjectExtensions(cwd: string): boolean {
  return collectAutoFolder(join(getProjectConfigDir(cwd), "extensions")).entries.length > 0;
}

function addCliPaths(result: SourceList, options: DiscoveryOptions): void {
  for (const typed of options.cliPaths) {
    if (typed.trim() === "") continue;
    if (isRemoteSource(typed)) {
      result.addError({
        path: typed,
        // The command line installs `-e npm:…` before discovery (src/packages/temporary.ts); this is any other caller.
        error: `Cannot load ${typed} here: install it with xcsh install ${typed}, or pass its folder`,
      });
      continue;
    }
    result.addFound(resolveExplicitPath(resolveUserPath(typed, options.cwd), "package"), "cli", "temporary");
  }
}

/** Plain settings entries are paths; patterns (globs, !x, +x, -x) filter what they yield. */
function addSettingsPaths(result: SourceList, list: string[], baseDir: string, scope: ExtensionScope): void {
  const found: Found = { entries: [], errors: [] };
  for (const item of list) {
    // An empty entry would resolve to the base folder itself and scan all of it.
    if (item.trim() === "" || isSettingsPattern(item)) continue;
    const one = resolveExplicitPath(resolveUserPath(item, baseDir), "extensions-folder");
    found.entries.push(...one.entries);
    found.errors.push(...one.errors);
  }
  const enabled = applySettingsPatterns(found.entries.map((entry) => entry.path), list.filter(isSettingsPattern), baseDir);
  result.addFound({ entries: found.entries.filter((entry) => enabled.has(entry.path)), errors: found.errors }, "local", scope);
}

/** An extensions folder: missing is fine; the scope's settings exclusions still apply. */
function addAutoFolder(result: SourceList, folder: string, settingsList: string[], baseDir: string, scope: ExtensionScope): void {
  const found = collectAutoFolder(folder);
  const entries = found.entries.filter((entry) => !matchesExclusions(entry.path, settingsList, baseDir));
  result.addFound({ entries, errors: found.errors }, "auto", scope);
}

function collectAutoFolder(folder: string): Found {
  if (statOf(folder)?.isDirectory() !== true) return { entries: [], errors: [] };
  // Like pi, an extensions folder that is itself a package (manifest or index) is that one extension.
  return resolveFolder(folder, new Set()) ?? scanFolder(folder, new Set());
}

/**
 * How a named folder yields extensions. `package` (`-e`, pi's packages): a folder offering
 * skills, prompts or themes names its extensions only through its manifest or `extensions/`.
 * `extensions-folder` (settings' `extensions` list): as pi 1.6.0 reads that list, the folder
 * is one extension (manifest or index) or else a folder of them, whatever else it holds.
 */
type FolderRule = "package" | "extensions-folder";

/** A path named by a person: a file, or a folder that must yield at least one entry. */
function resolveExplicitPath(path: string, rule: FolderRule): Found {
  const stats = statOf(path);
  if (!stats) return failure(path, `No extension found at ${path}: the path does not exist`);
  if (stats.isFile()) {
    if (!hasSuffix(path, EXPLICIT_ENTRY_SUFFIXES)) {
      return failure(path, `Not an extension: ${path}: expected a file ending in ${EXPLICIT_ENTRY_SUFFIXES.join(", ")}`);
    }
    return { entries: [{ path, origin: "top-level", baseDir: dirname(path) }], errors: [] };
  }
  if (!stats.isDirectory()) return failure(path, `No extension found at ${path}: ${EXPECTED}`);
  const visited = new Set<string>();
  if (rule === "extensions-folder") {
    const found = resolveFolder(path, visited) ?? scanFolder(path, visited);
    if (found.entries.length > 0 || found.errors.length > 0) return found;
    // pi loads nothing here and says nothing; a package's folder is the likely mistake.
    const hint = isPackageLayout(path) ? `; ${path} is laid out as a package: list it under "packages" instead to load its extensions/, skills and prompts` : "";
    return failure(path, `No extension found at ${path}: ${EXPECTED}${hint}`);
  }
  // As in pi, a folder that offers skills, prompts or themes is a package: only its manifest
  // or extensions/ names extensions (pi's subagent example keeps its index.ts beside a
  // prompts/ folder, and `-e` of that folder loads its prompts, not the index).
  if (readManifest(path).entries === undefined && offersOtherResources(path)) return scanPackageConventionFolder(path, visited) ?? { entries: [], errors: [] };
  const found = resolveFolder(path, visited) ?? scanPackageConventionFolder(path, visited) ?? scanFolder(path, visited);
  if (found.entries.length === 0 && found.errors.length === 0) return failure(path, `No extension found at ${path}: ${EXPECTED}`);
  return found;
}

function isPackageLayout(root: string): boolean {
  return offersOtherResources(root) || statOf(join(root, "extensions"))?.isDirectory() === true;
}

/**
 * One extension folder: its manifest's entries, else its index file; undefined when it has
 * neither. `visited` stops a manifest that lists its own folder from going round forever.
 */
function resolveFolder(folder: string, visited: Set<string>): Found | undefined {
  const key = realPath(folder);
  if (visited.has(key)) return undefined;
  visited.add(key);
  const manifest = readManifest(folder);
  if (manifest.entries) {
    const found = resolveManifestEntries(folder, manifest.packageJson, manifest.key, manifest.entries, visited);
    if (found.entries.length > 0) return found;
    // pi falls back to the index file when nothing listed exists; we do too, and say why.
    const index = indexEntry(folder);
    return { entries: index ? [index] : [], errors: found.errors };
  }
  const index = indexEntry(folder);
  if (index) return { entries: [index], errors: manifest.errors };
  return manifest.errors.length > 0 ? { entries: [], errors: manifest.errors } : undefined;
}

function indexEntry(folder: string): Entry | undefined {
  for (const name of INDEX_FILES) {
    const path = join(folder, name);
    if (statOf(path)?.isFile()) return { path, origin: "top-level", baseDir: folder };
  }
  return undefined;
}

/** Whether a folder's manifest lists skills, prompts or themes, or it has one of those conventional folders. */
function offersOtherResources(root: string): boolean {
  return OTHER_RESOURCES.some((kind) => manifestList(root, kind) !== undefined || statOf(join(root, kind))?.isDirectory() === true);
}

/** A package without a manifest keeps its extensions in `extensions/` (pi's convention directory). */
function scanPackageConventionFolder(root: string, visited: Set<string>): Found | undefined {
  const conventional = join(root, "extensions");
  if (statOf(conventional)?.isDirectory() !== true) return undefined;
  const found = scanFolder(conventional, visited);
  if (found.entries.length === 0) return undefined;
  return { entries: found.entries.map((entry) => ({ ...entry, origin: "package", baseDir: root })), errors: found.errors };
}

/**
 * The contents of an extensions folder, sorted by name: each `.ts`/`.js` file, and each
 * subfolder that resolves (manifest or index). Other subfolders are helpers and skipped.
 */
function scanFolder(folder: string, visited: Set<string>): Found {
  const found: Found = { entries: [], errors: [] };
  let names: string[];
  try {
    names = readdirSync(folder).sort(byCodeUnits);
  } catch (error) {
    return failure(folder, `Cannot read extensions folder ${folder}: ${(error as Error).message}`);
  }
  for (const name of names) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const path = join(folder, name);
    const stats = statOf(path); // follows symlinks; a dangling one is skipped
    if (stats?.isFile() && hasSuffix(name, AUTO_ENTRY_SUFFIXES) && !isDeclarationFile(name)) {
      found.entries.push({ path, origin: "top-level", baseDir: folder });
    } else if (stats?.isDirectory()) {
      const sub = resolveFolder(path, visited);
      if (sub) {
        found.entries.push(...sub.entries);
        found.errors.push(...sub.errors);
      }
    }
  }
  return found;
}

interface Manifest {
  packageJson: string;
  key: string;
  /** The manifest's `extensions` list; undefined when the package.json has none. */
  entries?: string[];
  errors: DiscoveryError[];
}

function readManifest(folder: string): Manifest {
  const packageJson = join(folder, "package.json");
  const none = (errors: DiscoveryError[] = []): Manifest => ({ packageJson, key: "", errors });
  let text: string;
  try {
    text = readFileSync(packageJson, "utf8");
  } catch {
    return none(); // no package.json (or unreadable): a plain folder
  }
  let content: unknown;
  try {
    content = JSON.parse(text);
  } catch (error) {
    return none([{ path: packageJson, error: `Cannot read ${packageJson}: invalid JSON (${(error as Error).message})` }]);
  }
  for (const key of MANIFEST_KEYS) {
    const section = isRecord(content) ? content[key] : undefined;
    if (!isRecord(section) || section.extensions === undefined) continue;
    const list = section.extensions;
    if (!Array.isArray(list) || !list.every((item) => typeof item === "string")) {
      return none([{ path: packageJson, error: `${packageJson}: "${key}.extensions" must be a list of paths` }]);
    }
    return { packageJson, key, entries: list, errors: [] };
  }
  return none();
}

/**
 * A manifest's list: paths (files, or folders resolved like an extensions folder) and globs,
 * relative to the package root, minus `!` exclusions (pi's manifest format).
 */
function resolveManifestEntries(root: string, packageJson: string, key: string, list: string[], visited: Set<string>): Found {
  const found: Found = { entries: [], errors: [] };
  const { paths, globs, overrides } = splitManifestEntries(list);
  const add = (path: string) => found.entries.push({ path, origin: "package", baseDir: root });
  for (const item of paths) {
    const path = resolve(root, item);
    const stats = statOf(path);
    if (stats?.isFile()) add(path);
    else if (stats?.isDirectory()) {
      const sub = resolveFolder(path, visited) ?? scanFolder(path, visited);
      sub.entries.forEach((entry) => add(entry.path));
      found.errors.push(...sub.errors);
    } else {
      found.errors.push({ path, error: `${packageJson} lists "${item}" in "${key}.extensions", but ${path} does not exist` });
    }
  }
  for (const pattern of globs) {
    for (const path of globFiles(root, pattern)) add(path);
  }
  const enabled = applySettingsPatterns(found.entries.map((entry) => entry.path), overrides, root);
  found.entries = found.entries.filter((entry) => enabled.has(entry.path));
  return found;
}

function globFiles(root: string, pattern: string): string[] {
  try {
    const matches = [...new Bun.Glob(pattern).scanSync({ cwd: root, absolute: true, onlyFiles: true, dot: false })];
    return matches.filter((path) => hasSuffix(path, EXPLICIT_ENTRY_SUFFIXES) && !isDeclarationFile(path)).sort(byCodeUnits);
  } catch {
    return [];
  }
}

/** Collects sources in discovery order, keeping the first of each real path. */
class SourceList {
  private readonly sources: ExtensionSource[] = [];
  private readonly errors: DiscoveryError[] = [];
  private readonly seen = new Set<string>();
  private readonly seenErrors = new Set<string>();

  addFound(found: Found, source: ExtensionSource["source"], scope: ExtensionScope): void {
    for (const entry of found.entries) {
      const key = realPath(entry.path);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.sources.push({ path: entry.path, source, scope, origin: entry.origin, baseDir: entry.baseDir });
    }
    found.errors.forEach((error) => this.addError(error));
  }

  addError(error: DiscoveryError): void {
    const key = `${error.path}\0${error.error}`;
    if (this.seenErrors.has(key)) return;
    this.seenErrors.add(key);
    this.errors.push(error);
  }

  toResult(): DiscoveryResult {
    return { sources: this.sources, errors: this.errors };
  }
}

/** `~` is the home folder; anything else relative is taken from `baseDir` (pi's rule for settings and -e). */
function resolveUserPath(typed: string, baseDir: string): string {
  return resolve(baseDir, expandHome(typed.trim()));
}

function isRemoteSource(typed: string): boolean {
  return /^(npm:|git:|git@|https?:\/\/|ssh:\/\/)/.test(typed.trim());
}

function failure(path: string, error: string): Found {
  return { entries: [], errors: [{ path, error }] };
}

function statOf(path: string): ReturnType<typeof statSync> | undefined {
  try {
    // Usually nothing is there: answered without building an error (see resources/markdown-file.ts).
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function hasSuffix(name: string, suffixes: readonly string[]): boolean {
  return suffixes.some((suffix) => name.endsWith(suffix));
}

/** `types.d.ts` beside an extension describes it; it is not one. */
function isDeclarationFile(name: string): boolean {
  return /\.d\.[cm]?ts$/.test(name);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Plain code-unit order: the same on every machine and locale. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
