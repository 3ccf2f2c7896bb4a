/**
 * The command line's say on a session, shared by every mode: which tools,
 * which model, which session file, the system prompt overrides — and the
 * extensions, which load only when some are configured (a run without any
 * never imports the extension system).
 */
import { inertText } from "../tools/inert-text.ts";
import type { RunOptions } from "../core/run-options.ts";
import { createAgentSession, type CreatedSession, type SessionChoice } from "../core/create-session.ts";
import type { ExtensionSystem, ExtensionSystemOptions, SessionStartCause } from "../core/extension-system.ts";
import { UserError } from "../core/user-error.ts";
import { ModelRegistry } from "../config/model-registry.ts";
import { discoverExtensions } from "../extensions/discovery.ts";
import { getAgentDir } from "../config/paths.ts";
import { projectKeysAwaitingTrust, readGlobalSettingsFile, readProjectSettingsObject } from "../config/settings.ts";
import { noteProjectTrust } from "../config/run-trust.ts";
import { promptTextOrFile } from "../resources/system-prompt-files.ts";
import { allToolNames } from "../tools/index.ts";
import { isToolChange, unknownToolNames, type ToolSelection } from "../core/tool-selection.ts";
import type { ToolSet } from "../core/tool-set.ts";
import type { AgentSession } from "../core/agent-session.ts";
import { hasProjectMcpConfig } from "../mcp/config-files.ts";
import { MCP_PREFIX } from "../mcp/names.ts";
import { BUILTIN_EXTENSIONS, builtinEnabled, withoutBuiltinEntries } from "../core/builtin-extensions.ts";
import { CODEMODE_TOOL_NAME } from "../codemode/index.ts";
import { TOOL_SEARCH_NAME } from "../core/tool-search.ts";
import { createMcpSampler } from "../core/mcp-sampling.ts";
import { startMcp, type McpSessionLink, type McpSessionServers } from "../mcp/start.ts";

/** --tools, --exclude-tools, --no-tools, --no-builtin-tools. */
export function toolSelection(args: RunOptions): ToolSelection {
  return {
    // Only `+name`/`-name` entries change the default selection; plain names replace it (args.ts refuses a mix).
    ...(args.tools !== undefined ? (args.tools.length > 0 && args.tools.every(isToolChange) ? { changes: args.tools } : { only: args.tools }) : {}),
    exclude: args.excludeTools,
    noTools: args.noTools,
    noBuiltinTools: args.noBuiltinTools,
  };
}

/**
 * A --tools name no tool has is a usage error, judged once every tool that can be
 * there is (extensions register theirs while loading and in session_start);
 * an --exclude-tools name, or a `+name`/`-name` change (pi's `+codemode`), is only worth
 * a warning: the rest of the selection means the same without it.
 */
function checkToolNames(selection: ToolSelection, tools: Pick<ToolSet, "has" | "all" | "isBuiltinName"> | undefined): void {
  // An MCP tool (`mcp__server__tool`) arrives when its server connects, after this check: its server decides.
  const known = (name: string) => name.startsWith(MCP_PREFIX) || (tools ? tools.has(name) : allToolNames.has(name as never) || name === CODEMODE_TOOL_NAME || name === TOOL_SEARCH_NAME);
  const unknown = unknownToolNames(selection, known);
  const builtins = [...allToolNames, CODEMODE_TOOL_NAME, TOOL_SEARCH_NAME].join(", ");
  const fromExtensions = tools ? tools.all().filter((tool) => !tools.isBuiltinName(tool.name)).map((tool) => tool.name) : [];
  const available = `Built-in tools: ${builtins}${fromExtensions.length > 0 ? `; from extensions: ${fromExtensions.join(", ")}` : ""}.`;
  const names = (list: string[]) => list.map((name) => `"${name}"`).join(", ");
  if (unknown.exclude.length > 0) process.stderr.write(`xcsh: --exclude-tools: no tool is named ${names(unknown.exclude)}. ${available}\n`);
  // `--tools +codemode` (pi 1.6.0's way to add its codemode tool) changes the defaults: the other changes still apply.
  if (unknown.changes.length > 0) process.stderr.write(`xcsh: --tools: no tool is named ${names(unknown.changes)}; left out, the other entries apply. ${available}\n`);
  if (unknown.only.length > 0) {
    throw new UserError(
      `--tools: no tool is named ${names(unknown.only)}. ${available} Check the spelling, or load the extension that provides it (-e <path>).`,
      2,
    );
  }
}

