/**
 * Adding and removing a server in an MCP config file, for `xcsh mcp add|remove`.
 * The rest of the file is kept as it is (other keys, other tools' fields); a file
 * that cannot be parsed is never overwritten. Writes go through a temp file and a
 * rename, so a crash leaves the old file or the new one.
 */
import { readJsonFile, writeJsonFile } from "../config/json-file.ts";

type McpFileContent = Record<string, unknown> & { mcpServers?: Record<string, unknown> };

function readForEdit(file: string): McpFileContent {
  const content = readJsonFile(file, "Fix the file first; it was not changed.");
  if (content === undefined) return {};
  if (typeof content !== "object" || content === null || Array.isArray(content)) throw new Error(`${file}: expected a JSON object; the file was not changed.`);
  const servers = (content as McpFileContent).mcpServers;
  if (servers !== undefined && (typeof servers !== "object" || servers === null || Array.isArray(servers))) {
    throw new Error(`${file}: "mcpServers" must be an object; the file was not changed.`);
  }
  return content as McpFileContent;
}

function write(file: string, content: McpFileContent): void {
  writeJsonFile(file, content);
}

/** Adds (or replaces, with `replace`) a server; throws when the name is taken and replacing was not asked for. */
export function addServer(file: string, name: string, entry: Record<string, unknown>, replace = false): void {
  const content = readForEdit(file);
  const servers = { ...(content.mcpServers ?? {}) };
  if (Object.hasOwn(servers, name) && !replace) throw new Error(`${file} already has an MCP server "${name}"; remove it first, or add with --force to replace it.`);
  servers[name] = entry;
  write(file, { ...content, mcpServers: servers });
}

/** Removes a server; false when the file has none of that name. */
export function removeServer(file: string, name: string): boolean {
  const content = readForEdit(file);
  const servers = { ...(content.mcpServers ?? {}) };
  if (!Object.hasOwn(servers, name)) return false;
  delete servers[name];
  write(file, { ...content, mcpServers: servers });
  return true;
}
