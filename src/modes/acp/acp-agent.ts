/**
 * What each ACP request does (a table of handlers on the SDK's agent app): it
 * negotiates the protocol, opens, loads, lists and closes sessions, and routes
 * prompts, cancels, modes and config options to the AcpSession they name. The SDK
 * checks every request's params against the protocol's schema before a handler
 * runs, and answers a thrown RequestError as a JSON-RPC error; a handler throws
 * one whose message says what to do.
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import {
  agent,
  PROTOCOL_VERSION,
  RequestError,
  type AgentApp,
  type AgentContext,
  type ClientCapabilities,
  type McpServer,
} from "@agentclientprotocol/sdk";
import type { RunOptions } from "../../core/run-options.ts";
import { VERSION } from "../../cli/version.ts";
import { normalizeTodoPhases } from "../../core/todos.ts";
import { UserError } from "../../core/user-error.ts";
import { SessionManager } from "../../session/session-manager.ts";
import { createHeadlessUI } from "../../extensions/ui-headless.ts";
import { describeExtensionError } from "../headless-extensions.ts";
import { guardProcessStdout } from "../protocol-output.ts";
import { createSessionFromArgs } from "../session-from-args.ts";
import { AcpSession } from "./acp-session.ts";
import { acpMcpServers } from "./mcp-servers.ts";

export interface AcpAgentOptions {
  args: RunOptions;
  hostApi: () => Promise<Record<string, unknown>>;
}

/** The sessions this connection opened, by id. */
export class AcpSessions {
  readonly byId = new Map<string, AcpSession>();
  clientCapabilities: ClientCapabilities | undefined;

  get(sessionId: string): AcpSession {
    const session = this.byId.get(sessionId);
    if (!session) throw new RequestError(-32002, `Session not found: ${sessionId}. Open it with session/new or session/load first.`, { sessionId });
    return session;
  }