/** --system-prompt / --append-system-prompt: a file's contents when the value names one, else the text. */
function promptText(flag: string, value: string, cwd: string): string {
  try {
    return promptTextOrFile(value, cwd);
  } catch (error) {
    throw new UserError(`${flag} ${value}: the file cannot be read (${(error as Error).message}). Give a readable file, or the text itself.`, 2);
  }
}

/** What a mode gives the extension system: its UI, and where errors and notices go. */
export type ModeExtensionOptions = Pick<ExtensionSystemOptions, "mode" | "ui" | "reportError" | "notice" | "onShutdownRequested" | "hostApi" | "onCustomEntry" | "onExtensionsReplaced">;

export interface SessionFromArgs extends CreatedSession {
  /** The arguments, parsed again with the flags extensions registered. */
  args: RunOptions;
  extensions?: ExtensionSystem;
}

/**
 * Cheap: is there any extension to load (or to report as missing), or project code
 * waiting for trust? Reads two folders and the settings files.
 */
function anyExtensionConfigured(args: RunOptions, cwd: string): boolean {
  if (args.extensionPaths.length > 0) return true;
  // The project's MCP servers wait for the trust decision the extension system settles.
  if (!args.noMcp && hasProjectMcpConfig(cwd)) return true;
  const read = (file: () => Record<string, unknown>): Record<string, unknown> => {
    try {
      return file();
    } catch {
      return {}; // a broken file is reported where settings load
    }
  };
  const project = read(() => readProjectSettingsObject(cwd));
  const global = read(readGlobalSettingsFile);
  // Project settings that run code, pick the model, move sessions or loosen the sandbox wait for
  // trust, which the extension system settles — --no-extensions or not.
  if (projectKeysAwaitingTrust(project, global).length > 0) return true;
  if (args.noExtensions) return false;
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);
  const found = discoverExtensions({
    cwd,
    agentDir: getAgentDir(),
    cliPaths: [],
    userSettingsPaths: withoutBuiltinEntries(list(global.extensions)),
    projectSettingsPaths: withoutBuiltinEntries(list(project.extensions)),
    includeProject: true,
    noExtensions: false,
  });
  return found.sources.length > 0 || found.errors.length > 0;
}

/**
 * For commands that look for sessions before any session starts (--resume's list, --export):
 * notes the trust that needs no question — the flag, the remembered decision, the global
 * setting — so a trusted project's `sessionDir` is searched, an untrusted one's is not.
 */
export async function noteTrustWithoutAsking(trustProject: boolean | undefined, cwd: string): Promise<void> {
  const { projectTrustedWithoutAsking } = await import("../packages/installed.ts");
  noteProjectTrust(cwd, trustProject ?? projectTrustedWithoutAsking(cwd, getAgentDir(), []));
}

export interface LoadedExtensions {
  /** The arguments, parsed again with the flags extensions registered. */
  args: RunOptions;
  system?: ExtensionSystem;
  /** The model registry with the providers extensions registered; undefined without extensions. */
  registry?: ModelRegistry;
}

/**
 * Loads the configured extensions (none: nothing is imported) and parses the
 * command line again with the flags they registered. An option no extension
 * registered is a usage error.
 */
export async function loadExtensionsForArgs(args: RunOptions, options: ModeExtensionOptions | undefined, cwd = process.cwd()): Promise<LoadedExtensions> {
  if (!options || !anyExtensionConfigured(args, cwd)) {
    if (args.unknownOptions.length > 0) {
      // Parsed again knowing no extension flag: the parser's message names the option and its likely spelling.
      const again = args.reparse(new Map());
      throw new UserError(again.ok ? `Unknown option ${args.unknownOptions[0]}. Run xcsh --help for usage.` : again.error, 2);
    }
    return { args };
  }
  const { ExtensionSystem } = await import("../core/extension-system.ts");
  const system = await ExtensionSystem.start({ ...options, cwd, cliPaths: args.extensionPaths, noExtensions: args.noExtensions, cliTrust: args.trustProject, projectMcp: !args.noMcp });
  const reparsed = args.reparse(system.flagTypes());
  if (!reparsed.ok) throw new UserError(reparsed.error, 2);
  const registry = ModelRegistry.load();
  system.useRegistry(registry);
  return { args: reparsed.options, system, registry };
}

