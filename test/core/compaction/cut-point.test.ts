import { describe, expect, test } from "bun:test";
import type { BashExecutionMessage } from "../../../src/agent/messages.ts";
import {
  estimateTokens,
  findCutPoint,
  findCutWithin,
  findFallbackCutPoint,
  findValidCutPoints,
} from "../../../src/core/compaction/index.ts";
import { messageOfEntry } from "../../../src/session/build-context.ts";
import type { SessionEntry } from "../../../src/session/types.ts";
import { PathBuilder, textOfTokens, toolCall } from "./entries.ts";

/** Two turns with parallel and sequential tool calls, and a non-message entry mid-turn. */
function toolHeavyPath(withNoise = false): SessionEntry[] {
  const path = new PathBuilder();
  path.user(textOfTokens(100, "a"));
  path.assistant([{ type: "text", text: textOfTokens(10) }, toolCall("c1", "read", { path: "a.ts" }), toolCall("c2", "read", { path: "b.ts" })]);
  if (withNoise) path.label("00000001");
  path.toolResult("c1", textOfTokens(500));
  path.toolResult("c2", textOfTokens(500));
  path.assistant(textOfTokens(50, "b"));
  if (withNoise) path.modelChange();
  path.user(textOfTokens(100, "c"));
  path.assistant([toolCall("c3", "bash", { command: "make" })]);
  path.toolResult("c3", textOfTokens(300), false, "bash");
  path.assistant([toolCall("c4", "edit", { path: "a.ts" })]);
  if (withNoise) path.modelChange();
  path.toolResult("c4", textOfTokens(300), false, "edit");
  path.assistant(textOfTokens(50, "d"));
  return path.entries;
}

function tokensFrom(entries: SessionEntry[], start: number): number {
  let total = 0;
  for (let i = start; i < entries.length; i++) {
    const message = messageOfEntry(entries[i]);
    if (message) total += estimateTokens(message);
  }
  return total;
}

function roleAt(entries: SessionEntry[], index: number): string | undefined {
  return messageOfEntry(entries[index])?.role;
}

/** Every tool call before the cut has its result before the cut, and every result after it has its call after it. */
function expectNoSeveredToolExchange(entries: SessionEntry[], cut: number) {
  const callIndex = new Map<string, number>();
  entries.forEach((entry, index) => {
    const message = messageOfEntry(entry);
    if (message?.role === "assistant") for (const block of message.content) if (block.type === "toolCall") callIndex.set(block.id, index);
  });
  entries.forEach((entry, index) => {
    const message = messageOfEntry(entry);
    if (message?.role !== "toolResult") return;
    const call = callIndex.get(message.toolCallId)!;
    expect(call < cut === index < cut).toBe(true);
  });
}

describe("findCutPoint", () => {
  test("for every budget, the cut keeps enough, lands on a valid message and never severs a tool call from its result", () => {
    const entries = toolHeavyPath();
    const total = tokensFrom(entries, 0);
    let previousCut = entries.length;
    let splitCuts = 0;
    for (let keep = 0; keep <= total + 5; keep++) {
      const cut = findCutPoint(entries, 0, entries.length, keep);
      const index = cut.firstKeptEntryIndex;
      expect(roleAt(entries, index)).not.toBe("toolResult");
      expectNoSeveredToolExchange(entries, index);
      if (index > 0) expect(tokensFrom(entries, index)).toBeGreaterThanOrEqual(keep);
      // A bigger budget never keeps less.
      expect(index).toBeLessThanOrEqual(previousCut);
      previousCut = index;

      if (roleAt(entries, index) === "assistant") {
        expect(cut.isSplitTurn).toBe(true);
        expect(roleAt(entries, cut.turnStartIndex)).toBe("user");
        for (let i = cut.turnStartIndex + 1; i < index; i++) expect(roleAt(entries, i)).not.toBe("user");
        splitCuts++;
      } else {
        expect(cut.isSplitTurn).toBe(false);
        expect(cut.turnStartIndex).toBe(-1);
      }
    }
    // The budgets above include some that land mid-turn.
    expect(splitCuts).toBeGreaterThan(0);
    // The whole history fits: nothing is cut.
    expect(findCutPoint(entries, 0, entries.length, total + 1).firstKeptEntryIndex).toBe(0);
  });

  test("cuts at the turn boundary when the budget is reached there", () => {
    const entries = toolHeavyPath();
    // The second turn (user at index 5 onward) holds 100 + 300 + 300 + 50 + small tool calls.
    const secondTurn = tokensFrom(entries, 5);
    const cut = findCutPoint(entries, 0, entries.length, secondTurn);
    expect(cut).toEqual({ firstKeptEntryIndex: 5, turnStartIndex: -1, isSplitTurn: false });
  });

  test("splits a single huge turn at an assistant message, keeping its tool results", () => {
    const path = new PathBuilder();
    path.user("please refactor");
    path.assistant([toolCall("c1", "read", { path: "a.ts" })]);
    path.toolResult("c1", textOfTokens(5000));
    path.assistant([toolCall("c2", "read", { path: "b.ts" })]);
    path.toolResult("c2", textOfTokens(5000));
    path.assistant([toolCall("c3", "edit", { path: "a.ts" })]);
    path.toolResult("c3", textOfTokens(200));
    path.assistant("done");
    const cut = findCutPoint(path.entries, 0, path.entries.length, 1000);
    expect(cut).toEqual({ firstKeptEntryIndex: 3, turnStartIndex: 0, isSplitTurn: true });
  });

  test("non-message entries carry no tokens and do not move the cut", () => {
    const plain = toolHeavyPath(false);
    const noisy = toolHeavyPath(true);
    const idOfMessage = (entries: SessionEntry[], index: number) => JSON.stringify(messageOfEntry(entries[index]));
    for (let keep = 0; keep <= tokensFrom(plain, 0); keep += 25) {
      const a = findCutPoint(plain, 0, plain.length, keep);
      const b = findCutPoint(noisy, 0, noisy.length, keep);
      expect(idOfMessage(noisy, b.firstKeptEntryIndex)).toBe(idOfMessage(plain, a.firstKeptEntryIndex));
      expect(b.isSplitTurn).toBe(a.isSplitTurn);
    }
  });

  test("only entries from startIndex on are candidates", () => {
    const entries = toolHeavyPath();
    const cut = findCutPoint(entries, 5, entries.length, 1_000_000);
    expect(cut.firstKeptEntryIndex).toBe(5);
    expect(findValidCutPoints(entries, 5, entries.length).every((index) => index >= 5)).toBe(true);
  });
});

