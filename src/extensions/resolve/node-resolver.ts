/**
 * Where an extension's import or require of a module lands on disk, found the
 * way Node finds it (with Bun's leniencies for TypeScript): relative and
 * absolute paths with extension guessing and folder indexes; bare names looked
 * up in each ancestor's node_modules; a package's `exports` map (or, without
 * one, its `main` field, else `module`, else its index); `#imports` maps; a package
 * importing itself by name. The conditions are Bun's: `bun`, `node`,
 * `import` or `require`, `default`. resolve.exports reads the maps.
 *
 * Why this exists: the compiled binary's own resolver finds a package only by
 * its index.js (no `main`, no `exports`). `resolveModule` answers `undefined`
 * for what it does not handle — builtins, URLs, xcsh's host modules — and for
 * what cannot be found, so the caller leaves those to Bun, whose error names
 * the missing package. Answers are cached per importing folder.
 */
import { basename, dirname, isAbsolute, join, resolve as resolvePath } from "node:path";
import { isBuiltin } from "node:module";
import { exports as exportsTargets, imports as importsTargets } from "resolve.exports";
import { isDirectory, isFile, packageScopeOf, readPackageJson, realPath, type PackageJson } from "./file-system.ts";

export type ResolutionKind = "import" | "require";

export interface ResolverOptions {
  /** The packages xcsh serves from inside itself: a specifier naming one (or its subpath) is never looked up on disk. */
  hostPackages: ReadonlySet<string>;
  /** Whether xcsh serves this very specifier (`typebox/value` yes, `typebox/build/x.mjs` no). */
  servesHostModule(specifier: string): boolean;
}

/** Bun tries these, in this order, after a specifier without its extension. */
const GUESSED_EXTENSIONS = [".tsx", ".jsx", ".ts", ".mjs", ".js", ".cjs", ".mts", ".cts", ".json", ".node"];
/** TypeScript sources are imported by their output's name: `./util.js` is util.ts until it is built. */
const TYPESCRIPT_TWINS: Record<string, string[]> = { ".js": [".ts", ".tsx"], ".jsx": [".tsx"], ".mjs": [".mts"], ".cjs": [".cts"] };
/** Bun's order, for import and require alike: `main`, and `module` only for a package without one. */
const MAIN_FIELDS = ["main", "module"];
const CONDITIONS = ["bun"];

const resolutions = new Map<string, string | null>();

export function forgetResolutions(): void {
  resolutions.clear();
}

/** True for `node:fs`, `fs`, `bun:sqlite`, `data:…`, `https://…`: nothing for resolution to find on disk. */
function isOutsideFileSystem(specifier: string): boolean {
  if (/^[a-z]:[\\/]/i.test(specifier)) return false; // a Windows drive path
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) return true;
  return specifier === "bun" || isBuiltin(specifier);
}

function isPathSpecifier(specifier: string): boolean {
  return specifier.startsWith("./") || specifier.startsWith("../") || specifier === "." || specifier === ".." || isAbsolute(specifier);
}

/** `@scope/name/sub/path` → ["@scope/name", "./sub/path"]; `name` → ["name", "."]. */
export function splitPackageSpecifier(specifier: string): [name: string, subpath: string] | undefined {
  const parts = specifier.split("/");
  const nameLength = specifier.startsWith("@") ? 2 : 1;
  if (parts.length < nameLength || parts.slice(0, nameLength).some((part) => part === "")) return undefined;
  const rest = parts.slice(nameLength).join("/");
  return [parts.slice(0, nameLength).join("/"), rest ? `./${rest}` : "."];
}

/** True for what resolution never looks for on disk: builtins, URLs, xcsh's host modules. */
export function isLeftToBun(specifier: string, options: ResolverOptions): boolean {
  return specifier === "" || isOutsideFileSystem(specifier) || options.hostPackages.has(splitPackageSpecifier(specifier)?.[0] ?? "");
}

/**
 * The file `specifier` names when imported (or required) from `fromFile`, or
 * undefined when resolution is Bun's to do or nothing matches.
 */
export function resolveModule(specifier: string, fromFile: string, kind: ResolutionKind, options: ResolverOptions): string | undefined {
  if (isLeftToBun(specifier, options)) return undefined;
  // Both ends are real paths: a linked package finds its dependencies beside its real folder,
  // and a file reached through two links is one module.
  const fromDirectory = realPath(dirname(fromFile));
  const key = `${kind}\0${fromDirectory}\0${specifier}`;
  let found = resolutions.get(key);
  if (found === undefined) {
    const target = resolveUncached(specifier, fromDirectory, kind, options);
    found = target === undefined ? null : realPath(target);
    resolutions.set(key, found);
  }
  return found ?? undefined;
}