export interface SessionFromArgsOptions {
  requireApiKey?: boolean;
  /** The terminal UI: open even with no key configured anywhere (RunSetupOptions.openWithoutAnyKey). */
  openWithoutAnyKey?: boolean;
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
  /** The session replaces one of another folder (the TUI's /resume): extensions' session_start says so. */
  startCause?: SessionStartCause;
}

/** What the command line says about the session file, unless the mode decided it (print mode's -r picker, ACP). */
function sessionChoiceFromArgs(args: RunOptions): SessionChoice {
  return {
    noSession: args.noSession,
    session: args.session,
    continueRecent: args.continueSession,
    sessionDir: args.sessionDir,
    name: args.name,
    sessionId: args.sessionId,
    fork: args.fork,
  };
}

/**
 * The directory the run happens in: a mode's own (ACP), else the resumed session's
 * recorded one (pi 1.6.0; core/session-cwd.ts), else where xcsh was started. When it is
 * not the start directory, the command line's paths are made absolute first, so
 * `-e ./ext.ts` or `@notes.md` still mean the files the person named.
 */
async function runDirectory(args: RunOptions, options: SessionFromArgsOptions): Promise<{ cwd: string; anchor: (args: RunOptions) => RunOptions }> {
  const keep = (given: RunOptions) => given;
  if (options.cwd !== undefined) return { cwd: options.cwd, anchor: keep };
  const launchCwd = process.cwd();
  const { sessionWorkingDirectory, anchorCliPaths } = await import("../core/session-cwd.ts");
  const cwd = await sessionWorkingDirectory(options.sessions ?? sessionChoiceFromArgs(args), launchCwd);
  return cwd === launchCwd ? { cwd, anchor: keep } : { cwd, anchor: (given) => anchorCliPaths(given, launchCwd) };
}

export async function createSessionFromArgs(initialArgs: RunOptions, options: SessionFromArgsOptions = {}): Promise<SessionFromArgs> {
  const { cwd, anchor } = await runDirectory(initialArgs, options);
  const loaded = await loadExtensionsForArgs(anchor(initialArgs), options.extensions, cwd);
  // Parsed again with the extensions' flags: anchored again.
  const args = anchor(loaded.args);
  const { system, registry } = loaded;
  // Without an extension system the project holds nothing that waits for trust: untrusted loses nothing.
  const projectTrusted = system?.isProjectTrusted() ?? false;
  noteProjectTrust(cwd, projectTrusted);
  const tools = toolSelection(args);
  // Without extensions the built-ins are all there is: a wrong name fails before any setup.
  if (!system) checkToolNames(tools, undefined);
  const appended = args.appendSystemPrompt.map((value) => promptText("--append-system-prompt", value, cwd));
  const created = await createAgentSession({
    cwd,
    provider: args.provider,
    model: args.model,
    thinking: args.thinking,
    apiKey: args.apiKey,
    sandbox: args.sandbox,
    requireApiKey: options.requireApiKey,
    openWithoutAnyKey: options.openWithoutAnyKey,
    registry,
    projectTrusted,
    tools,
    systemPrompt: args.systemPrompt === undefined ? undefined : promptText("--system-prompt", args.systemPrompt, cwd),
    appendSystemPrompt: appended.length > 0 ? appended.join("\n\n") : undefined,
    models: args.models,
    noContextFiles: args.noContextFiles,
    resources: {
      skillPaths: args.skillPaths,
      noSkills: args.noSkills,
      promptTemplatePaths: args.promptTemplatePaths,
      noPromptTemplates: args.noPromptTemplates,
    },
    sessions: options.sessions ?? sessionChoiceFromArgs(args),
  });
  // Warnings quote config files and paths a cloned repository may have chosen: written inert.
  for (const warning of created.setup.warnings) process.stderr.write(`xcsh: ${inertText(warning)}\n`);
  // Problems met reading the session file (skipped lines): RPC reports them as notice events.
  if (!options.quietLoadWarnings) for (const warning of created.session.sessionManager.getLoadWarnings()) process.stderr.write(`xcsh: ${inertText(warning)}\n`);
  if (system) {
    await system.attach(created.session, args.extensionFlags, options.startCause);
    try {
      checkToolNames(tools, created.session.tools);
    } catch (error) {
      await system.shutdown();
      throw error;
    }
  }
  connectMcp(args, created.session, system, options, cwd);
  return { ...created, args, ...(system ? { extensions: system } : {}) };
}

