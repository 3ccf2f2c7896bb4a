/**
 * `xcsh install | remove | uninstall | update | list`: pi's package commands. Each reads
 * and writes one scope's settings `packages` list (user: `<agentDir>/settings.json`;
 * `-l`: the project's `.xcsh/settings.json`, only once the project is trusted) and the
 * installed copies (src/packages/locations.ts). Installing happens before the settings
 * change, so a failure leaves both as they were. Progress goes to stderr, the outcome to
 * stdout, a failure to stderr with exit code 1 (2 for a usage mistake).
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { getAgentDir } from "../config/paths.ts";
import { declarationsOf, findDeclaration, readSettingsObject, writePackages, type PackageDeclaration } from "./declarations.ts";
import { installGit, updateGit } from "./git-install.ts";
import { projectTrustedWithoutAsking } from "./installed.ts";
import { installedRoot, scopePlaces, type PackageScope, type ScopePlaces } from "./locations.ts";
import { installNpm, removeNpm } from "./npm-install.ts";
import { isPinned, parseSource, sourceIdentity, type PackageSource } from "./source.ts";

export const PACKAGE_COMMANDS: readonly string[] = ["install", "remove", "uninstall", "update", "list"];

const USAGE: Record<string, string> = {
  install: "Usage: xcsh install <source> [-l]\n  <source>: npm:<name>[@<version>], git:<host>/<owner>/<repo>[@<ref>], an https:// git URL, or a local path\n  -l, --local  declare it in the project's .xcsh/settings.json (the project must be trusted)\n",
  remove: "Usage: xcsh remove <source> [-l]\n  Removes the package's declaration and its installed copy.\n",
  update:
    "Usage: xcsh update [<source>] | xcsh update --models\n  Updates every installed package (or the one named); pinned versions and refs are kept.\n  --models: refresh the model catalog instead (xcsh models update).\n",
  list: "Usage: xcsh list\n  Lists the declared packages of the user and the project, with where they are installed.\n",
};

class UsageError extends Error {}

interface Invocation {
  command: string;
  positional: string[];
  local: boolean;
  cliTrust: boolean | undefined;
  help: boolean;
}

export async function runPackageCommand(argv: string[], cwd = process.cwd()): Promise<number> {
  try {
    const invocation = parseInvocation(argv);
    const usageKey = invocation.command === "uninstall" ? "remove" : invocation.command;
    if (invocation.help) {
      process.stdout.write(USAGE[usageKey]!);
      return 0;
    }
    const agentDir = getAgentDir();
    switch (invocation.command) {
      case "install":
        return await install(invocation, cwd, agentDir);
      case "remove":
      case "uninstall":
        return await remove(invocation, cwd, agentDir);
      case "update":
        return await update(invocation, cwd, agentDir);
      default:
        return list(invocation, cwd, agentDir);
    }
  } catch (error) {
    const usage = error instanceof UsageError;
    process.stderr.write(`xcsh: ${(error as Error).message}\n`);
    return usage ? 2 : 1;
  }
}

function parseInvocation(argv: string[]): Invocation {
  const [command = "", ...rest] = argv;
  const invocation: Invocation = { command, positional: [], local: false, cliTrust: undefined, help: false };
  for (const arg of rest) {
    if (arg === "-l" || arg === "--local") invocation.local = true;
    else if (arg === "--trust-project") invocation.cliTrust = true;
    else if (arg === "--no-trust-project") invocation.cliTrust = false;
    else if (arg === "-h" || arg === "--help") invocation.help = true;
    else if (command === "update" && (arg === "--extensions" || arg === "--all")) continue; // pi's spellings of "every package"
    else if (command === "update" && (arg === "--self" || arg === "self" || arg === "pi")) {
      throw new UsageError("xcsh update updates packages only; to update xcsh itself, install a newer release");
    } else if (arg.startsWith("-") && arg.length > 1) throw new UsageError(`xcsh ${command}: unknown option ${arg}. Run xcsh ${command} --help for usage.`);
    else invocation.positional.push(arg);
  }
  const wanted = command === "install" || command === "remove" || command === "uninstall" ? 1 : command === "update" ? -1 : 0;
  if (!invocation.help) {
    if (wanted === 1 && invocation.positional.length !== 1) throw new UsageError(`xcsh ${command} takes one source. Run xcsh ${command} --help for usage.`);
    if (wanted === 0 && invocation.positional.length > 0) throw new UsageError(`xcsh ${command} takes no arguments.`);
    if (wanted === -1 && invocation.positional.length > 1) throw new UsageError("xcsh update takes at most one source.");
  }
  return invocation;
}

/** The scope a command writes, refusing an untrusted project: its packages would run code. */
function writableScope(invocation: Invocation, cwd: string, agentDir: string): ScopePlaces {
  const scope: PackageScope = invocation.local ? "project" : "user";
  if (scope === "project" && !projectTrusted(invocation, cwd, agentDir)) {
    throw new Error(
      `the project ${cwd} is not trusted, so its packages are neither installed nor loaded. ` +
        `Trust it (add --trust-project, answer yes when xcsh asks, or set "defaultProjectTrust": "trust"), or leave out -l to install for yourself.`,
    );
  }
  return scopePlaces(scope, cwd, agentDir);
}

