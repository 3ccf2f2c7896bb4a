/**
 * The session's tools: every tool it knows (built-ins, extension tools, the RPC
 * host's tools), which of them are active, and the system prompt that lists
 * the active ones. An extension tool with a built-in's name replaces it. The
 * agent's tool array is updated in place, so a run in progress sees a change
 * at its next model call. With codemode active and `codemode.mode` "only", the
 * other built-in and extension tools stay active (scripts call them) but are
 * not declared to the model. An MCP tool's exposure (src/mcp/exposure.ts) decides
 * whether it is declared (`direct`), reached only from scripts and tool_search
 * (`codemode`, `deferred`: declared once tool_search loaded it), or not at all (`hidden`);
 * MCP switches codemode or tool_search on for servers that need them (enableReacher).
 * An active tool's prepareLoadout (pi 1.6.0) runs whenever the tools change and may give
 * declared tools other descriptions and hide declarations: a hidden tool stays active and
 * callable (by the model too), but requests and the system prompt leave it out.
 */
import type { Agent } from "../agent/agent.ts";
import type { AgentTool } from "../agent/types.ts";
import type { SourceInfo, ToolAnnotations, ToolDefinition, ToolExposure, ToolInfo, ToolLoadout, ToolNamespace } from "../extensions/types.ts";
import { buildSystemPrompt, type PromptTool, type SystemPromptOptions } from "../resources/system-prompt.ts";
import type { CodingTool } from "../tools/types.ts";
import { MCP_TOOL_SOURCE } from "../mcp/names.ts";
import { CODEMODE_TOOL_NAME, scriptResultNote, type CallableTool, type CodemodeMode } from "../codemode/index.ts";
import { TOOL_SEARCH_NAME } from "./tool-search.ts";
import { builtinReach } from "./tool-reach.ts";

interface ToolEntry {
  tool: AgentTool<any>;
  sourceInfo: SourceInfo;
  promptSnippet?: string;
  promptGuidelines?: string[];
  /** How the model reaches the tool (an MCP tool's, or an extension tool's own); direct when absent. */
  exposure?: ToolExposure;
  /** pi 1.x: the group the tool belongs to, and hints about what it does (reported by getAllTools). */
  namespace?: ToolNamespace;
  annotations?: ToolAnnotations;
  /** Words tool_search ranks by besides the name and description (the server's description). */
  searchText?: string;
  /** pi 1.6.0: which tools a call may reach; codemode and tool_search have one, an extension's tool may. */
  reachesTools?: ToolDefinition["reachesTools"];
  /** pi 1.6.0: adjusts what the model sees while the tool is active. */
  prepareLoadout?: ToolDefinition["prepareLoadout"];
}

/** What the active tools' prepareLoadout hooks decided, and for which tool set. */
interface LoadoutChanges {
  key: string;
  descriptions: Map<string, string>;
  hidden: Set<string>;
}

const NO_CHANGES: LoadoutChanges = { key: "", descriptions: new Map(), hidden: new Set() };

/** A number per tool object, so a re-registered tool of the same name counts as a change. */
const toolIds = new WeakMap<object, number>();
let nextToolId = 0;
function toolId(tool: AgentTool<any>): number {
  let id = toolIds.get(tool);
  if (id === undefined) toolIds.set(tool, (id = ++nextToolId));
  return id;
}

/** A view of the tool with another description; running it and every other field stay the tool's own. */
function describedAs(tool: AgentTool<any>, description: string): AgentTool<any> {
  return Object.create(tool, { description: { value: description, enumerable: true } }) as AgentTool<any>;
}

/** A view of the tool the agent may run but does not declare in requests. */
function undeclared(tool: AgentTool<any>): AgentTool<any> {
  return Object.create(tool, { undeclared: { value: true, enumerable: true } }) as AgentTool<any>;
}

/** Reached from scripts and tool_search rather than declared. */
function isIndirect(entry: ToolEntry | undefined): boolean {
  return entry?.exposure === "codemode" || entry?.exposure === "deferred";
}

export type PromptBase = Omit<SystemPromptOptions, "tools">;


function builtinSource(name: string): SourceInfo {
  return { path: `<builtin:${name}>`, source: "builtin", scope: "temporary", origin: "top-level" };
}

/** A built-in tool's entry: its snippet and guidelines, and its reach when it reaches other tools. */
function builtinEntry(tool: CodingTool<any>): ToolEntry {
  const reachesTools = builtinReach(tool.name);
  return { tool, sourceInfo: builtinSource(tool.name), promptSnippet: tool.promptSnippet, promptGuidelines: tool.promptGuidelines, ...(reachesTools ? { reachesTools } : {}) };
}

