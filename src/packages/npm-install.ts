/**
 * npm sources, installed with the package manager inside the binary (a compiled Bun
 * executable run with BUN_BE_BUN=1 is Bun) into one npm project per scope, so no node or
 * npm is needed. Settings `npmCommand` (e.g. ["npm"] or ["pnpm"]) replaces it, called
 * npm's way. The registry is the person's: Bun reads NPM_CONFIG_REGISTRY and .npmrc.
 * A failed step puts the project's package.json and lockfile back as they were, and
 * removes a package folder it had just created, so nothing half-installed is left.
 *
 * No lifecycle script runs (`--ignore-scripts`, to Bun and to `npmCommand` alike): not an
 * npm package's, not a git checkout's own (its package.json is the project installed in),
 * not a dependency's, whatever `trustedDependencies` the package lists. Installing is
 * fetching code; running it is what loading the package does, once trusted. Bun alone
 * would run a git checkout's scripts and those of dependencies on its own trusted list.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOST_PACKAGES } from "../extensions/host-modules.ts";
import { installedRoot, type ScopePlaces } from "./locations.ts";
import { lastLines, ownBunCommand, progress, runCommand } from "./run-command.ts";
import type { PackageSource } from "./source.ts";

type NpmSource = Extract<PackageSource, { type: "npm" }>;

const PROJECT_FILES = ["package.json", "bun.lock", "bun.lockb", "package-lock.json"];

/** pi's own packages among those xcsh serves (typebox is a real package and stays one). */
const SERVED_PI_PACKAGES = [...HOST_PACKAGES].filter((name) => name.startsWith("@earendil-works/") || name.startsWith("@mariozechner/"));

/** Installs one npm package: its pinned version, else the latest (so it also updates). */
export async function installNpm(source: NpmSource, places: ScopePlaces, npmCommand: string[] | undefined): Promise<void> {
  const root = places.npmRoot;
  mkdirSync(root, { recursive: true });
  const manifest = join(root, "package.json");
  if (!existsSync(manifest)) writeFileSync(manifest, JSON.stringify({ name: "xcsh-packages", private: true }, null, 2) + "\n");
  pinHostPackages(root);
  const spec = `${source.name}@${source.version ?? "latest"}`;
  const target = installedRoot(source, places);
  const existedBefore = existsSync(target);
  const snapshot = PROJECT_FILES.map((name) => ({ path: join(root, name), content: readOrUndefined(join(root, name)) }));
  progress(`Installing ${source.typed} into ${root}…`);
  const result = await runPackageManager(npmCommand, ["add", spec], ["install", spec], root);
  if (result.ok && existsSync(target)) return;
  for (const file of snapshot) {
    if (file.content === undefined) rmSync(file.path, { force: true });
    else writeFileSync(file.path, file.content);
  }
  if (!existedBefore) rmSync(target, { recursive: true, force: true });
  throw new Error(npmFailure(source, result.output, result.missing === true, npmCommand));
}

export async function removeNpm(source: NpmSource, places: ScopePlaces, npmCommand: string[] | undefined): Promise<void> {
  if (!existsSync(join(places.npmRoot, "package.json"))) return;
  progress(`Removing ${source.name} from ${places.npmRoot}…`);
  const result = await runPackageManager(npmCommand, ["remove", source.name], ["uninstall", source.name], places.npmRoot);
  // The declaration is gone either way; a folder left behind would still be found by nothing.
  if (!result.ok) rmSync(installedRoot(source, places), { recursive: true, force: true });
}

/** The version of pi's packages that xcsh serves in their place. */
const SERVED_PI_VERSION = "0.87.1";

/**
 * pi packages name pi's own packages (pi-coding-agent, pi-tui, …) as peers or
 * dependencies. xcsh serves those from inside the binary, so the npm project overrides
 * each with an empty local stand-in: nothing of pi is downloaded (pi-coding-agent alone
 * pulls in ~150 MB), and a registry that lacks one of pi's own dependencies cannot
 * fail an install of a package that merely names pi.
 */
