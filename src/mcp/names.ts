/**
 * The names MCP tools and prompts get in xcsh: `mcp__<server>__<name>`, so they never
 * clash with built-in or extension tools and say where they come from. Providers take
 * tool names of letters, digits, `_` and `-` up to 64 characters (OpenAI's limit, the
 * strictest), so other characters become `_` and a longer name is cut and given a
 * short hash of the whole, keeping two long names apart.
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

export function mcpName(server: string, name: string): string {
  const full = `${MCP_PREFIX}${sanitize(server)}__${sanitize(name)}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  return `${full.slice(0, MAX_TOOL_NAME - 9)}_${shortHash(`${server}\u0000${name}`)}`;
}
