/**
 * The extension system of one process, over its lifetime: finds and loads
 * extensions (user and -e ones first, project ones once the project is
 * trusted), binds them to the session, and starts a fresh runtime generation
 * whenever the session is replaced or reloaded — the old generation gets
 * session_shutdown, the new one session_start, and objects the old one handed
 * out become stale. Loaded only when some extension is configured.
 */
import { withoutBuiltinEntries } from "./builtin-extensions.ts";
import { getAgentDir } from "../config/paths.ts";
import type { ModelRegistry } from "../config/model-registry.ts";
import type { CustomEntry } from "../session/types.ts";
import { readGlobalSettingsFile, readProjectSettingsFile } from "../config/settings.ts";
import { createCommandContext, createExtensionContext, createReplacedSessionContext } from "../extensions/context.ts";
import { discoverExtensions, type DiscoveryResult, type ExtensionSource } from "../extensions/discovery.ts";
import { createEventBus } from "../extensions/event-bus.ts";
import type { ExtensionRuntime } from "../extensions/extension-api.ts";
import { useHostCredentials } from "../extensions/host-credentials.ts";
import { registerHostModules } from "../extensions/host-modules.ts";
import { loadExtensions, type LoadFailure } from "../extensions/loader.ts";
import type { SkippedProjectCode } from "../extensions/project-trust.ts";
import { registerExtensionProvider, unregisterExtensionProvider } from "../extensions/providers.ts";
import { getProviders as getBuiltinProviders } from "../ai/models.ts";
import { isVirtualModel, VirtualModelTable } from "../extensions/virtual-models.ts";
import { ExtensionRunner, type ExtensionErrorReport, type LoadedExtension } from "../extensions/runner.ts";
import type { FlagOptions, ProviderConfig, ReplacedSessionContext } from "../extensions/types.ts";
import type { ExtensionMode, ExtensionUIContext } from "../extensions/ui-types.ts";
import { withPromptEvents } from "../extensions/ui-prompt-events.ts";
import type { AgentSession } from "./agent-session.ts";
import { registerExtensionTool } from "../extensions/tool-adapter.ts";
import { McpRegistrations, type RegisteredMcpServer } from "../extensions/mcp-registrations.ts";
import { ExtensionBindings, type ExtensionSystemLink } from "./extension-bindings.ts";
import { askProjectTrust, readSettingsOrEmpty, settleProjectTrust } from "./extension-trust.ts";
import type { ExtensionCommandEntry } from "../resources/commands.ts";

export interface ExtensionSystemOptions {
  cwd: string;
  mode: ExtensionMode;
  ui: ExtensionUIContext;
  /** -e paths. */
  cliPaths: string[];
  noExtensions: boolean;
  /** --trust-project / --no-trust-project. */
  cliTrust?: boolean;
  /** The public API extensions import as `xcsh` (src/index.ts), handed over by the entry point. */
  hostApi: () => Promise<Record<string, unknown>>;
  /** extension_error: an event frame in rpc/json mode, a stderr line in print mode. */
  reportError(report: ExtensionErrorReport): void;
  /** A line for the person running xcsh (stderr). */
  notice(line: string): void;
  /** ctx.shutdown(): the mode ends the process once idle. */
  onShutdownRequested(): void;
  /** The project's MCP servers are in use (not --no-mcp): its MCP files need trust too. */
  projectMcp?: boolean;
  /** An extension appended a `custom` entry (appendEntry): interactive mode draws it if a renderer is registered. */
  onCustomEntry?(entry: CustomEntry): void;
  /**
   * The extensions are about to be replaced (a new session, a fork, a resume, a reload): what
   * they put on the screen goes before the next generation loads (pi 1.6.0; the TUI clears it).
   */
  onExtensionsReplaced?(): void;
}

const STALE =
  "This extension object belongs to a session that was replaced or reloaded; use the ctx passed to withSession (or to your new session_start handler).";

/** Why a session starts, when not at startup: it replaced another (pi's session_start `reason`, `previousSessionFile`). */
export interface SessionStartCause {
  reason: "resume";
  previousSessionFile?: string;
}