/**
 * codemode `on`: a declared tool that answers scripts with more than text says so in
 * the description the model gets. A view of the tool (its prototype is the tool), so
 * running it and every other field stay the tool's own.
 */
function withScriptNote(tool: AgentTool<any>): AgentTool<any> {
  const note = scriptResultNote(tool.name);
  if (!note) return tool;
  return Object.create(tool, { description: { value: `${tool.description}\n\n${note}`, enumerable: true } }) as AgentTool<any>;
}

/**
 * The tools loaded among `messages`: named by tool_search results (`details.loaded`), or
 * by a pi 1.6.0 session's `system` messages that record a tool change (`toolsAdded`).
 */
function loadedBy(messages: readonly unknown[]): Set<string> {
  const names = new Set<string>();
  for (const message of messages as { role?: string; toolName?: string; details?: { loaded?: unknown }; toolsAdded?: unknown }[]) {
    if (message.role === "system" && Array.isArray(message.toolsAdded)) {
      for (const tool of message.toolsAdded as { name?: unknown }[]) if (typeof tool?.name === "string") names.add(tool.name);
      continue;
    }
    if (message.role !== "toolResult" || message.toolName !== TOOL_SEARCH_NAME || !Array.isArray(message.details?.loaded)) continue;
    for (const name of message.details.loaded) if (typeof name === "string") names.add(name);
  }
  return names;
}

export class ToolSet {
  private readonly entries = new Map<string, ToolEntry>();
  private active: string[];
  private hostTools: AgentTool<any>[] = [];
  private readonly builtins = new Map<string, CodingTool<any>>();
  /**
   * Indirect tools tool_search loaded in this process, not yet in a result on the branch.
   * With the ones the branch's tool_search results name (`details.loaded`), they are declared:
   * a resumed session, or a /tree back to where they were found, has them again.
   */
  private readonly loaded = new Set<string>();
  private loadedOnBranch = new Set<string>();
  /** The system prompt for the active tools, before any per-prompt change by an extension. */
  baseSystemPrompt = "";
  /** The prepareLoadout hooks' last decision; run again only when the tools they see change. */
  private loadout: LoadoutChanges = NO_CHANGES;
  /** A prepareLoadout hook that threw, by its tool's source: its changes are left out (the extension system reports it). */
  reportLoadoutError: (sourcePath: string, error: unknown) => void = () => {};
  /** Waits for the MCP servers still connecting (set once MCP starts): scripts and tool_search see every server's tools. */
  waitForAllServers: () => Promise<void> = async () => {};

  constructor(
    private readonly agent: Agent,
    private base: PromptBase,
    builtins: readonly CodingTool<any>[],
    activeNames: readonly string[],
    /** Whether a tool registered later starts active (the command line's --tools, --exclude-tools, --no-tools). */
    private readonly registeredStartsActive: (name: string) => boolean = () => true,
    /** settings' `codemode.mode`, read at each rebuild. */
    private readonly codemodeMode: () => CodemodeMode = () => "on",
    /** Whether codemode / tool_search may switch on by themselves when an MCP tool needs them (not excluded by the command line). */
    private readonly autoActivates: (name: string) => boolean = () => true,
    /**
     * Every message on the session's branch, compacted ones too: what tool_search loaded is
     * read from there, so a compaction that summarizes its results away keeps the tools
     * declared, after a resume as well. Without a session, the agent's messages.
     */
    private readonly branchMessages: () => readonly unknown[] = () => this.agent.state.messages,
  ) {
    for (const tool of builtins) {
      this.builtins.set(tool.name, tool);
      this.entries.set(tool.name, builtinEntry(tool));
    }
    this.active = activeNames.filter((name) => this.entries.has(name));
    this.apply();
  }

  /** What the system prompt is built from besides the tools. */
  get promptBase(): PromptBase {
    return this.base;
  }

  /** Changes part of that (the skills, once extensions contributed theirs) and rebuilds the prompt. */
  updatePromptBase(patch: Partial<PromptBase>): void {
    this.base = { ...this.base, ...patch };
    this.apply();
  }

  /**
   * Adds or replaces a tool by name; it becomes active unless the command line's tool
   * choice leaves it out, or `activate` is false (a changed MCP tool keeping its state).
   */
  upsert(tool: AgentTool<any>, info: Omit<ToolEntry, "tool">, activate = true): void {
    this.entries.set(tool.name, { tool, ...info });
    // A registered tool is active, also when it replaces a built-in that was switched off.
    if (activate && !this.active.includes(tool.name) && this.registeredStartsActive(tool.name)) this.active.push(tool.name);
    this.apply();
  }