function resolveUncached(specifier: string, fromDirectory: string, kind: ResolutionKind, options: ResolverOptions): string | undefined {
  if (isPathSpecifier(specifier)) {
    const target = resolvePath(fromDirectory, specifier);
    return loadAsFile(target) ?? loadAsDirectory(target, kind);
  }
  if (specifier.startsWith("#")) return resolvePackageImport(specifier, fromDirectory, kind, options);
  const split = splitPackageSpecifier(specifier);
  if (!split) return undefined;
  const [name, subpath] = split;
  return resolveSelf(name, subpath, fromDirectory, kind) ?? resolveFromNodeModules(name, subpath, fromDirectory, kind);
}

/** The path itself, its TypeScript twin, or the path with a guessed extension. */
function loadAsFile(path: string): string | undefined {
  if (isFile(path)) return path;
  const extension = /\.[cm]?jsx?$/.exec(path)?.[0];
  for (const twin of (extension && TYPESCRIPT_TWINS[extension]) || []) {
    const candidate = path.slice(0, -extension!.length) + twin;
    if (isFile(candidate)) return candidate;
  }
  for (const guessed of GUESSED_EXTENSIONS) {
    if (isFile(path + guessed)) return path + guessed;
  }
  return undefined;
}

function loadIndex(directory: string): string | undefined {
  return isDirectory(directory) ? loadAsFile(join(directory, "index")) : undefined;
}

/** A folder: its package.json's `module`/`main` (each may itself be a folder), else its index. */
function loadAsDirectory(directory: string, kind: ResolutionKind): string | undefined {
  if (!isDirectory(directory)) return undefined;
  const manifest = readPackageJson(directory);
  for (const field of MAIN_FIELDS) {
    const main = manifest?.[field];
    if (typeof main !== "string" || main === "") continue;
    const target = join(directory, main);
    const found = loadAsFile(target) ?? loadIndex(target);
    if (found) return found;
  }
  return loadIndex(directory);
}

/**
 * A package's `exports` target for `subpath`. A package that has an exports map
 * hides everything it does not list, so a miss here is final.
 */
function resolveExports(packageDirectory: string, manifest: PackageJson, subpath: string, kind: ResolutionKind): string | undefined {
  let targets: readonly string[] | void;
  try {
    targets = exportsTargets(manifest, subpath, { conditions: CONDITIONS, require: kind === "require" });
  } catch {
    return undefined;
  }
  for (const target of targets ?? []) {
    const found = loadAsFile(join(packageDirectory, target));
    if (found) return found;
  }
  return undefined;
}

/** `import "own-name/sub"` from inside the package `own-name` (Node allows it when the package has exports). */
function resolveSelf(name: string, subpath: string, fromDirectory: string, kind: ResolutionKind): string | undefined {
  const scope = packageScopeOf(fromDirectory);
  const manifest = scope ? readPackageJson(scope) : null;
  if (!scope || !manifest || manifest.name !== name || manifest.exports === undefined) return undefined;
  return resolveExports(scope, manifest, subpath, kind);
}

function resolveFromNodeModules(name: string, subpath: string, fromDirectory: string, kind: ResolutionKind): string | undefined {
  for (let directory = fromDirectory; ; ) {
    // `a/node_modules/node_modules` is never where a package lives.
    if (basename(directory) !== "node_modules") {
      const packageDirectory = join(directory, "node_modules", name);
      if (isDirectory(packageDirectory)) {
        const manifest = readPackageJson(packageDirectory);
        if (manifest?.exports !== undefined && manifest.exports !== null) return resolveExports(packageDirectory, manifest, subpath, kind);
        const target = join(packageDirectory, subpath);
        const found = subpath === "." ? loadAsDirectory(packageDirectory, kind) : (loadAsFile(target) ?? loadAsDirectory(target, kind));
        if (found) return found;
      }
    }
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
}

/** `#name` through the importing package's `imports` map; a target may be a file of the package or another package. */
function resolvePackageImport(specifier: string, fromDirectory: string, kind: ResolutionKind, options: ResolverOptions): string | undefined {
  const scope = packageScopeOf(fromDirectory);
  const manifest = scope ? readPackageJson(scope) : null;
  if (!scope || !manifest?.imports) return undefined;
  let targets: readonly string[] | void;
  try {
    targets = importsTargets(manifest, specifier, { conditions: CONDITIONS, require: kind === "require" });
  } catch {
    return undefined;
  }
  for (const target of targets ?? []) {
    // A target is a file of the package or another package's name; `#x` mapped to `#y` would be a loop.
    if (target.startsWith("#")) continue;
    const found = target.startsWith("./") ? loadAsFile(join(scope, target)) : resolveModule(target, join(scope, "package.json"), kind, options);
    if (found) return found;
  }
  return undefined;
}
