/**
 * Everything an AgentSession reports: the agent's own events plus the
 * session-level ones of seed 000 (queues, compaction, retry). Modes forward
 * these unchanged, one JSON line each.
 */
import type { AgentEvent, AgentMessage } from "../agent/types.ts";
import type { ModelThinkingLevel } from "../ai/types.ts";
import type { SessionEntry } from "../session/types.ts";
import type { CompactionResult } from "./compaction/index.ts";

export type CompactionReason = "manual" | "threshold" | "overflow";

/** A compaction's result as reported: with a heuristic estimate of the rebuilt context's size (seed 000). */
export type ReportedCompaction = CompactionResult & { estimatedTokensAfter: number };

export type AgentSessionEvent =
  | Exclude<AgentEvent, { type: "agent_end" }>
  /** pi 0.87.1's willRetry: an automatic retry of this run's failure follows. */
  | { type: "agent_end"; messages: AgentMessage[]; willRetry: boolean }
  | { type: "queue_update"; steering: readonly string[]; followUp: readonly string[] }
  | { type: "compaction_start"; reason: CompactionReason }
  | {
      type: "compaction_end";
      reason: CompactionReason;
      result: ReportedCompaction | null;
      aborted: boolean;
      willRetry: boolean;
      errorMessage?: string;
    }
  /** pi's names for automatic compaction, emitted alongside compaction_start/end. */
  | { type: "auto_compaction_start"; reason: "threshold" | "overflow" }
  | {
      type: "auto_compaction_end";
      result: ReportedCompaction | null;
      aborted: boolean;
      willRetry: boolean;
      errorMessage?: string;
    }
  | { type: "auto_retry_start"; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }
  | { type: "auto_retry_end"; success: boolean; attempt: number; finalError?: string }
  /** pi 1.6.0: a compaction's summary request failed for a passing reason and is sent again after `delayMs`. */
  | { type: "summarization_retry_scheduled"; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }
  /** pi 1.6.0: the wait is over and the summary request goes again (xcsh has no branch summaries, so `source` is always "compaction"). */
  | { type: "summarization_retry_attempt_start"; source: "compaction"; reason: CompactionReason }
  /** pi 1.6.0: the retrying of a summary request is over, whether it then succeeded or not. */
  | { type: "summarization_retry_finished" }
  /** pi 0.87.1: the session-level run is over and nothing continues automatically. */
  | { type: "agent_settled"; aborted: boolean }
  /** pi 0.87.1: a chunk of an RPC `bash` command's output; `id` is the command's, when it had one. */
  | { type: "bash_execution_update"; id?: string | number; delta: string }
  /** pi 0.87.1: the session's display name changed (no `name`: it was cleared). */
  | { type: "session_info_changed"; name?: string }
  /** pi 0.87.1: the effective thinking level changed (set, cycled, or clamped by a model switch). */
  | { type: "thinking_level_changed"; level: ModelThinkingLevel }
  /** pi 0.87.1: an extension appended an entry to the session (pi.appendEntry, or at a turn_end / agent_before_settle boundary). */
  | { type: "entry_appended"; entry: SessionEntry };

export type AgentSessionListener = (event: AgentSessionEvent) => void | Promise<void>;
