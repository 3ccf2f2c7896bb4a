import { describe, expect, test } from "bun:test";
import { SessionManager, type SessionTreeNode } from "../../src/session/index.ts";
import { assistantMessage, userMessage } from "./support/helpers.ts";

/** The tree as nested [id, label?] pairs, for readable assertions. */
function shape(nodes: SessionTreeNode[]): unknown[] {
  return nodes.map((node) => [node.entry.id, ...(node.label ? [node.label] : []), shape(node.children)]);
}

describe("tree and labels", () => {
  test("getTree shows every branch with labels; getBranch walks root to entry", () => {
    const session = SessionManager.inMemory();
    const u1 = session.appendMessage(userMessage("u1"));
    const a1 = session.appendMessage(assistantMessage("a1"));
    const uA = session.appendMessage(userMessage("A"));
    session.branch(a1);
    const uB = session.appendMessage(userMessage("B"));
    const label = session.appendLabelChange(uA, "try-A");

    expect(shape(session.getTree())).toEqual([[u1, [[a1, [[uA, "try-A", []], [uB, [[label, []]]]]]]]]);
    expect(session.getBranch(uA).map((entry) => entry.id)).toEqual([u1, a1, uA]);
    expect(session.getBranch().map((entry) => entry.id)).toEqual([u1, a1, uB, label]);
    expect(session.getChildren(a1).map((entry) => entry.id)).toEqual([uA, uB]);
    expect(session.getLeafEntry()?.id).toBe(label);
    const labelled = session.getTree()[0].children[0].children[0];
    expect(labelled.labelTimestamp).toBe(session.getEntry(label)!.timestamp);
  });

  test("a later label replaces an earlier one; an undefined label clears it", () => {
    const session = SessionManager.inMemory();
    const u1 = session.appendMessage(userMessage("u1"));
    session.appendLabelChange(u1, "first");
    session.appendLabelChange(u1, "second");
    expect(session.getLabel(u1)).toBe("second");
    const clear = session.appendLabelChange(u1, undefined);
    expect(session.getLabel(u1)).toBeUndefined();
    // Cleared: no "label" key at all, as JSON has no undefined.
    expect(session.getEntry(clear) as unknown).toEqual({
      type: "label",
      id: clear,
      parentId: expect.any(String),
      timestamp: expect.any(String),
      targetId: u1,
    });
    expect(session.getTree()[0].label).toBeUndefined();
  });

  test("labelling or branching to an unknown entry is refused", () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMessage("u1"));
    expect(() => session.appendLabelChange("00000000", "x")).toThrow("Entry 00000000 not found");
    expect(() => session.branch("00000000")).toThrow("Entry 00000000 not found");
    expect(() => session.branchWithSummary("00000000", "s")).toThrow("Entry 00000000 not found");
    expect(session.getEntries()).toHaveLength(1);
  });

  test("the session name is the latest session_info", () => {
    const session = SessionManager.inMemory();
    expect(session.getSessionName()).toBeUndefined();
    session.appendSessionInfo("  First name ");
    session.appendSessionInfo("Second name");
    expect(session.getSessionName()).toBe("Second name");
  });

  test("entry ids are 8 hex characters, unique within the session", () => {
    const session = SessionManager.inMemory();
    const ids = Array.from({ length: 2000 }, (_, index) => session.appendCustomEntry("n", index));
    expect(new Set(ids).size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}$/);
  });

  test("a deep linear session builds its tree and paths without recursion limits", () => {
    const session = SessionManager.inMemory();
    for (let index = 0; index < 20_000; index++) session.appendCustomEntry("n", index);
    expect(session.getBranch()).toHaveLength(20_000);
    let depth = 0;
    for (let node = session.getTree()[0]; node; node = node.children[0]) depth++;
    expect(depth).toBe(20_000);
  });
});
