/**
 * Context edits for a transcript that is already in memory. The agent keeps
 * its messages between requests instead of rebuilding them from the file, so
 * an edit appended while a session runs (an extension's `appendContextEdit`)
 * has to reach those messages: each message is remembered with the entry it
 * came from (as the context was built, or as its entry was appended), and
 * `apply` edits the transcript as a reload would.
 *
 * A message the session never saw being built or appended (an extension's
 * custom message before a reload) cannot be matched and stays as it is until
 * the context is next built from the file.
 */
import type { AgentMessage } from "../agent/types.ts";
import { contextEditsOfPath, type ContextMessage } from "./build-context.ts";
import { applyContextEdit } from "./context-edits.ts";
import type { SessionEntry } from "./types.ts";

export class LiveContextEdits {
  private readonly sources = new WeakMap<AgentMessage, string>();

  remember(messages: readonly ContextMessage[]): void {
    for (const { message, sourceId } of messages) this.sources.set(message, sourceId);
  }

  rememberOne(message: AgentMessage, sourceId: string): void {
    this.sources.set(message, sourceId);
  }

  /** Applies the edits of the active `branch` to `messages` in place (the array keeps its identity) and returns it. */
  apply(messages: AgentMessage[], branch: readonly SessionEntry[]): AgentMessage[] {
    const edits = contextEditsOfPath(branch);
    if (edits.size === 0) return messages;
    let kept = 0;
    for (const message of messages) {
      const source = this.sources.get(message);
      const edited = source === undefined ? [message] : applyContextEdit([message], edits.get(source));
      for (const result of edited) {
        if (result !== message) this.sources.set(result, source!);
        messages[kept++] = result;
      }
    }
    messages.length = kept;
    return messages;
  }
}
