/**
 * What each RPC command does, given the session. A handler returns the data
 * of a successful response or throws an Error whose message becomes the
 * failure's `error`. Handlers never write to stdout themselves.
 */
import { isThinkingLevel } from "../../ai/thinking.ts";
import type { AgentSession } from "../../core/agent-session.ts";
import { normalizeTodoPhases } from "../../core/todos.ts";
import type { HostToolBridge } from "./host-tools.ts";
import type { ExtensionSystem } from "../../core/extension-system.ts";
import type { RpcCommand, RpcSessionState } from "./rpc-types.ts";

export interface RpcContext {
  session: AgentSession;
  hostTools: HostToolBridge;
  /** Names of the tools the host currently provides (replaced by set_host_tools). */
  hostToolNames: Set<string>;
  /** Loaded extensions, when any are configured. */
  extensions?: ExtensionSystem;
}

/** A result whose follow-up work starts only after the response is written (prompt: the response precedes agent_start). */
export class ThenStart {
  constructor(
    readonly data: unknown,
    readonly start: () => void,
  ) {}
}

type Handler<T extends RpcCommand["type"]> = (command: Extract<RpcCommand, { type: T }>, context: RpcContext) => unknown | Promise<unknown>;
type Handlers = { [T in RpcCommand["type"]]: Handler<T> };

const QUEUE_MODES = ["all", "one-at-a-time"];
const INTERRUPT_MODES = ["immediate", "wait"];

function requireString(value: unknown, field: string): string {
  if (typeof value !== "string") throw new Error(`"${field}" must be a string`);
  return value;
}

function requireBoolean(value: unknown, field: string): boolean {
  if (typeof value !== "boolean") throw new Error(`"${field}" must be true or false`);
  return value;
}

function requireMode(value: unknown, allowed: string[]): string {
  if (typeof value !== "string" || !allowed.includes(value)) throw new Error(`"mode" must be one of: ${allowed.join(", ")}`);
  return value;
}

export function sessionState(session: AgentSession): RpcSessionState {
  const manager = session.sessionManager;
  const sessionFile = manager.getSessionFile();
  const sessionName = session.sessionName;
  const queued = session.pendingMessageCount;
  return {
    model: session.model ?? null,
    thinkingLevel: session.thinkingLevel,
    isStreaming: session.isStreaming,
    isCompacting: session.isCompacting,
    steeringMode: session.agent.steeringQueue.mode,
    followUpMode: session.agent.followUpQueue.mode,
    interruptMode: session.agent.interruptMode,
    ...(sessionFile ? { sessionFile } : {}),
    sessionId: manager.getSessionId(),
    ...(sessionName ? { sessionName } : {}),
    autoCompactionEnabled: session.autoCompactionEnabled,
    messageCount: session.messages.length,
    pendingMessageCount: queued,
    queuedMessageCount: queued,
    todoPhases: session.todoPhases,
  };
}

/**
 * Accepts a prompt: refusals throw before anything starts; the run itself
 * begins right after the response is written, and its failures travel as events.
 */
function acceptPrompt(session: AgentSession, command: { message: unknown; images?: unknown; streamingBehavior?: unknown }): ThenStart {
  const message = requireString(command.message, "message");
  const behavior = command.streamingBehavior;
  if (behavior !== undefined && behavior !== "steer" && behavior !== "followUp") {
    throw new Error('"streamingBehavior" must be "steer" or "followUp"');
  }
  if (session.isStreaming && behavior === undefined && !session.isCommand(message)) {
    throw new Error('The agent is already working. Send the prompt with "streamingBehavior": "steer" or "followUp", or abort first.');
  }
  return new ThenStart(undefined, () => {
    session
      .prompt(message, { images: command.images as never, streamingBehavior: behavior as "steer" | "followUp" | undefined, source: "rpc" })
      .catch((error) => process.stderr.write(`xcsh: prompt failed: ${(error as Error).message}\n`));
  });
}

function findModel(session: AgentSession, provider: string, modelId: string) {
  const model = session.registry.find(provider, modelId);
  if (!model) throw new Error(`Model not found: ${provider}/${modelId}`);
  return model;
}

