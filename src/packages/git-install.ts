/**
 * git sources, cloned with the system `git` to `<scope>/git/<host>/<path>`. A clone is
 * made in a sibling temp folder and renamed into place only once it (and its npm
 * dependencies) succeeded, so a failed install leaves no checkout behind. A pinned ref
 * is checked out and never moved by `update`; an unpinned checkout fast-forwards.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { installDependencies } from "./npm-install.ts";
import { installedRoot, type ScopePlaces } from "./locations.ts";
import { lastLines, progress, runCommand } from "./run-command.ts";
import type { PackageSource } from "./source.ts";

type GitSource = Extract<PackageSource, { type: "git" }>;

export async function installGit(source: GitSource, places: ScopePlaces, npmCommand: string[] | undefined): Promise<void> {
  const dest = installedRoot(source, places);
  if (existsSync(dest)) return updateGit(source, places, npmCommand);
  await requireGit(source);
  const temp = `${dest}.installing-${process.pid}`;
  mkdirSync(dirname(dest), { recursive: true });
  rmSync(temp, { recursive: true, force: true });
  try {
    progress(`Cloning ${source.repo}${source.ref ? ` at ${source.ref}` : ""}…`);
    const clone = await runCommand(["git", "clone", "--quiet", source.repo, temp], { env: { GIT_TERMINAL_PROMPT: "0" } });
    if (!clone.ok) throw new Error(cloneFailure(source, clone.output));
    if (source.ref) await checkout(source, temp);
    await installGitDependencies(source, temp, npmCommand);
    renameSync(temp, dest);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

export async function updateGit(source: GitSource, places: ScopePlaces, npmCommand: string[] | undefined): Promise<void> {
  const dest = installedRoot(source, places);
  if (!existsSync(dest)) return installGit(source, places, npmCommand);
  await requireGit(source);
  progress(`Updating ${source.typed} in ${dest}…`);
  const fetch = await runCommand(["git", "-C", dest, "fetch", "--quiet", "--tags", "origin"], { env: { GIT_TERMINAL_PROMPT: "0" } });
  if (!fetch.ok) throw new Error(`Cannot update ${source.typed}: git fetch failed (no network, or the repository moved?).\n${lastLines(fetch.output)}`);
  if (source.ref) await checkout(source, dest);
  else {
    const pull = await runCommand(["git", "-C", dest, "merge", "--ff-only", "--quiet", "@{upstream}"]);
    if (!pull.ok) throw new Error(`Cannot update ${source.typed}: the checkout in ${dest} has local changes or diverged; remove and install it again.\n${lastLines(pull.output)}`);
  }
  await installGitDependencies(source, dest, npmCommand);
}

async function checkout(source: GitSource, folder: string): Promise<void> {
  const result = await runCommand(["git", "-C", folder, "checkout", "--quiet", source.ref!]);
  if (!result.ok) throw new Error(`Cannot install ${source.typed}: the repository has no branch, tag or commit "${source.ref}".\n${lastLines(result.output, 3)}`);
}

async function installGitDependencies(source: GitSource, folder: string, npmCommand: string[] | undefined): Promise<void> {
  if (!hasDependencies(folder)) return;
  progress(`Installing the dependencies of ${source.typed}…`);
  const result = await installDependencies(folder, npmCommand);
  if (!result.ok) throw new Error(`Cannot install ${source.typed}: its npm dependencies failed to install.\n${lastLines(result.output)}`);
}

function hasDependencies(folder: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
    return typeof manifest?.dependencies === "object" && manifest.dependencies !== null && Object.keys(manifest.dependencies).length > 0;
  } catch {
    return false;
  }
}

async function requireGit(source: GitSource): Promise<void> {
  if (Bun.which("git")) return;
  throw new Error(`Cannot install ${source.typed}: git is not installed (git sources are cloned with the system git). Install git, or use an npm: source or a local path.`);
}

function cloneFailure(source: GitSource, output: string): string {
  const what = `Cannot install ${source.typed}`;
  if (/not found|does not exist|Repository not found|not appear to be a git repository/i.test(output)) {
    return `${what}: no git repository at ${source.repo}. Check the host, owner and name (git:<host>/<owner>/<repo>[@<ref>]).\n${lastLines(output, 3)}`;
  }
  if (/Could not resolve host|unable to access|Connection refused|timed out|Network is unreachable/i.test(output)) {
    return `${what}: ${source.host} could not be reached (no network?). Check your connection and try again.\n${lastLines(output, 3)}`;
  }
  return `${what}: git clone failed.\n${lastLines(output)}`;
}
