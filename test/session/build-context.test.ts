import { describe, expect, test } from "bun:test";
import { buildSessionContext, getLatestCompactionEntry, SessionManager } from "../../src/session/index.ts";
import { assistantMessage, describeMessage, toolResultMessage, userMessage } from "./support/helpers.ts";

const contextOf = (session: SessionManager) => session.buildSessionContext().messages.map(describeMessage);

describe("buildSessionContext", () => {
  test("an empty session has no messages, thinking off and no model", () => {
    expect(SessionManager.inMemory().buildSessionContext()).toEqual({ messages: [], thinkingLevel: "off", model: null });
  });

  test("the messages of the path, in order; custom, label and session_info entries are not messages", () => {
    const session = SessionManager.inMemory();
    const first = session.appendMessage(userMessage("list files"));
    session.appendMessage(assistantMessage("running ls"));
    session.appendCustomEntry("ext-state", { open: true });
    session.appendMessage(toolResultMessage("a.ts b.ts"));
    session.appendLabelChange(first, "start");
    session.appendSessionInfo("Listing");
    session.appendMessage(assistantMessage("two files"));
    expect(contextOf(session)).toEqual(["user: list files", "assistant: running ls", "toolResult: a.ts b.ts", "assistant: two files"]);
  });

  test("custom_message entries become custom messages; bash executions stay as they are", () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMessage("hi"));
    session.appendCustomMessageEntry("reminder", "use tabs", false, { level: 2 });
    session.appendMessage({
      role: "bashExecution",
      command: "pwd",
      output: "/p\n",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: 5,
    });
    const [, custom, bash] = session.buildSessionContext().messages;
    const entry = session.getEntries()[1];
    expect(custom).toEqual({
      role: "custom",
      customType: "reminder",
      content: "use tabs",
      display: false,
      details: { level: 2 },
      timestamp: Date.parse(entry.timestamp),
    });
    expect(bash).toMatchObject({ role: "bashExecution", command: "pwd" });
  });

  test("model and thinking level come from the latest changes on the path", () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMessage("hi"));
    expect(session.buildSessionContext().model).toBeNull();
    session.appendMessage(assistantMessage("hello", "anthropic", "claude-a"));
    expect(session.buildSessionContext().model).toEqual({ provider: "anthropic", modelId: "claude-a" });
    session.appendThinkingLevelChange("medium");
    const beforeSwitch = session.appendModelChange("openai", "gpt-4o");
    session.appendThinkingLevelChange("high");
    expect(session.buildSessionContext()).toMatchObject({ thinkingLevel: "high", model: { provider: "openai", modelId: "gpt-4o" } });

    session.appendMessage(userMessage("again"));
    session.appendMessage(assistantMessage("answered by another model", "google", "gemini-x"));
    expect(session.buildSessionContext().model).toEqual({ provider: "google", modelId: "gemini-x" });

    // Settings follow the path: back at the model_change, the later changes do not apply.
    session.branch(beforeSwitch);
    expect(session.buildSessionContext()).toMatchObject({ thinkingLevel: "medium", model: { provider: "openai", modelId: "gpt-4o" } });
  });

  test("a compaction puts its summary first, then the kept messages, then what followed it", () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMessage("u1"));
    session.appendMessage(assistantMessage("a1"));
    const kept = session.appendMessage(userMessage("u2"));
    session.appendMessage(assistantMessage("a2"));
    session.appendCompaction("talked about u1", kept, 9000);
    session.appendMessage(userMessage("u3"));
    session.appendMessage(assistantMessage("a3"));
    const messages = session.buildSessionContext().messages;
    expect(messages.map(describeMessage)).toEqual([
      "compactionSummary: talked about u1",
      "user: u2",
      "assistant: a2",
      "user: u3",
      "assistant: a3",
    ]);
    expect(messages[0]).toMatchObject({ role: "compactionSummary", tokensBefore: 9000 });
  });

  test("only the latest compaction on the path counts", () => {
    const session = SessionManager.inMemory();
    const u1 = session.appendMessage(userMessage("u1"));
    session.appendMessage(assistantMessage("a1"));
    session.appendCompaction("first summary", u1, 100);
    const u2 = session.appendMessage(userMessage("u2"));
    session.appendMessage(assistantMessage("a2"));
    session.appendCompaction("second summary", u2, 200);
    session.appendMessage(userMessage("u3"));
    expect(contextOf(session)).toEqual(["compactionSummary: second summary", "user: u2", "assistant: a2", "user: u3"]);
    expect(getLatestCompactionEntry(session.getEntries())?.summary).toBe("second summary");
  });

  test("a compaction on another branch does not apply", () => {
    const session = SessionManager.inMemory();
    const u1 = session.appendMessage(userMessage("u1"));
    const a1 = session.appendMessage(assistantMessage("a1"));
    session.appendCompaction("on branch one", u1, 100);
    session.branch(a1);
    session.appendMessage(userMessage("u2 on branch two"));
    expect(contextOf(session)).toEqual(["user: u1", "assistant: a1", "user: u2 on branch two"]);
  });

  test("branching to an earlier entry drops the later messages; a new append starts a sibling branch", () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMessage("u1"));
    const a1 = session.appendMessage(assistantMessage("a1"));
    const abandoned = session.appendMessage(userMessage("approach A"));
    session.appendMessage(assistantMessage("A result"));

    session.branch(a1);
    expect(contextOf(session)).toEqual(["user: u1", "assistant: a1"]);
    const b = session.appendMessage(userMessage("approach B"));
    expect(contextOf(session)).toEqual(["user: u1", "assistant: a1", "user: approach B"]);
    expect(session.getChildren(a1).map((entry) => entry.id)).toEqual([abandoned, b]);

    session.resetLeaf();
    expect(session.buildSessionContext().messages).toEqual([]);
    session.appendMessage(userMessage("fresh root"));
    expect(contextOf(session)).toEqual(["user: fresh root"]);
  });

  test("a branch summary joins the context where the branch resumed", () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMessage("u1"));
    const a1 = session.appendMessage(assistantMessage("a1"));
    session.appendMessage(userMessage("approach A"));
    const leftLeaf = session.appendMessage(assistantMessage("A failed"));

    const summaryId = session.branchWithSummary(a1, "A failed because of X", { readFiles: ["x.ts"], modifiedFiles: [] });
    expect(session.getLeafId()).toBe(summaryId);
    expect(session.getEntry(summaryId)).toMatchObject({ parentId: a1, fromId: leftLeaf, details: { readFiles: ["x.ts"], modifiedFiles: [] } });
    session.appendMessage(userMessage("approach B"));
    const messages = session.buildSessionContext().messages;
    expect(messages.map(describeMessage)).toEqual(["user: u1", "assistant: a1", "branchSummary: A failed because of X", "user: approach B"]);
    expect(messages[2]).toMatchObject({ role: "branchSummary", fromId: leftLeaf });
  });

  test("branchWithSummary(null) starts a new root from the summary", () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMessage("u1"));
    const id = session.branchWithSummary(null, "all of it");
    expect(session.getEntry(id)?.parentId).toBeNull();
    expect(contextOf(session)).toEqual(["branchSummary: all of it"]);
  });

  test("the free function takes a leaf (default: the last entry; null: nothing) and an optional id index", () => {
    const session = SessionManager.inMemory();
    const u1 = session.appendMessage(userMessage("u1"));
    session.appendMessage(assistantMessage("a1"));
    const entries = session.getEntries();
    expect(buildSessionContext(entries).messages.map(describeMessage)).toEqual(["user: u1", "assistant: a1"]);
    expect(buildSessionContext(entries, u1).messages.map(describeMessage)).toEqual(["user: u1"]);
    expect(buildSessionContext(entries, null).messages).toEqual([]);
    const byId = new Map(entries.map((entry) => [entry.id, entry]));
    expect(buildSessionContext(entries, u1, byId).messages.map(describeMessage)).toEqual(["user: u1"]);
  });
});
