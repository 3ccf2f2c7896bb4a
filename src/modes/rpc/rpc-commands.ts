/**
 * What each RPC command does, given the session. A command reaches its handler only
 * after it has matched its schema (rpc-schemas.ts), so handlers trust their fields. A
 * handler returns the data of a successful response or throws an Error whose message
 * becomes the failure's `error`. Handlers never write to stdout themselves.
 */
import type { AgentSession, PromptDisposition } from "../../core/agent-session.ts";
import { normalizeTodoPhases } from "../../core/todos.ts";
import type { HostToolBridge } from "./host-tools.ts";
import type { ExtensionSystem } from "../../core/extension-system.ts";
import type { ImageContent } from "../../ai/types.ts";
import { getSupportedThinkingLevels } from "../../ai/thinking.ts";
import type { SessionEntry } from "../../session/types.ts";
import type { RpcCommand, RpcSessionState } from "./rpc-types.ts";
import { StreamedArray } from "./jsonl.ts";
import { answerMcpCommand, isMcpCommand } from "../../mcp/session-command.ts";

export interface RpcContext {
  session: AgentSession;
  hostTools: HostToolBridge;
  /** Names of the tools the host currently provides (replaced by set_host_tools). */
  hostToolNames: Set<string>;
  /** Loaded extensions, when any are configured. */
  extensions?: ExtensionSystem;
  /** Prompts answered `success:true` whose run may not have begun yet. */
  prompts: AcceptedPrompts;
  /** Where `/mcp`'s answer is also shown, as pi's hosts expect it: a `notify` extension_ui_request. */
  notify?(message: string, type: "info" | "error"): void;
}

/** A result whose follow-up work starts only after the response is written (prompt: the response precedes agent_start). */
export class ThenStart {
  constructor(
    readonly data: unknown,
    readonly start: () => void,
  ) {}
}

/**
 * A result whose response waits for what only the work itself learns: a prompt's
 * disposition (pi 1.6.0), known once extensions have seen the prompt. `begin` starts the
 * work; it calls `answer` with the response's data the moment that is known — before any
 * run starts, so the response still precedes agent_start — or `fail` when the work fails first.
 */
export class AnswerWhenKnown {
  constructor(readonly begin: (answer: (data: unknown) => void, fail: (error: unknown) => void) => void) {}
}

type Handler<T extends RpcCommand["type"]> = (command: Extract<RpcCommand, { type: T }>, context: RpcContext) => unknown | Promise<unknown>;
type Handlers = { [T in RpcCommand["type"]]: Handler<T> };

const ALREADY_WORKING = 'The agent is already working. Send the prompt with "streamingBehavior": "steer" or "followUp", or abort first.';

/** A place in the line of accepted prompts. */
interface PromptPlace {
  /** Resolves once every prompt accepted before this one has landed. */
  readonly turn: Promise<void>;
  /** Starts the prompt in its turn; the place is free again once the prompt has landed. */
  launch(prompt: () => Promise<void>): void;
  /** Gives the place up without starting anything (the command failed after all). */
  release(): void;
}

/**
 * The line of prompts the host was told were accepted. Each accepted prompt starts
 * only once the one before it has landed — its run has begun (`agent_start`), or it
 * has settled (queued, handled by an extension, or done) — and the agent counts as
 * working from the moment a prompt is accepted. So two prompts sent back to back
 * never both answer `success:true` with only one running, and an `abort` sent right
 * after a prompt stops the run that prompt starts.
 */
export class AcceptedPrompts {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(private readonly session: AgentSession) {}

  /** A run is going, or an accepted prompt is about to start one. */
  get busy(): boolean {
    return this.session.isStreaming || this.pending > 0;
  }

  /** Resolves once every prompt accepted so far has landed. */
  landed(): Promise<void> {
    return this.tail;
  }

  /** Takes the next place at once, so a prompt sent right after this one finds the agent working. */
  reserve(): PromptPlace {
    const turn = this.tail;
    const { promise: landed, resolve } = Promise.withResolvers<void>();
    this.tail = landed;
    this.pending++;
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      this.pending--;
      resolve();
    };
    return {
      turn,
      launch: (prompt) => {
        void turn.then(async () => {
          await this.untilLanded(prompt);
          free();
        });
      },
      release: () => void turn.then(free),
    };
  }

  private async untilLanded(prompt: () => Promise<void>): Promise<void> {
    let unsubscribe = () => {};
    const started = new Promise<void>((resolve) => {
      unsubscribe = this.session.subscribe((event) => {
        if (event.type === "agent_start") resolve();
      });
    });
    // Failures after acceptance travel as events (a run ending with stopReason "error");
    // what is left is a bug, and the response was already sent.
    const settled = prompt().catch(reportLateFailure);
    try {
      await Promise.race([started, settled]);
    } finally {
      unsubscribe();
    }
  }
}

