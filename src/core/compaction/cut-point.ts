/**
 * Where to cut the session path so the newest `keepRecentTokens` stay verbatim
 * and everything older is summarized. The kept part must still be a valid
 * conversation on its own: it never starts with a tool result, and no tool call
 * is separated from its result.
 */
import { messageOfEntry } from "../../session/build-context.ts";
import type { SessionEntry } from "../../session/types.ts";
import { estimateTokens } from "./token-estimate.ts";

function entryTokens(entry: SessionEntry): number {
  const message = messageOfEntry(entry);
  return message ? estimateTokens(message) : 0;
}

/**
 * Entries the LLM receives as user-side input. A kept region starting at one of
 * these reads naturally; one starting at an assistant message is mid-turn.
 */
function startsTurn(entry: SessionEntry): boolean {
  const message = messageOfEntry(entry);
  return message !== undefined && message.role !== "assistant" && message.role !== "toolResult";
}

function isCutCandidate(entry: SessionEntry): boolean {
  const message = messageOfEntry(entry);
  return message !== undefined && message.role !== "toolResult";
}

/**
 * Indices in (assistant, its last tool result] for every tool exchange: a cut
 * there would leave a tool call without its result or the other way round.
 * Exchanges that began before `startIndex` count too.
 */
function indicesInsideToolExchanges(entries: SessionEntry[], endIndex: number): Set<number> {
  const callOwner = new Map<string, number>();
  const inside = new Set<number>();
  for (let i = 0; i < endIndex; i++) {
    const message = messageOfEntry(entries[i]);
    if (message?.role === "assistant") {
      for (const block of message.content) if (block.type === "toolCall") callOwner.set(block.id, i);
    } else if (message?.role === "toolResult") {
      const owner = callOwner.get(message.toolCallId);
      if (owner !== undefined) for (let j = owner + 1; j <= i; j++) inside.add(j);
    }
  }
  return inside;
}

/** Indices in [startIndex, endIndex) where the kept region may begin, ascending. */
export function findValidCutPoints(entries: SessionEntry[], startIndex: number, endIndex: number): number[] {
  const inside = indicesInsideToolExchanges(entries, endIndex);
  const points: number[] = [];
  for (let i = startIndex; i < endIndex; i++) {
    if (isCutCandidate(entries[i]) && !inside.has(i)) points.push(i);
  }
  return points;
}

/** The user-side entry that began the turn containing `index`, or -1 if it lies before `startIndex`. */
export function findTurnStartIndex(entries: SessionEntry[], index: number, startIndex: number): number {
  for (let i = index; i >= startIndex; i--) if (startsTurn(entries[i])) return i;
  return -1;
}

export interface CutPoint {
  /** First entry kept verbatim. Equal to startIndex when everything fits. */
  firstKeptEntryIndex: number;
  /** When the cut splits a turn: the entry that began it; otherwise -1. */
  turnStartIndex: number;
  /** The cut lands on an assistant message in the middle of a turn. */
  isSplitTurn: boolean;
}

/**
 * Walks back from the newest entry, adding estimated tokens until at least
 * `keepRecentTokens` are kept, then cuts at the nearest valid point at or before
 * that entry — so the kept region never falls short of the budget.
 */
export function findCutPoint(
  entries: SessionEntry[],
  startIndex: number,
  endIndex: number,
  keepRecentTokens: number,
): CutPoint {
  const noCut: CutPoint = { firstKeptEntryIndex: startIndex, turnStartIndex: -1, isSplitTurn: false };
  const cutPoints = findValidCutPoints(entries, startIndex, endIndex);
  if (cutPoints.length === 0) return noCut;

  let accumulated = 0;
  let budgetReachedAt = -1;
  for (let i = endIndex - 1; i >= startIndex; i--) {
    accumulated += entryTokens(entries[i]);
    if (accumulated >= keepRecentTokens) {
      budgetReachedAt = i;
      break;
    }
  }
  if (budgetReachedAt < 0) return noCut;

  const cutIndex = cutPoints.findLast((point) => point <= budgetReachedAt);
  if (cutIndex === undefined) return noCut;

  const cutMessage = messageOfEntry(entries[cutIndex]);
  if (cutMessage?.role !== "assistant") return { firstKeptEntryIndex: cutIndex, turnStartIndex: -1, isSplitTurn: false };
  const turnStartIndex = findTurnStartIndex(entries, cutIndex - 1, startIndex);
  return { firstKeptEntryIndex: cutIndex, turnStartIndex, isSplitTurn: turnStartIndex >= 0 };
}
