/**
 * One MCP server, over its lifetime: connect (spawn or dial, then the SDK's
 * initialize handshake), list its tools and prompts, follow its `list_changed`
 * notifications, run calls, and close. It never throws at its owner: a server that
 * fails to start, crashes or hangs ends in state "failed" with a message that says
 * which server and why (with the last lines of its stderr for a local one), reported
 * once through `events.failed`. The SDK (and its zod and ajv) loads with this module,
 * which nothing imports until a server is configured.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type GetPromptResult,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { basename } from "node:path";
import { traceModuleLoad } from "../ai/load-trace.ts";
import type { McpServerSpec } from "./config-schema.ts";
import { McpLoginNeeded, StoredMcpOAuth } from "./oauth-provider.ts";
import { StdioProcessTransport } from "./stdio-transport.ts";
import { elicitThroughDialogs, type McpDialogs } from "./elicitation.ts";
import type { McpSampler, UsageSink } from "./sampling.ts";
import { addUsage } from "../ai/usage.ts";
import { within } from "./wait.ts";
import { McpHttpRetriesExhausted, retryingFetch } from "./http-retry.ts";

traceModuleLoad("@modelcontextprotocol/sdk");

/**
 * "needs-auth": a remote server wants an OAuth sign-in that auth.json does not hold (`xcsh mcp login`).
 * "disconnected": it was connected and stopped (a crashed stdio server, a remote server whose connection dropped);
 * its tools stay, and the next call starts or reconnects it.
 */
export type ConnectionState = "connecting" | "connected" | "disconnected" | "failed" | "needs-auth" | "closed";

export interface ConnectionEvents {
  /** The tool, prompt or resource list changed (first listing included), or the state did. */
  changed(): void;
  /** The server could not start, or stopped; said once per connection. */
  failed(message: string): void;
}

/** The handshake may take this long before the server counts as hung. */
const CONNECT_TIMEOUT_MS = 60_000;
/** Listing tools or prompts again after a change. */
const LIST_TIMEOUT_MS = 30_000;

/** Every item of a paginated MCP list, following `nextCursor` to the last page. */
async function allPages<T>(fetchPage: (params: { cursor: string } | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor ? { cursor } : undefined);
    all.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return all;
}

export class McpConnection {
  state: ConnectionState = "connecting";
  tools: Tool[] = [];
  prompts: Prompt[] = [];
  resources: Resource[] = [];
  /** Why the connection failed or stopped (for /mcp). */
  lastError: string | undefined;
  /** Settles when connecting ends, either way. */
  settled: Promise<void>;
  startedAt = Date.now();
  private client: Client;
  private transport: Transport | undefined;
  private oauth: StoredMcpOAuth | undefined;
  private reportedFailure = false;
  /** This connection attempt follows a drop (restart()), not the first start. */
  private reconnecting = false;
  /** The tool calls in progress, oldest first: sampling's usage goes to the first. */
  private readonly runningCalls = new Set<UsageSink>();

  constructor(
    readonly spec: McpServerSpec,
    private readonly events: ConnectionEvents,
    private readonly clientInfo: { name: string; version: string },
    /** The project folder, offered to the server as its one root (`roots/list`). */
    private readonly projectDir?: string,
    /** The mode's dialogs: a server's questions (elicitation) are asked through them. */
    private readonly dialogs?: McpDialogs,
    /** Answers a server's requests for the model (sampling). */
    private readonly sampler?: McpSampler,
  ) {
    this.client = this.makeClient();
    this.settled = this.connect();
  }

  /** What the server said about using it when it connected (`instructions`), if anything. */
  instructions(): string | undefined {
    return this.client.getInstructions() || undefined;
  }

