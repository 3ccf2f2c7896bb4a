/**
 * MCP for one session, from the start-up path: reads the declarations (a few stat
 * calls when there are none) and loads the MCP client — the SDK, zod, ajv — only when
 * some server is to connect. Project servers wait for the project's trust, settled by
 * the extension system as for project extensions (src/core/extension-system.ts): they
 * join once it is given, even later (an RPC host answering the trust question). What
 * the session sees is an McpSessionLink, which works the same before the client has
 * loaded and after.
 */
import type { ImageContent } from "../ai/types.ts";
import type { SlashCommand } from "../resources/commands.ts";
import type { DeclaredServer } from "./config-files.ts";
import type { McpHub, McpToolSink } from "./hub.ts";
import type { McpResourceItem } from "./resources.ts";
import { planServers, readDeclarations, type McpDeclarations, type McpSources } from "./server-plan.ts";
import { indirectExposures, mayHaveDirectTools } from "./exposure.ts";
import type { McpDialogs } from "./elicitation.ts";
import type { McpSampler } from "./sampling.ts";
import type { McpServerStatus } from "./status.ts";

/** What the session asks of MCP (src/core/agent-session.ts). */
export interface McpSessionLink {
  /**
   * Resolves once no server that may have `direct` tools is still connecting (each waited for
   * at most its startupTimeout): the first prompt must declare those; the others are waited for when reached.
   */
  ready(): Promise<void>;
  /** Resolves once no server at all is still connecting (codemode scripts and tool_search). */
  readyAll(): Promise<void>;
  /** An MCP prompt command expanded; other input as it is; undefined when the command failed (reported). */
  expandCommand(input: { text: string; images?: ImageContent[] }): Promise<{ text: string; images?: ImageContent[] } | undefined>;
  /** The servers' prompts as commands. */
  commands(): SlashCommand[];
  /** Called whenever the tools or prompts change. */
  onChange(listener: () => void): void;
  /** Each declared server's state, what it offers, its last error (/mcp). */
  status(): McpServerStatus[];
  /** Reads the config again and connects that server afresh; resolves with its new state. Throws when it is not declared. */
  reconnect(name: string): Promise<McpServerStatus>;
  /** Reads the declarations again (an extension registered or unregistered a server): new servers start, dropped ones close. */
  refresh(): void;
  /** The connected servers' resources (`@server:` completion). */
  resources(): McpResourceItem[];
  /** The text with each `@server:uri` it mentions read and put before it. */
  attachResources(text: string): Promise<string>;
  close(): Promise<void>;
}

export interface McpStartOptions extends McpSources {
  tools: McpToolSink;
  projectTrusted: boolean;
  /** Registers what to do when the project is trusted later (the RPC or terminal trust question). */
  onProjectTrusted?(listener: () => void): void;
  report(message: string): void;
  /** The mode's dialogs (ctx.ui): servers' questions are asked through them. */
  dialogs?: McpDialogs;
  /** Answers servers' requests for the model (sampling); without one, sampling is not offered. */
  sampler?: McpSampler;
}

/** undefined when no server is declared anywhere: nothing of MCP is loaded. */
export function startMcp(options: McpStartOptions): McpSessionLink | undefined {
  const first = readDeclarations(options);
  for (const problem of first.problems) options.report(problem);
  if (first.declared.length === 0) return undefined;
  return new LazyMcpSession(options, first);
}

/** Servers given for one session (an ACP client's), declared as a file declares them. */
export type McpSessionServers = readonly DeclaredServer[];

/** Declarations from an ACP client, in the shape of a file's. */
export function declaredFrom(servers: readonly { name: string; entry: unknown }[], origin: string): DeclaredServer[] {
  return servers.map(({ name, entry }) => ({ name, entry, scope: "temporary", origin }));
}

/** How long after start-up the MCP client loads when nothing asked for it sooner. */
const BACKGROUND_START_MS = 150;

class LazyMcpSession implements McpSessionLink {
  private hub: McpHub | undefined;
  private loading: Promise<McpHub> | undefined;
  private readonly listeners: (() => void)[] = [];
  private closed = false;
  private trusted: boolean;
  /** Said once: indirect tools with nothing to reach them. */
  private unreachableReported = false;
  /** Whether the latest plan has a server that may declare tools directly. */
  private hasDirectServers = false;
  /** Settles once the latest plan has been handed to the hub. */
  private configured: Promise<void> = Promise.resolve();
  private startNow: () => void = () => {};
  /**
   * Loading the client (the SDK, zod, ajv) is ~50 ms of synchronous work: it begins once the
   * process has had time to answer a host's first commands, or at once when something needs
   * the servers (a prompt waiting on ready()). The timer never keeps the process alive.
   */
  private readonly started = new Promise<void>((resolve) => {
    this.startNow = resolve;
    setTimeout(resolve, BACKGROUND_START_MS).unref?.();
  });

  constructor(
    private readonly options: McpStartOptions,
    declarations: McpDeclarations,
  ) {
    this.trusted = options.projectTrusted;
    this.apply(declarations, options.projectTrusted);
    options.onProjectTrusted?.(() => {
      if (this.closed) return;
      this.trusted = true;
      const again = readDeclarations(this.options);
      for (const problem of again.problems) this.options.report(problem);
      this.apply(again, true);
    });
  }

