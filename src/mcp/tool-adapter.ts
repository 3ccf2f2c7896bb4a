/**
 * An MCP server's tool as a tool the agent runs: named `mcp__<server>__<tool>`, with
 * the server's input schema as its parameters and its description. A call goes to the
 * server with the run's abort signal (an abort cancels the request on the server) and
 * the server's per-call timeout; progress notifications become tool updates; an
 * `isError` result becomes the error result the model reads. A tool that does not say
 * it only reads (`readOnlyHint`) counts as changing things, so modes that ask before
 * changes (ACP) ask before it.
 */
import type { AgentTool } from "../agent/types.ts";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpConnection } from "./connection.ts";
import { mcpNamespaceName } from "./names.ts";
import type { UsageSink } from "./sampling.ts";
import { errorText, toToolResult, type McpToolDetails } from "./tool-result.ts";

export function mcpAgentTool(connection: McpConnection, tool: Tool, name: string, alias?: string): AgentTool<any, McpToolDetails> {
  const server = connection.spec.name;
  const title = tool.title ?? tool.annotations?.title;
  return {
    name,
    ...(alias ? { aliases: [alias] } : {}),
    label: title ?? `${server}: ${tool.name}`,
    description: tool.description ?? title ?? `The ${tool.name} tool of MCP server ${server}.`,
    parameters: parametersOf(tool.inputSchema) as never,
    ...(tool.annotations?.readOnlyHint === true ? {} : { changesState: true }),
    async execute(_toolCallId, params, signal, onUpdate) {
      const progress = onUpdate
        ? (text: string) => onUpdate({ content: [{ type: "text", text }], details: { server, tool: tool.name } })
        : undefined;
      // What the server's sampling requests cost while the call ran is the call's usage (pi 1.x).
      const sampled: UsageSink = {};
      const result = await connection.callTool(tool.name, (params ?? {}) as Record<string, unknown>, signal, progress, sampled);
      const usage = sampled.usage ? { usage: sampled.usage } : {};
      if (result.isError === true) {
        // An error result, not a throw: details (structuredContent) reach codemode scripts, which resolve to the CallToolResult.
        const structured = result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent };
        return { content: [{ type: "text", text: errorText(result) }], details: { server, tool: tool.name, ...structured }, isError: true, ...usage };
      }
      return { ...toToolResult(result, { server, tool: tool.name }), ...usage };
    },
    // pi 1.6.0's group: `mcp__<server>`, found by the server's own name too.
    mcpNamespace: {
      name: mcpNamespaceName(server),
      aliases: [server],
      ...(connection.spec.description ? { description: connection.spec.description } : {}),
      // Read when a script starts: a restarted server may say something new.
      get instructions() {
        return connection.instructions();
      },
    },
  } as AgentTool<any, McpToolDetails> & { mcpNamespace: McpNamespace };
}

/** The server a tool belongs to, as codemode scripts see it (`describeNamespace()`, `searchTools({ namespace })`). */
export interface McpNamespace {
  name: string;
  aliases: string[];
  description?: string;
  readonly instructions?: string;
}

/**
 * The input schema as providers take it: an object schema (MCP requires one; a server
 * that sends something else gets an empty one), without the `$schema` marker that
 * some providers refuse.
 */
function parametersOf(schema: unknown): Record<string, unknown> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return { type: "object", properties: {} };
  const { $schema: _marker, ...rest } = schema as Record<string, unknown>;
  return { ...rest, type: "object", properties: (rest.properties as object | undefined) ?? {} };
}
