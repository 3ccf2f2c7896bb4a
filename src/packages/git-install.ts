/**
 * git sources, cloned with the system `git` to `<scope>/git/<host>/<path>`. A clone is
 * made in a sibling temp folder and renamed into place only once it (and its npm
 * dependencies) succeeded, so a failed install leaves no checkout behind. A pinned ref
 * is checked out and never moved by `update`; an unpinned checkout fast-forwards.
 *
 * git runs as a program of xcsh's own (src/sandbox/own-programs.ts): with no fsmonitor,
 * hooks, pager or `ext::` transport whatever a checkout's config says, in the checkout's
 * folder (the clone in its parent, never the project), without the provider keys. The
 * person's own git configuration stays, so their credential helper or ssh reaches a
 * private repository.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { installDependencies } from "./npm-install.ts";
import { installedRoot, type ScopePlaces } from "./locations.ts";
import { lastLines, progress, runCommand, type CommandResult } from "./run-command.ts";
import { ownGit, whichOwnProgram } from "../sandbox/own-programs.ts";
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
    const clone = await git(["clone", "--quiet", source.repo, temp], dirname(dest));
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
  const fetch = await git(["fetch", "--quiet", "--tags", "origin"], dest);
  if (!fetch.ok) throw new Error(`Cannot update ${source.typed}: git fetch failed (no network, or the repository moved?).\n${lastLines(fetch.output)}`);
  if (source.ref) await checkout(source, dest);
  else {
    const pull = await git(["merge", "--ff-only", "--quiet", "@{upstream}"], dest);
    if (!pull.ok) throw new Error(`Cannot update ${source.typed}: the checkout in ${dest} has local changes or diverged; remove and install it again.\n${lastLines(pull.output)}`);
  }
  await installGitDependencies(source, dest, npmCommand);
}

async function checkout(source: GitSource, folder: string): Promise<void> {
  const result = await git(["checkout", "--quiet", source.ref!], folder);
  if (!result.ok) throw new Error(`Cannot install ${source.typed}: the repository has no branch, tag or commit "${source.ref}".\n${lastLines(result.output, 3)}`);
}

/** git with the own programs' options and environment (requireGit has seen it installed). */
function git(args: string[], folder: string): Promise<CommandResult> {
  const { cmd, env, cwd } = ownGit(args, folder);
  return runCommand(cmd, { cwd, env });
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
  if (whichOwnProgram("git")) return;
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
