/**
 * One compaction of the session: choose what to summarize from the current
 * branch, ask the model for the summary, and record it as a compaction entry.
 * The caller reloads the agent's context from the session afterwards.
 */
import type { Model, ThinkingLevel } from "../ai/types.ts";
import type { SessionManager } from "../session/session-manager.ts";
import type { SessionEntry } from "../session/types.ts";
import { isUsage } from "../session/entry-shapes.ts";
import type { CompactionPreparation } from "./compaction/compact.ts";
import type { SummaryRetry } from "./compaction/summary-retry.ts";
import { compact, prepareCompaction, type CompactionResult, type CompactionSettings } from "./compaction/index.ts";

export interface CompactionRequest {
  sessionManager: SessionManager;
  model: Model;
  apiKey: string;
  headers?: Record<string, string>;
  /** The provider's configuration variables (auth.json's `env`). */
  env?: Record<string, string>;
  settings: CompactionSettings;
  customInstructions?: string;
  thinkingLevel?: ThinkingLevel;
  signal?: AbortSignal;
  /** Retrying a summary request that failed for a passing reason (summary-retry.ts). */
  retry?: SummaryRetry;
  /** A summary made in several requests reports each (compact's onProgress). */
  onProgress?: (part: number, parts: number) => void;
  /** Extensions' say (session_before_compact): cancel, or a summary of their own instead of the model's. */
  intercept?: (
    preparation: CompactionPreparation,
    branchEntries: SessionEntry[],
  ) => Promise<{ cancel?: boolean; compaction?: CompactionResult<unknown> } | undefined>;
}

export interface CompactionOutcome extends CompactionResult<unknown> {
  /** The compaction entry written. */
  entryId: string;
  fromExtension: boolean;
}

/** Why `prepareCompaction` found nothing to summarize on this branch. */
function nothingToCompact(branchEntries: SessionEntry[]): Error {
  const last = branchEntries.at(-1);
  const why = !last
    ? "the conversation is empty"
    : last.type === "compaction"
      ? "the conversation was just compacted"
      : "there is no earlier message to summarize";
  return new Error(`Nothing to compact: ${why}.`);
}

export async function runCompaction(request: CompactionRequest): Promise<CompactionOutcome> {
  const branchEntries = request.sessionManager.getBranch();
  // The window decides how much can stay verbatim; a short conversation is still compacted.
  const preparation = prepareCompaction(branchEntries, request.settings, request.model.contextWindow);
  if (!preparation) throw nothingToCompact(branchEntries);
  const decision = await request.intercept?.(preparation, branchEntries);
  if (decision?.cancel) throw new Error("Compaction was cancelled by an extension");
  const custom = decision?.compaction;
  const result: CompactionResult<unknown> =
    custom && typeof custom.summary === "string"
      ? {
          summary: custom.summary,
          firstKeptEntryId: custom.firstKeptEntryId ?? preparation.firstKeptEntryId,
          tokensBefore: custom.tokensBefore ?? preparation.tokensBefore,
          details: custom.details,
          // An extension that asked a model itself may say what that cost (pi 1.6.0).
          ...(isUsage(custom.usage) ? { usage: custom.usage } : {}),
        }
      : await compact(preparation, request.model, request.apiKey, {
          headers: request.headers,
          env: request.env,
          customInstructions: request.customInstructions,
          signal: request.signal,
          thinkingLevel: request.thinkingLevel,
          onProgress: request.onProgress,
          retry: request.retry,
        });
  if (request.signal?.aborted) throw new Error("Compaction was aborted");
  const fromExtension = result !== undefined && custom !== undefined && typeof custom.summary === "string";
  // The entry keeps the summary's usage: session stats count it, as pi's do.
  const entryId = request.sessionManager.appendCompaction(result.summary, result.firstKeptEntryId, result.tokensBefore, result.details, fromExtension || undefined, result.usage);
  return { ...result, entryId, fromExtension };
}
