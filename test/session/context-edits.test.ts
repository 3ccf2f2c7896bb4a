/**
 * Context edits, usage entries and pi's system messages in the session store
 * (in process): what buildSessionContext gives the model, what the display
 * shows, and what appendContextEdit / appendUsage accept.
 */
import { describe, expect, test } from "bun:test";
import { pathAsModelSees } from "../../src/session/build-context.ts";
import { buildSessionContext, SessionManager, type PersistedSystemMessage, type SessionEntry } from "../../src/session/index.ts";
import { assistantMessage, describeMessage, toolResultMessage, userMessage } from "./support/helpers.ts";

const contextOf = (session: SessionManager) => session.buildSessionContext().messages.map(describeMessage);

const systemMessage = (preamble: string): PersistedSystemMessage => ({ role: "system", content: "", sections: { preamble }, timestamp: 1 });

const usage = (cacheRead: number, total: number) => ({
  input: 0,
  output: 0,
  cacheRead,
  cacheWrite: 0,
  totalTokens: cacheRead,
  cost: { input: 0, output: 0, cacheRead: total, cacheWrite: 0, total },
});

describe("context edits in buildSessionContext", () => {
  test("the latest edit of a target wins; null leaves it out; strings become a text block for assistant and tool results only", () => {
    const session = SessionManager.inMemory();
    const ask = session.appendMessage(userMessage("ask"));
    const answer = session.appendMessage(assistantMessage("answer"));
    const result = session.appendMessage(toolResultMessage("secret"));
    const note = session.appendCustomMessageEntry("note", "extension note", true);
    session.appendContextEdit(ask, { content: "first edit" });
    session.appendContextEdit(ask, { content: "ask, edited" });
    session.appendContextEdit(answer, { content: "answer, edited" });
    session.appendContextEdit(result, null);
    session.appendContextEdit(note, { content: [{ type: "text", text: "note, edited" }] });

    const messages = session.buildSessionContext().messages as any[];
    expect(messages.map(describeMessage)).toEqual(["user: ask, edited", "assistant: answer, edited", "custom: note, edited"]);
    expect(messages[0].content).toBe("ask, edited");
    expect(messages[1].content).toEqual([{ type: "text", text: "answer, edited" }]);
    expect(messages[1]).toMatchObject({ role: "assistant", provider: "anthropic", stopReason: "stop" });
    // What a person is shown, and the entries themselves, are as written.
    expect(session.buildDisplayItems().map((item) => describeMessage(item as any))).toEqual([
      "user: ask",
      "assistant: answer",
      "toolResult: secret",
      "custom: extension note",
    ]);
    expect((session.getEntry(result) as any).message.content[0].text).toBe("secret");
  });

  test("edits are branch-relative: moving back before an edit brings the original back", () => {
    const session = SessionManager.inMemory();
    const ask = session.appendMessage(userMessage("ask"));
    const answer = session.appendMessage(assistantMessage("answer"));
    session.appendContextEdit(ask, null);
    expect(contextOf(session)).toEqual(["assistant: answer"]);
    session.branch(answer);
    expect(contextOf(session)).toEqual(["user: ask", "assistant: answer"]);
    session.appendContextEdit(answer, { content: "other branch" });
    expect(contextOf(session)).toEqual(["user: ask", "assistant: other branch"]);
  });

  test("after a compaction, edits in the kept range and after it apply; system messages give way to the checkpoint", () => {
    const session = SessionManager.inMemory();
    session.appendMessage(systemMessage("old prompt"));
    const old = session.appendMessage(userMessage("old"));
    session.appendContextEdit(old, { content: "old, edited" });
    const kept = session.appendMessage(userMessage("kept"));
    session.appendMessage(systemMessage("prompt update"));
    const keptAnswer = session.appendMessage(assistantMessage("kept answer"));
    // An edit inside the kept range applies; the one before it edits history the summary covers.
    session.appendContextEdit(keptAnswer, null);
    const compaction = session.appendCompaction("SUMMARY", kept, 100);
    (session.getEntry(compaction) as any).systemMessage = systemMessage("checkpoint");
    session.appendContextEdit(kept, { content: "kept, edited" });
    expect(session.buildSessionContext().messages.map((message: any) => (message.role === "system" ? `system: ${message.sections.preamble}` : describeMessage(message)))).toEqual([
      "system: checkpoint",
      "compactionSummary: SUMMARY",
      "user: kept, edited",
    ]);
  });

  test("a malformed edit is ignored", () => {
    const session = SessionManager.inMemory();
    const ask = session.appendMessage(userMessage("ask"));
    const entries = session.getEntries();
    const bad = [
      { type: "context_edit", id: "bad1", parentId: ask, timestamp: new Date().toISOString(), replacement: null },
      { type: "context_edit", id: "bad2", parentId: "bad1", timestamp: new Date().toISOString(), targetId: ask, replacement: { content: 7 } },
      { type: "context_edit", id: "bad3", parentId: "bad2", timestamp: new Date().toISOString(), targetId: ask },
    ];
    expect(buildSessionContext([...entries, ...(bad as unknown as SessionEntry[])]).messages.map(describeMessage)).toEqual(["user: ask"]);
  });
});

