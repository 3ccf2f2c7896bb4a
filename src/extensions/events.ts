/**
 * The events of seed 003 and those pi 0.87.1 added (settlement boundaries,
 * provider headers, the system-inclusive context, UI prompts, compaction
 * failures, session info), each with what its handlers may return, and the map
 * from event name to both. Field names are the spec's.
 */
import type { RegisteredMcpServer } from "./mcp-registrations.ts";
import type { AgentMessage } from "../agent/types.ts";
import type { AssistantMessageEvent, ImageContent, Message, Model, ModelThinkingLevel, TextContent, ToolResultMessage, Usage } from "../ai/types.ts";
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

export type CompactionTrigger = "manual" | "threshold" | "overflow";

export interface SessionBeforeCompactEvent {
  type: "session_before_compact";
  /** What the built-in compaction would do (the cut point, messages to summarize, token counts). */
  preparation: Record<string, any> & { firstKeptEntryId: string; tokensBefore: number };
  branchEntries: SessionEntry[];
  customInstructions?: string;
  /** What asked for it: /compact, the context threshold, or recovery from a context overflow. */
  reason: CompactionTrigger;
  /** The failed turn is sent again after this compaction (overflow recovery). */
  willRetry: boolean;
  signal: AbortSignal;
}
export interface SessionBeforeCompactResult extends CancellableResult {
  compaction?: { summary: string; firstKeptEntryId: string; tokensBefore: number; details?: unknown };
}
export interface SessionCompactEvent {
  type: "session_compact";
  compactionEntry: CompactionEntry;
  fromExtension: boolean;
  reason: CompactionTrigger;
  willRetry: boolean;
}
/** A compaction failed, or was cancelled (by an extension) or aborted. */
export interface SessionCompactFailedEvent {
  type: "session_compact_failed";
  reason: CompactionTrigger;
  /** Why it failed; absent when it was cancelled or aborted. */
  errorMessage?: string;
  aborted: boolean;
  /** The failed turn would have been sent again after it (overflow recovery). */
  willRetry: boolean;
  /** The summary being recorded came from a session_before_compact handler. */
  fromExtension: boolean;
}
/** The session's display name was set (pi.setSessionName, set_session_name, /name). */
export interface SessionInfoChangedEvent {
  type: "session_info_changed";
  name: string | undefined;
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
  /** pi 1.x: active tools the model is not declared (reached through codemode); the prompt leaves them out. */
  hiddenTools?: string[];
  toolSnippets?: Record<string, string>;
  promptGuidelines?: string[];
  /** The active tools' rules, by tool name. */
  toolGuidelines?: Record<string, string[]>;
  appendSystemPrompt?: string;
  cwd: string;
  contextFiles?: ContextFileInfo[];
  skills?: unknown[];
  /** Custom sections by tag name, added to the prompt as `<name>…</name>` (pi 1.x). */
  sections: Record<string, string>;
}

interface BeforeAgentStartBase {
  type: "before_agent_start";
  systemPrompt: string;
  systemPromptOptions: BuildSystemPromptOptions;
}

/** What started the run: a prompt ("user"), or an extension's `sendMessage(…, { triggerTurn: true })` ("custom"). */
export type BeforeAgentStartEvent =
  | (BeforeAgentStartBase & { messageType: "user"; prompt: string; images?: ImageContent[] })
  | (BeforeAgentStartBase & { messageType: "custom"; message: AgentMessage });
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

// --- boundaries: where handlers may add session entries and ask for one more request ---

export type AgentActivityOutcome = "completed" | "aborted" | "error";

export interface CustomEntryDraft {
  type: "custom";
  customType: string;
  data?: unknown;
}
export interface CustomMessageEntryDraft {
  type: "custom_message";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  /** Shown in the transcript; defaults to true. */
  display: boolean;
  details?: unknown;
}
export interface ContextEditEntryDraft {
  type: "context_edit";
  targetId: string;
  /** null leaves the target out of the model's context; a value replaces its content. */
  replacement: { content: string | (TextContent | ImageContent)[] } | null;
}
export interface CompactionEntryDraft {
  type: "compaction";
  summary: string;
  /** null keeps no earlier entry. */
  firstKeptEntryId: string | null;
  details?: unknown;
}
export type SessionBoundaryDraft = CustomEntryDraft | CustomMessageEntryDraft | ContextEditEntryDraft | CompactionEntryDraft;

