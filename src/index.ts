/**
 * The public API extensions import as `xcsh` — and, so that pi's extensions run
 * unchanged, as `@earendil-works/pi-coding-agent` / `@mariozechner/pi-coding-agent`.
 * Only the entry point imports this module; it hands the namespace to the
 * extension loader, which serves it as those virtual modules (DESIGN.md
 * "Extensions inside one binary"). Nothing under src/extensions imports it back.
 * Runtime names are pi's; the TUI components load pi-tui only when first used.
 */
import type { TSchema } from "typebox";
import type { ToolDefinition } from "./extensions/types.ts";

// --- the extension API, as types -------------------------------------------------

export type * from "./extensions/types.ts";
export type { ExtensionHost } from "./extensions/host.ts";
export type { ExtensionTheme, ExtensionUIDialogOptions, NotifyType, WidgetPlacement } from "./extensions/ui-types.ts";
export * from "./extensions/type-guards.ts";

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
  type CompactionSettings,
} from "./core/compaction/index.ts";

// --- configuration and resources -----------------------------------------------------

export { PROJECT_CONFIG_DIR_NAME as CONFIG_DIR_NAME, getAgentDir } from "./config/paths.ts";
export { VERSION } from "./cli/version.ts";
export { parseFrontmatter, stripFrontmatter } from "./resources/frontmatter.ts";

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
