/**
 * What a fresh session file opens with, just before its first entry: pi (0.87.1 and 1.6.0)
 * starts every session file with the model and thinking level in use, so a reader of the
 * file knows them before any message names them. The session manager asks whoever knows
 * the model (setOpening) at the moment the first entry is written.
 */
import type { ModelChangeEntry, SessionEntry, ThinkingLevelChangeEntry } from "./types.ts";

export interface OpeningState {
  provider: string;
  modelId: string;
  thinkingLevel: string;
}

type EntryBase = <K extends string>(type: K, parentId: string | null) => { type: K; id: string; parentId: string | null; timestamp: string };

/**
 * The two opening entries, chained from the root, then `first` re-chained after them. Each is
 * handed to `add` (written and indexed) before the next is made, so `base` can give each an
 * id unused so far. Returns the id of the last opening entry, `first`'s new parent.
 */
export function writeOpeningEntries(state: OpeningState, first: SessionEntry, base: EntryBase, add: (entry: SessionEntry) => void): string {
  const model: ModelChangeEntry = { ...base("model_change", null), provider: state.provider, modelId: state.modelId };
  add(model);
  const level: ThinkingLevelChangeEntry = { ...base("thinking_level_change", model.id), thinkingLevel: state.thinkingLevel };
  add(level);
  first.parentId = level.id;
  return level.id;
}
