/**
 * The public API extensions import as `xcsh` — and, so that pi's extensions run
 * unchanged, as `@earendil-works/pi-coding-agent` / `@mariozechner/pi-coding-agent`.
 * Only the entry point imports this module; it hands the namespace to the
 * extension loader, which serves it as those virtual modules (DESIGN.md
 * "Extensions inside one binary"). Nothing under src/extensions imports it back.
 * Runtime names are pi's; the TUI components load pi-tui only when first used.
 */
import type { TSchema } from "typebox";
import type { AgentMessage } from "./agent/types.ts";
import type { Model, ModelThinkingLevel } from "./ai/types.ts";
import { compact as compactPrepared, generateSummary as summarizeMessages, type CompactionPreparation } from "./core/compaction/index.ts";
import type { ToolDefinition } from "./extensions/types.ts";

// --- the extension API, as types -------------------------------------------------

export type * from "./extensions/types.ts";
export type { ExtensionHost } from "./extensions/host.ts";
export type { ExtensionTheme, ExtensionUIDialogOptions, NotifyType, WidgetPlacement } from "./extensions/ui-types.ts";
export * from "./extensions/type-guards.ts";

/** pi's guard for its PowerShell tool's results; xcsh has no such tool, so only an extension's own "powershell" tool matches. */
export const isPowerShellToolResult = (event: { toolName: string }): boolean => event.toolName === "powershell";

/** Returns the tool unchanged; it exists so that `params` is typed from `parameters`. */
export function defineTool<TParameters extends TSchema, TDetails = unknown>(
  tool: ToolDefinition<TParameters, TDetails>,
): ToolDefinition<TParameters, TDetails> {
  return tool;
}

// --- built-in tools ------------------------------------------------------------------

export { createBashTool, type BashSpawnContext, type BashToolDetails, type BashToolInput, type BashToolOptions } from "./tools/bash.ts";
export {
  createLocalBashOperations,
  type BashExecOptions,
  type BashOperations,
  type LocalBashOperationsOptions,
} from "./tools/bash-operations.ts";
export { createEditTool, type EditOperations, type EditToolDetails, type EditToolInput, type EditToolOptions } from "./tools/edit.ts";
export { createFindTool, type FindOperations, type FindToolDetails, type FindToolInput, type FindToolOptions } from "./tools/find.ts";
export { createGrepTool, type GrepOperations, type GrepToolDetails, type GrepToolInput, type GrepToolOptions } from "./tools/grep.ts";
export { createLsTool, type LsOperations, type LsToolDetails, type LsToolInput, type LsToolOptions } from "./tools/ls.ts";
export { createReadTool, type ReadOperations, type ReadToolDetails, type ReadToolInput, type ReadToolOptions } from "./tools/read.ts";
export { createWriteTool, type WriteOperations, type WriteToolInput, type WriteToolOptions } from "./tools/write.ts";
export { createCodingTools, createReadOnlyTools, type CodingTool, type ToolName, type ToolsOptions } from "./tools/index.ts";
export { withFileMutationQueue } from "./tools/file-mutation-queue.ts";
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_LINES,
  formatSize,
  truncateHead,
  truncateLine,
  truncateTail,
  type TruncationOptions,
  type TruncationResult,
} from "./tools/truncate.ts";

// --- sessions, messages, compaction ------------------------------------------------

export {
  buildSessionContext,
  CURRENT_SESSION_VERSION,
  getLatestCompactionEntry,
  migrateSessionEntries,
  parseSessionEntries,
  SessionManager,
} from "./session/index.ts";
export type {
  BranchSummaryEntry,
  CompactionEntry,
  CustomEntry,
  CustomMessageEntry,
  FileEntry,
  LabelEntry,
  ModelChangeEntry,
  SessionContext,
  SessionEntry,
  SessionEntryBase,
  SessionHeader,
  SessionInfo,
  SessionInfoEntry,
  SessionMessageEntry,
  SessionTreeNode,
  ThinkingLevelChangeEntry,
} from "./session/types.ts";
export { convertToLlm } from "./agent/messages.ts";
export type { AgentMessage, AgentTool, AgentToolResult, AgentToolUpdateCallback } from "./agent/types.ts";
export {
  calculateContextTokens,
  DEFAULT_COMPACTION_SETTINGS,
  estimateContextTokens,
  estimateTokens,
  findCutPoint,
  findTurnStartIndex,
  getLastAssistantUsage,
  serializeConversation,
  shouldCompact,
  prepareCompaction,
  type CompactionPreparation,
  type CompactionSettings,
} from "./core/compaction/index.ts";

/**
 * Summarizes a prepared compaction with the model (pi's positional signature); the
 * caller appends the entry. Inside a session, `ctx.compact()` does all of it.
 */
export function compact(
  preparation: CompactionPreparation,
  model: Model,
  apiKey: string | undefined,
  headers?: Record<string, string>,
  customInstructions?: string,
  signal?: AbortSignal,
  thinkingLevel?: ModelThinkingLevel,
) {
  return compactPrepared(preparation, model, apiKey, { headers, customInstructions, signal, thinkingLevel });
}

/** A summary of `messages` by the model, updating `previousSummary` when given (pi's positional signature). */
export function generateSummary(
  messages: AgentMessage[],
  model: Model,
  reserveTokens: number,
  apiKey: string | undefined,
  headers?: Record<string, string>,
  signal?: AbortSignal,
  customInstructions?: string,
  previousSummary?: string,
  thinkingLevel?: ModelThinkingLevel,
): Promise<string> {
  return summarizeMessages(messages, model, reserveTokens, apiKey, { headers, signal, customInstructions, previousSummary, thinkingLevel });
}
export { buildContextEntries, buildSessionProjection, sessionEntryToContextMessages, type SessionProjection } from "./session/projection.ts";

// --- configuration and resources -----------------------------------------------------

export { PROJECT_CONFIG_DIR_NAME as CONFIG_DIR_NAME, getAgentDir } from "./config/paths.ts";
export { VERSION } from "./cli/version.ts";
export { parseFrontmatter, stripFrontmatter } from "./resources/frontmatter.ts";
export {
  createSyntheticSourceInfo,
  formatSkillsForPrompt,
  loadProjectContextFiles,
  loadSkills,
  loadSkillsFromDir,
  parseSkillBlock,
} from "./extensions/resource-helpers.ts";
export {
  createBashToolDefinition,
  createEditToolDefinition,
  createEventBus,
  createFindToolDefinition,
  createGrepToolDefinition,
  createLsToolDefinition,
  createReadToolDefinition,
  createWriteToolDefinition,
  formatReadLineRange,
  getShellConfig,
  truncateToVisualLines,
} from "./extensions/coding-agent-helpers.ts";
export {
  convertToPng,
  detectSupportedImageMimeTypeFromFile,
  formatDimensionNote,
  resizeImage,
  type ImageResizeOptions,
  type ResizedImage,
} from "./extensions/image-helpers.ts";
export { generateDiffString, generateUnifiedPatch, renderDiff } from "./extensions/diff-helpers.ts";

// --- terminal UI helpers ---------------------------------------------------------------

export {
  BorderedLoader,
  CustomEditor,
  DynamicBorder,
  getLanguageFromPath,
  getMarkdownTheme,
  getSelectListTheme,
  getSettingsListTheme,
  highlightCode,
  keyHint,
  keyText,
  rawKeyHint,
} from "./extensions/tui-helpers.ts";
export { copyToClipboard } from "./extensions/clipboard-copy.ts";
export { VIRTUAL_MODEL_STATE_ENTRY } from "./extensions/virtual-models.ts";