  /** A fresh SDK client (one per connection attempt: a restart after a crash gets its own). */
  private makeClient(): Client {
    const client = new Client(this.clientInfo, {
      capabilities: {
        ...(this.projectDir ? { roots: { listChanged: false } } : {}),
        ...(this.dialogs ? { elicitation: { form: {} } } : {}),
        // `context`: includeContext is honoured (core/mcp-sampling.ts), so servers may ask for it.
        ...(this.sampler ? { sampling: { context: {} } } : {}),
      },
    });
    const sampler = this.sampler;
    if (sampler) {
      client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
        const { result, usage } = await sampler.sample(this.spec.name, request.params, extra.signal);
        // MCP does not say which call a sampling request serves: the oldest call still running
        // on this server gets its usage (over stdio most servers run one call at a time).
        const sink = this.runningCalls.values().next().value;
        if (sink && usage) sink.usage = addUsage(sink.usage, usage);
        return result;
      });
    }
    const dialogs = this.dialogs;
    if (dialogs) client.setRequestHandler(ElicitRequestSchema, (request) => elicitThroughDialogs(dialogs, this.spec.name, request.params));
    if (this.projectDir) {
      const root = { uri: Bun.pathToFileURL(this.projectDir).href, name: basename(this.projectDir) || this.projectDir };
      client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [root] }));
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void this.track(this.refreshTools()));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void this.track(this.refreshPrompts()));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void this.track(this.refreshResources()));
    client.onclose = () => {
      if (client === this.client) this.onClosed();
    };
    return client;
  }

  /**
   * A stopped stdio server started again, or a dropped remote one dialled again, for a call:
   * resolves once it is connected, or failed (a remote server still unreachable stays
   * disconnected, to be tried again by the next call).
   */
  private restart(): Promise<void> {
    if (this.state !== "disconnected") return this.settled;
    this.reconnecting = true;
    this.state = "connecting";
    this.startedAt = Date.now();
    this.client = this.makeClient();
    this.settled = this.connect();
    return this.settled;
  }

  private async connect(): Promise<void> {
    try {
      this.transport = this.makeTransport();
      await this.client.connect(this.transport, { timeout: CONNECT_TIMEOUT_MS });
      if (this.state !== "connecting") return; // closed while connecting
      const capabilities = this.client.getServerCapabilities() ?? {};
      const [tools, prompts, resources] = await Promise.all([
        capabilities.tools ? this.listAllTools() : [],
        capabilities.prompts ? this.listAllPrompts() : [],
        capabilities.resources ? this.listAllResources() : [],
      ]);
      if (this.state !== "connecting") return;
      this.tools = tools;
      this.prompts = prompts;
      this.resources = resources;
      this.state = "connected";
      this.reconnecting = false;
      this.events.changed();
    } catch (error) {
      if (this.state !== "connecting") return;
      if (error instanceof McpLoginNeeded || this.oauth?.loginNeeded) {
        this.needsLogin();
        await this.client.close().catch(() => {});
        return;
      }
      const lost = this.reconnecting && this.spec.transport !== "stdio" ? connectionLoss(error) : undefined;
      if (lost) {
        this.state = "disconnected";
        this.lastError = `could not reconnect: ${lost.why}; it tries again on the next call of one of its tools`;
        this.events.changed();
        await this.client.close().catch(() => {});
        return;
      }
      const closed = error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
      this.fail(closed ? `closed the connection while starting${this.exitNote()}` : `could not connect: ${describeError(error, CONNECT_TIMEOUT_MS)}`);
      await this.client.close().catch(() => {});
    }
  }

  private makeTransport(): Transport {
    const spec = this.spec;
    if (spec.transport === "stdio") return new StdioProcessTransport(spec);
    const requestInit = { headers: spec.headers };
    // A configured Authorization header is the server's credential; without one, the
    // server may ask for an OAuth sign-in (401), which the stored tokens answer.
    const givesToken = Object.keys(spec.headers).some((name) => name.toLowerCase() === "authorization");
    this.oauth = givesToken ? undefined : new StoredMcpOAuth({ serverUrl: spec.url, mode: "background", serverName: spec.name, ...(spec.oauth ? { client: spec.oauth } : {}) });
    const authProvider = this.oauth;
    // Messages a busy server turned away (408, 429, 5xx) are sent again where that is safe (http-retry.ts).
    const fetch = retryingFetch();
    if (spec.transport === "sse") return new SSEClientTransport(new URL(spec.url), { requestInit, authProvider, fetch });
    return new StreamableHTTPClientTransport(new URL(spec.url), { requestInit, authProvider, fetch });
  }

  private listAllTools(): Promise<Tool[]> {
    return allPages((params) => this.client.listTools(params, { timeout: LIST_TIMEOUT_MS }).then((page) => ({ items: page.tools, nextCursor: page.nextCursor })));
  }

  private listAllPrompts(): Promise<Prompt[]> {
    return allPages((params) => this.client.listPrompts(params, { timeout: LIST_TIMEOUT_MS }).then((page) => ({ items: page.prompts, nextCursor: page.nextCursor })));
  }

  private listAllResources(): Promise<Resource[]> {
    return allPages((params) => this.client.listResources(params, { timeout: LIST_TIMEOUT_MS }).then((page) => ({ items: page.resources, nextCursor: page.nextCursor })));
  }

  /** Lists being fetched again after a list_changed notification. */
  private readonly refreshing = new Set<Promise<void>>();

  private track(refresh: Promise<void>): Promise<void> {
    this.refreshing.add(refresh);
    void refresh.finally(() => this.refreshing.delete(refresh));
    return refresh;
  }

  private async refreshTools(): Promise<void> {
    if (this.state !== "connected") return;
    try {
      this.tools = await this.listAllTools();
      this.events.changed();
    } catch (error) {
      this.events.failed(`MCP server "${this.spec.name}": could not list its tools after a change: ${describeError(error, LIST_TIMEOUT_MS)}`);
    }
  }

  private async refreshPrompts(): Promise<void> {
    if (this.state !== "connected") return;
    try {
      this.prompts = await this.listAllPrompts();
      this.events.changed();
    } catch (error) {
      this.events.failed(`MCP server "${this.spec.name}": could not list its prompts after a change: ${describeError(error, LIST_TIMEOUT_MS)}`);
    }
  }

  private async refreshResources(): Promise<void> {
    if (this.state !== "connected") return;
    try {
      this.resources = await this.listAllResources();
      this.events.changed();
    } catch (error) {
      this.events.failed(`MCP server "${this.spec.name}": could not list its resources after a change: ${describeError(error, LIST_TIMEOUT_MS)}`);
    }
  }

  /** A resource's contents (text, or base64 blobs), as the server gives them. */
  readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    const request = () => this.client.readResource({ uri }, { signal, timeout: this.spec.callTimeoutMs });
    return this.ask(`resource ${uri}`, request, signal, `Reading ${uri} from MCP server "${this.spec.name}" was cancelled.`);
  }

  /** A prompt's messages, filled with `args`. */
  getPrompt(name: string, args: Record<string, string>): Promise<GetPromptResult> {
    return this.ask(`prompt ${name}`, () => this.client.getPrompt({ name, arguments: args }, { timeout: this.spec.callTimeoutMs }));
  }

  /**
   * A request that only reads (a prompt, a resource): a stopped server is started or
   * dialled again first, as for a tool call, and a remote one whose connection is lost
   * meanwhile is asked once more on a new connection, since asking twice changes nothing.
   */
  private async ask<T>(what: string, request: () => Promise<T>, signal?: AbortSignal, cancelled = `The ${what} of MCP server "${this.spec.name}" was cancelled.`): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      await this.ready();
      try {
        return await request();
      } catch (error) {
        if (signal?.aborted) throw new Error(cancelled);
        if (error instanceof McpLoginNeeded) this.needsLogin();
        const lost = this.spec.transport === "stdio" ? undefined : connectionLoss(error);
        if (lost) {
          this.dropped(lost.why);
          if (attempt === 1) continue;
          throw new Error(`MCP server "${this.spec.name}", ${what}: ${lost.why}; it reconnects on the next request`);
        }
        throw new Error(`MCP server "${this.spec.name}", ${what}: ${describeError(error, this.spec.callTimeoutMs)}`);
      }
    }
  }

  /** A stopped server started or dialled again for a request, or why it cannot be asked. */
  private async ready(): Promise<void> {
    if (this.state === "disconnected") await this.restart();
    if (this.state !== "connected") throw new Error(`MCP server "${this.spec.name}" is not connected (${this.state}${this.lastError ? `: ${this.lastError.split("\n")[0]}` : ""})`);
  }

  /**
   * Runs a tool; aborting `signal` cancels the request (the SDK sends notifications/cancelled).
   * The usage of sampling the server asks for meanwhile is added to `sink`.
   */
  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal | undefined, onProgress?: (text: string) => void, sink: UsageSink = {}): Promise<CallToolResult> {
    try {
      return await this.callToolOnce(name, args, signal, onProgress, sink);
    } catch (error) {
      // A remote server that forgot the session or refused the connection never saw the call:
      // it is sent once more on a new connection. A call cut off midway is not (it may have acted).
      if (!(error instanceof ConnectionLost) || !error.neverArrived || signal?.aborted) throw error;
      return await this.callToolOnce(name, args, signal, onProgress, sink);
    }
  }

  private async callToolOnce(name: string, args: Record<string, unknown>, signal: AbortSignal | undefined, onProgress: ((text: string) => void) | undefined, sink: UsageSink): Promise<CallToolResult> {
    await this.ready();
    this.runningCalls.add(sink);
    try {
      const result = await this.client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: this.spec.callTimeoutMs,
        resetTimeoutOnProgress: true,
        ...(onProgress
          ? { onprogress: (progress) => onProgress(`${progress.message ?? "progress"}${progress.total ? ` (${progress.progress}/${progress.total})` : ` (${progress.progress})`}`) }
          : {}),
      });
      // A tool that changed the server's tools (its list_changed came before its answer):
      // the new list is in place before the model's next request.
      if (this.refreshing.size > 0) await within(Promise.all(this.refreshing), LIST_TIMEOUT_MS);
      return result as CallToolResult;
    } catch (error) {
      if (signal?.aborted) throw new Error(`The call to ${name} on MCP server "${this.spec.name}" was cancelled.`);
      // The sign-in ran out mid-session (refresh refused): the server's tools go until it is given again.
      if (error instanceof McpLoginNeeded) this.needsLogin();
      const lost = this.spec.transport === "stdio" ? undefined : connectionLoss(error);
      if (lost) {
        this.dropped(lost.why);
        throw new ConnectionLost(`MCP server "${this.spec.name}", tool ${name}: ${lost.why}; it reconnects on the next call`, lost.neverArrived);
      }
      throw new Error(`MCP server "${this.spec.name}", tool ${name}: ${describeError(error, this.spec.callTimeoutMs)}`);
    } finally {
      this.runningCalls.delete(sink);
    }
  }

  async close(): Promise<void> {
    if (this.state === "closed") return;
    this.state = "closed";
    this.tools = [];
    this.prompts = [];
    this.resources = [];
    await this.client.close().catch(() => {});
    await this.transport?.close().catch(() => {});
  }

  /**
   * The connection ended. While connecting, connect() reports it with the reason it got.
   * A local server that stops keeps its tools: the next call starts it again (pi's rule). A
   * remote one's connection is the server's to keep, so it fails as before.
   */
  private onClosed(): void {
    if (this.state !== "connected") return;
    if (this.spec.transport !== "stdio") {
      this.dropped("the connection closed");
      return;
    }
    this.state = "disconnected";
    const stderr = this.transport instanceof StdioProcessTransport ? this.transport.stderrTail : "";
    this.lastError = `stopped${this.exitNote()}; it starts again on the next call of one of its tools${stderr ? `\n${lastLines(stderr, 5)}` : ""}`;
    // Each stop is news (the first call after it restarts the server, which may stop again).
    this.events.failed(`MCP server "${this.spec.name}" (${this.spec.origin}) ${this.lastError}`);
    this.events.changed();
  }

  /**
   * A remote server's connection is gone (the server stopped, restarted and forgot the
   * session, or the network dropped): its tools stay, and the next call of one of them
   * connects again, as a crashed stdio server is started again. Reported each time.
   */
  private dropped(why: string): void {
    if (this.state !== "connected") return;
    this.state = "disconnected";
    this.lastError = `${why}; it reconnects on the next call of one of its tools`;
    // The old client's stream must not keep retrying in the background.
    const client = this.client;
    void client.close().catch(() => {});
    this.events.failed(`MCP server "${this.spec.name}" (${this.spec.origin}) ${this.lastError}`);
    this.events.changed();
  }

  private exitNote(): string {
    const transport = this.transport;
    if (!(transport instanceof StdioProcessTransport) || transport.exitCode === undefined) return "";
    return ` (exit code ${transport.exitCode ?? "none: killed by a signal"})`;
  }

  /** A sign-in is wanted: said once, with the command that gives it; the other servers go on. */
  private needsLogin(): void {
    this.state = "needs-auth";
    // In the terminal, /mcp login signs in and reconnects without a restart.
    this.lastError = `needs a sign-in: run \`xcsh mcp login ${this.spec.name}\` (in the terminal: /mcp login ${this.spec.name})`;
    this.events.changed();
    if (this.reportedFailure) return;
    this.reportedFailure = true;
    this.events.failed(`MCP server "${this.spec.name}" (${this.spec.origin}) ${this.lastError}`);
  }

  private fail(why: string): void {
    this.state = "failed";
    const stderr = this.transport instanceof StdioProcessTransport ? this.transport.stderrTail : "";
    const tail = stderr ? `\n${lastLines(stderr, 5)}` : "";
    this.lastError = `${why}${tail}`;
    this.tools = [];
    this.prompts = [];
    this.resources = [];
    this.events.changed();
    if (this.reportedFailure) return;
    this.reportedFailure = true;
    this.events.failed(`MCP server "${this.spec.name}" (${this.spec.origin}) ${this.lastError}`);
  }
}

