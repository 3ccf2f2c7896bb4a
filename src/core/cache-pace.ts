/**
 * The automatic prompt-cache retention. Unless settings' `cacheRetention` (or pi's
 * PI_CACHE_RETENTION) chooses one, requests ask for the providers' short cache
 * (5 minutes): its writes cost least (Anthropic: 1.25× the input price against 2×
 * for an hour). When the session shows it is slower than that — a request finds
 * little of the previous request's prompt in the cache although the conversation
 * only grew (no compaction, no model switch between them) — the rest of the
 * session asks for the long cache (Anthropic 1 hour, OpenAI 24 hours), so each
 * prompt after a pause reads the history at a tenth of the price instead of
 * writing all of it again.
 *
 * The pace is judged from the usage the provider reports, not from a clock: a
 * miss is what costs money, whatever its cause. Providers that never report a
 * cache read are left alone.
 */
import type { AgentMessage } from "../agent/types.ts";
import type { AssistantMessage, CacheRetention } from "../ai/types.ts";

/** Prompts smaller than this are not worth judging (the providers' own minimum is 1,024 tokens). */
const MINIMUM_PROMPT = 2048;

interface Previous {
  model: string;
  promptTokens: number;
  /** The message itself: while it is still in the context, the context only grew since. */
  message: AssistantMessage;
}

export class CachePace {
  private previous: Previous | undefined;
  private sawCacheRead = false;
  private switched = false;

  /**
   * `apply` sets the retention of later requests; it is called once, with "long",
   * when the session turns out to be slow. Inactive when `chosen` is set.
   */
  constructor(
    private readonly chosen: CacheRetention | undefined,
    private readonly apply: (retention: CacheRetention) => void,
  ) {}

  /** The cache was invalidated on purpose (compaction, another thinking level): the next request may miss. */
  contextReplaced(): void {
    this.previous = undefined;
  }

  /**
   * Called with each assistant message as it ends, and the context it belongs to: a
   * context that no longer holds the previous message was replaced (another branch,
   * session or a compaction), and a miss after that says nothing about the pace.
   */
  observe(message: AssistantMessage, context: readonly AgentMessage[]): void {
    if (this.chosen !== undefined || this.switched) return;
    const usage = message.usage;
    if (!usage || message.stopReason === "error" || message.stopReason === "aborted") return;
    const promptTokens = usage.input + usage.cacheRead + usage.cacheWrite;
    const model = `${message.provider}/${message.model}`;
    const before = this.previous;
    if (usage.cacheRead > 0) this.sawCacheRead = true;
    this.previous = { model, promptTokens, message };
    if (!before || before.model !== model || !this.sawCacheRead) return;
    if (context.lastIndexOf(before.message) === -1) return;
    if (before.promptTokens < MINIMUM_PROMPT || promptTokens < before.promptTokens) return;
    if (usage.cacheRead < before.promptTokens / 2) {
      this.switched = true;
      this.apply("long");
    }
  }
}
