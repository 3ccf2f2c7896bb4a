import { describe, expect, test } from "bun:test";
import {
  computeFileLists,
  extractFileOperations,
  formatFileOperations,
  mergeCompactionDetails,
  prepareCompaction,
  stripFileOperations,
} from "../../../src/core/compaction/index.ts";
import { assistantMessage, PathBuilder, textOfTokens, toolCall, toolResult, userMessage } from "./entries.ts";

describe("file operations", () => {
  test("collects files read and modified; a file both read and changed is listed as modified", () => {
    const ops = extractFileOperations([
      userMessage("fix it"),
      assistantMessage([
        toolCall("c1", "read", { path: "src/a.ts" }),
        toolCall("c2", "read", { path: "src/b.ts" }),
        toolCall("c3", "grep", { pattern: "x", path: "src" }),
      ]),
      toolResult("c1", "..."),
      toolResult("c2", "..."),
      toolResult("c3", "...", false, "grep"),
      assistantMessage([toolCall("c4", "edit", { path: "src/a.ts", edits: [] }), toolCall("c5", "write", { path: "NEW.md", content: "#" })]),
      toolResult("c4", "ok", false, "edit"),
      toolResult("c5", "ok", false, "write"),
    ]);
    expect(computeFileLists(ops)).toEqual({ readFiles: ["src/b.ts"], modifiedFiles: ["NEW.md", "src/a.ts"] });
  });

  test("skips calls that failed", () => {
    const ops = extractFileOperations([
      assistantMessage([toolCall("c1", "read", { path: "missing.ts" }), toolCall("c2", "edit", { path: "a.ts", edits: [] })]),
      toolResult("c1", "ENOENT", true),
      toolResult("c2", "no match", true, "edit"),
    ]);
    expect(computeFileLists(ops)).toEqual({ readFiles: [], modifiedFiles: [] });
  });

  test("merges an earlier compaction's lists and ignores details of another shape", () => {
    const ops = extractFileOperations([assistantMessage([toolCall("c1", "read", { path: "old-modified.ts" }), toolCall("c2", "read", { path: "new.ts" })])]);
    mergeCompactionDetails(ops, { readFiles: ["old-read.ts"], modifiedFiles: ["old-modified.ts"] });
    mergeCompactionDetails(ops, { custom: true });
    mergeCompactionDetails(ops, undefined);
    expect(computeFileLists(ops)).toEqual({ readFiles: ["new.ts", "old-read.ts"], modifiedFiles: ["old-modified.ts"] });
  });

  test("formats the lists as tagged blocks that can be stripped again", () => {
    const blocks = formatFileOperations({ readFiles: ["a.ts"], modifiedFiles: ["b.ts", "c.ts"] });
    expect(blocks).toBe("<read-files>\na.ts\n</read-files>\n\n<modified-files>\nb.ts\nc.ts\n</modified-files>");
    expect(formatFileOperations({ readFiles: [], modifiedFiles: [] })).toBe("");
    expect(stripFileOperations(`## Goal\nShip it\n\n${blocks}`)).toBe("## Goal\nShip it");
  });

  test("lists survive repeated compactions", () => {
    const path = new PathBuilder();
    path.user(textOfTokens(100));
    path.assistant([toolCall("c1", "read", { path: "first.ts" })]);
    path.toolResult("c1", textOfTokens(1000));
    path.assistant("read it");
    const kept = path.user(textOfTokens(100));
    path.assistant([toolCall("c2", "write", { path: "second.ts", content: "x" })]);
    path.toolResult("c2", "ok", false, "write");
    path.assistant(textOfTokens(500));
    const settings = { enabled: true, reserveTokens: 1000, keepRecentTokens: 600 };

    const first = prepareCompaction(path.entries, settings)!;
    expect(first.firstKeptEntryId).toBe(kept.id);
    const firstLists = computeFileLists(first.fileOps);
    expect(firstLists).toEqual({ readFiles: ["first.ts"], modifiedFiles: [] });
    path.compaction("first summary", first.firstKeptEntryId, firstLists);

    path.user(textOfTokens(100));
    path.assistant([toolCall("c3", "edit", { path: "third.ts", edits: [] })]);
    path.toolResult("c3", "ok", false, "edit");
    path.assistant("edited");
    path.user(textOfTokens(100));
    path.assistant(textOfTokens(500));
    const second = prepareCompaction(path.entries, settings)!;
    expect(computeFileLists(second.fileOps)).toEqual({ readFiles: ["first.ts"], modifiedFiles: ["second.ts", "third.ts"] });
  });
});
