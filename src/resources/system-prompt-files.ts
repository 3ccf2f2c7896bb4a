/**
 * The system prompt's replacement and addition kept in files: `SYSTEM.md`
 * replaces the built-in base prompt, `APPEND_SYSTEM.md` is added at the end.
 * Each is looked for in the project's `.xcsh/` first, then in the config root;
 * the first found is used and the two are never combined. The command line's
 * --system-prompt / --append-system-prompt take precedence over both (the
 * caller decides that).
 *
 * Like context files and prompt templates, these are instructions, not code:
 * xcsh reads the project's copies without asking for project trust, which
 * guards only what runs code (pi asks for trust for them; see
 * docs/skills-and-templates.md, "Context files").
 */
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { getProjectConfigDir } from "../config/paths.ts";
import { leadsIntoConfigFolder } from "../sandbox/read-guard.ts";
import { readFirstFile } from "./context-files.ts";

export interface SystemPromptFile {
  path: string;
  content: string;
}

export interface SystemPromptFiles {
  /** SYSTEM.md: replaces the base prompt. */
  system?: SystemPromptFile;
  /** APPEND_SYSTEM.md: appended to the prompt. */
  append?: SystemPromptFile;
}

function readFirstOf(name: string, dirs: string[], agentDir: string): SystemPromptFile | undefined {
  // A folder of that name or an unreadable file counts as absent: the next place may have one. So does a
  // project's copy that leads into the config folders (API keys would become the prompt).
  const ownOrOutside = (path: string) => path.startsWith(`${agentDir}/`) || !leadsIntoConfigFolder(path);
  return readFirstFile(dirs.map((dir) => join(dir, name)), ownOrOutside);
}

export function loadSystemPromptFiles(cwd: string, agentDir: string): SystemPromptFiles {
  const dirs = [getProjectConfigDir(resolve(cwd)), agentDir];
  const system = readFirstOf("SYSTEM.md", dirs, agentDir);
  const append = readFirstOf("APPEND_SYSTEM.md", dirs, agentDir);
  return { ...(system ? { system } : {}), ...(append ? { append } : {}) };
}

/**
 * The value of --system-prompt / --append-system-prompt: the contents of the file
 * it names when one exists (relative to `cwd`), else the text itself. A path that
 * cannot be read is an error for the caller to report, not silently used as text.
 */
export function promptTextOrFile(value: string, cwd: string): string {
  const path = resolve(cwd, value);
  let isFile = false;
  try {
    isFile = value.trim() !== "" && statSync(path).isFile();
  } catch {
    return value; // nothing there (or a name too long to be a path): plain text
  }
  if (!isFile) return value;
  return readFileSync(path, "utf8");
}