export class ExtensionSystem implements ExtensionSystemLink {
  private runner: ExtensionRunner;
  private generation = 0;
  private sources: ExtensionSource[] = [];
  private trusted = false;
  private askTrustLater = false;
  /** What the project holds that waits for trust, found when trust is settled. */
  private skipped: SkippedProjectCode = { extensions: false, settingsKeys: [] };
  private session: AgentSession | undefined;
  private bindings: ExtensionBindings | undefined;
  private readonly events;
  private readonly providerQueue: { extension: LoadedExtension; name: string; config: ProviderConfig }[] = [];
  private registry: ModelRegistry | undefined;
  private shuttingDown = false;
  private readonly reportedPaths = new Set<string>();
  private generationRuntime: ExtensionRuntime | undefined;
  /** Skill and prompt paths the extensions returned from resources_discover. */
  private discoveredResources = { skillPaths: [] as string[], promptPaths: [] as string[] };
  /** Providers extensions registered: a reload drops them, and the reloaded extensions register theirs again. */
  private readonly registeredProviders = new Set<string>();
  private announcedUI: ExtensionUIContext | undefined;
  /** Virtual models (pi.registerVirtualModel), providers of their own or layers of a physical provider; a reload drops them too. */
  private readonly virtualModels = new VirtualModelTable({
    registry: () => this.registry,
    context: () => this.runtime().toolContext(),
    appendEntry: (customType, data) => {
      if (!this.bindings) throw new Error("The session is not ready yet");
      this.bindings.appendEntry(customType, data);
    },
    fitContext: async (physical, context, signal) => (this.session ? this.session.fitContextToRoutedModel(physical, context, signal) : context),
  });

  /** MCP servers the extensions registered (pi.registerMcpServer); a new generation registers its own again. */
  private readonly mcpRegistrations = new McpRegistrations();
  private readonly mcpListeners: (() => void)[] = [];

  private constructor(private readonly options: ExtensionSystemOptions) {
    this.runner = new ExtensionRunner((report) => options.reportError(report));
    this.events = createEventBus((channel, error) => this.runner.report("<events>", `events:${channel}`, error));
    this.mcpRegistrations.onChange(() => {
      // While a generation loads, its servers are handed over once it is bound (bind()).
      if (!this.runner.boundHost) return;
      if (this.runner.hasHandlers("mcp_servers_change")) {
        void this.runner.emit("mcp_servers_change", { type: "mcp_servers_change", servers: this.mcpRegistrations.list() });
      }
      this.tellMcp();
    });
  }

  /** The servers extensions registered, for MCP to connect beside the mcp.json ones. */
  registeredMcpServers(): RegisteredMcpServer[] {
    return this.mcpRegistrations.list();
  }

  /** Called after each change of the registered servers (MCP connects or closes them). */
  onMcpServersChange(listener: () => void): void {
    this.mcpListeners.push(listener);
  }

  private tellMcp(): void {
    for (const listener of this.mcpListeners) listener();
  }

  get mode(): ExtensionMode {
    return this.options.mode;
  }
  /** The mode's dialogs, announced to extensions (ui_prompt_start / ui_prompt_end) by whichever generation is live. */
  get ui(): ExtensionUIContext {
    return (this.announcedUI ??= withPromptEvents(this.options.ui, async (type, kind, title) => {
      if (this.runner.hasHandlers(type)) await this.runner.emit(type, { type, reason: "ui_prompt", kind, ...(title !== undefined ? { title } : {}) });
    }));
  }
  get currentRunner(): ExtensionRunner {
    return this.runner;
  }
  isProjectTrusted(): boolean {
    return this.trusted;
  }

  private readonly trustListeners: (() => void)[] = [];

  /** Called once if the project becomes trusted after start-up (the RPC host or the person answered). */
  onProjectTrusted(listener: () => void): void {
    this.trustListeners.push(listener);
  }

  /** The extensions the settings, folders and -e name; the project's only with `includeProject`. */
  static discover(options: Pick<ExtensionSystemOptions, "cwd" | "cliPaths" | "noExtensions">, includeProject: boolean): DiscoveryResult {
    const global = readSettingsOrEmpty(readGlobalSettingsFile);
    const project = includeProject ? readSettingsOrEmpty(() => readProjectSettingsFile(options.cwd)) : {};
    return discoverExtensions({
      cwd: options.cwd,
      agentDir: getAgentDir(),
      cliPaths: options.cliPaths,
      // `builtin:<name>` entries are no paths (builtin-extensions.ts decides them).
      userSettingsPaths: withoutBuiltinEntries(stringList(global.extensions)),
      projectSettingsPaths: withoutBuiltinEntries(stringList(project.extensions)),
      includeProject,
      noExtensions: options.noExtensions,
    });
  }