function projectTrusted(invocation: Invocation, cwd: string, agentDir: string): boolean {
  if (invocation.cliTrust !== undefined) return invocation.cliTrust;
  return projectTrustedWithoutAsking(cwd, agentDir, []);
}

async function install(invocation: Invocation, cwd: string, agentDir: string): Promise<number> {
  const places = writableScope(invocation, cwd, agentDir);
  const source = parsed(invocation.positional[0]!, cwd);
  const settings = readScopeSettings(places);
  const npmCommand = npmCommandFor(places, cwd, agentDir);
  await installSource(source, places, npmCommand);
  const declared = declarationsOf(settings, places.baseDir);
  const packages = Array.isArray(settings.packages) ? [...settings.packages] : [];
  const stored = source.type === "local" ? source.path : source.typed;
  const index = findDeclaration(declared, source);
  if (index >= 0) {
    const position = packages.indexOf(declared.declarations[index]!.raw);
    const old = declared.declarations[index]!.raw;
    packages[position] = typeof old === "object" && old !== null ? { ...(old as Record<string, unknown>), source: stored } : stored;
  } else packages.push(stored);
  writePackages(places.settingsFile, settings, packages);
  const version = installedVersion(source, installedRoot(source, places));
  process.stdout.write(`Installed ${source.typed}${version ? ` (${version})` : ""} for ${scopeLabel(places)}: declared in ${places.settingsFile}\n`);
  return 0;
}

async function installSource(source: PackageSource, places: ScopePlaces, npmCommand: string[] | undefined): Promise<void> {
  if (source.type === "npm") return installNpm(source, places, npmCommand);
  if (source.type === "git") return installGit(source, places, npmCommand);
  if (!existsSync(source.path)) throw new Error(`Cannot install ${source.typed}: ${source.path} does not exist. Give the path of a package folder or an extension file.`);
}

async function remove(invocation: Invocation, cwd: string, agentDir: string): Promise<number> {
  const places = writableScope(invocation, cwd, agentDir);
  const source = parsed(invocation.positional[0]!, cwd);
  const settings = readScopeSettings(places);
  const declared = declarationsOf(settings, places.baseDir);
  const index = findDeclaration(declared, source);
  if (index < 0) {
    const other = invocation.local ? "" : " (a project package? add -l)";
    throw new Error(`${source.typed} is not declared in ${places.settingsFile}${other}. Run xcsh list to see the declared packages.`);
  }
  const raw = declared.declarations[index]!.raw;
  const packages = (settings.packages as unknown[]).filter((entry) => entry !== raw);
  writePackages(places.settingsFile, settings, packages);
  await uninstallCopy(declared.declarations[index]!.source, places, npmCommandFor(places, cwd, agentDir));
  process.stdout.write(`Removed ${source.typed} from ${scopeLabel(places)} (${places.settingsFile})\n`);
  return 0;
}

async function uninstallCopy(source: PackageSource, places: ScopePlaces, npmCommand: string[] | undefined): Promise<void> {
  if (source.type === "npm") await removeNpm(source, places, npmCommand);
  else if (source.type === "git") rmSync(installedRoot(source, places), { recursive: true, force: true });
  // a local package is the person's own folder: never deleted
}

