/**
 * Compaction in two steps: `prepareCompaction` decides from the session path
 * what to summarize and what to keep (pure, so extensions can inspect or
 * replace it), and `compact` makes the summary. The caller appends the
 * resulting compaction entry.
 */
import { createCompactionSummaryMessage } from "../../agent/messages.ts";
import type { AgentMessage } from "../../agent/types.ts";
import type { Model, ModelThinkingLevel, Usage } from "../../ai/types.ts";
import { roundCost } from "../../ai/usage.ts";
import type { CompactionEntry, SessionEntry } from "../../session/types.ts";
import { messagesOfEntries, pathAsModelSees } from "../../session/build-context.ts";
import type { SummaryRetry } from "./summary-retry.ts";
import { findCutPoint, findCutWithin, findFallbackCutPoint, tokensKeptFrom, type CutPoint } from "./cut-point.ts";
import {
  computeFileLists,
  extractFileOperations,
  formatFileOperations,
  mergeCompactionDetails,
  stripFileOperations,
  type CompactionDetails,
  type FileOperations,
} from "./file-operations.ts";
import { generateSummary, generateTurnPrefixSummary } from "./summarize.ts";
import {
  effectiveReserveTokens,
  estimateContextTokens,
  estimateTokens,
  keptTokensLimit,
  type CompactionSettings,
} from "./token-estimate.ts";

export interface CompactionPreparation {
  /** Where the kept, verbatim part of the conversation begins. */
  firstKeptEntryId: string;
  /** Whole turns before the cut, to be folded into the summary. */
  messagesToSummarize: AgentMessage[];
  /** When the cut splits a turn: that turn's beginning, summarized on its own. */
  turnPrefixMessages: AgentMessage[];
  isSplitTurn: boolean;
  /** Estimated context size before compaction. */
  tokensBefore: number;
  /** The summary of the previous compaction on the path, to be updated. */
  previousSummary?: string;
  /** Files read and modified, including those of earlier compactions. */
  fileOps: FileOperations;
  settings: CompactionSettings;
}

export interface CompactionResult<T = CompactionDetails> {
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: T;
  /** pi 1.6.0: what the summary requests cost, all of them added up. */
  usage?: Usage;
}

export interface CompactOptions {
  headers?: Record<string, string>;
  /** The provider's configuration variables (auth.json's `env`), passed on to the request. */
  env?: Record<string, string>;
  customInstructions?: string;
  signal?: AbortSignal;
  thinkingLevel?: ModelThinkingLevel;
  /**
   * Called when the summary is made in several requests (the history does not
   * fit the model's window in one): before each, with the request's number and
   * the total, counting from 1.
   */
  onProgress?: (part: number, parts: number) => void;
  /** Retry a request that failed for a passing reason (summary-retry.ts); unset: one try. */
  retry?: SummaryRetry;
}

/**
 * Progress over the two summaries compact() makes at once (history and the
 * split turn's prefix): each is one request until it reports its parts.
 */
function progressOfBoth(report: ((part: number, parts: number) => void) | undefined, hasHistory: boolean, hasPrefix: boolean) {
  const started = { history: hasHistory ? 1 : 0, prefix: hasPrefix ? 1 : 0 };
  const totals = { ...started };
  const track = (which: "history" | "prefix") => (part: number, parts: number) => {
    started[which] = part;
    totals[which] = parts;
    report?.(started.history + started.prefix, totals.history + totals.prefix);
  };
  return { history: track("history"), prefix: track("prefix") };
}

function findLastCompaction(entries: SessionEntry[]): { entry: CompactionEntry; index: number } | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry.type === "compaction") return { entry, index: i };
  }
  return undefined;
}

/**
 * The context the LLM currently sees, as a token count: the previous summary and
 * kept messages, then everything after the previous compaction. Provider usage
 * is trusted only when reported after that compaction; older reports describe a
 * context that was already replaced.
 */
