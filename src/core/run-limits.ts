/**
 * Limits on one headless run (`--max-turns`, `--max-cost`, `--timeout`,
 * `--idle-timeout`) and the meter they read: turns, token usage and cost.
 * A limit stops the run the way an interrupt does — the agent is aborted and the
 * session keeps every entry written so far — and is remembered as the run's outcome.
 * Turn and cost limits act between turns, before the next model request, so the
 * tool calls of the last allowed turn finish and the session stays resumable.
 */
import type { AssistantMessage, Usage } from "../ai/types.ts";
import { emptyUsage, roundCost } from "../ai/usage.ts";
import type { AgentSession } from "./agent-session.ts";

export interface RunLimitOptions {
  maxTurns?: number;
  maxCostUsd?: number;
  timeoutMs?: number;
  idleTimeoutMs?: number;
}

export type RunLimitReason = "max_turns" | "max_cost" | "timeout" | "idle_timeout";

/** The message a user reads on stderr when a limit stopped the run. */
export function describeLimit(reason: RunLimitReason, limits: RunLimitOptions): string {
  switch (reason) {
    case "max_turns":
      return `stopped after ${limits.maxTurns} turns (--max-turns)`;
    case "max_cost":
      return `stopped at a cost of $${limits.maxCostUsd} or more (--max-cost)`;
    case "timeout":
      return `stopped after ${(limits.timeoutMs ?? 0) / 1000}s (--timeout)`;
    case "idle_timeout":
      return `stopped: no event from the model or a tool for ${(limits.idleTimeoutMs ?? 0) / 1000}s (--idle-timeout)`;
  }
}

function addUsage(total: Usage, usage: Usage): void {
  total.input += usage.input;
  total.output += usage.output;
  total.cacheRead += usage.cacheRead;
  total.cacheWrite += usage.cacheWrite;
  total.totalTokens += usage.totalTokens;
  // Sums of doubles gather noise (0.1 + 0.2): rounded, so the envelope shows what was spent.
  total.cost.input = roundCost(total.cost.input + usage.cost.input);
  total.cost.output = roundCost(total.cost.output + usage.cost.output);
  total.cost.cacheRead = roundCost(total.cost.cacheRead + usage.cost.cacheRead);
  total.cost.cacheWrite = roundCost(total.cost.cacheWrite + usage.cost.cacheWrite);
  total.cost.total = roundCost(total.cost.total + usage.cost.total);
}

export class RunMeter {
  /** Model responses received (one per turn, retried attempts included). */
  turns = 0;
  readonly usage = emptyUsage();
  /** The limit that stopped the run, if one did. */
  reached: RunLimitReason | undefined;
  private readonly timers: ReturnType<typeof setTimeout>[] = [];
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly session: AgentSession,
    private readonly limits: RunLimitOptions,
  ) {}

  get costUsd(): number {
    return this.usage.cost.total;
  }

  /** Starts counting and the clocks; call right before the prompt. */
  start(): void {
    this.unsubscribe = this.session.subscribe((event) => {
      this.touch();
      if (event.type === "message_end" && event.message.role === "assistant") {
        addUsage(this.usage, (event.message as AssistantMessage).usage);
      } else if (event.type === "turn_start") {
        // A retry after the last allowed turn would be one more model request.
        if (this.limits.maxTurns !== undefined && this.turns >= this.limits.maxTurns) this.stop("max_turns");
      } else if (event.type === "turn_end") {
        this.turns++;
        const message = event.message as AssistantMessage;
        const continues = message.role === "assistant" && message.content.some((block) => block.type === "toolCall");
        if (!continues) return;
        if (this.limits.maxTurns !== undefined && this.turns >= this.limits.maxTurns) this.stop("max_turns");
        else if (this.limits.maxCostUsd !== undefined && this.costUsd >= this.limits.maxCostUsd) this.stop("max_cost");
      } else if (event.type === "auto_retry_start") {
        // Waiting out a retry's backoff is not idleness.
        this.touch(event.delayMs);
      }
    });
    if (this.limits.timeoutMs !== undefined) this.timers.push(setTimeout(() => this.stop("timeout"), this.limits.timeoutMs));
    this.touch();
  }

  /** Stops the clocks and the counting; the run is over. */
  finish(): void {
    this.stopClocks();
    this.unsubscribe?.();
  }

  private stopClocks(): void {
    for (const timer of this.timers) clearTimeout(timer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** Something happened: the idle clock starts again (after `graceMs` more, for a known wait). */
  private touch(graceMs = 0): void {
    if (this.limits.idleTimeoutMs === undefined || this.reached) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.stop("idle_timeout"), this.limits.idleTimeoutMs + graceMs);
  }

  private stop(reason: RunLimitReason): void {
    if (this.reached) return;
    this.reached = reason;
    // The aborted response is still counted: its tokens were paid for.
    this.stopClocks();
    // Synchronously, so a loop between turns sees the abort before it asks the model again;
    // session.abort() then stops a retry wait or compaction as well.
    this.session.agent.abort();
    void this.session.abort();
  }
}