  private apply(declarations: McpDeclarations, trusted: boolean): void {
    // Problems of the files were reported as they were read.
    const plan = planServers({ ...declarations, problems: [] }, this.options.cwd, trusted);
    for (const problem of plan.problems) this.options.report(problem);
    for (const note of plan.notes) this.options.report(note);
    this.hasDirectServers = plan.servers.some(mayHaveDirectTools);
    // Before the servers connect, so the first request already has the way to their tools (and it does not change later).
    this.options.tools.describeServers?.(
      plan.servers.filter((spec) => indirectExposures(spec).length > 0).map((spec) => ({ name: spec.name, ...(spec.description ? { description: spec.description } : {}) })),
    );
    for (const kind of new Set(plan.servers.flatMap(indirectExposures))) {
      // `"autoEnableCodemode": false` beside mcpServers: codemode stays as the command line and settings have it.
      const reached = kind === "codemode" && !plan.autoEnableCodemode ? (this.options.tools.enableReacher?.("none") ?? true) : (this.options.tools.enableReacher?.(kind) ?? true);
      if (reached || this.unreachableReported) continue;
      this.unreachableReported = true;
      const servers = plan.servers.filter((spec) => indirectExposures(spec).length > 0).map((spec) => `"${spec.name}"`);
      this.options.report(
        `MCP server ${servers.join(", ")}: tools of exposure codemode or deferred cannot be called, since neither codemode nor tool_search is on (the command line or "autoEnableCodemode": false left them out). Add +codemode to --tools, or give the server "exposure": "direct".`,
      );
    }
    if (plan.servers.length === 0 && !this.hub && !this.loading) return;
    this.configured = this.load().then(
      // Closed before the client loaded: no server is started only to be stopped.
      (hub) => (this.closed ? undefined : hub.configure(plan.servers)),
      (error) => this.options.report(`MCP: the client could not be loaded: ${(error as Error).message}`),
    );
  }

  private load(): Promise<McpHub> {
    this.loading ??= this.started
      .then(() => import("./hub.ts"))
      .then(({ McpHub }) => {
        const hub = new McpHub({ tools: this.options.tools, report: this.options.report, projectDir: this.options.cwd, dialogs: this.options.dialogs, sampler: this.options.sampler });
        for (const listener of this.listeners) hub.onChange(listener);
        this.hub = hub;
        return hub;
      });
    return this.loading;
  }

  async ready(): Promise<void> {
    if (!this.hasDirectServers) return;
    this.startNow();
    await this.configured;
    await this.hub?.ready((spec) => mayHaveDirectTools(spec));
  }

  async readyAll(): Promise<void> {
    this.startNow();
    await this.configured;
    await this.hub?.ready(() => true);
  }

  async expandCommand(input: { text: string; images?: ImageContent[] }) {
    if (!this.hub || !input.text.startsWith("/mcp__")) return input;
    return this.hub.expandCommand(input);
  }

  commands(): SlashCommand[] {
    return this.hub?.commands() ?? [];
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
    this.hub?.onChange(listener);
  }

  status(): McpServerStatus[] {
    const running = this.hub?.status() ?? [];
    const shown = new Set(running.map((server) => server.name));
    const declarations = readDeclarations(this.options);
    const plan = planServers(declarations, this.options.cwd, this.trusted);
    const others: McpServerStatus[] = [];
    const idle = (name: string, state: McpServerStatus["state"], lastError?: string) => {
      if (shown.has(name)) return;
      shown.add(name);
      others.push({ name, state, tools: 0, prompts: 0, resources: 0, ...(lastError ? { lastError } : {}) });
    };
    for (const spec of plan.servers) idle(spec.name, "connecting");
    for (const name of plan.waitingForTrust) idle(name, "waiting-for-trust");
    for (const name of plan.disabled) idle(name, "disabled");
    for (const declaration of declarations.declared) {
      idle(declaration.name, "failed", plan.problems.find((problem) => problem.includes(`"${declaration.name}"`)));
    }
    return [...running, ...others];
  }

  async reconnect(name: string): Promise<McpServerStatus> {
    const declarations = readDeclarations(this.options);
    const plan = planServers(declarations, this.options.cwd, this.trusted);
    const spec = plan.servers.find((server) => server.name === name);
    if (!spec) {
      if (plan.waitingForTrust.includes(name)) throw new Error(`MCP server "${name}" is a project server and the project is not trusted`);
      const problem = plan.problems.find((line) => line.includes(`"${name}"`));
      throw new Error(problem ?? `no MCP server "${name}" is declared (or it is disabled)`);
    }
    this.startNow();
    const hub = await this.load();
    const status = await hub.reconnect(spec);
    if (!status) throw new Error("the session is closing");
    return status;
  }

  resources(): McpResourceItem[] {
    return this.hub?.resources() ?? [];
  }

  refresh(): void {
    if (this.closed) return;
    const again = readDeclarations(this.options);
    // The files' own problems were reported when first read.
    this.apply(again, this.trusted);
  }

  async attachResources(text: string): Promise<string> {
    if (!this.hub || !/(?:^|\s)@[^\s:@/]+:\S/.test(text)) return text;
    return this.hub.attachResources(text);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.startNow();
    await this.configured;
    await this.hub?.close();
  }
}
