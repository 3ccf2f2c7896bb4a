import { describe, expect, test } from "bun:test";
import { createCompactionSummaryMessage } from "../../../src/agent/messages.ts";
import { estimateTokens, prepareCompaction } from "../../../src/core/compaction/index.ts";
import type { SessionMessageEntry } from "../../../src/session/types.ts";
import { PathBuilder, textOfTokens, toolCall, usage } from "./entries.ts";

const settings = { enabled: true, reserveTokens: 2000, keepRecentTokens: 1000 };

function messagesOf(entries: SessionMessageEntry[]) {
  return entries.map((entry) => entry.message);
}

describe("prepareCompaction", () => {
  test("has nothing to do for an empty path, a path ending in a compaction, or a short history", () => {
    expect(prepareCompaction([], settings)).toBeUndefined();

    const path = new PathBuilder();
    path.user(textOfTokens(300));
    path.assistant(textOfTokens(300));
    expect(prepareCompaction(path.entries, settings)).toBeUndefined();

    const first = path.entries[0];
    path.user(textOfTokens(3000));
    path.compaction("summary", first.id);
    expect(prepareCompaction(path.entries, settings)).toBeUndefined();
  });

  test("summarizes whole turns before the cut and keeps the rest", () => {
    const path = new PathBuilder();
    const old = [path.user(textOfTokens(800)), path.assistant(textOfTokens(800), { usage: usage(1700) })];
    path.modelChange();
    const kept = path.user(textOfTokens(600));
    path.assistant(textOfTokens(600), { usage: usage(3000, 100) });
    path.label(kept.id);

    const preparation = prepareCompaction(path.entries, settings)!;
    expect(preparation.firstKeptEntryId).toBe(kept.id);
    expect(preparation.messagesToSummarize).toEqual(messagesOf(old));
    expect(preparation.turnPrefixMessages).toEqual([]);
    expect(preparation.isSplitTurn).toBe(false);
    expect(preparation.previousSummary).toBeUndefined();
    // The newest answer's usage is the size of the context it saw plus its own output.
    expect(preparation.tokensBefore).toBe(3100);
    expect(preparation.settings).toBe(settings);
  });

  test("a split turn puts the turn's beginning in turnPrefixMessages", () => {
    const path = new PathBuilder();
    const history = [path.user(textOfTokens(500)), path.assistant(textOfTokens(500))];
    const prefix = [
      path.user("migrate the database"),
      path.assistant([toolCall("c1", "read", { path: "schema.sql" })]),
      path.toolResult("c1", textOfTokens(2000)),
    ];
    const kept = path.assistant([toolCall("c2", "edit", { path: "schema.sql", edits: [] })]);
    path.toolResult("c2", textOfTokens(1200), false, "edit");
    path.assistant("migrated");

    const preparation = prepareCompaction(path.entries, settings)!;
    expect(preparation.isSplitTurn).toBe(true);
    expect(preparation.firstKeptEntryId).toBe(kept.id);
    expect(preparation.messagesToSummarize).toEqual(messagesOf(history));
    expect(preparation.turnPrefixMessages).toEqual(messagesOf(prefix));
    expect([...preparation.fileOps.read]).toEqual(["schema.sql"]);
  });

  test("a repeated compaction starts at the previous kept entry and updates the previous summary", () => {
    const path = new PathBuilder();
    path.user(textOfTokens(800));
    path.assistant(textOfTokens(800));
    const previouslyKept = [path.user(textOfTokens(400)), path.assistant(textOfTokens(400), { usage: usage(90_000) })];
    const previous = path.compaction("the earlier summary", previouslyKept[0].id);
    const newer = [path.user(textOfTokens(300)), path.assistant(textOfTokens(300))];
    const kept = path.user(textOfTokens(500));
    path.assistant(textOfTokens(500));

    const preparation = prepareCompaction(path.entries, settings)!;
    expect(preparation.previousSummary).toBe("the earlier summary");
    expect(preparation.firstKeptEntryId).toBe(kept.id);
    expect(preparation.messagesToSummarize).toEqual(messagesOf([...previouslyKept, ...newer]));
    // No answer since the compaction reported usage, and the 90k before it describes the
    // context that compaction replaced: everything is estimated.
    const summaryTokens = estimateTokens(createCompactionSummaryMessage(previous.summary, previous.tokensBefore, previous.timestamp));
    expect(preparation.tokensBefore).toBe(summaryTokens + 800 + 600 + 1000);
  });

  test("falls back to the entries after the previous compaction when its kept entry is not on the path", () => {
    const path = new PathBuilder();
    path.user(textOfTokens(800));
    path.assistant(textOfTokens(800));
    path.compaction("summary", "deadbeef");
    const newer = [path.user(textOfTokens(600)), path.assistant(textOfTokens(600))];
    path.user(textOfTokens(500));
    path.assistant(textOfTokens(500));

    const preparation = prepareCompaction(path.entries, settings)!;
    expect(preparation.messagesToSummarize).toEqual(messagesOf(newer));
  });
});
