/**
 * Everything an AgentSession reports: the agent's own events plus the
 * session-level ones of seed 000 (queues, compaction, retry). Modes forward
 * these unchanged, one JSON line each.
 */
import type { AgentEvent } from "../agent/types.ts";
import type { CompactionResult } from "./compaction/index.ts";

export type CompactionReason = "manual" | "threshold" | "overflow";

export type AgentSessionEvent =
  | AgentEvent
  | { type: "queue_update"; steering: readonly string[]; followUp: readonly string[] }
  | { type: "compaction_start"; reason: CompactionReason }
  | {
      type: "compaction_end";
      reason: CompactionReason;
      result: CompactionResult | null;
      aborted: boolean;
      willRetry: boolean;
      errorMessage?: string;
    }
  /** pi's names for automatic compaction, emitted alongside compaction_start/end. */
  | { type: "auto_compaction_start"; reason: "threshold" | "overflow" }
  | {
      type: "auto_compaction_end";
      result: CompactionResult | null;
      aborted: boolean;
      willRetry: boolean;
      errorMessage?: string;
    }
  | { type: "auto_retry_start"; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }
  | { type: "auto_retry_end"; success: boolean; attempt: number; finalError?: string };

export type AgentSessionListener = (event: AgentSessionEvent) => void | Promise<void>;