describe("appendContextEdit", () => {
  test("refuses unknown targets, targets off the active branch, entries without editable content and bad replacements", () => {
    const session = SessionManager.inMemory();
    const ask = session.appendMessage(userMessage("ask"));
    const answer = session.appendMessage(assistantMessage("answer"));
    const model = session.appendModelChange("openai", "gpt-4o");
    const system = session.appendMessage(systemMessage("p") as any);
    session.branch(ask);
    expect(() => session.appendContextEdit("nope", null)).toThrow("entry nope not found");
    expect(() => session.appendContextEdit(answer, null)).toThrow("not on the active branch");
    session.branch(system);
    expect(() => session.appendContextEdit(model, null)).toThrow("no content the model sees");
    expect(() => session.appendContextEdit(system, null)).toThrow("no content the model sees");
    expect(() => session.appendContextEdit(ask, { content: 5 } as any)).toThrow('"replacement.content"');
    expect(() => session.appendContextEdit(ask, { content: [{ type: "image" }] } as any)).toThrow('"data"');
    expect(() => session.appendContextEdit(ask, undefined as any)).toThrow('"replacement" is missing');
    const countBefore = session.getEntries().length;
    const id = session.appendContextEdit(answer, { content: "short" });
    expect(session.getEntries()).toHaveLength(countBefore + 1);
    expect(session.getEntry(id)).toMatchObject({ type: "context_edit", targetId: answer, parentId: system, replacement: { content: [{ type: "text", text: "short" }] } });
    expect(session.getLeafId()).toBe(id);
  });
});

describe("usage entries", () => {
  test("appendUsage records usage outside the conversation and checks it", () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMessage("hi"));
    const entry = session.appendUsage("cache_warm", "anthropic", "claude", usage(1000, 0.01), "warmed");
    expect(entry).toMatchObject({ type: "usage", kind: "cache_warm", provider: "anthropic", model: "claude", note: "warmed" });
    expect(session.getLeafId()).toBe(entry.id);
    expect(contextOf(session)).toEqual(["user: hi"]);
    expect(() => session.appendUsage("x", "p", "m", { input: 1 } as any)).toThrow("numeric");
  });
});

describe("pathAsModelSees", () => {
  test("left-out entries and system messages keep their id and place but carry no message; replaced ones carry the new content", () => {
    const session = SessionManager.inMemory();
    const system = session.appendMessage(systemMessage("p") as any);
    const ask = session.appendMessage(userMessage("ask"));
    const answer = session.appendMessage(assistantMessage("answer"));
    session.appendContextEdit(ask, { content: "ask, edited" });
    session.appendContextEdit(answer, null);
    const seen = pathAsModelSees(session.getBranch());
    expect(seen.map((entry) => entry.id)).toEqual(session.getBranch().map((entry) => entry.id));
    expect(seen[0]).toMatchObject({ id: system, type: "custom" });
    expect(seen[1]).toMatchObject({ id: ask, type: "message", message: { role: "user", content: "ask, edited" } });
    expect(seen[2]).toMatchObject({ id: answer, type: "custom" });
  });
});
