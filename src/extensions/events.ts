/**
 * The events of seed 003, each with what its handlers may return, and the map
 * from event name to both. Field names are the spec's.
 */
import type { AgentMessage } from "../agent/types.ts";
import type { AssistantMessageEvent, ImageContent, Model, ModelThinkingLevel, TextContent, ToolResultMessage } from "../ai/types.ts";
import type { BranchSummaryEntry, CompactionEntry, SessionEntry } from "../session/types.ts";

export interface ProjectTrustEvent {
  type: "project_trust";
  cwd: string;
}
export interface ProjectTrustResult {
  trusted: "yes" | "no" | "undecided";
  remember?: boolean;
}

export interface ResourcesDiscoverEvent {
  type: "resources_discover";
  cwd: string;
  reason: "startup" | "reload";
}
export interface ResourcesDiscoverResult {
  skillPaths?: string[];
  promptPaths?: string[];
  themePaths?: string[];
}

export type SessionStartReason = "startup" | "reload" | "new" | "resume" | "fork";
export interface SessionStartEvent {
  type: "session_start";
  reason: SessionStartReason;
  previousSessionFile?: string;
}

export interface SessionBeforeSwitchEvent {
  type: "session_before_switch";
  reason: "new" | "resume";
  targetSessionFile?: string;
}
export interface SessionBeforeForkEvent {
  type: "session_before_fork";
  entryId: string;
  position: "before" | "at";
}
export interface CancellableResult {
  cancel?: boolean;
}
export interface SessionBeforeForkResult extends CancellableResult {
  skipConversationRestore?: boolean;
}

export interface SessionBeforeCompactEvent {
  type: "session_before_compact";
  /** What the built-in compaction would do (the cut point, messages to summarize, token counts). */
  preparation: Record<string, any> & { firstKeptEntryId: string; tokensBefore: number };
  branchEntries: SessionEntry[];
  customInstructions?: string;
  signal: AbortSignal;
}
export interface SessionBeforeCompactResult extends CancellableResult {
  compaction?: { summary: string; firstKeptEntryId: string; tokensBefore: number; details?: unknown };
}
export interface SessionCompactEvent {
  type: "session_compact";
  compactionEntry: CompactionEntry;
  fromExtension: boolean;
}

export interface TreePreparation {
  targetId: string;
  oldLeafId: string | null;
  commonAncestorId: string | null;
  entriesToSummarize: SessionEntry[];
  userWantsSummary: boolean;
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
}
export interface SessionBeforeTreeEvent {
  type: "session_before_tree";
  preparation: TreePreparation;
  signal: AbortSignal;
}
export interface SessionBeforeTreeResult extends CancellableResult {
  summary?: { summary: string; details?: unknown };
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
}
export interface SessionTreeEvent {
  type: "session_tree";
  newLeafId: string | null;
  oldLeafId: string | null;
  summaryEntry?: BranchSummaryEntry;
  fromExtension?: boolean;
}

export interface SessionShutdownEvent {
  type: "session_shutdown";
  reason: "quit" | "reload" | "new" | "resume" | "fork";
  targetSessionFile?: string;
}

export interface ContextFileInfo {
  path: string;
  content: string;
}
export interface BuildSystemPromptOptions {
  customPrompt?: string;
  selectedTools?: string[];
  toolSnippets?: Record<string, string>;
  promptGuidelines?: string[];
  appendSystemPrompt?: string;
  cwd: string;
  contextFiles?: ContextFileInfo[];
  skills?: unknown[];
}

export interface BeforeAgentStartEvent {
  type: "before_agent_start";
  prompt: string;
  images?: ImageContent[];
  systemPrompt: string;
  systemPromptOptions: BuildSystemPromptOptions;
}
export interface CustomMessageInput<T = unknown> {
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display?: boolean;
  details?: T;
}
export interface BeforeAgentStartResult {
  message?: CustomMessageInput;
  systemPrompt?: string;
}

export interface AgentStartEvent {
  type: "agent_start";
}
export interface AgentEndEvent {
  type: "agent_end";
  messages: AgentMessage[];
}
export interface TurnStartEvent {
  type: "turn_start";
  turnIndex: number;
  timestamp: number;
}
export interface TurnEndEvent {
  type: "turn_end";
  turnIndex: number;
  message: AgentMessage;
  toolResults: ToolResultMessage[];
}
export interface MessageStartEvent {
  type: "message_start";
  message: AgentMessage;
}
export interface MessageUpdateEvent {
  type: "message_update";
  message: AgentMessage;
  assistantMessageEvent: AssistantMessageEvent;
}
export interface MessageEndEvent {
  type: "message_end";
  message: AgentMessage;
}
export interface MessageEndResult {
  message?: AgentMessage;
}
export interface ToolExecutionStartEvent {
  type: "tool_execution_start";
  toolCallId: string;
  toolName: string;
  args: any;
}
export interface ToolExecutionUpdateEvent {
  type: "tool_execution_update";
  toolCallId: string;
  toolName: string;
  args: any;
  partialResult: any;
}
export interface ToolExecutionEndEvent {
  type: "tool_execution_end";
  toolCallId: string;
  toolName: string;
  result: any;
  isError: boolean;
}

