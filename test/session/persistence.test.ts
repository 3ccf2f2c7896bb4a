/**
 * What reaches the disk: every entry type round-trips through a file, the file
 * appears only with the first entry, and damage from crashes or strangers'
 * files is handled without losing entries or pretending a session is empty.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { SessionFileError, SessionManager } from "../../src/session/index.ts";
import type { BashExecutionMessage } from "../../src/agent/messages.ts";
import {
  assistantMessage,
  makeTempDir,
  readJsonLines,
  toolResultMessage,
  userMessage,
  type TempDir,
} from "./support/helpers.ts";

let dir: TempDir;
beforeEach(() => {
  dir = makeTempDir();
});
afterEach(() => dir.cleanup());

const bashRun: BashExecutionMessage = {
  role: "bashExecution",
  command: "ls",
  output: "a\nb\n",
  exitCode: 0,
  cancelled: false,
  truncated: false,
  timestamp: 1_700_000_500_000,
};

/** A session holding one entry of every type. */
function writeEveryEntryType(session: SessionManager): string[] {
  const user = session.appendMessage(userMessage("hello"));
  return [
    user,
    session.appendMessage(assistantMessage("hi")),
    session.appendMessage(toolResultMessage("output")),
    session.appendMessage(bashRun),
    session.appendMessage({ role: "custom", customType: "note", content: "injected", display: false, timestamp: 1 }),
    session.appendThinkingLevelChange("high"),
    session.appendModelChange("openai", "gpt-4o"),
    session.appendCompaction("summary so far", user, 5000, { readFiles: ["a.ts"], modifiedFiles: [] }, true),
    session.appendCustomEntry("my-extension", { count: 42 }),
    session.appendCustomMessageEntry("my-extension", [{ type: "text", text: "context" }], true, { source: "x" }),
    session.appendLabelChange(user, "checkpoint-1"),
    session.appendSessionInfo("Refactor auth module"),
    session.branchWithSummary(user, "explored approach A", { readFiles: [], modifiedFiles: ["b.ts"] }),
  ];
}

describe("round trip", () => {
  test("every entry type is written as one line and reloads identically", () => {
    const session = SessionManager.create("/home/u/project", dir.path);
    const ids = writeEveryEntryType(session);
    const file = session.getSessionFile()!;

    const lines = readJsonLines(file);
    expect(lines[0]).toEqual({ ...session.getHeader() } as unknown as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: "session", version: 3, cwd: "/home/u/project" });
    expect(lines.slice(1).map((line) => line.id)).toEqual(ids);
    expect(lines.slice(1).map((line) => line.type)).toEqual([
      "message", "message", "message", "message", "message",
      "thinking_level_change", "model_change", "compaction", "custom", "custom_message",
      "label", "session_info", "branch_summary",
    ]);
    for (const line of lines.slice(1)) {
      expect(line.id).toMatch(/^[0-9a-f]{8}$/);
      expect(typeof line.timestamp).toBe("string");
    }

    const reopened = SessionManager.open(file);
    expect(reopened.getHeader()).toEqual(session.getHeader());
    expect(reopened.getEntries()).toEqual(session.getEntries());
    expect(reopened.getLabel(ids[0])).toBe("checkpoint-1");
    expect(reopened.getSessionName()).toBe("Refactor auth module");
    expect(reopened.getLeafId()).toBe(ids[ids.length - 1]);
    expect(reopened.getLoadWarnings()).toEqual([]);
  });

  test("entries keep the spec's field names", () => {
    const session = SessionManager.create("/p", dir.path);
    const ids = writeEveryEntryType(session);
    const byId = new Map(readJsonLines(session.getSessionFile()!).map((line) => [line.id, line]));
    expect(byId.get(ids[7])).toMatchObject({ summary: "summary so far", firstKeptEntryId: ids[0], tokensBefore: 5000, fromHook: true });
    expect(byId.get(ids[8])).toMatchObject({ customType: "my-extension", data: { count: 42 } });
    expect(byId.get(ids[9])).toMatchObject({ customType: "my-extension", display: true, details: { source: "x" } });
    expect(byId.get(ids[10])).toMatchObject({ targetId: ids[0], label: "checkpoint-1" });
    expect(byId.get(ids[11])).toMatchObject({ name: "Refactor auth module" });
    expect(byId.get(ids[12])).toMatchObject({ parentId: ids[0], fromId: ids[11], summary: "explored approach A" });
    expect(byId.get(ids[6])).toMatchObject({ provider: "openai", modelId: "gpt-4o" });
    expect(byId.get(ids[5])).toMatchObject({ thinkingLevel: "high" });
  });

  test("compaction and branch summaries cannot be appended as plain messages", () => {
    const session = SessionManager.inMemory();
    expect(() => session.appendMessage({ role: "compactionSummary", summary: "s", tokensBefore: 1, timestamp: 1 })).toThrow(
      /appendCompaction/,
    );
    expect(() => session.appendMessage({ role: "branchSummary", summary: "s", fromId: "x", timestamp: 1 })).toThrow(
      /branchWithSummary/,
    );
    expect(session.getEntries()).toEqual([]);
  });
});

