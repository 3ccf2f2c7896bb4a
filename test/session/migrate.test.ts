import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadEntriesFromFile, migrateSessionEntries, SessionManager, type SessionEntry } from "../../src/session/index.ts";
import { describeMessage, makeTempDir, readJsonLines, userMessage, type TempDir } from "./support/helpers.ts";

const FIXTURES = join(import.meta.dir, "fixtures");
const HEX8 = /^[0-9a-f]{8}$/;

let dir: TempDir;
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => dir.cleanup());

function copyFixture(name: string): string {
  const target = dir.join(name);
  copyFileSync(join(FIXTURES, name), target);
  return target;
}

describe("v1 sessions (linear, no ids)", () => {
  test("entries get unique 8-hex ids chained by parentId, and compaction indexes become ids", () => {
    const fileEntries = loadEntriesFromFile(join(FIXTURES, "v1-session.jsonl"));
    expect(migrateSessionEntries(fileEntries)).toBe(true);
    const [header, ...entries] = fileEntries as [Record<string, unknown>, ...SessionEntry[]];
    expect(header.version).toBe(3);
    expect(entries).toHaveLength(11);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(11);
    entries.forEach((entry, index) => {
      expect(entry.id).toMatch(HEX8);
      expect(entry.parentId).toBe(index === 0 ? null : entries[index - 1].id);
    });
    const compaction = entries.find((entry) => entry.type === "compaction") as unknown as Record<string, unknown>;
    // firstKeptEntryIndex 6 counted file lines from the header: "Summarize the install steps".
    expect(compaction.firstKeptEntryId).toBe(entries[5].id);
    expect(compaction.firstKeptEntryIndex).toBeUndefined();
  });

  test("opening migrates, rebuilds the context, keeps unknown entries, and rewrites the file as v3", () => {
    const file = copyFixture("v1-session.jsonl");
    const session = SessionManager.open(file);
    const context = session.buildSessionContext();
    expect(context.messages.map(describeMessage)).toEqual([
      "compactionSummary: The user asked about the README; it describes a CLI.",
      "user: Summarize the install steps",
      "assistant: Run make install",
      "user: And the tests?",
      "assistant: Run make test",
    ]);
    expect(context.thinkingLevel).toBe("high");
    expect(context.model).toEqual({ provider: "anthropic", modelId: "claude-3-5-sonnet" });
    expect(session.getCwd()).toBe("/work/old-project");

    const lines = readJsonLines(file);
    expect(lines[0]).toMatchObject({ type: "session", version: 3, id: "0c1d2e3f-aaaa-4bbb-8ccc-111111111111" });
    expect(lines.slice(1)).toEqual(session.getEntries() as unknown as Array<Record<string, unknown>>);
    expect(lines.find((line) => line.type === "editor_state")).toMatchObject({ cursor: 12, id: expect.stringMatching(HEX8) });

    // Appends continue the migrated chain, and the file reopens identically.
    const leaf = session.getLeafId();
    const id = session.appendMessage(userMessage("Thanks"));
    expect(session.getEntry(id)?.parentId).toBe(leaf);
    const reopened = SessionManager.open(file);
    expect(reopened.getEntries()).toEqual(session.getEntries());
    expect(reopened.getLoadWarnings()).toEqual([]);
  });
});

describe("v2 sessions (tree)", () => {
  test("the hookMessage role becomes custom; ids, branches and unknown entries are kept", () => {
    const file = copyFixture("v2-session.jsonl");
    const session = SessionManager.open(file);
    const hook = session.getEntry("a0000004");
    expect(hook?.type === "message" && hook.message).toMatchObject({ role: "custom", customType: "style-guide", display: true });
    expect(session.getChildren("a0000004").map((entry) => entry.id)).toEqual(["a0000005", "b0000001"]);
    expect(session.getLeafId()).toBe("b0000003");
    expect(session.getEntry("b0000003")).toMatchObject({ type: "bookmark_v9", note: "from a newer writer" });

    const context = session.buildSessionContext();
    expect(context.messages.map(describeMessage)).toEqual([
      "user: Plan the feature",
      "assistant: Two options: A or B",
      "custom: Remember the style guide",
      "user: Option B",
      "assistant: B is done",
    ]);
    expect(context.model).toEqual({ provider: "openai", modelId: "gpt-4o" });

    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("hookMessage");
    expect(readJsonLines(file)[0].version).toBe(3);
    expect(readJsonLines(file).map((line) => line.id)).toEqual([
      "0c1d2e3f-bbbb-4ccc-8ddd-222222222222",
      "a0000001", "a0000002", "a0000003", "a0000004", "a0000005", "a0000006", "b0000001", "b0000002", "b0000003",
    ]);
  });

  test("a v3 file is neither changed nor rewritten on open", () => {
    const file = copyFixture("v2-session.jsonl");
    SessionManager.open(file);
    const migratedText = readFileSync(file, "utf8");
    const session = SessionManager.open(file);
    expect(readFileSync(file, "utf8")).toBe(migratedText);
    expect(migrateSessionEntries(loadEntriesFromFile(file))).toBe(false);
    expect(session.getEntries()).toHaveLength(9);
  });
});
