/**
 * The MCP servers an ACP client sends with session/new and session/load, as
 * declarations xcsh's MCP layer connects for that session only (src/mcp): a stdio
 * server's `env` list becomes a map, an http/sse server's `headers` list too. The
 * values are used as the client sent them — no `${VAR}` expansion — and the
 * servers count as the user's own choice (no project trust is asked). Their tools are
 * `direct`: the editor picked them for this session and ACP has no field to say otherwise.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import type { McpSessionServers } from "../../mcp/start.ts";

const pairs = (list: readonly { name: string; value: string }[] | undefined) => Object.fromEntries((list ?? []).map(({ name, value }) => [name, value]));

export function acpMcpServers(servers: readonly McpServer[] | undefined): McpSessionServers {
  return (servers ?? []).map((server) => {
    const entry =
      "type" in server && (server.type === "http" || server.type === "sse")
        ? { type: server.type, url: server.url, headers: pairs(server.headers) }
        : { command: (server as { command: string }).command, args: (server as { args?: string[] }).args ?? [], env: pairs((server as { env?: { name: string; value: string }[] }).env) };
    return { name: server.name, entry: { ...entry, exposure: "direct" }, scope: "temporary" as const, origin: "ACP client", literal: true };
  });
}