async function update(invocation: Invocation, cwd: string, agentDir: string): Promise<number> {
  const scopes: PackageScope[] = projectTrusted(invocation, cwd, agentDir) ? ["user", "project"] : ["user"];
  const wanted = invocation.positional[0] !== undefined ? parsed(invocation.positional[0], cwd) : undefined;
  let matched = 0;
  const failures: string[] = [];
  for (const scope of scopes) {
    const places = scopePlaces(scope, cwd, agentDir);
    const declared = declarationsOf(readSettingsObject(places.settingsFile), places.baseDir);
    for (const declaration of declared.declarations) {
      if (wanted && sourceIdentity(wanted) !== sourceIdentity(declaration.source)) continue;
      matched++;
      try {
        await updateOne(declaration, places, npmCommandFor(places, cwd, agentDir));
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
  }
  if (wanted && matched === 0) throw new Error(`${wanted.typed} is not declared in any trusted settings file. Run xcsh list to see the declared packages.`);
  for (const failure of failures) process.stderr.write(`xcsh: ${failure}\n`);
  process.stdout.write(`Updated ${matched - failures.length} of ${matched} package${matched === 1 ? "" : "s"}\n`);
  return failures.length > 0 ? 1 : 0;
}

async function updateOne(declaration: PackageDeclaration, places: ScopePlaces, npmCommand: string[] | undefined): Promise<void> {
  const source = declaration.source;
  if (source.type === "local") return;
  const root = installedRoot(source, places);
  // A pinned version already in place has nothing to update; a missing one is installed.
  if (isPinned(source) && existsSync(root) && source.type === "npm") return;
  if (source.type === "npm") return installNpm(source, places, npmCommand);
  return updateGit(source, places, npmCommand);
}

function list(invocation: Invocation, cwd: string, agentDir: string): number {
  const trusted = projectTrusted(invocation, cwd, agentDir);
  const lines: string[] = [];
  for (const scope of ["user", "project"] as const) {
    const places = scopePlaces(scope, cwd, agentDir);
    const declared = declarationsOf(readSettingsObject(places.settingsFile), places.baseDir);
    const note = scope === "project" && !trusted && declared.declarations.length > 0 ? ", not loaded: the project is not trusted" : "";
    lines.push(`${scope === "user" ? "User" : "Project"} packages (${places.settingsFile}${note}):`);
    if (declared.declarations.length === 0) lines.push("  (none)");
    for (const declaration of declared.declarations) {
      const root = installedRoot(declaration.source, places);
      const version = existsSync(root) ? installedVersion(declaration.source, root) : undefined;
      const state = !existsSync(root) ? "not installed" : version ? `installed ${version}` : "installed";
      lines.push(`  ${declaration.source.typed}  ${state}  ${root}`);
    }
    for (const problem of declared.problems) lines.push(`  ! ${problem}`);
  }
  process.stdout.write(lines.join("\n") + "\n");
  return 0;
}

/** The scope's settings, refusing a `packages` that is not a list: rewriting it would lose what the person wrote. */
function readScopeSettings(places: ScopePlaces): Record<string, unknown> {
  const settings = readSettingsObject(places.settingsFile);
  if (settings.packages !== undefined && !Array.isArray(settings.packages)) {
    throw new Error(`${places.settingsFile}: "packages" must be a list of sources; fix it before installing or removing packages`);
  }
  return settings;
}

function parsed(typed: string, cwd: string): PackageSource {
  const source = parseSource(typed, cwd);
  if ("error" in source) throw new UsageError(source.error);
  return source;
}

/** `npmCommand` of the scope's settings, else the user's; undefined means the binary's own Bun. */
function npmCommandFor(places: ScopePlaces, cwd: string, agentDir: string): string[] | undefined {
  const read = (file: string) => {
    const value = readSettingsObject(file).npmCommand;
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.length === 0 || !value.every((item) => typeof item === "string")) {
      throw new Error(`${file}: "npmCommand" must be a non-empty list of strings, e.g. ["npm"]`);
    }
    return value as string[];
  };
  if (places.scope === "project") return read(places.settingsFile) ?? read(scopePlaces("user", cwd, agentDir).settingsFile);
  return read(places.settingsFile);
}

function installedVersion(source: PackageSource, root: string): string | undefined {
  try {
    const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
    if (typeof version === "string") return source.type === "git" && source.ref ? `${version} at ${source.ref}` : version;
  } catch {
    // no package.json: a plain folder or a single extension file
  }
  return source.type === "git" ? source.ref : undefined;
}

function scopeLabel(places: ScopePlaces): string {
  return places.scope === "user" ? "the user" : "the project";
}
