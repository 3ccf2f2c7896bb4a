/**
 * The extension API of seed 003, as types: every event an extension can handle
 * with what its handler may return, the context handlers receive, and the `pi`
 * object a factory is given. Field names are the spec's, so pi's extensions
 * type-check and run unchanged.
 */
import type { Static, TSchema } from "typebox";
import type { AgentMessage, AgentToolResult, AgentToolUpdateCallback, ToolExecutionMode } from "../agent/types.ts";
import type {
  AssistantMessage,
  AssistantMessageEvent,
  ImageContent,
  Model,
  ModelThinkingLevel,
  TextContent,
  ToolResultMessage,
} from "../ai/types.ts";
import type { ModelRegistry } from "../config/model-registry.ts";
import type { SessionManager } from "../session/session-manager.ts";
import type { CompactionEntry, BranchSummaryEntry, SessionEntry } from "../session/types.ts";
import type { ExtensionMode, ExtensionUIContext } from "./ui-types.ts";

export type { ExtensionMode, ExtensionUIContext } from "./ui-types.ts";

// --- where an extension or a tool comes from ------------------------------------

export interface SourceInfo {
  path: string;
  source: string;
  scope: "user" | "project" | "temporary";
  origin: "package" | "top-level";
  baseDir?: string;
}

// --- events ---------------------------------------------------------------------

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

export type ExtensionHandler<E extends ExtensionEventName, C = ExtensionContext> = (
  event: ExtensionEventMap[E][0],
  ctx: C,
) => ExtensionEventMap[E][1] | Promise<ExtensionEventMap[E][1]>;

// --- contexts -------------------------------------------------------------------

export interface ContextUsage {
  tokens: number;
  contextWindow: number;
  percent: number;
}

export interface CompactOptions {
  customInstructions?: string;
  onComplete?: (result: unknown) => void;
  onError?: (error: Error) => void;
}

export interface ExtensionContext {
  ui: ExtensionUIContext;
  mode: ExtensionMode;
  hasUI: boolean;
  cwd: string;
  isProjectTrusted(): boolean;
  sessionManager: SessionManager;
  modelRegistry: ModelRegistry;
  model: Model | undefined;
  signal: AbortSignal | undefined;
  isIdle(): boolean;
  abort(): void;
  hasPendingMessages(): boolean;
  shutdown(): void;
  getContextUsage(): ContextUsage | undefined;
  compact(options?: CompactOptions): void;
  getSystemPrompt(): string;
}

export interface ReplacementOptions {
  withSession?: (ctx: ReplacedSessionContext) => Promise<void> | void;
}
export interface NewSessionOptions extends ReplacementOptions {
  parentSession?: string;
  setup?: (sessionManager: SessionManager) => Promise<void> | void;
}
export interface ForkOptions extends ReplacementOptions {
  position?: "before" | "at";
}
export interface NavigateTreeOptions {
  summarize?: boolean;
  customInstructions?: string;
  replaceInstructions?: boolean;
  label?: string;
}

export interface ExtensionCommandContext extends ExtensionContext {
  getSystemPromptOptions(): BuildSystemPromptOptions;
  waitForIdle(): Promise<void>;
  newSession(options?: NewSessionOptions): Promise<{ cancelled: boolean }>;
  fork(entryId: string, options?: ForkOptions): Promise<{ cancelled: boolean }>;
  navigateTree(targetId: string, options?: NavigateTreeOptions): Promise<{ cancelled: boolean }>;
  switchSession(sessionPath: string, options?: ReplacementOptions): Promise<{ cancelled: boolean }>;
  reload(): Promise<void>;
}

export interface ReplacedSessionContext extends ExtensionCommandContext {
  sendMessage(message: CustomMessageInput, options?: SendMessageOptions): Promise<void>;
  sendUserMessage(content: string | (TextContent | ImageContent)[], options?: SendUserMessageOptions): Promise<void>;
}

// --- tools, commands, flags, providers -----------------------------------------