  /** The client has gone: every run stops, and no new one starts; the sessions stay open until closeAll. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.byId.values()].map((session) => session.stop().catch(() => {})));
  }

  async closeAll(): Promise<void> {
    const sessions = [...this.byId.values()];
    this.byId.clear();
    await Promise.all(sessions.map((session) => session.close().catch(() => {})));
  }
}

function checkCwd(cwd: string): void {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path, got "${cwd}"`);
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw RequestError.invalidParams({ cwd }, `cwd ${cwd} is not an existing directory`);
}

/** A failure to open a session, as the error the client can act on. */
function openFailure(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  const message = (error as Error).message ?? String(error);
  // Exit code 3 is "no API key" (run-setup.ts): the message names the variable to set.
  if (error instanceof UserError && error.exitCode === 3) return RequestError.authRequired(undefined, message);
  return RequestError.internalError(undefined, message);
}

/**
 * MCP problems of a session (a server that fails or stops): on stderr, and as a
 * notice update once the session exists, for clients that take notices.
 */
function mcpReporter(capabilities: ClientCapabilities | undefined): { report(message: string): void; attach(session: AcpSession): void } {
  let session: AcpSession | undefined;
  const early: string[] = [];
  const notify = (target: AcpSession, message: string) => {
    if (capabilities?.session?.notices) target.send({ sessionUpdate: "notice", severity: "warning", title: "MCP server", description: message });
  };
  return {
    report(message) {
      process.stderr.write(`xcsh: acp: ${message}\n`);
      if (session) notify(session, message);
      else early.push(message);
    },
    attach(target) {
      session = target;
      for (const message of early.splice(0)) notify(target, message);
    },
  };
}

export function createAcpAgent(options: AcpAgentOptions, sessions: AcpSessions): AgentApp {
  const { args } = options;

  const open = async (client: AgentContext, cwd: string, mcpServers: readonly McpServer[] | undefined, sessionFile?: string): Promise<AcpSession> => {
    checkCwd(cwd);
    const mcp = mcpReporter(sessions.clientCapabilities);
    try {
      const created = await createSessionFromArgs(args, {
        cwd,
        requireApiKey: true,
        quietLoadWarnings: true,
        sessions: sessionFile ? { session: sessionFile, sessionDir: args.sessionDir } : { noSession: args.noSession, sessionDir: args.sessionDir, name: args.name },
        extensions: {
          mode: "acp",
          ui: createHeadlessUI(),
          hostApi: () => {
            guardProcessStdout();
            return options.hostApi();
          },
          reportError: (report) => process.stderr.write(describeExtensionError(report)),
          notice: (line) => process.stderr.write(`${line}\n`),
          onShutdownRequested: () => {},
        },
        // The client's MCP servers, for this session only.
        mcpServers: acpMcpServers(mcpServers),
        mcpNotice: (message) => mcp.report(message),
      });
      const session = new AcpSession({
        session: created.session,
        extensions: created.extensions,
        client,
        capabilities: sessions.clientCapabilities,
        maxTurns: args.maxTurns,
      });
      sessions.byId.set(session.id, session);
      mcp.attach(session);
      return session;
    } catch (error) {
      throw openFailure(error);
    }
  };

  /** The file of a stored session with exactly this id: this directory's sessions first, then all. */
  const findSessionFile = async (cwd: string, sessionId: string): Promise<string> => {
    const local = await SessionManager.list(cwd, args.sessionDir);
    const match = local.find((info) => info.id === sessionId) ?? (await SessionManager.listAll()).find((info) => info.id === sessionId);
    if (!match) throw new RequestError(-32002, `No stored session has the id ${sessionId}. session/list shows the sessions that can be loaded.`, { sessionId });
    return match.path;
  };

  /**
   * After the response: the client knows the session id by then. MCP prompts come and
   * go with their servers: the list is sent again at each change from then on.
   */
  const announce = (session: AcpSession) =>
    setTimeout(() => {
      session.sendAvailableCommands();
      session.session.mcp?.onChange(() => session.sendAvailableCommands());
    }, 0);

  return agent({ name: "xcsh" })
    .onRequest("initialize", ({ params }) => {
      sessions.clientCapabilities = params.clientCapabilities;
      return {
        // Version 1 is the only one; a client asking for another gets 1 and decides.
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, close: {} },
        },
        authMethods: [],
        agentInfo: { name: "xcsh", title: "xcsh", version: VERSION },
      };
    })
    .onRequest("authenticate", () => {
      // Keys come from the environment or models.json; a missing one is reported by session/new.
      return {};
    })
    .onRequest("session/new", async ({ params, client }) => {
      const session = await open(client, params.cwd, params.mcpServers);
      announce(session);
      return { sessionId: session.id, modes: session.modeState(), configOptions: session.configOptions() };
    })
    .onRequest("session/load", async ({ params, client }) => {
      checkCwd(params.cwd);
      const file = await findSessionFile(params.cwd, params.sessionId);
      await sessions.byId.get(params.sessionId)?.close();
      sessions.byId.delete(params.sessionId);
      const session = await open(client, params.cwd, params.mcpServers, file);
      session.replay();
      await session.flushed();
      announce(session);
      return { modes: session.modeState(), configOptions: session.configOptions() };
    })
    .onRequest("session/list", async ({ params }) => {
      const found = params.cwd ? await SessionManager.list(params.cwd, args.sessionDir) : await SessionManager.listAll();
      found.sort((a, b) => b.modified.getTime() - a.modified.getTime());
      return {
        sessions: found.map((info) => ({
          sessionId: info.id,
          cwd: info.cwd,
          title: info.name ?? (info.firstMessage ? info.firstMessage.slice(0, 100) : null),
          updatedAt: info.modified.toISOString(),
        })),
      };
    })
    .onRequest("session/close", async ({ params }) => {
      const session = sessions.get(params.sessionId);
      sessions.byId.delete(params.sessionId);
      await session.close();
      return {};
    })
    .onRequest("session/prompt", ({ params, signal }) => sessions.get(params.sessionId).prompt(params.prompt, signal))
    .onNotification("session/cancel", async ({ params }) => {
      // A cancel for a session that is not open or not working has nothing to stop.
      await sessions.byId.get(params.sessionId)?.cancel();
    })
    .onRequest("session/set_mode", ({ params }) => {
      const session = sessions.get(params.sessionId);
      session.setMode(params.modeId);
      return {};
    })
    .onRequest("session/set_config_option", async ({ params }) => {
      const session = sessions.get(params.sessionId);
      return { configOptions: await session.setConfigOption(params.configId, params.value) };
    })
    .onRequest(
      "_xcsh/set_todos",
      (raw) => {
        const params = (typeof raw === "object" && raw !== null ? raw : {}) as { sessionId?: unknown; phases?: unknown };
        if (typeof params.sessionId !== "string") throw RequestError.invalidParams(undefined, "sessionId must be a string");
        return { sessionId: params.sessionId, phases: params.phases };
      },
      ({ params }) => {
        const session = sessions.get(params.sessionId);
        const normalized = normalizeTodoPhases(params.phases);
        if ("error" in normalized) throw RequestError.invalidParams(undefined, normalized.error);
        session.session.todos.phases = normalized.phases;
        return { todoPhases: normalized.phases };
      },
    );
}
