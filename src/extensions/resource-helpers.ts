/**
 * pi's resource helpers for extensions, on xcsh's own resource loading
 * (src/resources): skills (`loadSkills`, `loadSkillsFromDir`, the system prompt's
 * skill list, the block a `/skill:name` expands to and its parser), the project's
 * context files (AGENTS.md / CLAUDE.md), and `createSyntheticSourceInfo` for
 * resources an extension makes up. Skills load as xcsh loads them (a loose `.md`
 * is named after its file); problems come back as warnings, never as throws.
 */
import { dirname } from "node:path";
import { homeDir } from "../config/paths.ts";
import { loadContextFiles } from "../resources/context-files.ts";
import { skillPlaces, type ResourcePlace } from "../resources/resource-places.ts";
import { loadSkills as loadXcshSkills, type Skill as XcshSkill } from "../resources/skills.ts";
import { skillBlock } from "../resources/slash-expansion.ts";
import { skillsSection } from "../resources/system-prompt.ts";
import type { SourceInfo } from "./types.ts";

/** A skill as pi's coding-agent API describes one. */
export interface PiSkill {
  name: string;
  description: string;
  filePath: string;
  baseDir: string;
  sourceInfo: SourceInfo;
  disableModelInvocation: boolean;
}

export interface PiLoadSkillsResult {
  skills: PiSkill[];
  diagnostics: { type: "warning"; message: string }[];
}

export function createSyntheticSourceInfo(
  path: string,
  options: { source: string; scope?: SourceInfo["scope"]; origin?: SourceInfo["origin"]; baseDir?: string },
): SourceInfo {
  if (typeof path !== "string") throw new TypeError("createSyntheticSourceInfo(path, options): path must be a string");
  if (!options || typeof options.source !== "string") throw new TypeError('createSyntheticSourceInfo(path, options): options.source must be a string (e.g. "sdk")');
  return {
    path,
    source: options.source,
    scope: options.scope ?? "temporary",
    origin: options.origin ?? "top-level",
    ...(options.baseDir !== undefined ? { baseDir: options.baseDir } : {}),
  } as SourceInfo;
}

function toPiSkill(skill: XcshSkill, source: string): PiSkill {
  const scope = skill.place.scope;
  return {
    name: skill.name,
    description: skill.description,
    filePath: skill.filePath,
    baseDir: skill.baseDir,
    sourceInfo: createSyntheticSourceInfo(skill.filePath, { source, scope, baseDir: skill.baseDir }),
    disableModelInvocation: skill.disableModelInvocation,
  };
}

function result(loaded: { skills: XcshSkill[]; warnings: string[] }, source: (skill: XcshSkill) => string): PiLoadSkillsResult {
  return {
    skills: loaded.skills.map((skill) => toPiSkill(skill, source(skill))),
    diagnostics: loaded.warnings.map((message) => ({ type: "warning" as const, message })),
  };
}

/** Skills of one folder: SKILL.md folders at any depth, loose `.md` files at its top. */
export function loadSkillsFromDir(options: { dir: string; source: string }): PiLoadSkillsResult {
  if (!options || typeof options.dir !== "string") throw new TypeError("loadSkillsFromDir(options): options.dir must be a folder path");
  const place: ResourcePlace = { path: options.dir, location: "path", source: "extension", scope: "temporary", explicit: true, rootFiles: true };
  return result(loadXcshSkills([place]), () => String(options.source ?? "extension"));
}

/** Skills of the usual places (unless `includeDefaults` is false) plus `skillPaths`, first of a name wins. */
export function loadSkills(options: { cwd: string; agentDir: string; skillPaths?: string[]; includeDefaults?: boolean }): PiLoadSkillsResult {
  if (!options || typeof options.cwd !== "string" || typeof options.agentDir !== "string") {
    throw new TypeError("loadSkills(options): options.cwd and options.agentDir must be paths");
  }
  const places = skillPlaces({
    cwd: options.cwd,
    agentDir: options.agentDir,
    home: homeDir(),
    userSettingsPaths: [],
    projectSettingsPaths: [],
    cliPaths: Array.isArray(options.skillPaths) ? options.skillPaths : [],
    extensionPaths: [],
    noDiscovery: options.includeDefaults === false,
  });
  return result(loadXcshSkills(places), (skill) => (skill.place.source === "auto" ? "local" : skill.place.source));
}

/** AGENTS.md (or CLAUDE.md) of the config root and of every folder from the root down to `cwd`. */
export function loadProjectContextFiles(options: { cwd: string; agentDir: string }): { path: string; content: string }[] {
  if (!options || typeof options.cwd !== "string" || typeof options.agentDir !== "string") {
    throw new TypeError("loadProjectContextFiles(options): options.cwd and options.agentDir must be paths");
  }
  return loadContextFiles(options.cwd, options.agentDir).map(({ path, content }) => ({ path, content }));
}

/** The system prompt's skill list; skills the model may not invoke are left out, and no skills give "". */
export function formatSkillsForPrompt(skills: readonly { name: string; description: string; filePath: string; disableModelInvocation?: boolean }[]): string {
  if (!Array.isArray(skills)) throw new TypeError("formatSkillsForPrompt(skills): skills must be an array");
  const listed = skills.filter((skill) => !skill.disableModelInvocation);
  if (listed.length === 0) return "";
  return skillsSection(listed.map((skill) => ({ name: skill.name, description: skill.description, location: skill.filePath })));
}

/** The block a `/skill:name` expands to, for a skill given with its instructions (`content`). */
export function formatSkillInvocation(skill: { name: string; content: string; filePath: string }, additionalInstructions?: string): string {
  if (!skill || typeof skill.name !== "string") throw new TypeError("formatSkillInvocation(skill): skill must have a name");
  const filePath = String(skill.filePath ?? "");
  return skillBlock(
    { name: skill.name, filePath, baseDir: dirname(filePath), body: String(skill.content ?? "") } as XcshSkill,
    additionalInstructions?.trim() ?? "",
  );
}

const SKILL_BLOCK = /<skill name="([^"]*)" location="([^"]*)">\n([\s\S]*?)\n<\/skill>(?:\s*([\s\S]*))?/;
const SKILL_PREAMBLE = /^Paths in this skill are relative to [^\n]*\n\n/;

/** A skill block in a user message (as `/skill:name` wrote it): name, location, instructions and what the user added. */
export function parseSkillBlock(text: string): { name: string; location: string; content: string; userMessage: string | undefined } | null {
  if (typeof text !== "string") return null;
  const match = SKILL_BLOCK.exec(text);
  if (!match) return null;
  const [, name, location, body, after] = match;
  const rest = after?.trim().replace(/^User:\s*/, "");
  return { name: name!, location: location!, content: body!.replace(SKILL_PREAMBLE, "").trim(), userMessage: rest ? rest : undefined };
}
