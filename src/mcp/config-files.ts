/**
 * Where MCP servers are declared and reading those files. The user's servers are in
 * `<agentDir>/mcp.json`; a project's in `<cwd>/.mcp.json` (the name other tools use)
 * and `<cwd>/.xcsh/mcp.json` (xcsh's own, which wins on a clash); `--mcp-config`
 * names more files for one run. Each file holds `{"mcpServers": {"<name>": {…}}}`.
 * A file that cannot be read or parsed is a problem to report, never a crash: the
 * servers of the other files still start. Cheap on purpose — the start-up path asks
 * whether any file exists before anything of MCP is loaded.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { assertMatchesSchema, readJsonFile } from "../config/json-file.ts";
import { getAgentDir, getProjectConfigDir } from "../config/paths.ts";
import { McpFileSchema, type McpScope } from "./config-schema.ts";

/** A server as a file declares it, not yet checked. */
export interface DeclaredServer {
  name: string;
  entry: unknown;
  scope: McpScope;
  /** The file, or where the declaration came from. */
  origin: string;
  /** Values used as given, without `${VAR}` expansion (an ACP client's servers). */
  literal?: boolean;
}

export interface McpFileRead {
  servers: DeclaredServer[];
  problems: string[];
  /** The file's `autoEnableCodemode`, when it sets one. */
  autoEnableCodemode?: boolean;
}

export function userMcpConfigPath(): string {
  return join(getAgentDir(), "mcp.json");
}

/** `.xcsh/mcp.json`: where `xcsh mcp add -l` writes. */
export function projectMcpConfigPath(cwd: string): string {
  return join(getProjectConfigDir(cwd), "mcp.json");
}

/** The project's files in the order they are merged (a later one wins a name). */
export function projectMcpConfigPaths(cwd: string): string[] {
  return [join(cwd, ".mcp.json"), projectMcpConfigPath(cwd)];
}

function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

export function existingFiles(paths: readonly string[]): string[] {
  return paths.filter(isFile);
}

/** Whether the project declares MCP servers (which then wait for the project to be trusted). */
export function hasProjectMcpConfig(cwd: string): boolean {
  return existingFiles(projectMcpConfigPaths(cwd)).length > 0;
}

/** The servers a file declares, in file order; a missing file declares none. */
export function readMcpFile(file: string, scope: McpScope): McpFileRead {
  try {
    const content = readJsonFile(file);
    if (content === undefined) return { servers: [], problems: [] };
    assertMatchesSchema<{ mcpServers?: Record<string, unknown>; autoEnableCodemode?: boolean }>(McpFileSchema, content, file, "Fix the file; its MCP servers are not started.");
    const servers = Object.entries(content.mcpServers ?? {}).map(([name, entry]) => ({ name, entry, scope, origin: file }));
    return { servers, problems: [], ...(content.autoEnableCodemode !== undefined ? { autoEnableCodemode: content.autoEnableCodemode } : {}) };
  } catch (error) {
    return { servers: [], problems: [(error as Error).message] };
  }
}