/** One session entry and the messages it puts in the model's context (none for state entries). */
export interface ProjectedSessionEntry {
  sourceEntry: SessionEntry;
  messages: AgentMessage[];
}
/** The context as it would be with the drafts chained so far appended. */
export interface BoundaryContextPreview {
  contextEntries: ProjectedSessionEntry[];
  contextMessages: AgentMessage[];
  /** What the provider would be sent (without the system prompt, which xcsh keeps outside the transcript). */
  llmMessages: Message[];
  /** Steering and follow-up messages waiting. */
  pendingMessages: AgentMessage[];
  /** Whether one more request has something to answer (the context does not end with the model's reply). */
  canContinue: boolean;
}
export interface BoundaryState {
  /** The drafts earlier handlers returned: a handler's `entries` replaces this list. */
  entries: SessionBoundaryDraft[];
  continue: boolean;
  context: BoundaryContextPreview;
  outcome: AgentActivityOutcome;
}
export interface BoundaryResult {
  entries?: SessionBoundaryDraft[];
  continue?: boolean;
}

export interface TurnEndEvent extends BoundaryState {
  type: "turn_end";
  turnIndex: number;
  message: AgentMessage;
  toolResults: ToolResultMessage[];
  /** The session entry of the turn's assistant message, and of its tool results. */
  messageEntryId: string;
  toolResultEntryIds: string[];
}
/** The last actionable moment of a run: may append entries and ask for one more request. */
export interface AgentBeforeSettleEvent extends BoundaryState {
  type: "agent_before_settle";
}
/** The run has fully settled: nothing (retry, compaction, queued message) continues by itself. */
export interface AgentSettledEvent {
  type: "agent_settled";
  /** The run ended because it was aborted (pi 1.6.0). */
  aborted: boolean;
}

export type UIPromptKind = "select" | "confirm" | "input" | "editor" | "custom";
/** A blocking ctx.ui dialog is waiting for the user. */
export interface UIPromptStartEvent {
  type: "ui_prompt_start";
  reason: "ui_prompt";
  kind: UIPromptKind;
  title?: string;
}
export interface UIPromptEndEvent {
  type: "ui_prompt_end";
  reason: "ui_prompt";
  kind: UIPromptKind;
  title?: string;
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
  /** Set for a call another tool made (a codemode script, ctx.executeTool). */
  parentToolCallId?: string;
  toolName: string;
  args: any;
}
export interface ToolExecutionUpdateEvent {
  type: "tool_execution_update";
  toolCallId: string;
  /** Set for a call another tool made (a codemode script, ctx.executeTool). */
  parentToolCallId?: string;
  toolName: string;
  args: any;
  partialResult: any;
}
export interface ToolExecutionEndEvent {
  type: "tool_execution_end";
  toolCallId: string;
  /** Set for a call another tool made (a codemode script, ctx.executeTool). */
  parentToolCallId?: string;
  toolName: string;
  result: any;
  isError: boolean;
  /** How long the tool's execute() took; absent when the tool did not run (pi 1.6.0). */
  durationMs?: number;
}

export interface ContextEvent {
  type: "context";
  messages: AgentMessage[];
}
export interface ContextResult {
  messages?: AgentMessage[];
}
/**
 * After every `context` handler: the call's messages with the system prompt as a leading
 * `{role: "system", content}` message. What the handlers return is sent: the leading
 * system message's text becomes the call's system prompt, the other messages its messages.
 */
export interface ContextWithSystemEvent {
  type: "context_with_system";
  messages: (AgentMessage | SystemPromptMessage)[];
}
export interface SystemPromptMessage {
  role: "system";
  content: string | TextContent[];
}
export interface ContextWithSystemResult {
  messages?: (AgentMessage | SystemPromptMessage)[];
}

