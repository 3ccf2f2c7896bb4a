/**
 * A session's MCP servers: it connects them in the background, keeps the session's
 * tool set equal to the tools the connected servers offer (added, replaced or removed
 * as servers connect, change their lists, or fail), lists their prompts as commands
 * and expands them, and lets the first prompt wait for servers still connecting —
 * each for at most its `startupTimeout`. `configure` takes the whole wanted set each
 * time (a project trusted later adds its servers): unchanged servers keep running,
 * others are started or closed. Failures are reported once each and never stop the
 * other servers or the session.
 */
import type { AgentTool } from "../agent/types.ts";
import type { ImageContent } from "../ai/types.ts";
import type { SourceInfo, ToolNamespace } from "../extensions/types.ts";
import type { SlashCommand } from "../resources/commands.ts";
import type { Prompt, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerSpec } from "./config-schema.ts";
import { McpConnection } from "./connection.ts";
import packageJson from "../../package.json" with { type: "json" };
import { MCP_TOOL_SOURCE, mcpName, mcpNamespaceName, mcpToolNames } from "./names.ts";
import { matchPromptCommand, promptArguments, promptCommand, promptInput } from "./prompt-commands.ts";
import { sameServer } from "./server-plan.ts";
import { mcpAgentTool } from "./tool-adapter.ts";
import { READ_RESOURCE_TOOL, readResourceAgentTool, readResourceToolSpec, resourceMentions, resourceText, type McpResourceItem } from "./resources.ts";
import type { McpServerStatus } from "./status.ts";
import { within } from "./wait.ts";
import { exposureOf, type ToolExposure } from "./exposure.ts";
import type { McpDialogs } from "./elicitation.ts";
import type { McpSampler } from "./sampling.ts";

/** Where MCP tools go: the session's ToolSet (src/core/tool-set.ts). */
export interface McpToolSink {
  upsert(tool: AgentTool<any>, info: { sourceInfo: SourceInfo; exposure?: ToolExposure; searchText?: string; namespace?: ToolNamespace }, activate: boolean): void;
  remove(name: string): void;
  batch(changes: () => void): void;
  /**
   * Switches on what reaches tools of that exposure (codemode, tool_search), unless the
   * command line left it out; returns whether something reaches them now.
   */
  enableReacher?(exposure: "codemode" | "deferred" | "none"): boolean;
  /** The servers whose tools are not declared, for the system prompt's `<mcp_servers>` list. */
  describeServers?(servers: { name: string; description?: string }[]): void;
}

export interface McpHubOptions {
  /**
   * Where the tools go. Whether a new one starts active is the tool set's rule (the
   * command line's --tools, --exclude-tools, --no-tools: src/core/tool-selection.ts).
   */
  tools: McpToolSink;
  /** A line for the person running xcsh (stderr, an RPC notice frame, an ACP notice). */
  report(message: string): void;
  /** The project folder: every server gets it as its root. */
  projectDir?: string;
  /** The mode's dialogs, for servers' questions (elicitation). */
  dialogs?: McpDialogs;
  /** Answers servers' requests for the model (sampling). */
  sampler?: McpSampler;
}

/** How xcsh introduces itself to servers. */
export const CLIENT_INFO = { name: "xcsh", version: packageJson.version };

interface RegisteredTool {
  connection: McpConnection;
  tool: Tool;
  /** The server's resource reader (resources.ts), not one of its own tools. */
  readsResources?: boolean;
  /** The name xcsh used before pi's naming rule, still accepted in calls. */
  alias?: string;
}

interface RegisteredPrompt {
  connection: McpConnection;
  prompt: Prompt;
}

export type UserInput = { text: string; images?: ImageContent[] };

export class McpHub {
  private readonly connections = new Map<string, McpConnection>();
  private readonly registered = new Map<string, RegisteredTool>();
  private readonly prompts = new Map<string, RegisteredPrompt>();
  private readonly reported = new Set<string>();
  private readonly listeners: (() => void)[] = [];
  private readonly slowReported = new Set<McpConnection>();
  private closed = false;

  constructor(private readonly options: McpHubOptions) {}

  /** Starts, keeps or closes servers so that exactly `specs` run. */
  configure(specs: readonly McpServerSpec[]): void {
    if (this.closed) return;
    const wanted = new Map(specs.map((spec) => [spec.name, spec]));
    for (const [name, connection] of this.connections) {
      const spec = wanted.get(name);
      if (spec && sameServer(spec, connection.spec)) continue;
      this.connections.delete(name);
      void connection.close();
    }
    for (const spec of specs) {
      if (this.connections.has(spec.name)) continue;
      this.connect(spec);
    }
    this.sync();
  }

  private connect(spec: McpServerSpec): McpConnection {
    let connection: McpConnection | undefined;
    // A connection replaced meanwhile (reconnect) no longer speaks for its server.
    const current = () => connection === undefined || this.connections.get(spec.name) === connection;
    connection = new McpConnection(spec, { changed: () => this.sync(), failed: (message) => void (current() && this.report(message)) }, CLIENT_INFO, this.options.projectDir, this.options.dialogs, this.options.sampler);
    this.connections.set(spec.name, connection);
    return connection;
  }

