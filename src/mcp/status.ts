/**
 * What `/mcp` shows of a session's MCP servers: each one's state, what it offers and
 * why it last failed. Pure: the hub gives the rows, the interactive command prints the
 * text this makes.
 */
import type { ConnectionState } from "./connection.ts";

export interface McpServerStatus {
  name: string;
  state: ConnectionState | "disabled" | "waiting-for-trust";
  transport?: "stdio" | "http" | "sse";
  origin?: string;
  tools: number;
  prompts: number;
  resources: number;
  lastError?: string;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** One block per server: `name  state  (transport, origin)` and what it offers or why it failed. */
export function renderServerStatus(servers: readonly McpServerStatus[]): string {
  if (servers.length === 0) return "No MCP servers in this session. Add one with `xcsh mcp add <name> <command>` (docs/mcp.md).";
  const lines: string[] = [];
  for (const server of servers) {
    const where = [server.transport, server.origin].filter(Boolean).join(", ");
    lines.push(`${server.name}  ${server.state}${where ? `  (${where})` : ""}`);
    if (server.state === "connected") lines.push(`  ${plural(server.tools, "tool")}, ${plural(server.prompts, "prompt")}, ${plural(server.resources, "resource")}`);
    if (server.lastError) lines.push(...server.lastError.split("\n").map((line) => `  ${line.trimStart()}`));
  }
  lines.push("", "/mcp reconnect <name> reads the config again and reconnects that server; /mcp login <name> signs in to one that needs it.");
  return lines.join("\n");
}