describe("findCutWithin", () => {
  test("for every limit, keeps the most that fits (or the least possible), always leaving something to summarize", () => {
    const entries = toolHeavyPath();
    const total = tokensFrom(entries, 0);
    const points = findValidCutPoints(entries, 1, entries.length);
    let previousCut = 0;
    for (let limit = total + 5; limit >= 0; limit -= 7) {
      const cut = findCutWithin(entries, 0, entries.length, limit)!;
      const index = cut.firstKeptEntryIndex;
      expect(index).toBeGreaterThan(0);
      expect(points).toContain(index);
      expectNoSeveredToolExchange(entries, index);
      const fits = points.filter((point) => tokensFrom(entries, point) <= limit);
      if (fits.length > 0) expect(index).toBe(fits[0]);
      else expect(index).toBe(points.at(-1)!);
      // A smaller limit never keeps more.
      expect(index).toBeGreaterThanOrEqual(previousCut);
      previousCut = index;
    }
  });

  test("never cuts before notBefore, and has no cut when only one message could be summarized away", () => {
    const entries = toolHeavyPath();
    expect(findCutWithin(entries, 0, entries.length, 0, 5)!.firstKeptEntryIndex).toBe(entries.length - 1);
    expect(findCutWithin(entries, 0, entries.length, 1_000_000, 5)!.firstKeptEntryIndex).toBe(5);

    const single = new PathBuilder();
    single.user("only this");
    single.modelChange();
    expect(findCutWithin(single.entries, 0, single.entries.length, 0)).toBeUndefined();
  });
});

describe("findFallbackCutPoint", () => {
  test("keeps the latest turn when it fits, otherwise splits it", () => {
    const entries = toolHeavyPath();
    const latestTurn = tokensFrom(entries, 5);
    expect(findFallbackCutPoint(entries, 0, entries.length)).toEqual({ firstKeptEntryIndex: 5, turnStartIndex: -1, isSplitTurn: false });
    expect(findFallbackCutPoint(entries, 0, entries.length, latestTurn)!.firstKeptEntryIndex).toBe(5);
    const split = findFallbackCutPoint(entries, 0, entries.length, latestTurn - 1)!;
    expect(split.isSplitTurn).toBe(true);
    expect(split.turnStartIndex).toBe(5);
    expect(roleAt(entries, split.firstKeptEntryIndex)).toBe("assistant");
    expect(tokensFrom(entries, split.firstKeptEntryIndex)).toBeLessThanOrEqual(latestTurn - 1);
  });

  test("splits a conversation that is one turn, keeping at least its last answer", () => {
    const path = new PathBuilder();
    path.user("hi");
    path.assistant(textOfTokens(5000));
    expect(findFallbackCutPoint(path.entries, 0, path.entries.length, 100)).toEqual({ firstKeptEntryIndex: 1, turnStartIndex: 0, isSplitTurn: true });
  });
});

describe("findValidCutPoints", () => {
  test("excludes tool results and anything between a tool call and its result", () => {
    const path = new PathBuilder();
    path.user("go");
    path.assistant([toolCall("c1", "bash", { command: "sleep 1" })]);
    const shell: BashExecutionMessage = {
      role: "bashExecution",
      command: "ls",
      output: "a",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: 5,
    };
    path.message(shell);
    path.toolResult("c1", "slept");
    path.message({ ...shell, timestamp: 6 });
    path.assistant("done");
    path.modelChange();
    expect(findValidCutPoints(path.entries, 0, path.entries.length)).toEqual([0, 1, 4, 5]);
  });
});
