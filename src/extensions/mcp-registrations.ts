/**
 * MCP servers extensions register with `pi.registerMcpServer` (pi 1.x): the
 * entries of one runtime generation, in registration order, each owned by the
 * extension that registered it. They are not saved; a reload drops them and the
 * reloaded extensions register theirs again. MCP reads them as declarations that
 * come before every mcp.json, so a file's server of the same name wins.
 */
import { entryProblem } from "../mcp/server-plan.ts";

export interface RegisteredMcpServer {
  name: string;
  config: Record<string, unknown>;
  /** The extension that registered it. */
  extensionPath: string;
}

// The server name becomes part of tool names (mcp__<name>__…): keep it to what providers take.
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

export class McpRegistrations {
  private readonly servers = new Map<string, RegisteredMcpServer>();
  private readonly listeners: (() => void)[] = [];

  /** Adds or replaces the extension's server; throws for a bad name or config, or another extension's name. */
  register(extensionPath: string, name: string, config: unknown): void {
    if (typeof name !== "string" || !NAME.test(name)) {
      throw new Error(`MCP server name "${String(name)}" is not allowed: use 1-64 letters, digits, "_" or "-"`);
    }
    const owner = this.servers.get(name)?.extensionPath;
    if (owner !== undefined && owner !== extensionPath) throw new Error(`MCP server "${name}" is registered by another extension (${owner})`);
    const problem = entryProblem({ name, entry: config, scope: "temporary", origin: "registerMcpServer" });
    if (problem) throw new Error(problem);
    // A copy: later changes to the caller's object do not change the server.
    this.servers.set(name, { name, config: structuredClone(config) as Record<string, unknown>, extensionPath });
    this.changed();
  }

  /** Removes the extension's own server of that name; others' are left alone. */
  unregister(extensionPath: string, name: string): void {
    if (this.servers.get(name)?.extensionPath !== extensionPath) return;
    this.servers.delete(name);
    this.changed();
  }

  list(): RegisteredMcpServer[] {
    return [...this.servers.values()].map((server) => ({ ...server, config: structuredClone(server.config) }));
  }

  /** Drops every registration (a reload) without telling anyone: the reloaded extensions register again. */
  clear(): void {
    this.servers.clear();
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }
}