export function sessionState({ session, prompts }: RpcContext): RpcSessionState {
  const manager = session.sessionManager;
  const sessionFile = manager.getSessionFile();
  const sessionName = session.sessionName;
  const queued = session.pendingMessageCount;
  return {
    model: session.model ?? null,
    thinkingLevel: session.thinkingLevel,
    // An accepted prompt whose run is about to begin counts: a prompt sent now is refused.
    isStreaming: prompts.busy,
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
    todoPhases: session.todos.phases,
  };
}

/**
 * Accepts a prompt: refusals throw before anything starts; the run itself begins
 * right after the response is written, and its failures travel as events.
 */
function acceptPrompt(context: RpcContext, command: { message: string; images?: ImageContent[]; streamingBehavior?: "steer" | "followUp" }): ThenStart | AnswerWhenKnown {
  const { session, prompts } = context;
  const { message, images, streamingBehavior } = command;
  // /mcp (unless an extension took the name) answers at once: the response carries its text and rows.
  if (isMcpCommand(message) && !session.isCommand(message)) {
    return new AnswerWhenKnown((answer) => {
      void answerMcpCommand(session.mcp, message).then((result) => {
        context.notify?.(result.text, result.isError ? "error" : "info");
        answer({ disposition: "handled", mcp: result });
      });
    });
  }
  // An extension command runs at once, whatever the agent is doing, and starts no run of its own.
  // Its response follows the handler (pi 0.87.1 and 1.6.0 alike): after it, the host sees what the command changed.
  if (session.isCommand(message)) {
    return new AnswerWhenKnown((answer) => {
      let answered = false;
      const handled = () => {
        if (answered) return;
        answered = true;
        answer({ disposition: "handled" });
      };
      // Back without a disposition: put off while agent_settled is announced, the command runs after it.
      void session.prompt(message, { images, streamingBehavior, source: "rpc", onDisposition: handled }).catch(reportLateFailure).finally(handled);
    });
  }
  if (prompts.busy && streamingBehavior === undefined) throw new Error(ALREADY_WORKING);
  const place = prompts.reserve();
  return new AnswerWhenKnown((answer, fail) => {
    let answered = false;
    const onDisposition = (disposition: PromptDisposition) => {
      if (answered) return;
      answered = true;
      answer({ disposition });
    };
    place.launch(async () => {
      try {
        await session.prompt(message, { images, streamingBehavior, source: "rpc", onDisposition });
      } catch (error) {
        if (answered) throw error;
        answered = true;
        fail(error);
        return;
      }
      // Back without a disposition: the prompt arrived while agent_settled was being
      // announced and was put off until it is over; it starts a run then.
      onDisposition("started");
    });
  });
}

function reportLateFailure(error: unknown): void {
  process.stderr.write(`xcsh: prompt failed: ${(error as Error).message}\n`);
}

/**
 * The entries appended after the one whose id is `since` (all of them without it). An id
 * is a durable cursor: entries are only ever appended. An id the session does not have
 * is an error, not an empty list, so a host holding a cursor from another session finds out.
 */
function entriesSince(entries: SessionEntry[], since: string | undefined): SessionEntry[] {
  if (since === undefined) return entries;
  const index = entries.findLastIndex((entry) => entry.id === since);
  if (index === -1) throw new Error(`Entry not found: ${since}`);
  return entries.slice(index + 1);
}

function findModel(session: AgentSession, provider: string, modelId: string) {
  const model = session.registry.find(provider, modelId);
  if (!model) throw new Error(session.registry.nonChatModelNote(provider, modelId) ?? `Model not found: ${provider}/${modelId}`);
  return model;
}

