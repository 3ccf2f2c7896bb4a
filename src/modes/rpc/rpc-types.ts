/**
 * The RPC protocol's frames (seeds 000 and 001). Commands arrive on stdin;
 * responses, events, extension UI requests and host-tool calls leave on stdout.
 */
import type { AgentMessage } from "../../agent/types.ts";
import type { ImageContent, Model, ModelThinkingLevel } from "../../ai/types.ts";
import type { ReportedCompaction } from "../../core/session-events.ts";
import type { BashResult } from "../../core/bash-executor.ts";
import type { SessionStats } from "../../core/session-stats.ts";
import type { TodoPhase } from "../../core/todos.ts";
import type { SessionEntry, SessionTreeNode } from "../../session/types.ts";

export type QueueMode = "all" | "one-at-a-time";
export type InterruptMode = "immediate" | "wait";

/** A tool the host implements, described with JSON Schema parameters. */
export interface RpcHostToolDefinition {
  name: string;
  label?: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** set_todos input: terse on purpose, the server numbers missing ids and maps loose statuses ("done", "active"). */
export interface RpcTodoPhaseInput {
  id?: string;
  name?: string;
  tasks?: (string | { id?: string; content: string; status?: string })[];
}

type WithId<T> = T & { id?: string };

export type RpcCommand = WithId<
  | { type: "prompt"; message: string; images?: ImageContent[]; streamingBehavior?: "steer" | "followUp" }
  | { type: "steer"; message: string; images?: ImageContent[] }
  | { type: "follow_up"; message: string; images?: ImageContent[] }
  | { type: "abort" }
  | { type: "clear_queue" }
  | { type: "abort_and_prompt"; message: string; images?: ImageContent[] }
  | { type: "new_session"; parentSession?: string }
  | { type: "get_state" }
  | { type: "get_messages" }
  | { type: "set_model"; provider: string; modelId: string }
  | { type: "cycle_model" }
  | { type: "get_available_models" }
  /** "max" (pi 0.87.1): the model's highest level. */
  | { type: "set_thinking_level"; level: ModelThinkingLevel | "max" }
  | { type: "cycle_thinking_level" }
  | { type: "get_available_thinking_levels" }
  | { type: "set_steering_mode"; mode: QueueMode }
  | { type: "set_follow_up_mode"; mode: QueueMode }
  | { type: "set_interrupt_mode"; mode: InterruptMode }
  | { type: "compact"; customInstructions?: string; reserveTokens?: number; keepRecentTokens?: number }
  | { type: "set_auto_compaction"; enabled: boolean }
  | { type: "set_auto_retry"; enabled: boolean }
  | { type: "abort_retry" }
  | { type: "bash"; command: string; excludeFromContext?: boolean }
  | { type: "abort_bash" }
  | { type: "get_session_stats" }
  | { type: "export_html"; outputPath?: string }
  | { type: "switch_session"; sessionPath: string }
  | { type: "fork"; entryId: string }
  | { type: "branch"; entryId: string }
  | { type: "clone" }
  | { type: "get_fork_messages" }
  | { type: "get_branch_messages" }
  | { type: "get_entries"; since?: string }
  | { type: "get_tree" }
  | { type: "get_last_assistant_text" }
  | { type: "set_session_name"; name: string }
  | { type: "get_commands" }
  | { type: "set_todos"; phases: RpcTodoPhaseInput[] }
  | { type: "set_host_tools"; tools: RpcHostToolDefinition[] }
>;

export type RpcCommandType = RpcCommand["type"];

export interface RpcSuccess {
  id?: string;
  type: "response";
  command: string;
  success: true;
  data?: unknown;
}

export interface RpcFailure {
  id?: string;
  type: "response";
  command: string;
  success: false;
  error: string;
}

export type RpcResponse = RpcSuccess | RpcFailure;

export interface RpcSessionState {
  model: Model | null;
  thinkingLevel: ModelThinkingLevel;
  isStreaming: boolean;
  isCompacting: boolean;
  steeringMode: QueueMode;
  followUpMode: QueueMode;
  interruptMode: InterruptMode;
  sessionFile?: string;
  sessionId: string;
  sessionName?: string;
  autoCompactionEnabled: boolean;
  messageCount: number;
  /** Seed 000's name for the queued message count. */
  pendingMessageCount: number;
  /** Seed 001's name for the same count. */
  queuedMessageCount: number;
  todoPhases: TodoPhase[];
}

/** Data payloads of the commands that return one. */
export interface RpcResponseData {
  /** pi 1.6.0: what became of the prompt (core/agent-session.ts PromptDisposition). */
  prompt: { disposition: "started" | "queued" | "handled" };
  steer: { disposition: "queued" | "handled" };
  follow_up: { disposition: "queued" | "handled" };
  get_state: RpcSessionState;
  get_messages: { messages: AgentMessage[] };
  new_session: { cancelled: boolean };
  set_model: Model;
  cycle_model: { model: Model; thinkingLevel: ModelThinkingLevel; isScoped: boolean } | null;
  get_available_models: { models: Model[] };
  cycle_thinking_level: { level: ModelThinkingLevel } | null;
  get_available_thinking_levels: { levels: ModelThinkingLevel[] };
  clear_queue: { steering: string[]; followUp: string[] };
  get_entries: { entries: SessionEntry[]; leafId: string | null };
  get_tree: { tree: SessionTreeNode[]; leafId: string | null };
  compact: ReportedCompaction;
  bash: BashResult;
  get_session_stats: SessionStats;
  export_html: { path: string };
  switch_session: { cancelled: boolean };
  fork: { text: string; cancelled: boolean };
  branch: { text: string; cancelled: boolean };
  clone: { cancelled: boolean };
  get_fork_messages: { messages: { entryId: string; text: string }[] };
  get_branch_messages: { messages: { entryId: string; text: string }[] };
  get_last_assistant_text: { text: string | null };
  get_commands: { commands: RpcSlashCommand[] };
  set_todos: { todoPhases: TodoPhase[] };
  set_host_tools: { toolNames: string[] };
}

export interface RpcSlashCommand {
  name: string;
  description?: string;
  source: "extension" | "prompt" | "skill";
  location?: "user" | "project" | "path";
  path?: string;
}

/** Host-tool sub-protocol (seed 001). */
export interface HostToolCallFrame {
  type: "host_tool_call";
  id: string;
  toolCallId: string;
  toolName: string;
  arguments: Record<string, unknown>;
}

export interface HostToolCancelFrame {
  type: "host_tool_cancel";
  id: string;
  targetId: string;
}

export interface HostToolUpdateFrame {
  type: "host_tool_update";
  id: string;
  partialResult: { content?: unknown[]; details?: unknown };
}

export interface HostToolResultFrame {
  type: "host_tool_result";
  id: string;
  result: { content?: unknown[]; details?: unknown };
  isError?: boolean;
}

export interface ExtensionUiResponseFrame {
  type: "extension_ui_response";
  id?: string;
  requestId?: string;
  value?: unknown;
  confirmed?: boolean;
  cancelled?: boolean;
}