  /**
   * Loads the user and -e extensions, settles project trust, then loads the
   * project's (after the others: only those may decide project_trust). Returns
   * once every factory has run (async factories awaited).
   */
  static async start(options: ExtensionSystemOptions): Promise<ExtensionSystem> {
    const system = new ExtensionSystem(options);
    system.guardAgainstStrayErrors();
    await registerHostModules({ codingAgent: await options.hostApi() });
    await system.loadPhase(ExtensionSystem.discover(options, false), false);
    await system.settleTrust();
    if (system.trusted) await system.loadProjectExtensions(false);
    return system;
  }

  /**
   * An extension's timer that throws or promise nobody awaits must not end the
   * process: such errors become extension_error reports (attributed by the stack
   * to the extension whose file it names), and xcsh keeps serving.
   */
  private guardAgainstStrayErrors(): void {
    const onStray = (error: unknown) => {
      const message = error instanceof Error ? error.message || error.name : String(error);
      const stack = error instanceof Error ? (error.stack ?? "") : "";
      const owner = this.sources.find((source) => stack.includes(source.path));
      if (owner) this.options.reportError({ extensionPath: owner.path, event: "uncaught", error: message });
      else process.stderr.write(`xcsh: uncaught error: ${stack || message}\n`);
    };
    process.on("uncaughtException", onStray);
    process.on("unhandledRejection", onStray);
  }

  /** A check that throws once the current runtime generation has been replaced. */
  private livenessCheck(): () => void {
    const generation = this.generation;
    return () => {
      if (generation !== this.generation) throw new Error(STALE);
    };
  }

  /** The runtime of the current generation, shared by all its extensions (made on first use). */
  private runtime(): ExtensionRuntime {
    return (this.generationRuntime ??= this.newRuntime());
  }

  private newRuntime(): ExtensionRuntime {
    const assertLive = this.livenessCheck();
    const runner = this.runner;
    let context: ReturnType<typeof createExtensionContext> | undefined;
    const runtime: ExtensionRuntime = {
      runner,
      cwd: this.options.cwd,
      events: this.events,
      assertLive,
      toolContext: () => {
        if (!this.bindings) throw new Error("The session is not ready yet");
        return (context ??= createExtensionContext(this.bindings, assertLive));
      },
      registerProvider: (extension, name, config) => {
        if (!this.registry) this.providerQueue.push({ extension, name, config });
        else this.applyProvider(extension, name, config);
      },
      unregisterProvider: (name) => {
        if (this.registry) unregisterExtensionProvider(this.registry, name);
        else this.providerQueue.splice(0, this.providerQueue.length, ...this.providerQueue.filter((entry) => entry.name !== name));
      },
      registerVirtualModel: (extension, definition) => {
        let registration;
        try {
          registration = this.virtualModels.add(definition, this.registry ? [...this.registry.getProviders(), ...getBuiltinProviders()] : undefined);
        } catch (error) {
          this.runner.report(extension.path, "registerVirtualModel", error);
          return;
        }
        // Under a physical provider the table applied the models itself (a layer of the registry).
        if (registration) runtime.registerProvider(extension, registration.provider, registration.config);
      },
      unregisterVirtualModel: (extension, provider, id) => {
        const left = this.virtualModels.remove(provider, id);
        if (left?.config) runtime.registerProvider(extension, left.provider, left.config);
        else if (left) runtime.unregisterProvider(left.provider);
      },
      mcpServers: this.mcpRegistrations,
    };
    return runtime;
  }

  private async loadPhase(discovered: DiscoveryResult, fresh: boolean): Promise<void> {
    // Discovery runs again once the project is trusted; report each bad path once.
    for (const error of discovered.errors) {
      if (this.reportedPaths.has(error.path)) continue;
      this.reportedPaths.add(error.path);
      this.reportLoadFailure(error);
    }
    const added = discovered.sources.filter((source) => !this.sources.some((known) => known.path === source.path));
    this.sources.push(...added);
    const { failures } = await loadExtensions(added, this.runtime(), { fresh, onSlow: this.slowNotice });
    for (const failure of failures) this.reportLoadFailure(failure);
  }

