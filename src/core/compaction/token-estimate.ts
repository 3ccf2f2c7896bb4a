/**
 * How full the context window is, and whether it is time to compact. Exact
 * counts come from the provider's usage report on the last assistant message;
 * anything said since is estimated with a cheap characters/4 heuristic, which
 * overestimates slightly for code — the safe direction for a "do we fit" check.
 */
import type { ImageContent, TextContent, Usage } from "../../ai/types.ts";
// The app's message roles (bashExecution, custom, summaries) join AgentMessage there.
import "../../agent/messages.ts";
import type { AgentMessage } from "../../agent/types.ts";
import type { SessionEntry } from "../../session/types.ts";

export interface CompactionSettings {
  /** Compact automatically when the context nears the window. Manual /compact works either way. */
  enabled: boolean;
  /** Room left free for the model's answer (and the summary call's own output). */
  reserveTokens: number;
  /** Recent conversation kept verbatim after compaction. */
  keepRecentTokens: number;
  /** Old tool output among the kept messages goes out trimmed (kept-tool-results.ts); default true. */
  trimToolResults?: boolean;
}

export const DEFAULT_COMPACTION_SETTINGS: CompactionSettings = {
  enabled: true,
  reserveTokens: 16384,
  keepRecentTokens: 20000,
};

const CHARS_PER_TOKEN = 4;
/** Providers bill an image at roughly this many tokens, whatever its byte size. */
export const IMAGE_TOKEN_ESTIMATE = 1200;

/** Tokens the context held when the provider answered: everything it read plus what it wrote. */
export function calculateContextTokens(usage: Usage): number {
  const sum = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  return usage.totalTokens > 0 ? usage.totalTokens : sum;
}

function tokensOfChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

function contentTokens(content: string | (TextContent | ImageContent)[]): number {
  if (typeof content === "string") return tokensOfChars(content.length);
  let chars = 0;
  let images = 0;
  for (const block of content) {
    if (block.type === "text") chars += block.text.length;
    else if (block.type === "image") images++;
  }
  return tokensOfChars(chars) + images * IMAGE_TOKEN_ESTIMATE;
}

/** A rough token count for one message as the LLM would see it. */
export function estimateTokens(message: AgentMessage): number {
  switch (message.role) {
    case "user":
      return contentTokens(message.content);
    case "assistant": {
      let chars = 0;
      for (const block of message.content) {
        if (block.type === "text") chars += block.text.length;
        else if (block.type === "thinking") chars += block.thinking.length;
        else if (block.type === "toolCall") chars += block.name.length + JSON.stringify(block.arguments ?? {}).length;
      }
      return tokensOfChars(chars);
    }
    case "toolResult":
      return contentTokens(message.content);
    case "bashExecution":
      return message.excludeFromContext ? 0 : tokensOfChars(message.command.length + message.output.length);
    case "custom":
      return contentTokens(message.content);
    case "branchSummary":
    case "compactionSummary":
      return tokensOfChars(message.summary.length);
    default:
      return 0;
  }
}

/** The heuristic size of a list of messages, ignoring any usage they report. */
export function estimateMessagesTokens(messages: readonly AgentMessage[]): number {
  return messages.reduce((sum, message) => sum + estimateTokens(message), 0);
}

/** An assistant answer whose usage describes the context it was given. */
function reportedContextTokens(message: AgentMessage): number | undefined {
  if (message.role !== "assistant") return undefined;
  // Failed and aborted answers carry no (or partial) usage.
  if (message.stopReason === "error" || message.stopReason === "aborted") return undefined;
  if (!message.usage) return undefined;
  const tokens = calculateContextTokens(message.usage);
  return tokens > 0 ? tokens : undefined;
}

export interface ContextTokenEstimate {
  /** usageTokens + trailingTokens */
  tokens: number;
  /** What the provider reported for the last successful answer (0 when none has). */
  usageTokens: number;
  /** Estimate for the messages after that answer (all messages when none has usage). */
  trailingTokens: number;
  /** Index of the message whose usage was used, or null. */
  lastUsageIndex: number | null;
}

export function estimateContextTokens(messages: AgentMessage[]): ContextTokenEstimate {
  let lastUsageIndex: number | null = null;
  let usageTokens = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const reported = reportedContextTokens(messages[i]);
    if (reported !== undefined) {
      lastUsageIndex = i;
      usageTokens = reported;
      break;
    }
  }
  let trailingTokens = 0;
  for (let i = lastUsageIndex === null ? 0 : lastUsageIndex + 1; i < messages.length; i++) {
    trailingTokens += estimateTokens(messages[i]);
  }
  return { tokens: usageTokens + trailingTokens, usageTokens, trailingTokens, lastUsageIndex };
}

/**
 * Usage of the newest successful assistant answer on the path. Answers from
 * before the latest compaction are ignored: their usage describes a context that
 * no longer exists, and would make compaction fire again at once.
 */
export function getLastAssistantUsage(entries: SessionEntry[]): Usage | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    if (entry.type === "compaction") return undefined;
    if (entry.type !== "message" || entry.message.role !== "assistant") continue;
    if (reportedContextTokens(entry.message) !== undefined) return entry.message.usage;
  }
  return undefined;
}

/**
 * The reserve can take at most this share of the window. The default reserve
 * (16384) is sized for windows of 64k and more, which it leaves unchanged; in an
 * 8k window it would leave no room at all, and every answer would trigger a
 * compaction.
 */
export const MAX_RESERVE_SHARE = 0.25;

/** The room actually held back for the answer in a window of this size: the configured reserve, capped at a quarter of the window. */
export function effectiveReserveTokens(reserveTokens: number, contextWindow: number | undefined): number {
  if (!contextWindow || contextWindow <= 0) return reserveTokens;
  return Math.min(reserveTokens, Math.floor(contextWindow * MAX_RESERVE_SHARE));
}

/**
 * The most a compaction keeps verbatim in a window of this size: half of what
 * the reserve leaves, so the summary, the system prompt and the next answer fit
 * beside it. Undefined when the window is unknown.
 */
export function keptTokensLimit(settings: CompactionSettings, contextWindow: number | undefined): number | undefined {
  if (!contextWindow || contextWindow <= 0) return undefined;
  return Math.max(0, Math.floor((contextWindow - effectiveReserveTokens(settings.reserveTokens, contextWindow)) / 2));
}

/** Time to compact: the context has grown into the (effective) reserve. */
export function shouldCompact(contextTokens: number, contextWindow: number, settings: CompactionSettings): boolean {
  return settings.enabled && contextTokens > contextWindow - effectiveReserveTokens(settings.reserveTokens, contextWindow);
}