function lastLines(text: string, count: number): string {
  return text
    .split("\n")
    .slice(-count)
    .map((line) => `  ${line}`)
    .join("\n");
}

/** A remote call that failed because the connection is gone; `neverArrived`: the server cannot have run it. */
class ConnectionLost extends Error {
  constructor(
    message: string,
    readonly neverArrived: boolean,
  ) {
    super(message);
  }
}

/**
 * Whether a remote call's failure means the connection is gone, and whether the call
 * can have reached the tool: a refused connection or a session the server no longer
 * knows (404, or 400 naming the session, as the SDK's example servers answer) cannot;
 * a connection closed mid-call can. Undefined for every other failure (a timeout, a
 * tool's error, a 401, a 5xx).
 */
function connectionLoss(error: unknown): { why: string; neverArrived: boolean } | undefined {
  if (error instanceof McpHttpRetriesExhausted) return undefined;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) return { why: "the connection closed during the call", neverArrived: false };
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  // Streamable HTTP's error carries the status as its code; the SSE transport's names it in its message.
  const status = error instanceof StreamableHTTPError ? error.code : Number(/\(HTTP (\d{3})\)/.exec(message)?.[1] ?? NaN);
  if (status === 404 || (status === 400 && /session/i.test(message))) return { why: `the server no longer knows the session (HTTP ${status})`, neverArrived: true };
  if (error instanceof StreamableHTTPError) return undefined;
  if (code === "ConnectionRefused" || code === "ECONNREFUSED" || /ECONNREFUSED|Unable to connect|connection refused/i.test(message)) {
    return { why: "the server refused the connection", neverArrived: true };
  }
  if (code === "ECONNRESET" || code === "ConnectionClosed" || /ECONNRESET|socket (connection )?was closed|fetch failed|network/i.test(message)) {
    return { why: "the connection dropped", neverArrived: false };
  }
  return undefined;
}

/** An SDK or transport error in words: a timeout says how long, an HTTP failure its status. */
export function describeError(error: unknown, timeoutMs: number): string {
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) return "the connection closed";
  const message = error instanceof Error ? error.message : String(error);
  if (/\b401\b|Unauthorized/i.test(message)) return `${message} (the server wants authorization: put a token in "headers", e.g. "Authorization": "Bearer \${TOKEN}", or, if it offers OAuth, run \`xcsh mcp login <name>\`)`;
  return message;
}