export interface ToolDefinition<TParameters extends TSchema = TSchema, TDetails = any> {
  name: string;
  label?: string;
  description: string;
  parameters: TParameters;
  promptSnippet?: string;
  promptGuidelines?: string[];
  prepareArguments?: (args: unknown) => Static<TParameters>;
  executionMode?: ToolExecutionMode;
  execute(
    toolCallId: string,
    params: Static<TParameters>,
    signal: AbortSignal | undefined,
    onUpdate: AgentToolUpdateCallback<TDetails> | undefined,
    ctx: ExtensionContext,
  ): Promise<AgentToolResult<TDetails> | Omit<AgentToolResult<TDetails>, "details">>;
  renderCall?: (...args: any[]) => unknown;
  renderResult?: (...args: any[]) => unknown;
  renderShell?: "default" | "self";
}

export interface ToolInfo {
  name: string;
  description: string;
  parameters: TSchema;
  promptGuidelines?: string[];
  sourceInfo: SourceInfo;
}

export interface RegisteredCommand {
  description?: string;
  getArgumentCompletions?: (prefix: string) => unknown;
  handler: (args: string, ctx: ExtensionCommandContext) => Promise<void> | void;
}

export interface SlashCommandInfo {
  name: string;
  description?: string;
  source: "extension" | "prompt" | "skill";
  sourceInfo: SourceInfo;
}

export interface FlagOptions {
  description?: string;
  type: "boolean" | "string";
  default?: boolean | string;
}

export interface ShortcutOptions {
  description?: string;
  handler: (ctx: ExtensionContext) => Promise<void> | void;
}

export interface ExecOptions {
  signal?: AbortSignal;
  timeout?: number;
  cwd?: string;
}
export interface ExecResult {
  stdout: string;
  stderr: string;
  code: number;
  killed: boolean;
}

export interface SendMessageOptions {
  triggerTurn?: boolean;
  deliverAs?: "steer" | "followUp" | "nextTurn";
}
export interface SendUserMessageOptions {
  deliverAs?: "steer" | "followUp";
}

export interface ProviderModelConfig {
  id: string;
  name?: string;
  api?: string;
  baseUrl?: string;
  reasoning?: boolean;
  input?: ("text" | "image")[];
  cost?: { input: number; output: number; cacheRead: number; cacheWrite: number };
  contextWindow?: number;
  maxTokens?: number;
  headers?: Record<string, string>;
  compat?: Record<string, unknown>;
  [key: string]: unknown;
}
export interface ProviderConfig {
  name?: string;
  baseUrl?: string;
  apiKey?: string;
  api?: string;
  headers?: Record<string, string>;
  authHeader?: boolean;
  models?: ProviderModelConfig[];
  oauth?: unknown;
  streamSimple?: (...args: any[]) => unknown;
}

export interface EventBus {
  on(channel: string, handler: (data: unknown) => void): () => void;
  emit(channel: string, data?: unknown): void;
}

export interface ExtensionAPI {
  on<E extends ExtensionEventName>(event: E, handler: ExtensionHandler<E>): void;
  registerTool<TParameters extends TSchema, TDetails = any>(tool: ToolDefinition<TParameters, TDetails>): void;
  registerCommand(name: string, options: RegisteredCommand): void;
  registerShortcut(shortcut: string, options: ShortcutOptions): void;
  registerFlag(name: string, options: FlagOptions): void;
  getFlag(name: string): boolean | string | undefined;
  registerMessageRenderer(customType: string, renderer: (...args: any[]) => unknown): void;
  sendMessage<T = unknown>(message: CustomMessageInput<T>, options?: SendMessageOptions): void;
  sendUserMessage(content: string | (TextContent | ImageContent)[], options?: SendUserMessageOptions): void;
  appendEntry<T = unknown>(customType: string, data?: T): void;
  setSessionName(name: string): void;
  getSessionName(): string | undefined;
  setLabel(entryId: string, label: string | undefined): void;
  exec(command: string, args?: string[], options?: ExecOptions): Promise<ExecResult>;
  getActiveTools(): string[];
  getAllTools(): ToolInfo[];
  setActiveTools(names: string[]): void;
  getCommands(): SlashCommandInfo[];
  setModel(model: Model): Promise<boolean>;
  getThinkingLevel(): ModelThinkingLevel;
  setThinkingLevel(level: ModelThinkingLevel): void;
  registerProvider(name: string, config: ProviderConfig): void;
  unregisterProvider(name: string): void;
  readonly events: EventBus;
}

export type ExtensionFactory = (pi: ExtensionAPI) => void | Promise<void>;

/** The messages an extension adds to the transcript (seed 002's `custom` role). */
export type { AssistantMessage };
