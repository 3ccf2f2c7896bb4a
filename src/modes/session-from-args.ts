/**
 * The command line's say on a session, shared by every mode: which tools,
 * which model, which session file, the system prompt overrides — and the
 * extensions, which load only when some are configured (a run without any
 * never imports the extension system).
 */
import { parseArgs, type CliArgs } from "../cli/args.ts";
import { createAgentSession, type CreatedSession, type SessionChoice } from "../core/create-session.ts";
import type { ExtensionSystem, ExtensionSystemOptions } from "../core/extension-system.ts";
import { UserError } from "../core/user-error.ts";
import { ModelRegistry } from "../config/model-registry.ts";
import { discoverExtensions } from "../extensions/discovery.ts";
import { codeRunningKeysIn } from "../extensions/project-trust.ts";
import { getAgentDir } from "../config/paths.ts";
import { readGlobalSettingsFile, readProjectSettingsFile } from "../config/settings.ts";
import { parseToolNames, type ToolName } from "../tools/index.ts";
import type { AgentSession } from "../core/agent-session.ts";
import { VERSION } from "../cli/version.ts";
import { hasProjectMcpConfig } from "../mcp/config-files.ts";
import { MCP_PREFIX } from "../mcp/names.ts";
import { startMcp, type McpSessionServers } from "../mcp/start.ts";

/**
 * --no-tools, --tools a,b, or (undefined) no say, leaving it to settings' `defaultTools`
 * or the default set; an unknown name is a usage error.
 */
export function selectedTools(args: CliArgs): readonly ToolName[] | undefined {
  if (args.noTools || args.noBuiltinTools) return [];
  if (args.tools === undefined) return undefined;
  // MCP tools (`mcp__server__tool`) are named too; their servers decide whether they exist (src/mcp).
  const parsed = parseToolNames(withoutMcpNames(args.tools));
  if ("error" in parsed) throw new UserError(parsed.error, 2);
  return parsed.names;
}

/** What a mode gives the extension system: its UI, and where errors and notices go. */
export type ModeExtensionOptions = Pick<ExtensionSystemOptions, "mode" | "ui" | "reportError" | "notice" | "onShutdownRequested" | "hostApi" | "onCustomEntry">;

export interface SessionFromArgs extends CreatedSession {
  /** The arguments, parsed again with the flags extensions registered. */
  args: CliArgs;
  extensions?: ExtensionSystem;
}

/**
 * Cheap: is there any extension to load (or to report as missing), or project code
 * waiting for trust? Reads two folders and the settings files.
 */
function anyExtensionConfigured(args: CliArgs, cwd: string): boolean {
  if (args.extensionPaths.length > 0) return true;
  // The project's MCP servers wait for the trust decision the extension system settles.
  if (!args.noMcp && hasProjectMcpConfig(cwd)) return true;
  if (args.noExtensions) return false;
  const read = (file: () => Record<string, unknown>): Record<string, unknown> => {
    try {
      return file();
    } catch {
      return {}; // a broken file is reported where settings load
    }
  };
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);
  const project = read(() => readProjectSettingsFile(cwd));
  const found = discoverExtensions({
    cwd,
    agentDir: getAgentDir(),
    cliPaths: [],
    userSettingsPaths: list(read(readGlobalSettingsFile).extensions),
    projectSettingsPaths: list(project.extensions),
    includeProject: true,
    noExtensions: false,
  });
  // Project settings that run code (shellPath, …) also wait for trust, which the extension system settles.
  return found.sources.length > 0 || found.errors.length > 0 || codeRunningKeysIn(project).length > 0;
}

export interface LoadedExtensions {
  /** The arguments, parsed again with the flags extensions registered. */
  args: CliArgs;
  system?: ExtensionSystem;
  /** The model registry with the providers extensions registered; undefined without extensions. */
  registry?: ModelRegistry;
}

/**
 * Loads the configured extensions (none: nothing is imported) and parses the
 * command line again with the flags they registered. An option no extension
 * registered is a usage error.
 */
export async function loadExtensionsForArgs(args: CliArgs, options: ModeExtensionOptions | undefined, cwd = process.cwd()): Promise<LoadedExtensions> {
  if (!options || !anyExtensionConfigured(args, cwd)) {
    if (args.unknownOptions.length > 0) throw new UserError(`Unknown option ${args.unknownOptions[0]}. Run xcsh --help for usage.`, 2);
    return { args };
  }
  const { ExtensionSystem } = await import("../core/extension-system.ts");
  const system = await ExtensionSystem.start({ ...options, cwd, cliPaths: args.extensionPaths, noExtensions: args.noExtensions, cliTrust: args.trustProject, projectMcp: !args.noMcp });
  const reparsed = parseArgs(args.argv, system.flagTypes());
  if (!reparsed.ok) throw new UserError(reparsed.error, 2);
  const registry = ModelRegistry.load();
  system.useRegistry(registry);
  return { args: reparsed.args, system, registry };
}

