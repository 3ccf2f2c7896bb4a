/**
 * The extension API of seed 003, as types: the context handlers receive, the
 * `pi` object a factory is given, tools, commands and providers (the events
 * are in events.ts, re-exported here). Field names are the spec's, so pi's
 * extensions type-check and run unchanged.
 */
import type { RegisteredMcpServer } from "./mcp-registrations.ts";
import type { Static, TSchema } from "typebox";
import type { AgentTool, AgentToolResult, AgentToolUpdateCallback, ToolExecutionMode } from "../agent/types.ts";
import type {
  AssistantMessage,
  ImageContent,
  Model,
  ModelThinkingLevel,
  TextContent,
} from "../ai/types.ts";
import type { ModelRegistry } from "../config/model-registry.ts";
import type { SessionManager } from "../session/session-manager.ts";
import type { CustomEntry } from "../session/types.ts";
import type { ExtensionMode, ExtensionUIContext } from "./ui-types.ts";
import type { VirtualModelDefinition } from "./virtual-models.ts";
export type { ModelRoute, ModelRouteRequest, VirtualModelDefinition } from "./virtual-models.ts";
import type {
  BuildSystemPromptOptions,
  CustomMessageInput,
  ExtensionEventMap,
  ExtensionEventName,
} from "./events.ts";

export type { ExtensionMode, ExtensionUIContext } from "./ui-types.ts";
export type * from "./events.ts";

// --- where an extension or a tool comes from ------------------------------------

export interface SourceInfo {
  path: string;
  source: string;
  scope: "user" | "project" | "temporary";
  origin: "package" | "top-level";
  baseDir?: string;
}

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
  /** The session's thinking level (as pi.getThinkingLevel(); later pi versions read it here). */
  thinkingLevel: ModelThinkingLevel;
  /** pi 1.x: the models `--models` / `enabledModels` scope the session to (empty: unscoped). */
  readonly scopedModels: readonly { model: Model; thinkingLevel?: ModelThinkingLevel }[];
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
  /**
   * xcsh addition: the tool changes files or the world outside. Editors' permission
   * prompts (ACP) ask before it runs, and read-only plan mode does not run it.
   */
  changesState?: boolean;
  /** pi 1.x: how the model reaches the tool; "direct" by default. */
  exposure?: ToolExposure;
  namespace?: ToolNamespace;
  annotations?: ToolAnnotations;
  /** pi 1.x: false leaves a direct or model-only tool inactive when registered. */
  defaultActive?: boolean;
  /** pi 1.x: JSON Schema of `structuredContent` in the tool's results. */
  outputSchema?: TSchema;
  /**
   * pi 1.6.0, for tools that reach other tools (codemode calls them, tool_search loads them):
   * which tools a call with `input` may reach — "all", or words of the input that may name a
   * tool or namespace (a word refers to every one whose name contains it). Reported by getAllTools,
   * so a tool_call handler can finish registering late tools before the call runs.
   */
  reachesTools?: (input: Record<string, unknown>) => "all" | readonly string[];
  /**
   * pi 1.6.0: while this tool is active, adjusts what the model is shown. Runs whenever the
   * active tools change; may replace declared tools' descriptions and hide declarations (those
   * tools stay active and callable, and the default system prompt leaves them out).
   */
  prepareLoadout?: (loadout: ToolLoadout) => ToolLoadoutChanges | undefined;
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
  /** pi 1.x: how the model reaches the tool; "direct" unless the tool or its MCP server says otherwise. */
  exposure?: ToolExposure;
  namespace?: ToolNamespace;
  annotations?: ToolAnnotations;
  /** pi 1.6.0: the tool's reachesTools, when it has one (codemode and tool_search do). */
  reachesTools?: (input: Record<string, unknown>) => "all" | readonly string[];
  sourceInfo: SourceInfo;
}

/** pi 1.6.0: the session's tools as a tool's prepareLoadout sees them. */
export interface ToolLoadout {
  /** The tools declared to the model (the active ones), in order, with their own descriptions. */
  readonly declared: readonly AgentTool<any>[];
  /** The tools other tools may call (ctx.executeTool). */
  readonly callable: readonly AgentTool<any>[];
  /** Every registered tool. */
  readonly registered: readonly AgentTool<any>[];
  getExposure(name: string): ToolExposure;
  getNamespace(name: string): ToolNamespace | undefined;
  /** A tool's promptGuidelines: a hidden declaration's are left out of the system prompt. */
  getPromptGuidelines(name: string): readonly string[];
}

/** pi 1.6.0: what a prepareLoadout changes in what the model sees. */
export interface ToolLoadoutChanges {
  /** Descriptions the model gets for declared tools, by name. */
  descriptions?: Readonly<Record<string, string>>;
  /** Declared tools whose declarations requests leave out; they stay active and callable. */
  hiddenDeclarations?: readonly string[];
}

/** pi 1.x: how the model reaches a tool (declared, from scripts, found by tool_search, or not at all). */
export type ToolExposure = "direct" | "model-only" | "codemode" | "deferred" | "hidden";

/** pi 1.x: a group of related tools, as an MCP server's tools are. */
export interface ToolNamespace {
  name: string;
  aliases?: readonly string[];
  description?: string;
  instructions?: string;
}

