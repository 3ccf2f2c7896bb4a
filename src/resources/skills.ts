/**
 * Skills (Agent Skills standard, reference skills.md): a folder with a SKILL.md
 * whose frontmatter gives `name` and `description`. Found in every place of
 * resource-places.ts: folders holding SKILL.md are found at any depth, loose
 * `.md` files only at the top of `.xcsh/skills`-style folders and explicit paths.
 * Validation is lenient, as the standard asks: a bad name is a warning and the
 * skill still loads; only a missing description (or a file that cannot be read
 * or parsed) keeps it out. The first skill of a name wins; later ones are
 * reported. Nothing here throws or writes: problems come back as warnings.
 */
import { basename, dirname, join } from "node:path";
import { describeOther, kindOf, listFolder, readMarkdown } from "./markdown-file.ts";
import type { ResourceLocation, ResourcePlace } from "./resource-places.ts";
import { loadFirstByName } from "./resource-reader.ts";

export interface Skill {
  name: string;
  description: string;
  /** Absolute path of the skill's markdown file. */
  filePath: string;
  /** The folder relative paths in the skill refer to. */
  baseDir: string;
  /** The instructions: the file without its frontmatter. */
  body: string;
  location: ResourceLocation;
  place: ResourcePlace;
  /** `disable-model-invocation: true`: left out of the system prompt, still a /skill: command. */
  disableModelInvocation: boolean;
}

export interface LoadedSkills {
  skills: Skill[];
  warnings: string[];
}

const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;
/** Deep enough for any real layout; a symlink loop ends here instead of running forever. */
const MAX_DEPTH = 8;
const SKIPPED_FOLDERS = new Set(["node_modules", ".git"]);

/** Standard violations that still let the skill load. */
function nameProblems(name: string, expected: string): string[] {
  const problems: string[] = [];
  if (name !== expected) problems.push(`name "${name}" does not match its folder "${expected}"`);
  if (name.length > MAX_NAME) problems.push(`name is longer than ${MAX_NAME} characters`);
  if (!/^[a-z0-9-]+$/.test(name)) problems.push(`name "${name}" should use only lowercase letters, digits and hyphens`);
  else if (name.startsWith("-") || name.endsWith("-") || name.includes("--")) problems.push(`name "${name}" should not start or end with a hyphen or contain "--"`);
  return problems;
}

function parseSkill(filePath: string, place: ResourcePlace, warnings: string[]): Skill | undefined {
  const read = readMarkdown(filePath, place.confine);
  if (!read.ok) {
    warnings.push(`skill ${filePath} is not loaded: ${read.reason}`);
    return undefined;
  }
  const { frontmatter, body } = read;
  const isSkillFile = basename(filePath) === "SKILL.md";
  const expected = isSkillFile ? basename(dirname(filePath)) : basename(filePath).replace(/\.md$/i, "");
  const rawName = frontmatter.name;
  const name = typeof rawName === "string" && rawName.trim() !== "" ? rawName.trim() : expected;
  // A name with blanks cannot be typed as /skill:name, and would break the prompt's list; control
  // characters (an escape sequence in a cloned repository's skill) would reach the terminal in the command list.
  if (/[\s\x00-\x1f\x7f-\x9f]/.test(name) || name === "") {
    warnings.push(`skill ${filePath} is not loaded: its name "${name}" contains whitespace or control characters`);
    return undefined;
  }
  const description = typeof frontmatter.description === "string" ? frontmatter.description.trim() : "";
  if (!description) {
    const why = frontmatter.description === undefined ? "its frontmatter has no description" : "its description is not text";
    warnings.push(`skill ${filePath} is not loaded: ${why} (the model decides when to use a skill by its description)`);
    return undefined;
  }
  const problems = nameProblems(name, expected);
  if (description.length > MAX_DESCRIPTION) problems.push(`description is longer than ${MAX_DESCRIPTION} characters`);
  if (problems.length > 0) warnings.push(`skill ${filePath}: ${problems.join("; ")}`);
  return {
    name,
    description,
    filePath,
    baseDir: dirname(filePath),
    body,
    location: place.location,
    place,
    disableModelInvocation: frontmatter["disable-model-invocation"] === true,
  };
}

/** Skill files under a folder: its SKILL.md (then nothing deeper), else loose .md files if allowed, and sub-folders. */
function skillFilesIn(folder: string, rootFiles: boolean, depth: number, warnings: string[]): string[] {
  const skillFile = join(folder, "SKILL.md");
  const skillFileKind = kindOf(skillFile);
  if (skillFileKind === "file") return [skillFile];
  if (skillFileKind !== undefined) {
    warnings.push(`skill ${skillFile} is not loaded: ${describeOther(skillFileKind)}`);
    return [];
  }
  if (depth >= MAX_DEPTH) return [];
  const files: string[] = [];
  for (const entry of listFolder(folder)) {
    if (entry.name.startsWith(".") || SKIPPED_FOLDERS.has(entry.name) || entry.name === "SKILL.md") continue;
    const path = join(folder, entry.name);
    const kind = kindOf(path);
    if (kind === "folder") files.push(...skillFilesIn(path, false, depth + 1, warnings));
    else if (rootFiles && depth === 0 && entry.name.toLowerCase().endsWith(".md")) {
      if (kind === "file") files.push(path);
      else if (kind === "other") warnings.push(`skill ${path} is not loaded: ${describeOther(kind)}`);
    }
  }
  return files;
}

function filesOf(place: ResourcePlace, warnings: string[]): string[] {
  const kind = kindOf(place.path);
  if (kind === "file") return [place.path];
  if (kind === "folder") return skillFilesIn(place.path, place.rootFiles, 0, warnings);
  if (kind === "other") warnings.push(`skill path ${place.path} is not loaded: ${describeOther(kind)}`);
  else if (place.explicit) warnings.push(`skill path ${place.path} does not exist`);
  return [];
}

export function loadSkills(places: ResourcePlace[]): LoadedSkills {
  const { items, warnings } = loadFirstByName(places, { filesOf, parse: parseSkill, describe: (skill) => `skill "${skill.name}"` });
  return { skills: items, warnings };
}
