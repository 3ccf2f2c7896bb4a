/**
 * Everything an AgentSession reports: the agent's own events plus the
 * session-level ones of seed 000 (queues, compaction, retry). Modes forward
 * these unchanged, one JSON line each.
 */
import type { AgentEvent } from "../agent/types.ts";
import type { SessionEntry } from "../session/types.ts";
import type { CompactionResult } from "./compaction/index.ts";

export type CompactionReason = "manual" | "threshold" | "overflow";

/** A compaction's result as reported: with a heuristic estimate of the rebuilt context's size (seed 000). */
export type ReportedCompaction = CompactionResult & { estimatedTokensAfter: number };

export type AgentSessionEvent =
  | AgentEvent
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
  /** pi 0.87.1: the session-level run is over and nothing continues automatically. */
  | { type: "agent_settled" }
  /** pi 0.87.1: an entry extensions added at a turn_end / agent_before_settle boundary. */
  | { type: "entry_appended"; entry: SessionEntry }
  /** pi 0.87.1: the session's display name was set. */
  | { type: "session_info_changed"; name: string | undefined };

export type AgentSessionListener = (event: AgentSessionEvent) => void | Promise<void>;
