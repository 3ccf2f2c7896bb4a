/**
 * How xcsh starts programs for itself — not the model's commands, but the ones its own
 * code runs: the clipboard tools, the person's external editor, credential commands
 * (models.json and auth.json `!command`, an AWS profile's credential_process), the
 * bubblewrap probe, the watchdog, and git for git packages. The folder xcsh runs in may
 * be a repository the model or a stranger wrote, so none of them may run a program that
 * repository chose, and none gets the credentials xcsh talks to model providers with:
 *
 *  - the environment is xcsh's own without the provider credentials (child-environment.ts)
 *    and with a PATH of absolute folders only: a relative entry (`.`, `node_modules/.bin`)
 *    would find a program the repository put there;
 *  - the program is looked up on that PATH before it starts, so nothing resolves it later
 *    against another one;
 *  - it runs in the person's home folder (or a folder of xcsh's), never the project, so
 *    nothing that reads configuration from the folder it starts in reads the project's.
 *
 * git is run for packages only (`xcsh install` / `update` of a git: source), never on the
 * project: the repository's own configuration can make git run programs of its choosing
 * (core.fsmonitor, filter drivers, hooks, `.git/commondir`, include.path), and git cannot
 * be told to ignore a repository's configuration. So "which files a command changed" is
 * read from the files themselves (src/modes/print/work-tree-changes.ts). For packages git
 * gets the options below, which keep the programs a checkout names from running, and keeps
 * the person's own git configuration (credential helpers, ssh command, url rewrites,
 * proxy): the repository is one they chose, and fetching a private one needs their auth.
 */
import { statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, isAbsolute, sep } from "node:path";
import { installOwnProgramLauncher } from "../ai/own-program-seam.ts";
import { childEnvironment } from "./child-environment.ts";

type Environment = Record<string, string>;

/** xcsh's environment (or `from`) without provider credentials, its PATH cut to absolute folders, then `extra`. */
export function ownProgramEnvironment(extra: Environment = {}, from: Record<string, string | undefined> = process.env): Environment {
  const env: Environment = {};
  for (const [name, value] of Object.entries(childEnvironment(from))) if (value !== undefined) env[name] = value;
  for (const name of ["PATH", "Path"]) {
    if (env[name] !== undefined) env[name] = env[name]!.split(delimiter).filter((folder) => folder !== "" && isAbsolute(folder)).join(delimiter);
  }
  return Object.assign(env, extra);
}

/** The folder own programs start in: the person's home, which a repository does not choose (the temp folder without one). */
export function ownProgramFolder(): string {
  for (const folder of [homedir(), tmpdir()]) {
    try {
      if (folder && statSync(folder).isDirectory()) return folder;
    } catch {
      // missing: try the next
    }
  }
  return "/";
}

/** A program's full path on the own programs' PATH, or undefined when it is not installed there (or named by a relative path). */
export function whichOwnProgram(name: string, env: Environment = ownProgramEnvironment()): string | undefined {
  if (isAbsolute(name)) return name;
  if (name.includes("/") || name.includes(sep)) return undefined;
  return Bun.which(name, { PATH: env.PATH ?? env.Path ?? "" }) ?? undefined;
}

/** The program is not on the own programs' PATH. */
export class OwnProgramNotFoundError extends Error {
  constructor(readonly program: string) {
    super(`${program} was not found on PATH`);
    this.name = "OwnProgramNotFoundError";
  }
}

/**
 * What Bun.spawn / spawnSync needs to start an own program: the command with its program's
 * full path, the environment (`env` added to it; `from` instead of xcsh's own, for a
 * caller handed one) and the folder above. Spread it into the options:
 * `Bun.spawn({ ...ownProgram(["xclip", "-o"]), stdout: "pipe" })`. Throws
 * OwnProgramNotFoundError when the program is not installed.
 */
export function ownProgram(
  argv: readonly string[],
  options: { cwd?: string; env?: Environment; from?: Record<string, string | undefined> } = {},
): { cmd: string[]; env: Environment; cwd: string } {
  const env = ownProgramEnvironment(options.env, options.from);
  const [program, ...args] = argv;
  const path = program === undefined ? undefined : whichOwnProgram(program, env);
  if (path === undefined) throw new OwnProgramNotFoundError(program ?? "(none)");
  return { cmd: [path, ...args], env, cwd: options.cwd ?? ownProgramFolder() };
}

// ai/ and auth/ (below this layer) start their credential commands through this too.
installOwnProgramLauncher((argv) => ownProgram(argv));

/**
 * git options that keep a checkout's configuration from running programs: no fsmonitor,
 * no hooks (a checkout's own or a global hooks folder), no pager, no `ext::` transport.
 * Given before the subcommand (`git -c … clone`), so none is written into a clone's config.
 */
export const OWN_GIT_OPTIONS: readonly string[] = [
  "-c", "core.fsmonitor=false",
  "-c", "core.hooksPath=/dev/null",
  "-c", "core.pager=cat",
  "-c", "protocol.ext.allow=never",
];

/** Variables that point git at another repository or index than the one named: set when xcsh runs from a git hook. */
const GIT_LOCATION_VARIABLES = ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX"];

/**
 * A git command for a package checkout: `git <OWN_GIT_OPTIONS> <args>` in `cwd`, with no
 * prompt on the terminal. The location variables are there as undefined, so the command
 * stays free of them when its environment is laid over another (Bun leaves undefined out).
 */
export function ownGit(args: readonly string[], cwd: string): { cmd: string[]; env: Record<string, string | undefined>; cwd: string } {
  const command = ownProgram(["git", ...OWN_GIT_OPTIONS, ...args], { cwd, env: { GIT_TERMINAL_PROMPT: "0" } });
  const env: Record<string, string | undefined> = command.env;
  for (const name of GIT_LOCATION_VARIABLES) env[name] = undefined;
  return { ...command, env };
}