export interface ContextEvent {
  type: "context";
  messages: AgentMessage[];
}
export interface ContextResult {
  messages?: AgentMessage[];
}

export interface BeforeProviderRequestEvent {
  type: "before_provider_request";
  payload: unknown;
  model: Model;
}
export interface AfterProviderResponseEvent {
  type: "after_provider_response";
  status: number;
  headers: Record<string, string>;
  model: Model;
}

export interface ModelSelectEvent {
  type: "model_select";
  model: Model;
  previousModel?: Model;
  source: "set" | "cycle" | "restore";
}
export interface ThinkingLevelSelectEvent {
  type: "thinking_level_select";
  level: ModelThinkingLevel;
  previousLevel: ModelThinkingLevel;
}

export interface ToolCallEvent<TName extends string = string, TInput = Record<string, any>> {
  type: "tool_call";
  toolName: TName;
  toolCallId: string;
  /** Mutable: changes reach the tool (no re-validation). */
  input: TInput;
}
export interface ToolCallResult {
  block?: boolean;
  reason?: string;
}

export interface ToolResultEvent<TName extends string = string, TDetails = any> {
  type: "tool_result";
  toolName: TName;
  toolCallId: string;
  input: Record<string, any>;
  content: (TextContent | ImageContent)[];
  details: TDetails;
  isError: boolean;
}
export interface ToolResultPatch {
  content?: (TextContent | ImageContent)[];
  details?: unknown;
  isError?: boolean;
}

export interface BashResultShape {
  output: string;
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
}
export interface UserBashEvent {
  type: "user_bash";
  command: string;
  excludeFromContext: boolean;
  cwd: string;
}
export interface UserBashResult {
  operations?: unknown;
  result?: BashResultShape;
}

export type InputSource = "interactive" | "rpc" | "extension";
export interface InputEvent {
  type: "input";
  text: string;
  images?: ImageContent[];
  source: InputSource;
  streamingBehavior?: "steer" | "followUp";
}
export type InputResult =
  | { action: "continue" }
  | { action: "transform"; text: string; images?: ImageContent[] }
  | { action: "handled" };

/** Every event, by name, with what its handlers may return. */
export interface ExtensionEventMap {
  project_trust: [ProjectTrustEvent, ProjectTrustResult | void];
  resources_discover: [ResourcesDiscoverEvent, ResourcesDiscoverResult | void];
  session_start: [SessionStartEvent, void];
  session_before_switch: [SessionBeforeSwitchEvent, CancellableResult | void];
  session_before_fork: [SessionBeforeForkEvent, SessionBeforeForkResult | void];
  session_before_compact: [SessionBeforeCompactEvent, SessionBeforeCompactResult | void];
  session_compact: [SessionCompactEvent, void];
  session_before_tree: [SessionBeforeTreeEvent, SessionBeforeTreeResult | void];
  session_tree: [SessionTreeEvent, void];
  session_shutdown: [SessionShutdownEvent, void];
  before_agent_start: [BeforeAgentStartEvent, BeforeAgentStartResult | void];
  agent_start: [AgentStartEvent, void];
  agent_end: [AgentEndEvent, void];
  turn_start: [TurnStartEvent, void];
  turn_end: [TurnEndEvent, void];
  message_start: [MessageStartEvent, void];
  message_update: [MessageUpdateEvent, void];
  message_end: [MessageEndEvent, MessageEndResult | void];
  tool_execution_start: [ToolExecutionStartEvent, void];
  tool_execution_update: [ToolExecutionUpdateEvent, void];
  tool_execution_end: [ToolExecutionEndEvent, void];
  context: [ContextEvent, ContextResult | void];
  before_provider_request: [BeforeProviderRequestEvent, unknown];
  after_provider_response: [AfterProviderResponseEvent, void];
  model_select: [ModelSelectEvent, void];
  thinking_level_select: [ThinkingLevelSelectEvent, void];
  tool_call: [ToolCallEvent, ToolCallResult | void];
  tool_result: [ToolResultEvent, ToolResultPatch | void];
  user_bash: [UserBashEvent, UserBashResult | void];
  input: [InputEvent, InputResult | void];
}
export type ExtensionEventName = keyof ExtensionEventMap;
export type ExtensionEvent = ExtensionEventMap[ExtensionEventName][0];

