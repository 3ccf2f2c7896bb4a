/**
 * One compaction of the session: choose what to summarize from the current
 * branch, ask the model for the summary, and record it as a compaction entry.
 * The caller reloads the agent's context from the session afterwards.
 */
import type { Model, ThinkingLevel } from "../ai/types.ts";
import type { SessionManager } from "../session/session-manager.ts";
import { compact, prepareCompaction, type CompactionResult, type CompactionSettings } from "./compaction/index.ts";

export interface CompactionRequest {
  sessionManager: SessionManager;
  model: Model;
  apiKey: string;
  headers?: Record<string, string>;
  settings: CompactionSettings;
  customInstructions?: string;
  thinkingLevel?: ThinkingLevel;
  signal?: AbortSignal;
}

export async function runCompaction(request: CompactionRequest): Promise<CompactionResult> {
  const preparation = prepareCompaction(request.sessionManager.getBranch(), request.settings);
  if (!preparation) throw new Error("Nothing to compact: the conversation is already as short as it can be.");
  const result = await compact(preparation, request.model, request.apiKey, {
    headers: request.headers,
    customInstructions: request.customInstructions,
    signal: request.signal,
    thinkingLevel: request.thinkingLevel,
  });
  if (request.signal?.aborted) throw new Error("Compaction was aborted");
  request.sessionManager.appendCompaction(result.summary, result.firstKeptEntryId, result.tokensBefore, result.details);
  return result;
}
