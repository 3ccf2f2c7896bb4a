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
 * docs/skills-and-templates.md, "Context files"). The project's are read as context
 * files are (instruction-file.ts): a link is followed only to a file in the project or
 * its git repository.
 */
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { getProjectConfigDir } from "../config/paths.ts";
import { readFirstFile, type Warn } from "./context-files.ts";

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

/** The project's copy (held to the project), else the config root's (the person's own). */
function readFirstOf(name: string, cwd: string, agentDir: string, warn: Warn): SystemPromptFile | undefined {
  // A folder of that name or an unreadable file counts as absent: the next place may have one.
  return readFirstFile([join(getProjectConfigDir(cwd), name)], cwd, warn) ?? readFirstFile([join(agentDir, name)], undefined, warn);
}

export function loadSystemPromptFiles(cwd: string, agentDir: string, warn: Warn = () => {}): SystemPromptFiles {
  const project = resolve(cwd);
  const system = readFirstOf("SYSTEM.md", project, agentDir, warn);
  const append = readFirstOf("APPEND_SYSTEM.md", project, agentDir, warn);
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