export const handlers: Handlers = {
  prompt: (command, { session }) => acceptPrompt(session, command),
  steer: async (command, { session }) => {
    await session.steer(requireString(command.message, "message"), command.images);
  },
  follow_up: async (command, { session }) => {
    await session.followUp(requireString(command.message, "message"), command.images);
  },
  abort: async (_command, { session }) => {
    await session.abort();
  },
  abort_and_prompt: async (command, { session }) => {
    requireString(command.message, "message");
    await session.abort();
    return acceptPrompt(session, { message: command.message, images: command.images });
  },
  new_session: (command, { session }) => session.navigation.newSession({ parentSession: command.parentSession }),
  get_state: (_command, { session }) => sessionState(session),
  get_messages: (_command, { session }) => ({ messages: session.messages }),
  set_model: async (command, { session }) => {
    const model = findModel(session, requireString(command.provider, "provider"), requireString(command.modelId, "modelId"));
    return session.models.setModel(model);
  },
  cycle_model: async (_command, { session }) => (await session.models.cycleModel()) ?? null,
  get_available_models: (_command, { session }) => ({ models: session.models.availableModels() }),
  set_thinking_level: (command, { session }) => {
    if (!isThinkingLevel(command.level)) throw new Error('"level" must be one of: off, minimal, low, medium, high, xhigh');
    session.models.setThinkingLevel(command.level);
  },
  cycle_thinking_level: (_command, { session }) => {
    const level = session.models.cycleThinkingLevel();
    return level === undefined ? null : { level };
  },
  set_steering_mode: (command, { session }) => {
    session.agent.steeringQueue.mode = requireMode(command.mode, QUEUE_MODES) as "all";
  },
  set_follow_up_mode: (command, { session }) => {
    session.agent.followUpQueue.mode = requireMode(command.mode, QUEUE_MODES) as "all";
  },
  set_interrupt_mode: (command, { session }) => {
    session.agent.interruptMode = requireMode(command.mode, INTERRUPT_MODES) as "wait";
  },
  compact: async (command, { session }) => {
    return session.compact(command.customInstructions, {
      reserveTokens: command.reserveTokens,
      keepRecentTokens: command.keepRecentTokens,
    });
  },
  set_auto_compaction: (command, { session }) => {
    session.autoCompactionEnabled = requireBoolean(command.enabled, "enabled");
  },
  set_auto_retry: (command, { session }) => {
    session.autoRetryEnabled = requireBoolean(command.enabled, "enabled");
  },
  abort_retry: (_command, { session }) => session.abortRetry(),
  bash: (command, { session }) => session.executeBash(requireString(command.command, "command")),
  abort_bash: (_command, { session }) => session.abortBash(),
  get_session_stats: (_command, { session }) => session.getSessionStats(),
  export_html: () => {
    throw new Error("export_html is not supported by this version of xcsh yet");
  },
  switch_session: (command, { session }) => session.navigation.switchSession(requireString(command.sessionPath, "sessionPath")),
  fork: (command, { session }) => session.navigation.fork(requireString(command.entryId, "entryId")),
  branch: (command, { session }) => session.navigation.fork(requireString(command.entryId, "entryId")),
  clone: (_command, { session }) => session.navigation.clone(),
  get_fork_messages: (_command, { session }) => ({ messages: session.navigation.forkableMessages() }),
  get_branch_messages: (_command, { session }) => ({ messages: session.navigation.forkableMessages() }),
  get_last_assistant_text: (_command, { session }) => ({ text: session.getLastAssistantText() }),
  set_session_name: (command, { session }) => session.setSessionName(requireString(command.name, "name")),
  get_commands: (_command, { extensions }) => ({
    commands: (extensions?.currentRunner.commands() ?? []).map(({ invocation, command, extension }) => ({
      name: invocation,
      ...(command.description ? { description: command.description } : {}),
      source: "extension",
      path: extension.path,
      // pi 0.7x's provenance field, for hosts written against it.
      sourceInfo: extension.sourceInfo,
    })),
  }),
  set_todos: (command, { session }) => {
    const normalized = normalizeTodoPhases(command.phases);
    if ("error" in normalized) throw new Error(normalized.error);
    session.todoPhases = normalized.phases;
    return { todoPhases: normalized.phases };
  },
  set_host_tools: (command, context) => {
    const created = context.hostTools.createTools(command.tools);
    if ("error" in created) throw new Error(created.error);
    const clash = created.tools.find((tool) => context.session.tools.has(tool.name));
    if (clash) throw new Error(`Host tool "${clash.name}" has the name of a ${context.session.tools.isBuiltinName(clash.name) ? "built-in" : "registered"} tool`);
    // Replaced as a set: a run in progress sees the new tools at its next model call.
    context.session.tools.setHostTools(created.tools);
    context.hostToolNames.clear();
    for (const tool of created.tools) context.hostToolNames.add(tool.name);
    return { toolNames: created.tools.map((tool) => tool.name) };
  },
};

export function isKnownCommand(type: unknown): type is RpcCommand["type"] {
  return typeof type === "string" && Object.hasOwn(handlers, type);
}
