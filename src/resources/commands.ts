/**
 * The slash commands a host can offer (RPC get_commands, an extension's
 * pi.getCommands()): extension commands, then prompt templates, then skills as
 * `skill:name`, in seed 000's shape. An extension command wins over a template
 * or skill of the same name — it is what `/name` runs — so the shadowed one is
 * left out of the list and reported (once, by the caller's `warn`).
 */
import { dirname } from "node:path";
import type { PromptTemplate } from "./prompt-templates.ts";
import type { ResourcePlace } from "./resource-places.ts";
import type { Skill } from "./skills.ts";

export interface ResourceSourceInfo {
  path: string;
  source: string;
  scope: "user" | "project" | "temporary";
  origin: "package" | "top-level";
  baseDir?: string;
}

/** One entry of get_commands (seed 000), plus pi 0.7x's `sourceInfo` for hosts written against it. */
export interface SlashCommand {
  name: string;
  description?: string;
  source: "extension" | "prompt" | "skill";
  location?: "user" | "project" | "path";
  path?: string;
  sourceInfo: ResourceSourceInfo;
}

/** An extension command as the extension system resolved it (invocation name, owning file). */
export interface ExtensionCommandEntry {
  name: string;
  description?: string;
  path: string;
  sourceInfo: ResourceSourceInfo;
}

function sourceInfoOf(filePath: string, place: ResourcePlace, baseDir: string): ResourceSourceInfo {
  return { path: filePath, source: place.source, scope: place.scope, origin: "top-level", baseDir };
}

export function listSlashCommands(
  extensionCommands: readonly ExtensionCommandEntry[],
  templates: readonly PromptTemplate[],
  skills: readonly Skill[],
  options: { skillCommands: boolean; warn(line: string): void },
): SlashCommand[] {
  const taken = new Map(extensionCommands.map((command) => [command.name, command]));
  const shadowed = (name: string, what: string, path: string): boolean => {
    const owner = taken.get(name);
    if (owner) options.warn(`${what} at ${path} is hidden: extension command /${name} from ${owner.path} has the same name and takes precedence`);
    return owner !== undefined;
  };
  const commands: SlashCommand[] = extensionCommands.map((command) => ({
    name: command.name,
    ...(command.description ? { description: command.description } : {}),
    source: "extension",
    path: command.path,
    sourceInfo: command.sourceInfo,
  }));
  for (const template of templates) {
    if (shadowed(template.name, `prompt template "/${template.name}"`, template.filePath)) continue;
    commands.push({
      name: template.name,
      description: template.description,
      source: "prompt",
      location: template.location,
      path: template.filePath,
      sourceInfo: sourceInfoOf(template.filePath, template.place, dirname(template.filePath)),
    });
  }
  if (!options.skillCommands) return commands;
  for (const skill of skills) {
    const name = `skill:${skill.name}`;
    if (shadowed(name, `skill "${skill.name}"`, skill.filePath)) continue;
    commands.push({
      name,
      description: skill.description,
      source: "skill",
      location: skill.location,
      path: skill.filePath,
      sourceInfo: sourceInfoOf(skill.filePath, skill.place, skill.baseDir),
    });
  }
  return commands;
}
