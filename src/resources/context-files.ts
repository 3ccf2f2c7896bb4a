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
 * not the project is trusted, as pi's do.
 *
 * A project's file that leads into xcsh's or pi's config folders (a symlink to
 * `~/.xcsh/agent/auth.json`, which a command or a cloned repository can make) counts as
 * absent: it would put API keys in the prompt, where the model reads them.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { leadsIntoConfigFolder } from "../sandbox/read-guard.ts";

export interface ContextFile {
  path: string;
  content: string;
}

/**
 * Preference order within one directory. The upper-case spellings matter on
 * case-sensitive file systems; where names fold, the first spelling is found first.
 */
const NAMES = ["AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];

/** The first of these files that can be read, with its text; none when no file reads. `accept` may pass over one. */
export function readFirstFile(paths: readonly string[], accept: (path: string) => boolean = () => true): ContextFile | undefined {
  for (const path of paths) {
    if (!existsSync(path) || !accept(path)) continue;
    try {
      return { path, content: readFileSync(path, "utf8") };
    } catch {
      // An unreadable file (a folder of that name, no permission) is skipped rather than failing the run.
    }
  }
  return undefined;
}

function readFirst(dir: string, accept?: (path: string) => boolean): ContextFile | undefined {
  return readFirstFile(NAMES.map((name) => join(dir, name)), accept);
}

const outsideConfigFolders = (path: string) => !leadsIntoConfigFolder(path);

export function loadContextFiles(cwd: string, agentDir: string): ContextFile[] {
  const files: ContextFile[] = [];
  const global = readFirst(agentDir);
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
    const file = readFirst(directory, outsideConfigFolders);
    if (file && !files.some((existing) => existing.path === file.path)) files.push(file);
  }
  return files;
}