/** Request headers of one provider call; set a value to null to remove that header. Handlers change it in place. */
export interface BeforeProviderHeadersEvent {
  type: "before_provider_headers";
  headers: Record<string, string | null>;
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
/**
 * pi 1.6.0: one event of the provider's stream as the provider adapter parsed it, before
 * xcsh turns it into message updates (an SSE event's JSON, a Gemini chunk, a Bedrock
 * event-stream message). Read-only: notification only, and never saved.
 */
export interface ProviderStreamEvent {
  type: "provider_stream_event";
  provider: string;
  api: string;
  /** The model's id. */
  model: string;
  data: unknown;
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

/** pi 1.x: an extension registered or unregistered an MCP server after start-up; `servers` is every registration now. */
export interface McpServersChangeEvent {
  type: "mcp_servers_change";
  servers: RegisteredMcpServer[];
}

export interface ToolCallEvent<TName extends string = string, TInput = Record<string, any>> {
  type: "tool_call";
  toolName: TName;
  toolCallId: string;
  /** Set when another tool (a codemode script, ctx.executeTool) made this call. */
  parentToolCallId?: string;
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
  parentToolCallId?: string;
  input: Record<string, any>;
  content: (TextContent | ImageContent)[];
  details: TDetails;
  /** pi 1.x: the machine-readable result of a tool with an outputSchema. */
  structuredContent?: unknown;
  isError: boolean;
  /** pi 1.x: the model work the tool did, its nested calls' included. */
  usage?: Usage;
}
export interface ToolResultPatch {
  content?: (TextContent | ImageContent)[];
  structuredContent?: unknown;
  details?: unknown;
  isError?: boolean;
  /** Replaces the result's usage. */
  usage?: Usage;
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
  session_compact_failed: [SessionCompactFailedEvent, void];
  session_info_changed: [SessionInfoChangedEvent, void];
  session_before_tree: [SessionBeforeTreeEvent, SessionBeforeTreeResult | void];
  session_tree: [SessionTreeEvent, void];
  session_shutdown: [SessionShutdownEvent, void];
  mcp_servers_change: [McpServersChangeEvent, void];
  before_agent_start: [BeforeAgentStartEvent, BeforeAgentStartResult | void];
  agent_start: [AgentStartEvent, void];
  agent_end: [AgentEndEvent, void];
  agent_before_settle: [AgentBeforeSettleEvent, BoundaryResult | void];
  agent_settled: [AgentSettledEvent, void];
  ui_prompt_start: [UIPromptStartEvent, void];
  ui_prompt_end: [UIPromptEndEvent, void];
  turn_start: [TurnStartEvent, void];
  turn_end: [TurnEndEvent, BoundaryResult | void];
  message_start: [MessageStartEvent, void];
  message_update: [MessageUpdateEvent, void];
  message_end: [MessageEndEvent, MessageEndResult | void];
  tool_execution_start: [ToolExecutionStartEvent, void];
  tool_execution_update: [ToolExecutionUpdateEvent, void];
  tool_execution_end: [ToolExecutionEndEvent, void];
  context: [ContextEvent, ContextResult | void];
  context_with_system: [ContextWithSystemEvent, ContextWithSystemResult | void];
  before_provider_request: [BeforeProviderRequestEvent, unknown];
  before_provider_headers: [BeforeProviderHeadersEvent, void];
  after_provider_response: [AfterProviderResponseEvent, void];
  provider_stream_event: [ProviderStreamEvent, void];
  model_select: [ModelSelectEvent, void];
  thinking_level_select: [ThinkingLevelSelectEvent, void];
  tool_call: [ToolCallEvent, ToolCallResult | void];
  tool_result: [ToolResultEvent, ToolResultPatch | void];
  user_bash: [UserBashEvent, UserBashResult | void];
  input: [InputEvent, InputResult | void];
}
export type ExtensionEventName = keyof ExtensionEventMap;
export type ExtensionEvent = ExtensionEventMap[ExtensionEventName][0];