function estimateCurrentContext(
  entries: SessionEntry[],
  startIndex: number,
  previous: { entry: CompactionEntry; index: number } | undefined,
): number {
  const compactionIndex = previous?.index ?? -1;
  const before: AgentMessage[] = previous
    ? [
        createCompactionSummaryMessage(previous.entry.summary, previous.entry.tokensBefore, previous.entry.timestamp),
        ...messagesOfEntries(entries, startIndex, compactionIndex),
      ]
    : [];
  const after = estimateContextTokens(messagesOfEntries(entries, compactionIndex + 1, entries.length));
  if (after.lastUsageIndex !== null) return after.tokens;
  return before.reduce((sum, message) => sum + estimateTokens(message), 0) + after.tokens;
}

/** The parts of [startIndex, end) a cut summarizes: whole turns before it, and the split turn's beginning. */
function partsOfCut(pathEntries: SessionEntry[], startIndex: number, cut: CutPoint) {
  const historyEnd = cut.isSplitTurn ? cut.turnStartIndex : cut.firstKeptEntryIndex;
  return {
    messagesToSummarize: messagesOfEntries(pathEntries, startIndex, historyEnd),
    turnPrefixMessages: cut.isSplitTurn ? messagesOfEntries(pathEntries, cut.turnStartIndex, cut.firstKeptEntryIndex) : [],
  };
}

/**
 * What a compaction of this session path would summarize and keep.
 *
 * The newest `keepRecentTokens` stay verbatim — but never more than half of
 * what the model's window leaves beside the reserve (`keptTokensLimit`), so the
 * compacted context fits a small window: the cut then moves later, to the
 * longest tail that fits, splitting a turn if it must. When the budget would
 * keep the whole conversation, only the latest turn is kept, or as much of its
 * end as fits, and the rest is summarized: a compaction always makes progress.
 * Undefined only when there is nothing to summarize — an empty path, one
 * ending in a compaction, or a single message since the start or the last one.
 *
 * `contextWindow` is the window of the model the context is for; without it
 * `keepRecentTokens` alone decides.
 *
 * The path is read as the model sees it: what context edits leave out is
 * neither summarized nor counted, what they replace is summarized as replaced.
 */
export function prepareCompaction(
  rawPath: SessionEntry[],
  settings: CompactionSettings,
  contextWindow?: number,
): CompactionPreparation | undefined {
  const last = rawPath[rawPath.length - 1];
  if (!last || last.type === "compaction") return undefined;
  const pathEntries = pathAsModelSees(rawPath);

  const previous = findLastCompaction(pathEntries);
  // Messages the previous compaction kept are still verbatim in the context, so
  // they are candidates again; if that entry is gone, start after the compaction.
  let startIndex = previous ? previous.index + 1 : 0;
  if (previous) {
    const keptIndex = pathEntries.findIndex((entry) => entry.id === previous.entry.firstKeptEntryId);
    if (keptIndex >= 0 && keptIndex < previous.index) startIndex = keptIndex;
  }

  const end = pathEntries.length;
  const limit = keptTokensLimit(settings, contextWindow);
  let cut: CutPoint | undefined = findCutPoint(pathEntries, startIndex, end, settings.keepRecentTokens);
  let parts = partsOfCut(pathEntries, startIndex, cut);
  if (parts.messagesToSummarize.length === 0 && parts.turnPrefixMessages.length === 0) {
    cut = findFallbackCutPoint(pathEntries, startIndex, end, limit);
    if (!cut) return undefined;
    parts = partsOfCut(pathEntries, startIndex, cut);
  } else if (limit !== undefined && tokensKeptFrom(pathEntries, cut.firstKeptEntryIndex, end) > limit) {
    // keepRecentTokens is more than this window holds: cut later, never earlier.
    cut = findCutWithin(pathEntries, startIndex, end, limit, cut.firstKeptEntryIndex) ?? cut;
    parts = partsOfCut(pathEntries, startIndex, cut);
  }
  const { messagesToSummarize, turnPrefixMessages } = parts;

  const fileOps = extractFileOperations([...messagesToSummarize, ...turnPrefixMessages]);
  if (previous) mergeCompactionDetails(fileOps, previous.entry.details);

  return {
    firstKeptEntryId: pathEntries[cut.firstKeptEntryIndex].id,
    messagesToSummarize,
    turnPrefixMessages,
    isSplitTurn: cut.isSplitTurn,
    tokensBefore: estimateCurrentContext(pathEntries, startIndex, previous),
    previousSummary: previous?.entry.summary,
    fileOps,
    settings,
  };
}

