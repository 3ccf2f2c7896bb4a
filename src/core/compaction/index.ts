/** Context compaction: token accounting, where to cut, file tracking, and the summary call. */
export {
  calculateContextTokens,
  DEFAULT_COMPACTION_SETTINGS,
  effectiveReserveTokens,
  estimateContextTokens,
  estimateMessagesTokens,
  estimateTokens,
  getLastAssistantUsage,
  IMAGE_TOKEN_ESTIMATE,
  keptTokensLimit,
  MAX_RESERVE_SHARE,
  shouldCompact,
  type CompactionSettings,
  type ContextTokenEstimate,
} from "./token-estimate.ts";
export {
  findCutPoint,
  findCutWithin,
  findFallbackCutPoint,
  findTurnStartIndex,
  findValidCutPoints,
  tokensKeptFrom,
  type CutPoint,
} from "./cut-point.ts";
export {
  computeFileLists,
  createFileOperations,
  extractFileOperations,
  formatFileOperations,
  mergeCompactionDetails,
  stripFileOperations,
  type CompactionDetails,
  type FileOperations,
} from "./file-operations.ts";
export {
  generateSummary,
  generateTurnPrefixSummary,
  serializeConversation,
  SUMMARIZATION_SYSTEM_PROMPT,
  TOOL_RESULT_CHAR_LIMIT,
  type SummaryOptions,
} from "./summarize.ts";
export {
  compact,
  prepareCompaction,
  type CompactionPreparation,
  type CompactionResult,
  type CompactOptions,
} from "./compact.ts";
