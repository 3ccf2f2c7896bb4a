/**
 * The system prompt: who the agent is, the tools it has and how to use them,
 * the project's instruction files (outermost first, so the nearest has the last
 * word), the skills it may load with `read` (Agent Skills' `<available_skills>`
 * list: names and descriptions only, the instructions stay on disk until
 * needed), and where it is working. No date or time: the system prompt is the
 * start of every request's cached prefix, and a prefix that changes at midnight
 * makes a resumed session pay for its whole history again (docs/costs.md).
 */
import type { ContextFile } from "./context-files.ts";

export interface PromptTool {
  name: string;
  description: string;
  promptSnippet?: string;
  promptGuidelines?: string[];
  /** Contributes guidelines only, without a line in "Available tools" (extension tools without a snippet). */
  hidden?: boolean;
}

/** A skill as the system prompt lists it. */
export interface PromptSkill {
  name: string;
  description: string;
  /** Absolute path of its SKILL.md, which the model reads when the skill applies. */
  location: string;
}

export interface SystemPromptOptions {
  cwd: string;
  tools: PromptTool[];
  contextFiles: ContextFile[];
  /** Listed only while the read tool is active: without it the model could not open them. */
  skills?: PromptSkill[];
  /** Replaces the built-in base prompt (--system-prompt). Tools, context and environment still follow. */
  customPrompt?: string;
  /** Added after everything else (--append-system-prompt). */
  appendPrompt?: string;
  /** Rules beyond the tools' own (an extension's edit of `promptGuidelines` for one run). */
  extraGuidelines?: string[];
  /** MCP servers whose tools are not declared (codemode, deferred exposure): named so the model knows to look. */
  mcpServers?: PromptMcpServer[];
  /**
   * Active tools whose declarations a tool's prepareLoadout hides (pi 1.6.0): reached only
   * through the tool that hid them, so they are not listed, and when the file reader is one
   * of them the skills hint names no tool.
   */
  hiddenTools?: readonly string[];
}

export interface PromptMcpServer {
  name: string;
  description?: string;
}

const BASE_PROMPT = `You are xcsh, an expert coding assistant working in the user's project. You read code, run commands, edit files and write new ones to get the user's task done.`;

const GENERAL_GUIDELINES = [
  "Look before you change: read the relevant files and search the code base before editing.",
  "Prefer small, precise edits over rewriting whole files.",
  "After changing code, run the project's checks or tests when you can, and report what you verified.",
  "Be concise. Show file paths clearly when you mention them.",
];

function firstSentence(text: string): string {
  const line = text.split("\n")[0].trim();
  const end = line.search(/\.\s/);
  return end === -1 ? line : line.slice(0, end + 1);
}

export function buildSystemPrompt(options: SystemPromptOptions): string {
  const sections: string[] = [options.customPrompt?.trim() || BASE_PROMPT];

  if (options.tools.length > 0) {
    const lines = options.tools.filter((tool) => !tool.hidden).map((tool) => `- ${tool.name}: ${tool.promptSnippet ?? firstSentence(tool.description)}`);
    if (lines.length > 0) sections.push(`Available tools:\n${lines.join("\n")}`);
    const guidelines = [...GENERAL_GUIDELINES, ...options.tools.flatMap((tool) => tool.promptGuidelines ?? []), ...(options.extraGuidelines ?? [])];
    sections.push(`Guidelines:\n${[...new Set(guidelines)].map((rule) => `- ${rule}`).join("\n")}`);
  }

  if (options.contextFiles.length > 0) {
    const files = options.contextFiles.map((file) => `## ${file.path}\n\n${file.content.trim()}`);
    sections.push(`# Project context\n\nInstructions from the project's context files:\n\n${files.join("\n\n")}`);
  }

  const skills = options.skills ?? [];
  const readHidden = options.hiddenTools?.includes("read") === true;
  if (skills.length > 0 && (readHidden || options.tools.some((tool) => tool.name === "read"))) sections.push(skillsSection(skills, !readHidden));

  const reach = ["codemode", "tool_search"].filter((name) => options.tools.some((tool) => tool.name === name));
  if ((options.mcpServers ?? []).length > 0 && reach.length > 0) sections.push(mcpServersSection(options.mcpServers!, reach));

  sections.push(`Current working directory: ${options.cwd}`);
  if (options.appendPrompt?.trim()) sections.push(options.appendPrompt.trim());
  return sections.join("\n\n");
}

const escapeXml = (text: string) => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/**
 * MCP servers whose tools are not declared: their names and what they offer, and how to
 * reach them with what is active. Built from the configuration, so it stays the same
 * as the servers connect and the prompt cache keeps.
 */
function mcpServersSection(servers: PromptMcpServer[], reach: string[]): string {
  const how = [
    ...(reach.includes("codemode") ? ["call them in a codemode script (`tools.mcp__<server>__<tool>(args)`; find them with `searchTools()`)"] : []),
    ...(reach.includes("tool_search") ? ["load them with tool_search, then call them directly"] : []),
  ].join(", or ");
  const lines = servers.map((server) => `- ${escapeXml(server.name)}${server.description ? `: ${escapeXml(server.description.trim().split("\n")[0]!)}` : ""}`);
  return ["<mcp_servers>", `These MCP servers' tools are not declared to you: ${how}.`, ...lines, "</mcp_servers>"].join("\n");
}

/** The system prompt's skills list (also what extensions get as `formatSkillsForPrompt`). */
export function skillsSection(skills: PromptSkill[], namesReader = true): string {
  const entries = skills.map((skill) =>
    [
      "  <skill>",
      `    <name>${escapeXml(skill.name)}</name>`,
      `    <description>${escapeXml(skill.description)}</description>`,
      `    <location>${escapeXml(skill.location)}</location>`,
      "  </skill>",
    ].join("\n"),
  );
  return [
    "# Skills",
    "",
    `Skills are instructions for particular kinds of task. When a task matches a skill's description, read its file${namesReader ? " with the read tool" : ""} before you start, and follow it.`,
    "Relative paths inside a skill file are relative to the folder that holds the file; turn them into absolute paths before using them in tool calls.",
    "",
    "<available_skills>",
    ...entries,
    "</available_skills>",
  ].join("\n");
}
