/**
 * The few file-system facts module resolution asks, each answered once: what a
 * path is (file, folder, nothing) and what a folder's package.json says. A
 * resolution walks the same folders again and again (every import climbs the
 * same node_modules chain), so the answers are cached until `forgetFileSystem`
 * — the loader clears them before each batch of extensions, so an `npm install`
 * between two reloads is seen.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export type PathKind = "file" | "directory" | "missing";

/** The parts of package.json that resolution reads; the rest is kept for resolve.exports. */
export interface PackageJson {
  name?: unknown;
  type?: unknown;
  main?: unknown;
  module?: unknown;
  exports?: unknown;
  imports?: unknown;
  [field: string]: unknown;
}

const kinds = new Map<string, PathKind>();
const realPaths = new Map<string, string>();
const packages = new Map<string, PackageJson | null>();
const scopes = new Map<string, string | null>();

export function pathKind(path: string): PathKind {
  let kind = kinds.get(path);
  if (kind === undefined) {
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(path, { throwIfNoEntry: false });
    } catch {
      stats = undefined; // unreadable, or not a path at all (a NUL in a specifier): nothing there to load
    }
    kind = stats === undefined ? "missing" : stats.isDirectory() ? "directory" : "file";
    kinds.set(path, kind);
  }
  return kind;
}

/**
 * The path with every symlink followed, as Node resolves: pnpm (and bun's
 * isolated installs) link each package into place, and its own dependencies
 * sit beside its real folder, not beside the link.
 */
export function realPath(path: string): string {
  let real = realPaths.get(path);
  if (real === undefined) {
    try {
      real = realpathSync(path);
    } catch {
      real = path;
    }
    realPaths.set(path, real);
  }
  return real;
}

export const isFile = (path: string): boolean => pathKind(path) === "file";
export const isDirectory = (path: string): boolean => pathKind(path) === "directory";

/**
 * The package.json in `directory`, or null when there is none. A file that is
 * not a JSON object is an error naming the file: Node refuses such a package
 * too, and "cannot find package" would send the user looking in the wrong place.
 */
export function readPackageJson(directory: string): PackageJson | null {
  const cached = packages.get(directory);
  if (cached !== undefined) return cached;
  const path = join(directory, "package.json");
  let manifest: PackageJson | null = null;
  if (isFile(path)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, "utf8"));
    } catch (error) {
      throw new Error(`Invalid package.json at ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new Error(`Invalid package.json at ${path}: expected a JSON object`);
    }
    manifest = parsed as PackageJson;
  }
  packages.set(directory, manifest);
  return manifest;
}

/** The folder of the package.json nearest above `directory` (itself included): the package scope. */
export function packageScopeOf(directory: string): string | null {
  const cached = scopes.get(directory);
  if (cached !== undefined) return cached;
  let scope: string | null;
  // A package's scope never reaches past the node_modules folder it sits in.
  if (basename(directory) === "node_modules") scope = null;
  else if (readPackageJson(directory) !== null) scope = directory;
  else {
    const parent = dirname(directory);
    scope = parent === directory ? null : packageScopeOf(parent);
  }
  scopes.set(directory, scope);
  return scope;
}

export function forgetFileSystem(): void {
  kinds.clear();
  realPaths.clear();
  packages.clear();
  scopes.clear();
}