/** Two requests' usage as one: tokens and costs added. */
function addUsage(sum: Usage | undefined, part: Usage): Usage {
  if (!sum) return { ...part, cost: { ...part.cost } };
  const cost = (key: Exclude<keyof Usage["cost"], "totalFromProvider">) => roundCost((sum.cost[key] ?? 0) + (part.cost?.[key] ?? 0));
  return {
    input: sum.input + part.input,
    output: sum.output + part.output,
    cacheRead: sum.cacheRead + part.cacheRead,
    cacheWrite: sum.cacheWrite + part.cacheWrite,
    totalTokens: sum.totalTokens + part.totalTokens,
    cost: { input: cost("input"), output: cost("output"), cacheRead: cost("cacheRead"), cacheWrite: cost("cacheWrite"), total: cost("total") },
  };
}

function joinSummaries(history: string | undefined, turnPrefix: string | undefined): string {
  if (history && turnPrefix) return `${history}\n\n---\n\n## Earlier in the Current Turn\n${turnPrefix}`;
  return history ?? turnPrefix ?? "";
}

/**
 * Summarizes what `preparation` says to summarize. History and the split turn's
 * prefix are summarized in parallel; if either fails the other is cancelled and
 * the error (the provider's message) is thrown.
 */
export async function compact(
  preparation: CompactionPreparation,
  model: Model,
  apiKey: string | undefined,
  options: CompactOptions = {},
): Promise<CompactionResult<CompactionDetails> & { details: CompactionDetails }> {
  const { messagesToSummarize, turnPrefixMessages, isSplitTurn, settings } = preparation;
  // The summary is an answer like any other: it must fit the reserve the window really leaves.
  const reserveTokens = effectiveReserveTokens(settings.reserveTokens, model.contextWindow);
  // File lists are rebuilt from details below; the model need not copy them.
  const previousSummary = preparation.previousSummary === undefined ? undefined : stripFileOperations(preparation.previousSummary);

  const controller = new AbortController();
  const abort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) abort();
  else options.signal?.addEventListener("abort", abort, { once: true });
  const { onProgress: _onProgress, ...passed } = options;
  let usage: Usage | undefined;
  const onUsage = (part: Usage) => {
    usage = addUsage(usage, part);
  };
  const callOptions = { ...passed, signal: controller.signal, onUsage };

  const cancelOnFailure = <T>(promise: Promise<T>) =>
    promise.catch((error: unknown) => {
      controller.abort();
      throw error;
    });

  const hasHistory = messagesToSummarize.length > 0;
  const hasPrefix = isSplitTurn && turnPrefixMessages.length > 0;
  const progress = progressOfBoth(options.onProgress, hasHistory, hasPrefix);

  try {
    const [history, turnPrefix] = await Promise.all([
      hasHistory
        ? cancelOnFailure(generateSummary(messagesToSummarize, model, reserveTokens, apiKey, { ...callOptions, previousSummary, onPart: progress.history }))
        : Promise.resolve(previousSummary),
      hasPrefix
        ? cancelOnFailure(generateTurnPrefixSummary(turnPrefixMessages, model, reserveTokens, apiKey, { ...callOptions, onPart: progress.prefix }))
        : Promise.resolve(undefined),
    ]);

    const details = computeFileLists(preparation.fileOps);
    const fileBlocks = formatFileOperations(details);
    const text = stripFileOperations(joinSummaries(history, turnPrefix));
    return {
      summary: fileBlocks ? `${text}\n\n${fileBlocks}` : text,
      firstKeptEntryId: preparation.firstKeptEntryId,
      tokensBefore: preparation.tokensBefore,
      details,
      ...(usage ? { usage } : {}),
    };
  } finally {
    options.signal?.removeEventListener("abort", abort);
  }
}
