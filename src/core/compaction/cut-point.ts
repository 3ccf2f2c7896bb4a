/**
 * Where to cut the session path so the newest `keepRecentTokens` stay verbatim
 * and everything older is summarized. The kept part must still be a valid
 * conversation on its own: it never starts with a tool result, and no tool call
 * is separated from its result. When the budget would keep the whole
 * conversation, `findFallbackCutPoint` keeps less (the latest turn, or part of
 * it) so a compaction always has something to summarize.
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
  return cutAt(entries, cutIndex, startIndex);
}

/** A cut at a valid point; at an assistant message it splits the turn that message belongs to. */
function cutAt(entries: SessionEntry[], cutIndex: number, startIndex: number): CutPoint {
  const cutMessage = messageOfEntry(entries[cutIndex]);
  if (cutMessage?.role !== "assistant") return { firstKeptEntryIndex: cutIndex, turnStartIndex: -1, isSplitTurn: false };
  const turnStartIndex = findTurnStartIndex(entries, cutIndex - 1, startIndex);
  return { firstKeptEntryIndex: cutIndex, turnStartIndex, isSplitTurn: turnStartIndex >= 0 };
}

/** Estimated tokens of the entries in [index, endIndex): what a cut at `index` keeps. */
export function tokensKeptFrom(entries: SessionEntry[], index: number, endIndex: number): number {
  let total = 0;
  for (let i = index; i < endIndex; i++) total += entryTokens(entries[i]);
  return total;
}

/**
 * The earliest valid cut at or after `notBefore` that keeps at most
 * `maxKeptTokens` — or, when none does, the latest valid cut, which keeps the
 * least the conversation allows. At least one message before the cut is always
 * left to summarize; undefined when there is none to leave.
 */
export function findCutWithin(
  entries: SessionEntry[],
  startIndex: number,
  endIndex: number,
  maxKeptTokens: number,
  notBefore = startIndex,
): CutPoint | undefined {
  let firstMessageIndex = -1;
  for (let i = startIndex; i < endIndex && firstMessageIndex < 0; i++) if (messageOfEntry(entries[i])) firstMessageIndex = i;
  if (firstMessageIndex < 0) return undefined;

  const candidates = findValidCutPoints(entries, Math.max(firstMessageIndex + 1, notBefore), endIndex);
  if (candidates.length === 0) return undefined;

  // Tokens kept by cutting at each candidate, from the newest back.
  const kept = new Map<number, number>();
  let accumulated = 0;
  for (let i = endIndex - 1, c = candidates.length - 1; c >= 0; i--) {
    accumulated += entryTokens(entries[i]);
    if (i === candidates[c]) kept.set(candidates[c--], accumulated);
  }
  const cutIndex = candidates.find((point) => kept.get(point)! <= maxKeptTokens) ?? candidates[candidates.length - 1];
  return cutAt(entries, cutIndex, startIndex);
}

/**
 * The cut for a conversation the token budget would keep whole, as a small
 * window or a short session does: keep only the latest turn, or — when that
 * turn holds more than `maxKeptTokens`, or is the whole conversation — the
 * longest tail of it that fits, cut at an assistant message (at least the last
 * one, whatever its size). Undefined when there is nothing before the cut to
 * summarize (a single message).
 */
export function findFallbackCutPoint(
  entries: SessionEntry[],
  startIndex: number,
  endIndex: number,
  maxKeptTokens = Number.POSITIVE_INFINITY,
): CutPoint | undefined {
  const latestTurnStart = findTurnStartIndex(entries, endIndex - 1, startIndex);
  return findCutWithin(entries, startIndex, endIndex, maxKeptTokens, Math.max(startIndex, latestTurnStart));
}