export const handlers: Handlers = {
  prompt: (command, context) => acceptPrompt(context, command),
  steer: async (command, { session }) => ({ disposition: await session.steer(command.message, command.images) }),
  follow_up: async (command, { session }) => ({ disposition: await session.followUp(command.message, command.images) }),
  abort: async (_command, { session, prompts }) => {
    // A prompt accepted just before is stopped too, once its run has begun.
    await prompts.landed();
    await session.abort();
  },
  abort_and_prompt: async (command, context) => {
    // The place is taken on arrival: a prompt sent right after this one finds the agent
    // working, and one accepted right before it is aborted, not left to run.
    const place = context.prompts.reserve();
    try {
      await place.turn;
      await context.session.abort();
    } catch (error) {
      place.release();
      throw error;
    }
    const { message, images } = command;
    return new ThenStart(undefined, () => place.launch(() => context.session.prompt(message, { images, source: "rpc" })));
  },
  clear_queue: (_command, { session }) => {
    // One queue_update reports the emptied queues, before this response (as pi 0.87.1 does).
    const { steering, followUp } = session.takeQueued();
    return { steering: steering.map((prompt) => prompt.text), followUp: followUp.map((prompt) => prompt.text) };
  },
  new_session: (command, { session }) => session.navigation.newSession({ parentSession: command.parentSession }),
  get_state: (_command, context) => sessionState(context),
  get_messages: (_command, { session }) => ({ messages: new StreamedArray(session.messages) }),
  set_model: async (command, { session }) => {
    return session.models.setModel(findModel(session, command.provider, command.modelId));
  },
  cycle_model: async (_command, { session }) => (await session.models.cycleModel()) ?? null,
  get_available_models: (_command, { session }) => ({ models: session.models.availableModels() }),
  set_thinking_level: (command, { session }) => {
    // pi 0.87.1's "max" is the model's highest level: xhigh, clamped down to what the model has.
    session.models.setThinkingLevel(command.level === "max" ? "xhigh" : command.level);
  },
  cycle_thinking_level: (_command, { session }) => {
    const level = session.models.cycleThinkingLevel();
    return level === undefined ? null : { level };
  },
  get_available_thinking_levels: (_command, { session }) => ({ levels: getSupportedThinkingLevels(session.model) }),
  set_steering_mode: (command, { session }) => {
    session.agent.steeringQueue.mode = command.mode;
  },
  set_follow_up_mode: (command, { session }) => {
    session.agent.followUpQueue.mode = command.mode;
  },
  set_interrupt_mode: (command, { session }) => {
    session.agent.interruptMode = command.mode;
  },
  compact: async (command, { session }) => {
    return session.compact(command.customInstructions, {
      reserveTokens: command.reserveTokens,
      keepRecentTokens: command.keepRecentTokens,
    });
  },
  set_auto_compaction: (command, { session }) => {
    session.autoCompactionEnabled = command.enabled;
  },
  set_auto_retry: (command, { session }) => {
    session.autoRetryEnabled = command.enabled;
  },
  abort_retry: (_command, { session }) => session.abortRetry(),
  bash: async (command, { session }) => {
    // Every chunk goes out as it arrives, all of it, even when the result is truncated.
    const id = typeof command.id === "string" || (typeof command.id === "number" && Number.isFinite(command.id)) ? { id: command.id } : {};
    let reported: Promise<void> = Promise.resolve();
    const onChunk = (delta: string) => {
      reported = session.emit({ type: "bash_execution_update", ...id, delta });
    };
    const result = await session.executeBash(command.command, { excludeFromContext: command.excludeFromContext, onChunk });
    await reported;
    return result;
  },
  abort_bash: (_command, { session }) => session.abortBash(),
  get_session_stats: (_command, { session }) => session.getSessionStats(),
  export_html: async (command, { session }) => {
    const { exportOpenSession } = await import("../../export/export-session.ts");
    return exportOpenSession(session.sessionManager, command.outputPath);
  },
  switch_session: (command, { session }) => session.navigation.switchSession(command.sessionPath),
  fork: (command, { session }) => session.navigation.fork(command.entryId),
  branch: (command, { session }) => session.navigation.fork(command.entryId),
  clone: (_command, { session }) => session.navigation.clone(),
  get_fork_messages: (_command, { session }) => ({ messages: session.navigation.forkableMessages() }),
  get_branch_messages: (_command, { session }) => ({ messages: session.navigation.forkableMessages() }),
  get_entries: (command, { session }) => ({
    entries: new StreamedArray(entriesSince(session.sessionManager.getEntries(), command.since)),
    leafId: session.sessionManager.getLeafId(),
  }),
  get_tree: (_command, { session }) => ({ tree: session.sessionManager.getTree(), leafId: session.sessionManager.getLeafId() }),
  get_last_assistant_text: (_command, { session }) => ({ text: session.getLastAssistantText() }),
  set_session_name: (command, { session }) => session.setSessionName(command.name),
  get_commands: (_command, { session, extensions }) => ({ commands: slashCommands(session, extensions) }),
  set_todos: (command, { session }) => {
    const normalized = normalizeTodoPhases(command.phases);
    if ("error" in normalized) throw new Error(normalized.error);
    session.todos.phases = normalized.phases;
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

/** Extension commands, then prompt templates, then skills (src/resources/commands.ts). */
function slashCommands(session: AgentSession, extensions: ExtensionSystem | undefined) {
  const extensionCommands = extensions?.commandEntries() ?? [];
  return session.resources?.commands(extensionCommands) ?? extensionCommands.map((command) => ({ ...command, source: "extension" as const }));
}

export function isKnownCommand(type: unknown): type is RpcCommand["type"] {
  return typeof type === "string" && Object.hasOwn(handlers, type);
}