  /**
   * Switches on codemode (for codemode tools) or tool_search (deferred ones), unless the
   * command line left it out ("none": nothing, only the answer); MCP asks as it reads the
   * config, before servers connect. Returns whether something reaches indirect tools now.
   */
  enableReacher(exposure: "codemode" | "deferred" | "none"): boolean {
    if (exposure !== "none" && this.switchOnReacher(exposure)) this.apply();
    // Either way of reaching indirect tools serves both kinds.
    return this.active.includes(CODEMODE_TOOL_NAME) || this.active.includes(TOOL_SEARCH_NAME);
  }

  private switchOnReacher(exposure: "codemode" | "deferred"): boolean {
    const reacher = exposure === "codemode" ? CODEMODE_TOOL_NAME : TOOL_SEARCH_NAME;
    const entry = this.entries.get(reacher);
    // pi 1.6.0: only a tool of that name that declares reachesTools (an extension may have replaced it with one that does not).
    if (!entry || typeof entry.reachesTools !== "function" || this.active.includes(reacher) || !this.autoActivates(reacher)) return false;
    this.active.push(reacher);
    return true;
  }

  /**
   * Declares indirect tools from the next model call on (tool_search found them);
   * returns the names that were loaded. Tools that are not indirect are left alone.
   */
  load(names: readonly string[]): string[] {
    const loadable = names.filter((name) => this.isReachableIndirect(name));
    for (const name of loadable) this.loaded.add(name);
    if (loadable.length > 0) this.apply();
    return loadable;
  }

  /** The MCP servers the system prompt names (their tools are not declared); rebuilt only when the list changed. */
  describeServers(servers: { name: string; description?: string }[]): void {
    if (JSON.stringify(servers) === JSON.stringify(this.base.mcpServers ?? [])) return;
    this.updatePromptBase({ mcpServers: servers });
  }

  /** Whether tool_search loaded tools on this branch that are not registered (yet): their servers are still connecting. */
  awaitsLoadedTools(): boolean {
    return [...loadedBy(this.branchMessages())].some((name) => !this.entries.has(name));
  }

  /** The branch changed (resume, /tree, a fork): the tools it loaded are read from its messages again. */
  branchChanged(): void {
    this.loaded.clear();
    this.apply();
  }

  /** The indirect tools tool_search may find: codemode and deferred MCP tools the command line left in. */
  searchable(): { tool: AgentTool<any>; searchText?: string }[] {
    return [...this.entries].flatMap(([name, entry]) => (this.isReachableIndirect(name) ? [{ tool: entry.tool, searchText: entry.searchText }] : []));
  }

  /**
   * An indirect MCP tool the command line did not leave out. Whether it is active does not
   * matter (pi's rule): an extension's setActiveTools, a /tree or a resume leaves scripts and
   * tool_search their reach.
   */
  private isReachableIndirect(name: string): boolean {
    return isIndirect(this.entries.get(name)) && (this.active.includes(name) || this.registeredStartsActive(name));
  }

  /** Takes a tool away (an MCP server's tool that is gone); a built-in of that name comes back. */
  remove(name: string): void {
    const builtin = this.builtins.get(name);
    if (builtin) this.entries.set(name, builtinEntry(builtin));
    else {
      this.entries.delete(name);
      this.active = this.active.filter((active) => active !== name);
      this.loaded.delete(name);
    }
    this.apply();
  }

  /**
   * Swaps the implementation of built-in tools (a mode that routes file access or
   * commands elsewhere, as ACP does through the editor). Names that are not built-ins
   * are ignored; a built-in an extension overrides stays overridden, and comes back
   * as the new implementation when the extension's tool goes.
   */
  replaceBuiltins(tools: readonly CodingTool<any>[]): void {
    for (const tool of tools) {
      if (!this.builtins.has(tool.name)) continue;
      this.builtins.set(tool.name, tool);
      if (this.entries.get(tool.name)?.sourceInfo.source === "builtin") {
        this.entries.set(tool.name, builtinEntry(tool));
      }
    }
    this.apply();
  }

  /**
   * Drops every extension tool (a reload or session replacement registers them again);
   * overridden built-ins come back. MCP servers' tools stay: their servers stay connected.
   */
  removeExtensionTools(): void {
    for (const [name, entry] of this.entries) {
      if (entry.sourceInfo.source === "builtin" || entry.sourceInfo.source === MCP_TOOL_SOURCE) continue;
      const builtin = this.builtins.get(name);
      if (builtin) this.entries.set(name, builtinEntry(builtin));
      else {
        this.entries.delete(name);
        this.active = this.active.filter((active) => active !== name);
      }
    }
    this.apply();
  }

