/**
 * MCP resources, two ways in. The model reads them with one tool per server that has
 * any, `mcp__<server>__read_resource {uri}`: per server rather than one shared tool,
 * because then the tool comes and goes with its server like the server's other tools
 * (the same --tools patterns, the same failure handling), and its description can list
 * exactly that server's resources without a `server` argument to get wrong. A server's
 * own tool of that name wins (hub.ts gives the first claimant the name). The person
 * attaches them by writing `@server:uri` in the interactive editor: on submit each
 * mention of a connected server's resource is read and its text put before the
 * message, as the command line's @files are (src/modes/initial-prompts.ts).
 */
import type { AgentTool } from "../agent/types.ts";
import type { ReadResourceResult, Resource, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpConnection } from "./connection.ts";
import { toToolResult, type McpToolDetails } from "./tool-result.ts";

/** The tool name's last part: `mcp__<server>__read_resource`. */
export const READ_RESOURCE_TOOL = "read_resource";
/** How many resources a tool description lists; the rest are said to exist. */
const LISTED_IN_DESCRIPTION = 50;

/** A resource as the editor offers it. */
export interface McpResourceItem {
  server: string;
  uri: string;
  name: string;
  description?: string;
}

/** The tool's MCP-side description, one per resource list (the hub compares it by identity). */
const toolOfList = new WeakMap<Resource[], Tool>();

export function readResourceToolSpec(resources: Resource[]): Tool {
  let tool = toolOfList.get(resources);
  if (tool) return tool;
  const listed = resources.slice(0, LISTED_IN_DESCRIPTION).map((resource) => `- ${resource.uri} (${resource.name}${resource.description ? `: ${resource.description}` : ""})`);
  const more = resources.length > LISTED_IN_DESCRIPTION ? [`…and ${resources.length - LISTED_IN_DESCRIPTION} more.`] : [];
  tool = {
    name: READ_RESOURCE_TOOL,
    description: ["Reads a resource of this MCP server by its URI. Its resources:", ...listed, ...more].join("\n"),
    inputSchema: { type: "object", properties: { uri: { type: "string", description: "The resource's URI, as listed" } }, required: ["uri"] },
    annotations: { readOnlyHint: true },
  };
  toolOfList.set(resources, tool);
  return tool;
}

export function readResourceAgentTool(connection: McpConnection, name: string): AgentTool<any, McpToolDetails> {
  const server = connection.spec.name;
  return {
    name,
    label: `${server}: read resource`,
    description: readResourceToolSpec(connection.resources).description!,
    parameters: readResourceToolSpec(connection.resources).inputSchema as never,
    async execute(_toolCallId, params, signal) {
      const uri = (params as { uri?: unknown } | undefined)?.uri;
      if (typeof uri !== "string" || uri === "") throw new Error(`${name} needs "uri": the URI of one of the server's resources`);
      const result = await connection.readResource(uri, signal);
      return toToolResult({ content: result.contents.map((resource) => ({ type: "resource", resource })) }, { server, tool: READ_RESOURCE_TOOL });
    },
  };
}

/** A read resource as text for the prompt: its text parts; a binary part is named, not inlined. */
export function resourceText(result: ReadResourceResult): string {
  return result.contents
    .map((part) => ("text" in part && typeof part.text === "string" ? part.text : `(binary ${part.mimeType ?? "data"} at ${part.uri}, not included)`))
    .join("\n");
}

/** `@server:uri` mentions in a message: the server is the part before the first colon. */
export function resourceMentions(text: string): { server: string; uri: string }[] {
  const mentions: { server: string; uri: string }[] = [];
  for (const match of text.matchAll(/(?:^|\s)@([^\s:@/]+):(\S+)/g)) mentions.push({ server: match[1]!, uri: match[2]! });
  return mentions;
}
