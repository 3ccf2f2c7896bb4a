/**
 * get_session_stats: message counts and token/cost totals over the session's
 * messages, and how full the context window is now.
 */
import type { AgentMessage } from "../agent/types.ts";
import type { Model } from "../ai/types.ts";
import type { SessionManager } from "../session/session-manager.ts";
import { estimateContextTokens } from "./compaction/index.ts";

export interface ContextUsage {
  /** null right after a compaction, until a new reply reports real usage. */
  tokens: number | null;
  contextWindow: number;
  percent: number | null;
}

export interface SessionStats {
  sessionFile: string | undefined;
  sessionId: string;
  userMessages: number;
  assistantMessages: number;
  toolCalls: number;
  toolResults: number;
  totalMessages: number;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  cost: number;
  contextUsage?: ContextUsage;
}

export interface StatsInput {
  sessionFile: string | undefined;
  sessionId: string;
  /** Every message recorded in the session (all branches' history up to now). */
  allMessages: AgentMessage[];
  /** What the model sees now (after compaction). */
  contextMessages: AgentMessage[];
  /** A compaction happened after the last reply: no reply has measured the new context yet. */
  compactedSinceLastReply: boolean;
  model: Model | undefined;
}

export function computeSessionStats(input: StatsInput): SessionStats {
  const stats: SessionStats = {
    sessionFile: input.sessionFile,
    sessionId: input.sessionId,
    userMessages: 0,
    assistantMessages: 0,
    toolCalls: 0,
    toolResults: 0,
    totalMessages: input.allMessages.length,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    cost: 0,
  };
  for (const message of input.allMessages) {
    if (message.role === "user") stats.userMessages++;
    else if (message.role === "toolResult") stats.toolResults++;
    else if (message.role === "assistant") {
      stats.assistantMessages++;
      stats.toolCalls += message.content.filter((block) => block.type === "toolCall").length;
      const usage = message.usage;
      stats.tokens.input += usage.input;
      stats.tokens.output += usage.output;
      stats.tokens.cacheRead += usage.cacheRead;
      stats.tokens.cacheWrite += usage.cacheWrite;
      stats.cost += usage.cost.total;
    }
  }
  const { tokens } = stats;
  tokens.total = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
  const contextWindow = input.model?.contextWindow ?? 0;
  if (contextWindow > 0) {
    if (input.compactedSinceLastReply) {
      stats.contextUsage = { tokens: null, contextWindow, percent: null };
    } else {
      const tokens = estimateContextTokens(input.contextMessages).tokens;
      stats.contextUsage = { tokens, contextWindow, percent: Math.round((tokens / contextWindow) * 1000) / 10 };
    }
  }
  return stats;
}

/** Stats of a session as it stands: every message in its file, and the context the model gets. */
export function sessionStatsOf(sessionManager: SessionManager, contextMessages: AgentMessage[], model: Model): SessionStats {
  const allMessages = sessionManager.getEntries().flatMap((entry) => (entry.type === "message" ? [entry.message] : []));
  const branch = sessionManager.getBranch();
  const lastCompaction = branch.findLastIndex((entry) => entry.type === "compaction");
  const lastReply = branch.findLastIndex((entry) => entry.type === "message" && entry.message.role === "assistant");
  return computeSessionStats({
    sessionFile: sessionManager.getSessionFile(),
    sessionId: sessionManager.getSessionId(),
    allMessages,
    contextMessages,
    compactedSinceLastReply: lastCompaction > lastReply,
    model,
  });
}