/** pi 1.x: hints about what a tool does, with the meaning of MCP tool annotations (not verified). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
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
  /** Bytes of stdout and stderr together kept before the command is ended (default 256 MiB). */
  maxBuffer?: number;
}
export interface ExecResult {
  stdout: string;
  stderr: string;
  /** The exit code; 128 + the signal's number when a signal ended the command. */
  code: number;
  /** xcsh ended the command: timeout, abort or maxBuffer. */
  killed: boolean;
  /** The output went past maxBuffer and was cut there. */
  truncated: boolean;
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
  /** pi 1.6.0: implementations of the provider's classifier models, keyed by the models' `api`. */
  classifiers?: Record<string, { classify: (...args: any[]) => unknown }>;
  /** pi 1.6.0: implementations of the provider's image models, keyed by the models' `api`. */
  images?: Record<string, { generateImages: (...args: any[]) => unknown }>;
}

export interface EventBus {
  on(channel: string, handler: (data: unknown) => void): () => void;
  emit(channel: string, data?: unknown): void;
}

export interface ExtensionAPI {
  /** Returns a function that removes the handler again (pi 0.87.1). */
  on<E extends ExtensionEventName>(event: E, handler: ExtensionHandler<E>): () => void;
  registerTool<TParameters extends TSchema, TDetails = any>(tool: ToolDefinition<TParameters, TDetails>): void;
  registerCommand(name: string, options: RegisteredCommand): void;
  registerShortcut(shortcut: string, options: ShortcutOptions): void;
  registerFlag(name: string, options: FlagOptions): void;
  getFlag(name: string): boolean | string | undefined;
  registerMessageRenderer(customType: string, renderer: (...args: any[]) => unknown): void;
  /**
   * pi 1.x: how calls to a tool are drawn, for any tool (registered or not). `next()` is what
   * the later resolvers, then the registered tool, would use; return it to leave a tool alone.
   */
  /**
   * pi 1.x: changes Markdown before interactive mode draws it (display only). Runs on user,
   * assistant and thinking text unless `messageTypes` names other surfaces.
   */
  registerMarkdownTransformer(
    transform: (markdown: string, context: { messageType: string; isStreaming: boolean; availableWidth: number; messageId?: string; timestamp?: string }) => string,
    options?: { messageTypes?: string[] },
  ): void;
  registerToolRenderer(resolver: (toolName: string, next: () => ToolRenderer | undefined) => ToolRenderer | undefined): void;
  /**
   * How interactive mode draws this extension's `custom` entries of `customType`
   * (appendEntry): durable data shown in the chat, never sent to the model. The
   * renderer gets the entry, `{ expanded }` and the theme, and returns a component.
   */
  registerEntryRenderer<T = unknown>(customType: string, renderer: (entry: CustomEntry<T>, options: { expanded: boolean }, theme: any) => unknown): void;
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
  /** pi 1.x: a copy of the effective settings, global and project merged. */
  getSettings(): Record<string, unknown>;
  registerProvider(name: string, config: ProviderConfig): void;
  unregisterProvider(name: string): void;
  /** pi 1.x: a model whose `route()` picks a physical model for each request (virtual-models.ts). */
  registerVirtualModel<TState = unknown>(definition: VirtualModelDefinition<TState>): void;
  unregisterVirtualModel(provider: string, id: string): void;
  /** pi 1.x: an MCP server for this session, connected like an mcp.json one (a file's server of that name wins). */
  registerMcpServer(name: string, config: Record<string, unknown>): void;
  unregisterMcpServer(name: string): void;
  getMcpServers(): RegisteredMcpServer[];
  readonly events: EventBus;
}

export interface ToolRenderer {
  renderCall?: (args: any, theme: any, context: ToolRenderContext) => unknown;
  renderResult?: (result: AgentToolResult<any>, options: ToolRenderResultOptions, theme: any, context: ToolRenderContext) => unknown;
}

/** pi 1.x: the user's key names, for hints a renderer draws. */
export interface KeybindingHints {
  keyText(keybinding: string): string;
  keyHint(keybinding: string, description: string): string;
}

export interface ToolRenderResultOptions {
  expanded: boolean;
  isPartial: boolean;
}

/** pi 1.6.0's context of renderCall / renderResult (the terminal's tool rows, src/modes/interactive/tool-lines.ts). */
export interface ToolRenderContext<TState = any, TArgs = any> extends KeybindingHints {
  args: TArgs;
  toolCallId: string;
  /** Redraws this tool row. */
  invalidate: () => void;
  /** What this slot's renderer returned last time, to update in place. */
  lastComponent: unknown;
  /** Shared by renderCall and renderResult of one row. */
  state: TState;
  cwd: string;
  executionStarted: boolean;
  argsComplete: boolean;
  isPartial: boolean;
  expanded: boolean;
  /** Always false: xcsh's terminal shows no inline images. */
  showImages: boolean;
  isError: boolean;
  /** How long execute() took, from the final result; undefined while running and for rows restored from old sessions. */
  durationMs: number | undefined;
  /** The transcript's horizontal padding (fixed at 1 in xcsh); renderers with renderShell "self" apply it. */
  outputPad: number;
}

/** pi 1.x: what registerMessageRenderer's renderer gets besides the message and theme. */
export interface MessageRenderOptions extends KeybindingHints {
  expanded: boolean;
  outputPad: number;
}

export type ExtensionFactory = (pi: ExtensionAPI) => void | Promise<void>;

/** The messages an extension adds to the transcript (seed 002's `custom` role). */
export type { AssistantMessage };
