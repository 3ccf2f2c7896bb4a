/**
 * What `/skill:name args` and `/template args` become before the text reaches
 * the model: the skill's instructions in a `<skill>` block followed by the
 * arguments, or the template with its arguments substituted. Text that names
 * no known skill or template is left exactly as typed. Extension commands are
 * matched before this runs (core), so they never get here.
 */
import { splitArguments, substituteArguments } from "./template-args.ts";
import type { PromptTemplate } from "./prompt-templates.ts";
import type { Skill } from "./skills.ts";

export interface SlashTargets {
  findSkill(name: string): Skill | undefined;
  findTemplate(name: string): PromptTemplate | undefined;
  /** settings `enableSkillCommands` (default true). */
  skillCommands: boolean;
}

/** `/name rest` → its parts; undefined when the text is no slash command. */
export function parseSlash(text: string): { name: string; args: string } | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text);
  return match ? { name: match[1], args: (match[2] ?? "").trim() } : undefined;
}

const escapeAttribute = (value: string) => value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");

export function skillBlock(skill: Skill, args: string): string {
  const block = [
    `<skill name="${escapeAttribute(skill.name)}" location="${escapeAttribute(skill.filePath)}">`,
    `Paths in this skill are relative to ${skill.baseDir}.`,
    "",
    skill.body.trim(),
    "</skill>",
  ].join("\n");
  return args ? `${block}\n\nUser: ${args}` : block;
}

export function expandSlash(text: string, targets: SlashTargets): string {
  const slash = parseSlash(text);
  if (!slash) return text;
  if (slash.name.startsWith("skill:")) {
    const skill = targets.skillCommands ? targets.findSkill(slash.name.slice("skill:".length)) : undefined;
    return skill ? skillBlock(skill, slash.args) : text;
  }
  const template = targets.findTemplate(slash.name);
  return template ? substituteArguments(template.content, splitArguments(slash.args)) : text;
}
