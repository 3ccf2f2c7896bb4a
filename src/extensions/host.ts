/**
 * What the extension runtime needs from the session it serves. `core/` implements
 * this over AgentSession and hands it to the runner, so `extensions/` never
 * imports `core/` (DESIGN.md: dependencies point down) and a test can drive the
 * runtime with a small fake.
 */
import type { AgentTool } from "../agent/types.ts";
import type { ImageContent, Model, ModelThinkingLevel, TextContent } from "../ai/types.ts";
import type { ModelRegistry } from "../config/model-registry.ts";
import type { SessionManager } from "../session/session-manager.ts";
import type {
  BuildSystemPromptOptions,
  CompactOptions,
  ContextUsage,
  CustomMessageInput,
  ForkOptions,
  NavigateTreeOptions,
  NewSessionOptions,
  ReplacementOptions,
  SendMessageOptions,
  SendUserMessageOptions,
  SlashCommandInfo,
  SourceInfo,
  ToolAnnotations,
  ToolDefinition,
  ToolExposure,
  ToolInfo,
  ToolNamespace,
} from "./types.ts";
import type { ExtensionMode, ExtensionUIContext } from "./ui-types.ts";
import type { NestedToolRunner } from "./nested-calls.ts";

/** How an extension's tool is kept: its source, prompt texts and pi 1.x's exposure fields. */
export interface RegisteredToolInfo {
  sourceInfo: SourceInfo;
  promptSnippet?: string;
  promptGuidelines?: string[];
  exposure?: ToolExposure;
  namespace?: ToolNamespace;
  annotations?: ToolAnnotations;
  /** pi 1.6.0: which tools a call may reach (reported by getAllTools). */
  reachesTools?: ToolDefinition["reachesTools"];
  /** pi 1.6.0: adjusts what the model sees while the tool is active (tool-set.ts runs it). */
  prepareLoadout?: ToolDefinition["prepareLoadout"];
  /** False: registered without becoming active (a non-direct exposure, or `defaultActive: false`). */
  activate?: boolean;
}

export interface ExtensionHost extends NestedToolRunner {
  readonly cwd: string;
  readonly mode: ExtensionMode;
  readonly ui: ExtensionUIContext;
  readonly hasUI: boolean;
  readonly modelRegistry: ModelRegistry;
  sessionManager(): SessionManager;
  model(): Model | undefined;
  signal(): AbortSignal | undefined;
  isProjectTrusted(): boolean;
  isIdle(): boolean;
  abort(): void;
  hasPendingMessages(): boolean;
  shutdown(): void;
  getContextUsage(): ContextUsage | undefined;
  compact(options?: CompactOptions): void;
  getSystemPrompt(): string;
  getSystemPromptOptions(): BuildSystemPromptOptions;

  sendMessage(message: CustomMessageInput, options?: SendMessageOptions): Promise<void>;
  sendUserMessage(content: string | (TextContent | ImageContent)[], options?: SendUserMessageOptions): Promise<void>;
  appendEntry(customType: string, data?: unknown): void;
  setSessionName(name: string): void;
  getSessionName(): string | undefined;
  setLabel(entryId: string, label: string | undefined): void;

  /** A tool an extension registered (or replaced): the session adds it and makes it active. */
  upsertTool(tool: AgentTool<any>, info: RegisteredToolInfo): void;
  getActiveTools(): string[];
  getAllTools(): ToolInfo[];
  setActiveTools(names: string[]): void;
  getCommands(): SlashCommandInfo[];
  setModel(model: Model): Promise<boolean>;
  getThinkingLevel(): ModelThinkingLevel;
  setThinkingLevel(level: ModelThinkingLevel): void;
  /** A copy of the effective settings (global and project merged). */
  getSettings(): Record<string, unknown>;
  /** The models `--models` / `enabledModels` scope the session to; empty when unscoped. */
  scopedModels(): { model: Model; thinkingLevel?: ModelThinkingLevel }[];

  waitForIdle(): Promise<void>;
  newSession(options?: NewSessionOptions): Promise<{ cancelled: boolean }>;
  fork(entryId: string, options?: ForkOptions): Promise<{ cancelled: boolean }>;
  navigateTree(targetId: string, options?: NavigateTreeOptions): Promise<{ cancelled: boolean }>;
  switchSession(sessionPath: string, options?: ReplacementOptions): Promise<{ cancelled: boolean }>;
  reload(): Promise<void>;
}