  private readonly slowNotice = (path: string, seconds: number) => this.options.notice(`xcsh: still loading extension ${path} (${seconds} s)…`);

  private reportLoadFailure(failure: LoadFailure): void {
    this.options.reportError({ extensionPath: failure.path, event: "load", error: failure.error });
  }

  private async loadProjectExtensions(fresh: boolean): Promise<LoadedExtension[]> {
    const before = this.runner.extensions.length;
    await this.loadPhase(ExtensionSystem.discover(this.options, true), fresh);
    return this.runner.extensions.slice(before);
  }

  /** Settles project trust once at start-up (extension-trust.ts decides; this keeps the outcome). */
  private async settleTrust(): Promise<void> {
    const settled = await settleProjectTrust(this.options, this.runner);
    this.trusted = settled.trusted;
    this.askTrustLater = settled.askLater;
    this.skipped = settled.skipped;
  }

  /** The RPC host is asked in the background: startup and commands never wait for the answer. */
  private async askTrust(): Promise<void> {
    if (!(await askProjectTrust(this.options, this.skipped))) return;
    this.trusted = true;
    for (const listener of this.trustListeners.splice(0)) listener();
    const added = await this.loadProjectExtensions(false);
    if (!this.session || added.length === 0) return;
    this.registerTools(added);
    const only = (extension: LoadedExtension) => added.includes(extension);
    await this.runner.emit("session_start", { type: "session_start", reason: "startup" }, { only });
    const found = await this.runner.emit("resources_discover", { type: "resources_discover", cwd: this.options.cwd, reason: "startup" }, { only });
    this.useDiscoveredResources({
      skillPaths: [...this.discoveredResources.skillPaths, ...found.skillPaths],
      promptPaths: [...this.discoveredResources.promptPaths, ...found.promptPaths],
    });
  }

  private useDiscoveredResources(paths: { skillPaths: string[]; promptPaths: string[] }): void {
    this.discoveredResources = paths;
    this.session?.useDiscoveredResources(paths);
  }

  /** The extension commands by invocation name, as get_commands lists them. */
  commandEntries(): ExtensionCommandEntry[] {
    return this.runner.commands().map(({ invocation, command, extension }) => ({
      name: invocation,
      ...(command.description ? { description: command.description } : {}),
      path: extension.path,
      sourceInfo: extension.sourceInfo,
    }));
  }

  private applyProvider(extension: LoadedExtension, name: string, config: ProviderConfig): void {
    try {
      registerExtensionProvider(this.registry!, name, config, extension.path);
      this.registeredProviders.add(name);
    } catch (error) {
      this.runner.report(extension.path, "registerProvider", error);
      return;
    }
    // The model in use keeps a copy of its provider's settings (baseUrl, headers): refresh it.
    const current = this.session?.model;
    const refreshed = current?.provider === name ? this.registry!.find(name, current.id) : undefined;
    if (refreshed) this.session!.models.applyModel(refreshed);
  }

  /** Applies providers queued during loading; model resolution needs them. */
  useRegistry(registry: ModelRegistry): void {
    this.registry = registry;
    useHostCredentials(registry);
    // Virtual models queued under a provider with physical models become its layer instead of replacing its models.
    const layered = this.virtualModels.attach([...registry.getProviders(), ...getBuiltinProviders()]);
    for (const { extension, name, config } of this.providerQueue.splice(0)) {
      if (layered.has(name) && isVirtualModel({ api: config.api ?? "" })) continue;
      this.applyProvider(extension, name, config);
    }
  }

  /** Flags every loaded extension registered, by type, for the second parse of the command line. */
  flagTypes(): Map<string, "boolean" | "string"> {
    return new Map([...this.runner.flagDefinitions()].map(([name, options]) => [name, options.type]));
  }

  /** Every flag the loaded extensions registered, with its type and description (for --help). */
  flagDefinitions(): Map<string, FlagOptions> {
    return this.runner.flagDefinitions();
  }

  /** Binds the loaded extensions to the session and tells them it started. */
  /**
   * The session the extensions serve from now on; they get session_start. `start`: a session
   * that replaces one of another folder (the TUI's /resume) says "resume" and the file it replaced.
   */
  async attach(session: AgentSession, flagValues: ReadonlyMap<string, boolean | string>, start?: SessionStartCause): Promise<void> {
    this.session = session;
    for (const [name, value] of flagValues) this.runner.flagValues.set(name, value);
    this.bind();
    await this.announce(start?.reason ?? "startup", start?.previousSessionFile);
    if (this.askTrustLater) void this.askTrust().catch((error) => this.runner.report("<trust>", "project_trust", error));
  }

