import type { AgentMessage, QueueMode } from "./types.ts";

/**
 * Messages waiting to be delivered to the agent: steering (after the current
 * tool calls) or follow-up (when the agent would stop). "one-at-a-time" hands
 * out one message per delivery point, "all" the whole queue at once.
 */
export class MessageQueue {
  private items: AgentMessage[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly changeListeners = new Set<() => void>();

  constructor(public mode: QueueMode = "one-at-a-time") {}

  enqueue(message: AgentMessage): void {
    this.items.push(message);
    for (const listener of this.listeners) listener();
    this.changed();
  }

  /** Takes the messages due now, per the mode. */
  drain(): AgentMessage[] {
    if (this.items.length === 0) return [];
    const taken = this.mode === "all" ? this.items.splice(0) : this.items.splice(0, 1);
    this.changed();
    return taken;
  }

  clear(): AgentMessage[] {
    const removed = this.items.splice(0);
    if (removed.length > 0) this.changed();
    return removed;
  }

  get length(): number {
    return this.items.length;
  }

  peek(): readonly AgentMessage[] {
    return this.items;
  }

  /** Calls `listener` after every change (queued, delivered, cleared); returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  /** Calls `listener` whenever a message is queued; returns the unsubscribe function. */
  onEnqueue(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
