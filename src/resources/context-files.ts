/**
 * Project instructions the model should follow: one file per directory, from
 * the config root and from every directory between the filesystem root and the
 * working directory. General ones come first, the most specific last, so the
 * nearest file has the final word.
 *
 * In each directory the first of NAMES that exists is the one read: an
 * `AGENTS.override.md` stands in for that directory's AGENTS.md or CLAUDE.md
 * (and only that directory's: the config root's and other directories' files
 * still apply). Context files are instructions, not code: they load whether or
 * not the project is trusted, as pi's do — but only as instruction-file.ts allows:
 * a link in a folder is followed only to a file in that folder (or below it), or in the
 * git repository around it (link-policy.ts), so a cloned repository cannot send another
 * file of yours to the provider.
 *
 * A project's file that leads into xcsh's or pi's config folders (a symlink to
 * `~/.xcsh/agent/auth.json`, which a command or a cloned repository can make) counts as
 * absent even where the folder rule allows it (a project in the home folder): it would
 * put API keys in the prompt, where the model reads them.
 */
import { dirname, join, resolve } from "node:path";
import { leadsIntoConfigFolder } from "../sandbox/read-guard.ts";
import { readInstructionFile } from "./instruction-file.ts";

export interface ContextFile {
  path: string;
  content: string;
}

/**
 * Preference order within one directory. The upper-case spellings matter on
 * case-sensitive file systems; where names fold, the first spelling is found first.
 */
const NAMES = ["AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];

/** A line for the person running xcsh: why a file that is there was not read. */
export type Warn = (line: string) => void;

/**
 * The first of these files that can be read, with its text; none when no file reads.
 * A refused one (instruction-file.ts) is reported and the next name looked at, as an
 * unreadable one always was. `confine`: the folder links may lead into, with its git
 * work tree (link-policy.ts); none: anywhere.
 */
export function readFirstFile(paths: readonly string[], confine: string | undefined, warn: Warn): ContextFile | undefined {
  for (const path of paths) {
    // The person's own files (confine undefined) may lead anywhere; a project's never into the config folders.
    if (confine !== undefined && leadsIntoConfigFolder(path)) {
      warn(`not reading ${path}: it leads into xcsh's config folder, where the keys are`);
      continue;
    }
    const read = readInstructionFile(path, confine);
    if (read.kind === "text") return { path, content: read.content };
    if (read.kind === "refused") warn(`not reading ${path}: ${read.reason}`);
  }
  return undefined;
}

function readFirst(dir: string, confine: string | undefined, warn: Warn): ContextFile | undefined {
  return readFirstFile(
    NAMES.map((name) => join(dir, name)),
    confine,
    warn,
  );
}

/**
 * The context files for `cwd`, general first. The config root's is the person's own and
 * may link anywhere; every other folder's file is held to that folder and its repository.
 */
export function loadContextFiles(cwd: string, agentDir: string, warn: Warn = () => {}): ContextFile[] {
  const files: ContextFile[] = [];
  const global = readFirst(agentDir, undefined, warn);
  if (global) files.push(global);

  const chain: string[] = [];
  let dir = resolve(cwd);
  while (true) {
    chain.unshift(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const directory of chain) {
    const file = readFirst(directory, directory, warn);
    if (file && !files.some((existing) => existing.path === file.path)) files.push(file);
  }
  return files;
}
