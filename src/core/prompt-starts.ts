/**
 * Prompts between their acceptance and the start of their run. In that gap a
 * prompt awaits extensions (`input`, `before_agent_start`), and a second prompt
 * or an abort may arrive: the session counts as working from the first moment,
 * so the second prompt is refused (or queued) rather than both being told
 * they run; an abort waits for the gap to close, then stops the run.
 */
export class PromptStarts {
  private readonly pending = new Set<Promise<void>>();

  /** Prompts accepted whose run has not begun yet. */
  get count(): number {
    return this.pending.size;
  }

  /** Marks a prompt as starting; `end()` when its run has begun or it will not run. */
  begin(): { end(): void } {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.pending.add(promise);
    return {
      end: () => {
        this.pending.delete(promise);
        resolve();
      },
    };
  }

  /** Resolves once no prompt is starting. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.race(this.pending);
  }
}