describe("file creation", () => {
  test("the file appears, with its header, only when the first entry is appended", () => {
    const session = SessionManager.create("/p", dir.join("sessions"));
    const file = session.getSessionFile()!;
    expect(session.isPersisted()).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(dir.join("sessions"))).toBe(false);
    session.appendModelChange("fake", "m");
    expect(readJsonLines(file).map((line) => line.type)).toEqual(["session", "model_change"]);
  });

  test("file name is <timestamp>_<session id>.jsonl in the project's folder", () => {
    const session = SessionManager.create("/home/u/p", dir.path);
    const header = session.getHeader();
    expect(session.getSessionFile()).toBe(`${dir.path}/${header.timestamp.replace(/[:.]/g, "-")}_${header.id}.jsonl`);
    expect(header.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  test("an in-memory session writes nothing", () => {
    const session = SessionManager.inMemory("/p");
    session.appendMessage(userMessage("hi"));
    expect(session.isPersisted()).toBe(false);
    expect(session.getSessionFile()).toBeUndefined();
    expect(session.getEntries()).toHaveLength(1);
  });

  test("opening a path that does not exist starts a session written there", () => {
    const file = dir.join("new.jsonl");
    const session = SessionManager.open(file);
    expect(session.getEntries()).toEqual([]);
    expect(existsSync(file)).toBe(false);
    session.appendMessage(userMessage("first"));
    expect(SessionManager.open(file).getEntries()).toEqual(session.getEntries());
  });

  test("an empty file is started afresh with the header on the first append", () => {
    const file = dir.join("empty.jsonl");
    writeFileSync(file, "");
    const session = SessionManager.open(file);
    expect(session.getEntries()).toEqual([]);
    session.appendMessage(userMessage("first"));
    expect(readJsonLines(file).map((line) => line.type)).toEqual(["session", "message"]);
  });
});

describe("damage", () => {
  function sessionWithThreeEntries(): { file: string; ids: string[] } {
    const session = SessionManager.create("/p", dir.path);
    const ids = [
      session.appendMessage(userMessage("one")),
      session.appendMessage(assistantMessage("two")),
      session.appendMessage(userMessage("three")),
    ];
    return { file: session.getSessionFile()!, ids };
  }

  test("a torn last line is skipped, cut off (kept in <file>.torn) before the next append, and never left in the middle", () => {
    const { file, ids } = sessionWithThreeEntries();
    const torn = '{"type":"message","id":"deadbeef","parentId":"';
    appendFileSync(file, torn);
    const session = SessionManager.open(file);
    expect(session.getEntries().map((entry) => entry.id)).toEqual(ids);
    expect(session.getLeafId()).toBe(ids[2]);
    expect(session.getLoadWarnings()).toEqual([expect.stringContaining("line 5 is incomplete")]);
    // Only reading leaves the file as it is.
    expect(readFileSync(file, "utf8").endsWith(torn)).toBe(true);

    const added = session.appendMessage(assistantMessage("four"));
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines).toHaveLength(6);
    expect(JSON.parse(lines[4])).toMatchObject({ id: added, parentId: ids[2] });
    expect(readFileSync(`${file}.torn`, "utf8")).toBe(torn + "\n");
    expect(session.getLoadWarnings().at(-1)).toContain(`moved to ${file}.torn`);

    const reopened = SessionManager.open(file);
    expect(reopened.getEntries().map((entry) => entry.id)).toEqual([...ids, added]);
    expect(reopened.getLoadWarnings()).toEqual([]);
  });

  test("a torn line after multi-byte text is cut at the right byte", () => {
    const { file, ids } = sessionWithThreeEntries();
    const session = SessionManager.open(file);
    session.appendMessage(userMessage("naïve — 名前 ✓"));
    appendFileSync(file, '{"type":"message","id":"feedface","parentId":"名');
    const reopened = SessionManager.open(file);
    const added = reopened.appendMessage(assistantMessage("after"));
    expect(SessionManager.open(file).getEntries().map((entry) => entry.id)).toEqual([...ids, expect.any(String), added]);
    expect(readFileSync(`${file}.torn`, "utf8")).toContain("feedface");
  });

  test("a complete last line without its newline is kept, and the next append still starts a fresh line", () => {
    const { file, ids } = sessionWithThreeEntries();
    writeFileSync(file, readFileSync(file, "utf8").replace(/\n$/, ""));
    const session = SessionManager.open(file);
    expect(session.getEntries().map((entry) => entry.id)).toEqual(ids);
    const added = session.appendMessage(userMessage("four"));
    expect(SessionManager.open(file).getEntries().map((entry) => entry.id)).toEqual([...ids, added]);
  });

  test("a corrupt line in the middle is skipped with a visible warning", () => {
    const { file, ids } = sessionWithThreeEntries();
    const lines = readFileSync(file, "utf8").split("\n");
    lines.splice(2, 0, "{not json at all");
    writeFileSync(file, lines.join("\n"));
    const session = SessionManager.open(file);
    expect(session.getEntries().map((entry) => entry.id)).toEqual(ids);
    expect(session.getLoadWarnings()).toEqual([`${file}: line 3 is not valid JSON and was skipped`]);
  });

  test("a first write torn by a crash leaves a file that starts afresh", () => {
    const file = dir.join("torn-header.jsonl");
    writeFileSync(file, '{"type":"session","version":3,"id":"0190');
    const session = SessionManager.open(file);
    expect(session.getEntries()).toEqual([]);
    expect(session.getLoadWarnings()).toEqual([expect.stringContaining("interrupted")]);
    session.appendMessage(userMessage("again"));
    expect(readJsonLines(file).map((line) => line.type)).toEqual(["session", "message"]);
  });
});

describe("unreadable files are errors naming the file", () => {
  test("a file that is not JSONL", () => {
    const file = dir.join("notes.jsonl");
    writeFileSync(file, "Shopping list\n- milk\n");
    expect(() => SessionManager.open(file)).toThrow(SessionFileError);
    expect(() => SessionManager.open(file)).toThrow(`Cannot load session file ${file}: line 1 is not JSON`);
    expect(readFileSync(file, "utf8")).toBe("Shopping list\n- milk\n");
  });

  test("a JSONL file whose first line is not a session header", () => {
    const file = dir.join("other.jsonl");
    writeFileSync(file, '{"type":"message","id":"a1b2c3d4"}\n');
    expect(() => SessionManager.open(file)).toThrow(`${file}: line 1 is not a session header`);
  });

  test("a single line of text that is not a torn header is not mistaken for one", () => {
    const file = dir.join("README");
    writeFileSync(file, "just some text");
    expect(() => SessionManager.open(file)).toThrow(SessionFileError);
    expect(readFileSync(file, "utf8")).toBe("just some text");
  });

  test("a directory", () => {
    const path = dir.join("folder.jsonl");
    mkdirSync(path);
    expect(() => SessionManager.open(path)).toThrow(`Cannot load session file ${path}: it is a directory`);
  });

  test.skipIf(process.getuid?.() === 0)("a file without read permission", () => {
    const file = dir.join("secret.jsonl");
    writeFileSync(file, '{"type":"session","version":3,"id":"x","timestamp":"2024-01-01T00:00:00.000Z","cwd":"/"}\n');
    chmodSync(file, 0o000);
    expect(() => SessionManager.open(file)).toThrow(`Cannot load session file ${file}: permission denied`);
  });
});