/**
 * pi 1.x's built-in extensions (core/builtin-extensions.ts): whether MCP support runs at all
 * (`-e builtin:mcp`, --no-extensions, settings' `-builtin:mcp`), and a warning for each
 * built-in `-e` names that xcsh does not have.
 */
function builtinMcpEnabled(args: RunOptions, cwd: string, projectTrusted: boolean): boolean {
  const cli = args.builtinExtensions ?? [];
  for (const name of new Set(cli)) {
    if (name === CODEMODE_TOOL_NAME) process.stderr.write(`xcsh: -e builtin:codemode: in xcsh codemode is a tool, not an extension: add it with --tools +codemode or "defaultTools": ["+codemode"].\n`);
    else if (!BUILTIN_EXTENSIONS[name]) process.stderr.write(`xcsh: -e builtin:${name}: xcsh has no built-in ${name} extension yet; going on without it.\n`);
  }
  const list = (read: () => Record<string, unknown>): string[] => {
    try {
      const value = read().extensions;
      return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
    } catch {
      return []; // a broken file is reported where settings load
    }
  };
  return builtinEnabled(
    {
      cli,
      noExtensions: args.noExtensions,
      userList: list(readGlobalSettingsFile),
      // A project's settings count once it is trusted, like every key that changes what runs.
      projectList: projectTrusted ? list(() => readProjectSettingsObject(cwd)) : [],
    },
    "mcp",
  );
}

/** The session's MCP servers (nothing of MCP loads when none is configured); they connect in the background. */
function connectMcp(args: RunOptions, session: AgentSession, system: ExtensionSystem | undefined, options: SessionFromArgsOptions, cwd: string): void {
  const notice = options.extensions?.notice;
  const report = options.mcpNotice ?? ((message: string) => (notice ? notice(`xcsh: ${message}`) : process.stderr.write(`xcsh: ${message}\n`)));
  if (!builtinMcpEnabled(args, cwd, system?.isProjectTrusted() ?? false)) {
    // Nothing connects the servers extensions register: each registration is the extension's error (pi 1.x).
    system?.onMcpServersChange(() => {
      for (const server of system.registeredMcpServers()) {
        report(`MCP server "${server.name}" (registered by ${server.extensionPath}) is not connected: MCP support is turned off`);
      }
    });
    return;
  }
  // Servers extensions register (pi.registerMcpServer) are declared like a file's, before every file.
  const registered = () =>
    (system?.registeredMcpServers() ?? []).map((server) => ({
      name: server.name,
      entry: server.config,
      scope: "temporary" as const,
      origin: `registered by ${server.extensionPath}`,
      literal: true,
    }));
  const start = () => startMcp({
    cwd,
    useConfigFiles: !args.noMcp,
    cliFiles: args.mcpConfigPaths ?? [],
    extra: options.mcpServers,
    tools: session.tools,
    projectTrusted: system?.isProjectTrusted() ?? false,
    onProjectTrusted: system ? (listener) => system.onProjectTrusted(listener) : undefined,
    report,
    // Servers' questions go through the mode's dialogs (terminal, RPC frames; print mode's defaults decline).
    ...(options.extensions?.ui ? { dialogs: options.extensions.ui } : {}),
    // A server's request for the model: the session's model, once the person agreed (refused where nobody can be asked).
    sampler: createMcpSampler(session, options.extensions?.ui),
    registered,
  });
  const use = (link: McpSessionLink): void => {
    session.mcp = link;
    session.tools.waitForAllServers = () => link.readyAll();
    session.resources?.addCommandSource(() => link.commands());
  };
  const first = start();
  if (first) use(first);
  // A registration after start-up: MCP starts now if nothing was declared before, else reads the declarations again.
  system?.onMcpServersChange(() => {
    if (session.mcp) return session.mcp.refresh();
    const link = start();
    if (link) use(link);
  });
}