  /** Problems found before connecting (a bad entry, an unset variable), reported like failures. */
  report(message: string): void {
    if (this.reported.has(message)) return;
    this.reported.add(message);
    this.options.report(message);
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /**
   * Waits for the servers still connecting, each until its startupTimeout has passed
   * since it started; one still not ready is reported (once) and the prompt goes on.
   */
  async ready(wanted: (spec: McpServerSpec) => boolean = () => true): Promise<void> {
    const connecting = [...this.connections.values()].filter((connection) => connection.state === "connecting" && wanted(connection.spec));
    if (connecting.length === 0) return;
    await Promise.all(
      connecting.map((connection) => {
        const left = connection.startedAt + connection.spec.startupWaitMs - Date.now();
        return left <= 0 ? undefined : within(connection.settled, left);
      }),
    );
    for (const connection of connecting) {
      if (connection.state !== "connecting" || this.slowReported.has(connection)) continue;
      this.slowReported.add(connection);
      const seconds = Math.round(connection.spec.startupWaitMs / 1000);
      this.report(`MCP server "${connection.spec.name}" is still connecting after ${seconds} s; going on without it (its tools are added once it is ready)`);
    }
  }

  /** The servers' prompts as slash commands. */
  commands(): SlashCommand[] {
    return [...this.prompts].map(([name, { connection, prompt }]) => promptCommand(connection.spec, prompt, name));
  }

  /**
   * `/mcp__server__prompt args` becomes the prompt's text (and images); any other
   * input is returned as it is. A prompt the server cannot give is reported and the
   * input dropped (undefined): sending the command's text to the model would only confuse it.
   */
  async expandCommand(input: UserInput): Promise<UserInput | undefined> {
    const match = matchPromptCommand(input.text, this.prompts);
    if (!match) return input;
    const { connection, prompt } = match.target;
    const name = mcpName(connection.spec.name, prompt.name);
    const parsed = promptArguments(prompt, match.args);
    if ("error" in parsed) {
      this.options.report(`/${name} ${parsed.error}`);
      return undefined;
    }
    try {
      const expanded = promptInput(await connection.getPrompt(prompt.name, parsed.args));
      const images = [...expanded.images, ...(input.images ?? [])];
      return { text: expanded.text, ...(images.length > 0 ? { images } : {}) };
    } catch (error) {
      this.options.report(`/${name}: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** Every server's state, counts and last error (for /mcp). */
  status(): McpServerStatus[] {
    return [...this.connections.values()].map((connection) => ({
      name: connection.spec.name,
      state: connection.state,
      transport: connection.spec.transport,
      origin: connection.spec.origin,
      tools: connection.tools.length,
      prompts: connection.prompts.length,
      resources: connection.resources.length,
      ...(connection.lastError ? { lastError: connection.lastError } : {}),
    }));
  }

  /**
   * Connects one server afresh (after its config was fixed, or a sign-in); its tools
   * return once it is connected. The config is read again by the caller, so a fixed
   * entry is used; here the spec given replaces the old one. Resolves when connecting ends.
   */
  async reconnect(spec: McpServerSpec): Promise<McpServerStatus | undefined> {
    if (this.closed) return undefined;
    const old = this.connections.get(spec.name);
    this.connections.delete(spec.name);
    if (old) await old.close();
    // A failure of the new attempt is news, even if the old one's was said already.
    for (const message of [...this.reported]) if (message.startsWith(`MCP server "${spec.name}"`)) this.reported.delete(message);
    const connection = this.connect(spec);
    this.sync();
    await connection.settled;
    return this.status().find((server) => server.name === spec.name);
  }

  /** Resources of the connected servers, for `@server:` completion. */
  resources(): McpResourceItem[] {
    return [...this.connections.values()]
      .filter((connection) => connection.state === "connected" || connection.state === "disconnected")
      .flatMap((connection) =>
        connection.resources.map((resource) => ({
          server: connection.spec.name,
          uri: resource.uri,
          name: resource.name,
          ...(resource.description ? { description: resource.description } : {}),
        })),
      );
  }

  /**
   * Each `@server:uri` of a connected server in the text, read and put before the
   * message; a mention that cannot be read is reported and left as it is.
   */
  async attachResources(text: string): Promise<string> {
    let blocks = "";
    const attached = new Set<string>();
    for (const mention of resourceMentions(text)) {
      const { server } = mention;
      const connection = this.connections.get(server);
      // A disconnected server is asked anyway: reading it connects it again.
      if (connection?.state !== "connected" && connection?.state !== "disconnected") continue;
      // A sentence's full stop or a closing bracket after the URI is not part of it.
      const listed = new Set(connection.resources.map((resource) => resource.uri));
      const trimmed = mention.uri.replace(/[.,;:!?)\]'"]+$/, "");
      const uri = !listed.has(mention.uri) && listed.has(trimmed) ? trimmed : mention.uri;
      if (attached.has(`${server}\u0000${uri}`)) continue;
      attached.add(`${server}\u0000${uri}`);
      try {
        const result = await connection.readResource(uri);
        blocks += `<resource server="${server}" uri="${uri}">\n${resourceText(result)}\n</resource>\n`;
      } catch (error) {
        this.options.report(`@${server}:${uri} is not attached: ${(error as Error).message}`);
      }
    }
    return blocks + text;
  }

  async close(): Promise<void> {
    this.closed = true;
    const connections = [...this.connections.values()];
    this.connections.clear();
    this.sync();
    await Promise.all(connections.map((connection) => connection.close()));
  }

  /** Makes the tool set and the prompt list match what the connected servers offer now. */
  private sync(): void {
    const wantedTools = new Map<string, RegisteredTool>();
    const wantedPrompts = new Map<string, RegisteredPrompt>();
    for (const connection of this.connections.values()) {
      // A stopped local server keeps its tools (the next call starts it again), also while it restarts.
      const offers = connection.state === "connected" || connection.state === "disconnected" || (connection.state === "connecting" && connection.tools.length > 0);
      if (!offers) continue;
      const names = mcpToolNames(connection.spec.name, connection.tools.map((tool) => tool.name));
      for (const tool of connection.tools) {
        const { name, alias } = names.get(tool.name)!;
        this.claim(wantedTools, name, { connection, tool, ...(alias ? { alias } : {}) }, "tool");
      }
      const readerName = mcpName(connection.spec.name, READ_RESOURCE_TOOL);
      // The server's own tool of that name, if any, keeps it.
      if (connection.resources.length > 0 && !wantedTools.has(readerName)) {
        wantedTools.set(readerName, { connection, tool: readResourceToolSpec(connection.resources), readsResources: true });
      }
      for (const prompt of connection.prompts) this.claim(wantedPrompts, mcpName(connection.spec.name, prompt.name), { connection, prompt }, "prompt");
    }
    this.options.tools.batch(() => {
      for (const name of [...this.registered.keys()]) {
        if (wantedTools.has(name)) continue;
        this.registered.delete(name);
        this.options.tools.remove(name);
      }
      for (const [name, entry] of wantedTools) {
        const known = this.registered.get(name);
        if (known && known.connection === entry.connection && known.tool === entry.tool) continue;
        this.registered.set(name, entry);
        // A changed tool keeps whether it is active; a new one follows the command line's choice.
        const agentTool = entry.readsResources ? readResourceAgentTool(entry.connection, name) : mcpAgentTool(entry.connection, entry.tool, name, entry.alias);
        const spec = entry.connection.spec;
        // The resource reader goes the way of the server's widest exposure (pi's rule).
        const exposure = entry.readsResources ? widestExposure(spec, entry.connection.tools) : exposureOf(spec, entry.tool.name);
        this.options.tools.upsert(
          agentTool,
          { sourceInfo: sourceInfoOf(spec), exposure, namespace: namespaceOf(entry.connection), ...(spec.description ? { searchText: spec.description } : {}) },
          !known,
        );
      }
    });
    this.prompts.clear();
    for (const [name, entry] of wantedPrompts) this.prompts.set(name, entry);
    for (const listener of this.listeners) listener();
  }

  /** Two servers' names can meet once made safe: the first keeps the name, the clash is reported. */
  private claim<T extends { connection: McpConnection }>(into: Map<string, T>, name: string, entry: T, kind: string): void {
    const holder = into.get(name);
    if (!holder) {
      into.set(name, entry);
      return;
    }
    this.report(`MCP ${kind} name ${name} is taken by server "${holder.connection.spec.name}"; the one of server "${entry.connection.spec.name}" is left out`);
  }
}

/** direct, then codemode or deferred, then hidden: the reach of whichever tool reaches furthest. */
function widestExposure(spec: McpServerSpec, tools: readonly Tool[]): ToolExposure {
  const exposures = tools.map((tool) => exposureOf(spec, tool.name));
  if (exposures.length === 0) return exposureOf(spec, "");
  for (const kind of ["direct", "codemode", "deferred"] as const) if (exposures.includes(kind)) return kind;
  return "hidden";
}

/** pi 1.6.0: the group getAllTools() reports for a server's tools — `mcp__<server>`, found by the server's own name too. */
function namespaceOf(connection: McpConnection): ToolNamespace {
  const { name, description } = connection.spec;
  const instructions = connection.instructions();
  return {
    name: mcpNamespaceName(name),
    aliases: [name],
    ...(description ? { description } : {}),
    ...(instructions ? { instructions } : {}),
  };
}

function sourceInfoOf(spec: McpServerSpec): SourceInfo {
  return { path: spec.origin, source: MCP_TOOL_SOURCE, scope: spec.scope, origin: "top-level" };
}