  /**
   * Makes exactly the named tools active. Names of tools not registered (yet) are
   * skipped, as pi does: plan-mode style extensions list tools another extension may add.
   */
  setActive(names: readonly string[]): void {
    this.active = [...new Set(names)].filter((name) => this.entries.has(name));
    this.apply();
  }

  /** The RPC host's tools (set_host_tools): always active, never in the system prompt's list. */
  setHostTools(tools: AgentTool<any>[]): void {
    this.hostTools = tools;
    this.apply();
  }

  activeNames(): string[] {
    return [...this.active];
  }

  /** The active tools the model is given: all of them, unless codemode stands in for the others ("only"). */
  declaredNames(): string[] {
    const wasLoaded = (name: string) => this.loaded.has(name) || this.loadedOnBranch.has(name);
    const direct = this.active.filter((name) => this.entries.get(name)?.exposure !== "hidden" && !isIndirect(this.entries.get(name)));
    const loaded = [...this.entries.keys()].filter((name) => wasLoaded(name) && this.isReachableIndirect(name));
    const reachable = [...direct, ...loaded];
    if (!this.active.includes(CODEMODE_TOOL_NAME) || this.codemodeMode() !== "only") return reachable;
    return reachable.filter((name) => name === CODEMODE_TOOL_NAME || this.entries.get(name)?.sourceInfo.source === MCP_TOOL_SOURCE);
  }