  private bind(): void {
    const session = this.session!;
    const bindings = new ExtensionBindings(session, this.runner, this);
    const assertLive = this.livenessCheck();
    this.bindings = bindings;
    session.hooks = bindings;
    bindings.installAgentHooks();
    // A tool's prepareLoadout that throws is that extension's error; the tools stay as they were declared.
    session.tools.reportLoadoutError = (sourcePath, error) => this.runner.report(sourcePath, "prepare_loadout", error);
    this.runner.bind(bindings, createExtensionContext(bindings, assertLive), createCommandContext(bindings, assertLive));
    this.registerTools(this.runner.extensions);
    // The servers this generation registered while loading (unchanged ones keep their connection).
    this.tellMcp();
  }

  /** Tools extensions registered while loading reach the session the way a later pi.registerTool() would. */
  private registerTools(extensions: LoadedExtension[]): void {
    const { toolContext } = this.runtime();
    const bindings = this.bindings!;
    bindings.batchToolChanges(() => {
      for (const extension of extensions) {
        for (const definition of extension.tools.values()) registerExtensionTool(bindings, extension, definition, toolContext);
      }
    });
  }

  private async announce(reason: "startup" | "reload" | "new" | "resume" | "fork", previousSessionFile: string | undefined): Promise<void> {
    await this.runner.emit("session_start", { type: "session_start", reason, ...(previousSessionFile ? { previousSessionFile } : {}) });
    const found = await this.runner.emit("resources_discover", { type: "resources_discover", cwd: this.options.cwd, reason: reason === "reload" ? "reload" : "startup" });
    this.useDiscoveredResources({ skillPaths: found.skillPaths, promptPaths: found.promptPaths });
  }

  // --- replacement and reload ------------------------------------------------------

  async shutdownRuntime(reason: "new" | "resume" | "fork" | "reload" | "quit", targetSessionFile: string | undefined): Promise<void> {
    await this.runner.emit("session_shutdown", { type: "session_shutdown", reason, ...(targetSessionFile ? { targetSessionFile } : {}) });
  }

  /** A new generation: the same extensions' factories run again against the replaced session. */
  async restart(reason: "new" | "resume" | "fork", previousSessionFile: string | undefined): Promise<void> {
    await this.nextGeneration(false);
    this.bind();
    await this.announce(reason, previousSessionFile);
  }

  async reload(): Promise<void> {
    await this.shutdownRuntime("reload", undefined);
    this.sources = [];
    this.reportedPaths.clear();
    if (this.registry) for (const name of this.registeredProviders) unregisterExtensionProvider(this.registry, name);
    this.registeredProviders.clear();
    this.virtualModels.clear();
    await this.nextGeneration(true);
    await this.loadPhase(ExtensionSystem.discover(this.options, false), true);
    if (this.trusted) await this.loadProjectExtensions(true);
    if (this.registry) this.useRegistry(this.registry);
    this.bind();
    await this.announce("reload", undefined);
  }

  private async nextGeneration(forReload: boolean): Promise<void> {
    this.generation++;
    this.options.onExtensionsReplaced?.();
    const flags = this.runner.flagValues;
    this.runner = new ExtensionRunner((report) => this.options.reportError(report));
    this.generationRuntime = undefined;
    this.mcpRegistrations.clear();
    for (const [name, value] of flags) this.runner.flagValues.set(name, value);
    this.session?.tools.removeExtensionTools();
    if (forReload) return;
    const { failures } = await loadExtensions(this.sources, this.runtime(), { onSlow: this.slowNotice });
    for (const failure of failures) this.reportLoadFailure(failure);
  }

  replacedContext(): ReplacedSessionContext {
    return createReplacedSessionContext(this.bindings!, this.livenessCheck());
  }

  requestShutdown(): void {
    this.options.onShutdownRequested();
  }

  customEntryAppended(entry: CustomEntry): void {
    this.options.onCustomEntry?.(entry);
  }

  /** At exit: session_shutdown {reason: "quit"}, once. */
  async shutdown(): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    await this.shutdownRuntime("quit", undefined);
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
