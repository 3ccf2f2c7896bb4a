/**
 * MCP prompts as slash commands: `/mcp__<server>__<prompt> args` asks the server for
 * the prompt (prompts/get) and sends what it returns as the user's message. Listed by
 * get_commands as `source: "prompt"` (what hosts already show and run) with
 * `sourceInfo.source: "mcp"`. Arguments are split like a template's; `name=value`
 * sets a named argument, other words fill the declared arguments in order, and a
 * prompt with one argument takes all the words as it. Pure except `expandPrompt`,
 * which asks the server.
 */
import type { ImageContent } from "../ai/types.ts";
import type { SlashCommand } from "../resources/commands.ts";
import { parseSlash } from "../resources/slash-expansion.ts";
import { splitArguments } from "../resources/template-args.ts";
import type { GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerSpec } from "./config-schema.ts";
import { MCP_TOOL_SOURCE } from "./names.ts";

export function promptCommand(spec: McpServerSpec, prompt: Prompt, name: string): SlashCommand {
  const args = (prompt.arguments ?? []).map((argument) => (argument.required ? `<${argument.name}>` : `[${argument.name}]`)).join(" ");
  const about = prompt.description ?? prompt.title ?? `Prompt ${prompt.name} of MCP server ${spec.name}`;
  return {
    name,
    description: args ? `${about} — ${args}` : about,
    source: "prompt",
    path: spec.origin,
    sourceInfo: { path: spec.origin, source: MCP_TOOL_SOURCE, scope: spec.scope, origin: "top-level" },
  };
}

/** The prompt's arguments from what followed the command, or why they do not fit. */
export function promptArguments(prompt: Prompt, text: string): { args: Record<string, string> } | { error: string } {
  const declared = prompt.arguments ?? [];
  const args: Record<string, string> = {};
  const words = splitArguments(text);
  const positional: string[] = [];
  for (const word of words) {
    const equals = word.indexOf("=");
    const key = equals > 0 ? word.slice(0, equals) : undefined;
    if (key !== undefined && declared.some((argument) => argument.name === key)) args[key] = word.slice(equals + 1);
    else positional.push(word);
  }
  const open = declared.filter((argument) => args[argument.name] === undefined);
  if (open.length === 1 && positional.length > 0) args[open[0].name] = positional.join(" ");
  else {
    if (positional.length > open.length) {
      return { error: `takes ${declared.length === 0 ? "no arguments" : `the arguments ${declared.map((argument) => argument.name).join(", ")}`}; got ${positional.length > 1 ? "more words than that" : `"${positional[0]}"`}` };
    }
    positional.forEach((word, index) => (args[open[index].name] = word));
  }
  const missing = declared.filter((argument) => argument.required && args[argument.name] === undefined).map((argument) => argument.name);
  if (missing.length > 0) return { error: `needs ${missing.map((name) => `"${name}"`).join(", ")} (give it as name=value, or as words in order: ${declared.map((argument) => argument.name).join(" ")})` };
  return { args };
}

/** The prompt's messages as one user message: their text in order, their images attached. */
export function promptInput(result: GetPromptResult): { text: string; images: ImageContent[] } {
  const parts: string[] = [];
  const images: ImageContent[] = [];
  for (const message of result.messages) {
    const content = message.content as Record<string, unknown>;
    if (content.type === "text" && typeof content.text === "string") parts.push(content.text);
    else if (content.type === "image" && typeof content.data === "string" && typeof content.mimeType === "string") images.push({ type: "image", data: content.data, mimeType: content.mimeType });
    else if (content.type === "resource") {
      const resource = content.resource as Record<string, unknown>;
      if (typeof resource?.text === "string") parts.push(`[resource ${String(resource.uri)}]\n${resource.text}`);
    } else if (content.type === "resource_link") parts.push(`[resource link: ${String(content.name ?? content.uri)} <${String(content.uri)}>]`);
  }
  return { text: parts.join("\n\n"), images };
}

/** `/name rest` when `name` is one of `known`; undefined for any other text. */
export function matchPromptCommand<T>(text: string, known: ReadonlyMap<string, T>): { target: T; args: string } | undefined {
  if (!text.startsWith("/mcp__")) return undefined;
  const slash = parseSlash(text);
  const target = slash ? known.get(slash.name) : undefined;
  return target && slash ? { target, args: slash.args } : undefined;
}