export interface SessionFromArgsOptions {
  requireApiKey?: boolean;
  extensions?: ModeExtensionOptions;
  quietLoadWarnings?: boolean;
  /** The session's working directory, when not the process's (ACP: each session names its own). */
  cwd?: string;
  /** Replaces the command line's say on which session file to open (ACP: session/new, session/load). */
  sessions?: SessionChoice;
  /** MCP servers for this session only, besides the configured ones (ACP: the client's mcpServers). */
  mcpServers?: McpSessionServers;
  /** Where MCP problems are reported (RPC: notice frames); the extensions' notice line otherwise. */
  mcpNotice?(message: string): void;
}

export async function createSessionFromArgs(initialArgs: CliArgs, options: SessionFromArgsOptions = {}): Promise<SessionFromArgs> {
  const cwd = options.cwd ?? process.cwd();
  const { args, system, registry } = await loadExtensionsForArgs(initialArgs, options.extensions, cwd);
  const created = await createAgentSession({
    cwd,
    provider: args.provider,
    model: args.model,
    thinking: args.thinking,
    apiKey: args.apiKey,
    requireApiKey: options.requireApiKey,
    registry,
    ...(system ? { projectTrusted: system.isProjectTrusted() } : {}),
    toolNames: selectedTools(args),
    systemPrompt: args.systemPrompt,
    appendSystemPrompt: args.appendSystemPrompt,
    noContextFiles: args.noContextFiles,
    resources: {
      skillPaths: args.skillPaths,
      noSkills: args.noSkills,
      promptTemplatePaths: args.promptTemplatePaths,
      noPromptTemplates: args.noPromptTemplates,
    },
    sessions: options.sessions ?? {
      noSession: args.noSession,
      session: args.session,
      continueRecent: args.continueSession,
      sessionDir: args.sessionDir,
      name: args.name,
      sessionId: args.sessionId,
    },
  });
  for (const warning of created.setup.warnings) process.stderr.write(`xcsh: ${warning}\n`);
  // Problems met reading the session file (skipped lines): RPC reports them as notice events.
  if (!options.quietLoadWarnings) for (const warning of created.session.sessionManager.getLoadWarnings()) process.stderr.write(`xcsh: ${warning}\n`);
  if (system) await system.attach(created.session, args.extensionFlags);
  connectMcp(args, created.session, system, options, cwd);
  return { ...created, args, ...(system ? { extensions: system } : {}) };
}

/** `--tools` without the MCP names, which parseToolNames would call unknown. */
function withoutMcpNames(list: string): string {
  return list
    .split(",")
    .filter((name) => !name.trim().startsWith(MCP_PREFIX))
    .join(",");
}

/** `--tools`' MCP names (or none with --no-tools); undefined when --tools does not choose. */
function mcpToolFilter(args: CliArgs): string[] | undefined {
  if (args.noTools) return [];
  if (args.tools === undefined) return undefined;
  return args.tools
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name.startsWith(MCP_PREFIX));
}

/** The session's MCP servers (nothing of MCP loads when none is configured); they connect in the background. */
function connectMcp(args: CliArgs, session: AgentSession, system: ExtensionSystem | undefined, options: SessionFromArgsOptions, cwd: string): void {
  const notice = options.extensions?.notice;
  const report = options.mcpNotice ?? ((message: string) => (notice ? notice(`xcsh: ${message}`) : process.stderr.write(`xcsh: ${message}\n`)));
  const link = startMcp({
    cwd,
    useConfigFiles: !args.noMcp,
    cliFiles: args.mcpConfigPaths ?? [],
    extra: options.mcpServers,
    clientInfo: { name: "xcsh", version: VERSION },
    tools: session.tools,
    toolFilter: mcpToolFilter(args),
    projectTrusted: system?.isProjectTrusted() ?? false,
    onProjectTrusted: system ? (listener) => system.onProjectTrusted(listener) : undefined,
    report,
  });
  if (!link) return;
  session.mcp = link;
  session.resources?.addCommandSource(() => link.commands());
}