function pinHostPackages(root: string): void {
  const manifestPath = join(root, "package.json");
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  } catch {
    return; // Not ours to repair: the package manager reports a broken package.json itself.
  }
  const overrides = { ...((manifest.overrides as Record<string, string> | undefined) ?? {}) };
  for (const name of SERVED_PI_PACKAGES) {
    const folder = join(root, "host-packages", name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "package.json"), JSON.stringify({ name, version: SERVED_PI_VERSION, description: "Served by xcsh itself" }, null, 2) + "\n");
    overrides[name] = `file:./host-packages/${name}`;
  }
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, overrides }, null, 2) + "\n");
}

/** Installs a package folder's own dependencies (a git checkout), without devDependencies or peers. */
export async function installDependencies(folder: string, npmCommand: string[] | undefined): Promise<{ ok: boolean; output: string }> {
  return runPackageManager(npmCommand, ["install", "--production"], ["install", "--omit=dev"], folder);
}

/**
 * Peers are left out: pi packages name the host's modules (pi-coding-agent, pi-tui, …)
 * as peers, and xcsh serves those itself. Scripts are left out: see the header.
 */
async function runPackageManager(npmCommand: string[] | undefined, bunArgs: string[], npmArgs: string[], cwd: string) {
  if (npmCommand && npmCommand.length > 0) {
    return runCommand([...npmCommand, ...npmArgs, "--omit=peer", "--ignore-scripts", "--prefix", cwd], { cwd });
  }
  const bun = ownBunCommand();
  return runCommand([...bun.argv, ...bunArgs, "--omit=peer", "--ignore-scripts", "--cwd", cwd], { cwd, env: bun.env });
}

function npmFailure(source: NpmSource, output: string, missing: boolean, npmCommand: string[] | undefined): string {
  const what = `Cannot install ${source.typed}`;
  if (missing) return `${what}: ${npmCommand?.[0] ?? "the package manager"} could not be started; check "npmCommand" in settings.json`;
  if (/\b404\b|not found/i.test(output) && !/version/i.test(output)) {
    const absent = missingPackageIn(output) ?? source.name;
    if (absent !== source.name) {
      return `${what}: it depends on "${absent}", which the registry does not have (an unpublished or private package?). Check the registry (NPM_CONFIG_REGISTRY or .npmrc), or ask the package's author.`;
    }
    return `${what}: the registry has no package named "${source.name}". Check the name (npm:<name>[@<version>]) and the registry (NPM_CONFIG_REGISTRY or .npmrc).`;
  }
  if (/No version matching|version .* not found|ETARGET/i.test(output)) {
    return `${what}: "${source.name}" has no version matching "${source.version ?? "latest"}". Pick a published version, or leave the version out for the latest.`;
  }
  if (/ConnectionRefused|ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|network|timed? ?out|UnableToConnect|FailedToOpenSocket/i.test(output)) {
    return `${what}: the registry could not be reached (no network?). Check your connection, or the registry set in NPM_CONFIG_REGISTRY or .npmrc.\n${lastLines(output, 3)}`;
  }
  return `${what}:\n${lastLines(output)}`;
}

/** The package a registry answered 404 for, from Bun's `GET <registry>/<name> - 404` line. */
function missingPackageIn(output: string): string | undefined {
  const url = /GET (\S+) - 404/.exec(output)?.[1];
  if (!url) return undefined;
  try {
    const path = decodeURIComponent(new URL(url).pathname).replace(/^\/+/, "");
    // A scoped name keeps its scope; a registry under a sub-path (…/npm/<name>) ends with the name.
    const parts = path.split("/");
    const scoped = parts.findIndex((part) => part.startsWith("@"));
    return scoped !== -1 && scoped + 1 < parts.length ? `${parts[scoped]}/${parts[scoped + 1]}` : parts.at(-1) || undefined;
  } catch {
    return undefined;
  }
}

function readOrUndefined(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}
