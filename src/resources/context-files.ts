/**
 * Project instructions the model should follow: AGENTS.md (or CLAUDE.md) from
 * the config root and from every directory between the filesystem root and the
 * working directory. General ones come first, the most specific last, so the
 * nearest file has the final word.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

export interface ContextFile {
  path: string;
  content: string;
}

const NAMES = ["AGENTS.md", "CLAUDE.md"];

function readFirst(dir: string): ContextFile | undefined {
  for (const name of NAMES) {
    const path = join(dir, name);
    if (!existsSync(path)) continue;
    try {
      return { path, content: readFileSync(path, "utf8") };
    } catch {
      // An unreadable file is skipped rather than failing the run.
    }
  }
  return undefined;
}

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
    const file = readFirst(directory);
    if (file && !files.some((existing) => existing.path === file.path)) files.push(file);
  }
  return files;
}
