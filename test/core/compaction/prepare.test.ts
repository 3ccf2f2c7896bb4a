import { describe, expect, test } from "bun:test";
import { createCompactionSummaryMessage } from "../../../src/agent/messages.ts";
import { estimateTokens, prepareCompaction, type CompactionPreparation } from "../../../src/core/compaction/index.ts";
import type { SessionMessageEntry } from "../../../src/session/types.ts";
import { PathBuilder, textOfTokens, toolCall, usage } from "./entries.ts";

const settings = { enabled: true, reserveTokens: 2000, keepRecentTokens: 1000 };

function messagesOf(entries: SessionMessageEntry[]) {
  return entries.map((entry) => entry.message);
}

describe("prepareCompaction", () => {
  test("has nothing to do only for an empty path, a path ending in a compaction, or a single message", () => {
    expect(prepareCompaction([], settings)).toBeUndefined();

    const path = new PathBuilder();
    path.user(textOfTokens(300));
    expect(prepareCompaction(path.entries, settings)).toBeUndefined();
    path.assistant(textOfTokens(300));
    expect(prepareCompaction(path.entries, settings)).toBeDefined();

    const first = path.entries[0];
    path.user(textOfTokens(3000));
    path.compaction("summary", first.id);
    expect(prepareCompaction(path.entries, settings)).toBeUndefined();
  });

  test("a conversation shorter than keepRecentTokens keeps only its latest turn and summarizes the rest", () => {
    const path = new PathBuilder();
    const old = [path.user("first question"), path.assistant("first answer")];
    const kept = path.user("second question");
    path.assistant("second answer");

    const preparation = prepareCompaction(path.entries, settings)!;
    expect(preparation.firstKeptEntryId).toBe(kept.id);
    expect(preparation.messagesToSummarize).toEqual(messagesOf(old));
    expect(preparation.isSplitTurn).toBe(false);
  });

  test("a one-turn conversation is split: as much of its end as fits is kept, its beginning summarized", () => {
    const path = new PathBuilder();
    const prompt = path.user("fix the build");
    const kept = path.assistant([toolCall("c1", "bash", { command: "make" })]);
    path.toolResult("c1", "ok", false, "bash");
    path.assistant("fixed");

    const preparation = prepareCompaction(path.entries, settings)!;
    expect(preparation.isSplitTurn).toBe(true);
    expect(preparation.firstKeptEntryId).toBe(kept.id);
    expect(preparation.messagesToSummarize).toEqual([]);
    expect(preparation.turnPrefixMessages).toEqual(messagesOf([prompt]));
  });

  test("a failed reply after the only prompt is kept and the prompt summarized, so an overflow can be retried", () => {
    const path = new PathBuilder();
    const prompt = path.user(textOfTokens(9000));
    const failed = path.assistant([], { stopReason: "error", errorMessage: "prompt is too long" });

    const preparation = prepareCompaction(path.entries, settings, 8000)!;
    expect(preparation.firstKeptEntryId).toBe(failed.id);
    expect(preparation.turnPrefixMessages).toEqual(messagesOf([prompt]));
  });

  test("in a small window the kept part is at most half of what the reserve leaves, splitting the latest turn", () => {
    // Window 8000: the reserve is capped at 2000, so at most (8000 - 2000) / 2 = 3000 tokens stay verbatim.
    const path = new PathBuilder();
    const history = [path.user(textOfTokens(500)), path.assistant(textOfTokens(500))];
    const prefix = [
      path.user("read both files"),
      path.assistant([toolCall("c1", "read", { path: "a.ts" })]),
      path.toolResult("c1", textOfTokens(2500)),
    ];
    const kept = path.assistant([toolCall("c2", "read", { path: "b.ts" })]);
    path.toolResult("c2", textOfTokens(2500));
    path.assistant("both read");

    const small = { enabled: true, reserveTokens: 16_384, keepRecentTokens: 20_000 };
    const preparation = prepareCompaction(path.entries, small, 8000)!;
    expect(preparation.isSplitTurn).toBe(true);
    expect(preparation.firstKeptEntryId).toBe(kept.id);
    expect(preparation.messagesToSummarize).toEqual(messagesOf(history));
    expect(preparation.turnPrefixMessages).toEqual(messagesOf(prefix));

    // In a large window the whole latest turn fits.
    const large = prepareCompaction(path.entries, small, 200_000)!;
    expect(large.firstKeptEntryId).toBe(prefix[0].id);
    expect(large.messagesToSummarize).toEqual(messagesOf(history));
  });

  test("a small window caps keepRecentTokens for a long conversation too", () => {
    const path = new PathBuilder();
    for (let i = 0; i < 15; i++) {
      path.user(textOfTokens(1000));
      path.assistant(textOfTokens(1000));
    }
    const big = { enabled: true, reserveTokens: 16_384, keepRecentTokens: 20_000 };
    const keptMessages = (preparation: CompactionPreparation) =>
      path.entries.length - path.entries.findIndex((entry) => entry.id === preparation.firstKeptEntryId);
    // 16k window: reserve 4096, so at most (16384 - 4096) / 2 = 6144 tokens stay: six messages.
    expect(keptMessages(prepareCompaction(path.entries, big, 16_384)!)).toBe(6);
    // Without a window, or in a large one, keepRecentTokens decides: twenty messages.
    expect(keptMessages(prepareCompaction(path.entries, big)!)).toBe(20);
    expect(keptMessages(prepareCompaction(path.entries, big, 200_000)!)).toBe(20);
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