  /**
   * What a codemode script may call: every active tool but codemode itself and hidden
   * MCP tools, and the RPC host's tools. Indirect MCP tools are marked `unlisted`: the
   * codemode description leaves them out (it stays the same as servers connect) and
   * scripts find them with searchTools().
   */
  callableByScripts(): { tool: AgentTool<any>; info: CallableTool }[] {
    const indirect = [...this.entries.keys()].filter((name) => !this.active.includes(name) && this.isReachableIndirect(name));
    const entries = [...this.active, ...indirect]
      .filter((name) => name !== CODEMODE_TOOL_NAME)
      .flatMap((name) => this.entries.get(name) ?? [])
      // model-only tools are declared to the model, never called by other tools.
      .filter((entry) => entry.exposure !== "hidden" && entry.exposure !== "model-only");
    const host = this.hostTools.map((tool) => ({ tool, promptGuidelines: undefined, exposure: undefined, sourceInfo: undefined, namespace: undefined }));
    return [...entries, ...host].map(({ tool, promptGuidelines, exposure, sourceInfo, namespace }) => {
      // An extension's codemode tool is listed to scripts; MCP's are found with searchTools() (the list stays stable).
      const unlisted = exposure === "deferred" || (exposure === "codemode" && sourceInfo?.source === MCP_TOOL_SOURCE);
      // An MCP tool carries its server as its group (src/mcp/tool-adapter.ts); an extension tool its own `namespace`.
      const mcpNamespace = (tool as { mcpNamespace?: CallableTool["namespace"] }).mcpNamespace;
      const group = mcpNamespace ?? namespace;
      return {
        tool,
        info: {
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters,
          ...(promptGuidelines ? { promptGuidelines } : {}),
          ...(unlisted ? { unlisted: true } : {}),
          ...(group ? { namespace: group } : {}),
          ...(mcpNamespace ? { mcp: true } : {}),
        },
      };
    });
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  isBuiltinName(name: string): boolean {
    return this.entries.get(name)?.sourceInfo.source === "builtin";
  }

  all(): ToolInfo[] {
    return [...this.entries.values()].map(({ tool, sourceInfo, promptGuidelines, exposure, namespace, annotations, reachesTools }) => {
      const reaches = reachesTools ?? (tool as { reachesTools?: ToolDefinition["reachesTools"] }).reachesTools;
      return {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        ...(promptGuidelines ? { promptGuidelines } : {}),
        exposure: exposure ?? "direct",
        ...(namespace ? { namespace } : {}),
        ...(annotations ? { annotations } : {}),
        ...(typeof reaches === "function" ? { reachesTools: reaches } : {}),
        sourceInfo,
      };
    });
  }

  /** Active tools whose declarations a prepareLoadout hides. */
  hiddenDeclarations(): string[] {
    return [...this.loadout.hidden];
  }

  /** The base prompt with rules added for one run (an extension's edit of `promptGuidelines`). */
  systemPromptWith(extraGuidelines: string[]): string {
    return buildSystemPrompt({ ...this.base, tools: this.promptTools(), extraGuidelines, hiddenTools: this.hiddenDeclarations() });
  }

  /** Snippets and guidelines of the active tools, as the system prompt uses them (hidden declarations left out). */
  promptTools(): PromptTool[] {
    return this.declaredNames().flatMap((name): PromptTool[] => {
      const entry = this.entries.get(name);
      if (!entry || this.loadout.hidden.has(name)) return [];
      // Extension tools appear in "Available tools" only with a snippet (seed 003).
      if (entry.sourceInfo.source !== "builtin" && !entry.promptSnippet) return [{ name, description: "", promptGuidelines: entry.promptGuidelines, hidden: true }];
      return [{ name, description: entry.tool.description, promptSnippet: entry.promptSnippet, promptGuidelines: entry.promptGuidelines }];
    });
  }

  private batching = 0;
  private applyPending = false;

  /**
   * Runs `changes` with one rebuild of the tool list and system prompt at the end
   * instead of one per change (ten extensions' tools: one prompt built, not ten).
   */
  batch(changes: () => void): void {
    this.batching++;
    try {
      changes();
    } finally {
      if (--this.batching === 0 && this.applyPending) {
        this.applyPending = false;
        this.apply();
      }
    }
  }

  /**
   * Asks the declared tools' prepareLoadout hooks, in order, what the model should see: their
   * descriptions merge (a later hook wins), their hidden declarations add up. Asked again only
   * when the declared, callable or registered tools changed, so a prompt rebuild alone does
   * not run extension code.
   */
  private prepareLoadout(declared: AgentTool<any>[]): LoadoutChanges {
    const hooks = declared.flatMap((tool) => {
      const entry = this.entries.get(tool.name);
      return entry?.prepareLoadout ? [{ source: entry.sourceInfo.path, hook: entry.prepareLoadout }] : [];
    });
    if (hooks.length === 0) return NO_CHANGES;
    const callable = this.callableByScripts().map(({ tool }) => tool);
    const registered = [...this.entries.values()].map((entry) => entry.tool);
    const names = (list: AgentTool<any>[]) => list.map((tool) => `${tool.name}\u0000${toolId(tool)}`).join("\u0001");
    const key = [names(declared), names(callable), names(registered), this.codemodeMode()].join("\u0002");
    if (key === this.loadout.key) return this.loadout;
    const loadout: ToolLoadout = {
      declared: [...declared],
      callable,
      registered,
      getExposure: (name) => this.entries.get(name)?.exposure ?? "direct",
      getNamespace: (name) => this.entries.get(name)?.namespace,
      getPromptGuidelines: (name) => this.entries.get(name)?.promptGuidelines ?? [],
    };
    const declaredNames = new Set(declared.map((tool) => tool.name));
    const changes: LoadoutChanges = { key, descriptions: new Map(), hidden: new Set() };
    for (const { source, hook } of hooks) {
      try {
        const result = hook(loadout);
        for (const [tool, description] of Object.entries(result?.descriptions ?? {})) {
          if (declaredNames.has(tool) && typeof description === "string") changes.descriptions.set(tool, description);
        }
        for (const tool of result?.hiddenDeclarations ?? []) if (declaredNames.has(tool)) changes.hidden.add(tool);
      } catch (error) {
        this.reportLoadoutError(source, error);
      }
    }
    return changes;
  }

  private apply(): void {
    if (this.batching > 0) {
      this.applyPending = true;
      return;
    }
    const tools = this.agent.state.tools;
    this.loadedOnBranch = loadedBy(this.branchMessages());
    const declared = this.declaredNames().flatMap((name) => this.entries.get(name)?.tool ?? []);
    this.loadout = this.prepareLoadout(declared);
    const { descriptions, hidden } = this.loadout;
    const described = declared.map((tool) => {
      const description = descriptions.get(tool.name);
      return description === undefined ? tool : describedAs(tool, description);
    });
    const noted = this.active.includes(CODEMODE_TOOL_NAME) && this.codemodeMode() === "on" ? described.map(withScriptNote) : described;
    // A hidden declaration stays in the agent's tools, so a call to it still runs; requests leave it out.
    const next = [...noted.map((tool) => (hidden.has(tool.name) ? undeclared(tool) : tool)), ...this.hostTools];
    tools.splice(0, tools.length, ...next);
    const previousBase = this.baseSystemPrompt;
    this.baseSystemPrompt = buildSystemPrompt({ ...this.base, tools: this.promptTools(), hiddenTools: [...hidden] });
    // Keep a per-prompt prompt an extension set for the run in progress; otherwise follow the base.
    if (this.agent.state.systemPrompt === previousBase || previousBase === "") this.agent.state.systemPrompt = this.baseSystemPrompt;
  }
}
