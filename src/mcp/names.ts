/**
 * The names MCP tools and prompts get in xcsh: `mcp__<server>__<name>`, so they never
 * clash with built-in or extension tools and say where they come from. Providers take
 * tool names of letters, digits, `_` and `-` up to 64 characters (OpenAI's limit, the
 * strictest), so other characters become `_` and a longer name is cut and given a
 * short hash of the whole, keeping two long names apart.
 *
 * Tools follow pi 1.6.0: every character but letters, digits and `_` becomes `_` (so
 * `get-weather` is `get_weather`), and a server's tools whose names then meet all get a
 * hash suffix, whichever comes first in its list. The name xcsh gave before (with `-`
 * kept) stays an alias the agent accepts, so sessions and habits from before still work.
 */

export const MCP_PREFIX = "mcp__";
/** The `sourceInfo.source` of MCP tools and prompt commands. */
export const MCP_TOOL_SOURCE = "mcp";
const MAX_TOOL_NAME = 64;

function sanitize(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** FNV-1a, as 8 hex digits: enough to tell a handful of long names apart, stable across runs. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** pi 1.6.0's group name of a server's tools, `mcp__<server>` (a `-` becomes `_`). */
export function mcpNamespaceName(server: string): string {
  return `${MCP_PREFIX}${server.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

export function mcpName(server: string, name: string): string {
  const full = `${MCP_PREFIX}${sanitize(server)}__${sanitize(name)}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  return `${full.slice(0, MAX_TOOL_NAME - 9)}_${shortHash(`${server}\u0000${name}`)}`;
}

function toolPart(part: string): string {
  return part.replace(/[^A-Za-z0-9_]/g, "_");
}

function fitted(full: string, server: string, name: string, forceHash: boolean): string {
  if (!forceHash && full.length <= MAX_TOOL_NAME) return full;
  return `${full.slice(0, MAX_TOOL_NAME - 9)}_${shortHash(`${server}\u0000${name}`)}`;
}

export interface McpToolName {
  name: string;
  /** The name before pi's rule (with `-`), when it differs: still accepted in calls. */
  alias?: string;
}

/** The names a server's tools get, by the server's tool name. */
export function mcpToolNames(server: string, toolNames: readonly string[]): Map<string, McpToolName> {
  const plain = (tool: string) => `${MCP_PREFIX}${toolPart(server)}__${toolPart(tool)}`;
  const counts = new Map<string, number>();
  for (const tool of new Set(toolNames)) counts.set(plain(tool), (counts.get(plain(tool)) ?? 0) + 1);
  const names = new Map<string, McpToolName>();
  for (const tool of toolNames) {
    const name = fitted(plain(tool), server, tool, (counts.get(plain(tool)) ?? 0) > 1);
    const legacy = mcpName(server, tool);
    names.set(tool, { name, ...(legacy !== name ? { alias: legacy } : {}) });
  }
  return names;
}
