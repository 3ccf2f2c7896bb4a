/**
 * get_session_stats: message counts and token/cost totals over the session's
 * messages, and how full the context window is now. The totals are what the
 * session cost: every assistant answer in the file (all branches), plus usage
 * recorded outside the conversation — `usage` entries, the summaries of
 * compactions and branch summaries, tool results that report usage.
 */
import type { AgentMessage } from "../agent/types.ts";
import type { Model, Usage } from "../ai/types.ts";
import { roundCost } from "../ai/usage.ts";
import { isUsage } from "../session/entry-shapes.ts";
import type { SessionManager } from "../session/session-manager.ts";
import { estimateContextTokens, estimateMessagesTokens } from "./compaction/index.ts";

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
  /**
   * xcsh: the answers' cost by the model that gave them (`provider/id`, as each assistant
   * message names it): a virtual model's requests are priced and listed by the physical
   * model each was routed to. Other usage (summaries, classifiers) is in `cost` only.
   */
  costByModel: Record<string, number>;
  contextUsage?: ContextUsage;
}

export interface StatsInput {
  sessionFile: string | undefined;
  sessionId: string;
  /** Every message recorded in the session (all branches' history up to now). */
  allMessages: AgentMessage[];
  /** Usage recorded outside messages (usage entries, summaries), all branches. */
  otherUsage?: Usage[];
  /** What the model sees now (after compaction). */
  contextMessages: AgentMessage[];
  /** A compaction happened after the last reply: no reply has measured the new context yet. */
  compactedSinceLastReply: boolean;
  /** A context edit came after the last reply: its reported usage describes the context before the edit. */
  editedSinceLastReply?: boolean;
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
    costByModel: {},
    cost: 0,
  };
  const add = (usage: unknown) => {
    // Files come from anywhere: a malformed record must not make every total NaN.
    if (!isUsage(usage)) return;
    stats.tokens.input += usage.input;
    stats.tokens.output += usage.output;
    stats.tokens.cacheRead += usage.cacheRead;
    stats.tokens.cacheWrite += usage.cacheWrite;
    stats.cost = roundCost(stats.cost + usage.cost.total);
  };
  for (const message of input.allMessages) {
    if (message.role === "user") stats.userMessages++;
    else if (message.role === "toolResult") {
      stats.toolResults++;
      add((message as { usage?: unknown }).usage);
    } else if (message.role === "assistant") {
      stats.assistantMessages++;
      if (Array.isArray(message.content)) stats.toolCalls += message.content.filter((block) => block.type === "toolCall").length;
      add(message.usage);
      if (isUsage(message.usage)) {
        const key = `${message.provider}/${message.model}`;
        stats.costByModel[key] = roundCost((stats.costByModel[key] ?? 0) + message.usage.cost.total);
      }
    }
  }
  for (const usage of input.otherUsage ?? []) add(usage);
  const { tokens } = stats;
  tokens.total = tokens.input + tokens.output + tokens.cacheRead + tokens.cacheWrite;
  const contextWindow = input.model?.contextWindow ?? 0;
  if (contextWindow > 0) {
    if (input.compactedSinceLastReply) {
      stats.contextUsage = { tokens: null, contextWindow, percent: null };
    } else {
      const tokens = input.editedSinceLastReply
        ? estimateMessagesTokens(input.contextMessages)
        : estimateContextTokens(input.contextMessages).tokens;
      stats.contextUsage = { tokens, contextWindow, percent: Math.round((tokens / contextWindow) * 1000) / 10 };
    }
  }
  return stats;
}

/** Stats of a session as it stands: every message in its file, and the context the model gets. */
export function sessionStatsOf(sessionManager: SessionManager, contextMessages: AgentMessage[], model: Model): SessionStats {
  const allMessages: AgentMessage[] = [];
  const otherUsage: Usage[] = [];
  for (const entry of sessionManager.getEntries()) {
    if (entry.type === "message") allMessages.push(entry.message);
    else if (entry.type === "usage" || entry.type === "compaction" || entry.type === "branch_summary") {
      if (entry.usage) otherUsage.push(entry.usage);
    }
  }
  const branch = sessionManager.getBranch();
  const lastCompaction = branch.findLastIndex((entry) => entry.type === "compaction");
  const lastReply = branch.findLastIndex((entry) => entry.type === "message" && entry.message.role === "assistant");
  return computeSessionStats({
    sessionFile: sessionManager.getSessionFile(),
    sessionId: sessionManager.getSessionId(),
    allMessages,
    otherUsage,
    contextMessages,
    compactedSinceLastReply: lastCompaction > lastReply,
    editedSinceLastReply: branch.findLastIndex((entry) => entry.type === "context_edit") > lastReply,
    model,
  });
}
