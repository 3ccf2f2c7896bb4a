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

/**
 * --no-tools, --tools a,b, or (undefined) no say, leaving it to settings' `defaultTools`
 * or the default set; an unknown name is a usage error.
 */
export function selectedTools(args: CliArgs): readonly ToolName[] | undefined {
  if (args.noTools || args.noBuiltinTools) return [];
  if (args.tools === undefined) return undefined;
  const parsed = parseToolNames(args.tools);
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
  const system = await ExtensionSystem.start({ ...options, cwd, cliPaths: args.extensionPaths, noExtensions: args.noExtensions, cliTrust: args.trustProject });
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
  return { ...created, args, ...(system ? { extensions: system } : {}) };
}
