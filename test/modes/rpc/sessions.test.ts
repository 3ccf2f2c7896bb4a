/**
 * Session commands over RPC: get_messages, new_session (with parentSession),
 * switch_session, fork/branch and their message lists, clone. What each one
 * leaves behind is checked both through get_state/get_messages and in the
 * session files on disk.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { createRpcFixture, duplicateResponseIds, textOf, type RpcFixture, type RpcProcess } from "../../support/rpc-harness.ts";

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture();
});
afterAll(() => fixture.cleanup());

interface SessionLine {
  type: string;
  parentSession?: string;
  message?: { role: string; content: unknown };
}

function readSessionFile(path: string): SessionLine[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

/** The texts of the user and assistant messages in a session file, in order. */
function conversationIn(path: string): string[] {
  return readSessionFile(path)
    .filter((line) => line.type === "message")
    .map((line) => `${line.message!.role}:${textOf(line.message as { content: unknown })}`);
}

async function ask(rpc: RpcProcess, question: string, answer: string): Promise<void> {
  fixture.server.enqueue({ content: [{ type: "text", text: answer }] });
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: question })).success).toBe(true);
  await rpc.waitForEvent("agent_end", () => true, 5_000, from);
}

/** A process with two finished exchanges, and its session file. */
async function twoExchanges(): Promise<{ rpc: RpcProcess; file: string }> {
  const rpc = fixture.start();
  await ask(rpc, "first question", "first answer");
  await ask(rpc, "second question", "second answer");
  const file = (await rpc.request({ type: "get_state" })).data.sessionFile;
  return { rpc, file };
}

async function finish(rpc: RpcProcess): Promise<void> {
  expect(await rpc.close()).toBe(0);
  expect(duplicateResponseIds(rpc.frames)).toEqual([]);
}

describe("messages and new sessions", () => {
  test("get_messages returns the conversation as AgentMessages", async () => {
    const { rpc, file } = await twoExchanges();
    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    expect(messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(messages[1]).toMatchObject({ role: "assistant", provider: "fake", model: "fake-model", stopReason: "stop" });
    expect(typeof messages[1].timestamp).toBe("number");
    expect(messages.map(textOf)).toEqual(["first question", "first answer", "second question", "second answer"]);
    expect(conversationIn(file)).toEqual(["user:first question", "assistant:first answer", "user:second question", "assistant:second answer"]);
    await finish(rpc);
  });

  test("new_session starts empty, records parentSession, and the old file is untouched", async () => {
    const { rpc, file } = await twoExchanges();
    const before = (await rpc.request({ type: "get_state" })).data;
    const response = await rpc.request({ type: "new_session", parentSession: file });
    expect(response).toMatchObject({ command: "new_session", success: true, data: { cancelled: false } });
    const after = (await rpc.request({ type: "get_state" })).data;
    expect(after.sessionId).not.toBe(before.sessionId);
    expect(after.sessionFile).not.toBe(file);
    expect(after.messageCount).toBe(0);
    expect((await rpc.request({ type: "get_messages" })).data.messages).toEqual([]);

    const requestIndex = fixture.server.requests.length;
    await ask(rpc, "fresh start", "fresh answer");
    // The model sees nothing of the old conversation.
    expect(JSON.stringify(fixture.server.requests[requestIndex].body.messages)).not.toContain("first question");
    const header = readSessionFile(after.sessionFile)[0];
    expect(header).toMatchObject({ type: "session", parentSession: file });
    expect(conversationIn(after.sessionFile)).toEqual(["user:fresh start", "assistant:fresh answer"]);
    expect(conversationIn(file)).toHaveLength(4);
    await finish(rpc);
  });

  test("new_session without parentSession has no parent", async () => {
    const { rpc } = await twoExchanges();
    expect((await rpc.request({ type: "new_session" })).data).toEqual({ cancelled: false });
    await ask(rpc, "orphan", "ok");
    const header = readSessionFile((await rpc.request({ type: "get_state" })).data.sessionFile)[0];
    expect(header.type).toBe("session");
    expect(header.parentSession).toBeUndefined();
    await finish(rpc);
  });

  test("switch_session loads another session file with its messages", async () => {
    const { rpc, file } = await twoExchanges();
    await rpc.request({ type: "new_session" });
    expect((await rpc.request({ type: "get_state" })).data.messageCount).toBe(0);

    const response = await rpc.request({ type: "switch_session", sessionPath: file });
    expect(response).toMatchObject({ command: "switch_session", success: true, data: { cancelled: false } });
    const state = (await rpc.request({ type: "get_state" })).data;
    expect(state.sessionFile).toBe(file);
    expect(state.messageCount).toBe(4);

    // The model gets the loaded history with the next prompt.
    const requestIndex = fixture.server.requests.length;
    await ask(rpc, "third question", "third answer");
    expect(JSON.stringify(fixture.server.requests[requestIndex].body.messages)).toContain("second answer");
    expect(conversationIn(file)).toHaveLength(6);

    const missingPath = await rpc.request({ type: "switch_session" });
    expect(missingPath.success).toBe(false);
    expect(missingPath.error).toContain("sessionPath");
    await finish(rpc);
  });
});

describe("fork, branch and clone", () => {
  test("get_fork_messages and get_branch_messages list the user messages of the active branch", async () => {
    const { rpc } = await twoExchanges();
    const fork = (await rpc.request({ type: "get_fork_messages" })).data.messages;
    expect(fork.map((message: { text: string }) => message.text)).toEqual(["first question", "second question"]);
    for (const message of fork) expect(typeof message.entryId).toBe("string");
    const branch = await rpc.request({ type: "get_branch_messages" });
    expect(branch).toMatchObject({ command: "get_branch_messages", success: true });
    expect(branch.data.messages).toEqual(fork);
    await finish(rpc);
  });

  test("fork from a user message opens a new session with the history before it", async () => {
    const { rpc, file } = await twoExchanges();
    const forkable = (await rpc.request({ type: "get_fork_messages" })).data.messages;
    const response = await rpc.request({ type: "fork", entryId: forkable[1].entryId });
    expect(response).toMatchObject({ command: "fork", success: true, data: { text: "second question", cancelled: false } });

    const state = (await rpc.request({ type: "get_state" })).data;
    expect(state.sessionFile).not.toBe(file);
    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    expect(messages.map(textOf)).toEqual(["first question", "first answer"]);

    const requestIndex = fixture.server.requests.length;
    await ask(rpc, "edited second question", "edited answer");
    const sent = JSON.stringify(fixture.server.requests[requestIndex].body.messages);
    expect(sent).toContain("first answer");
    expect(sent).not.toContain("second answer");
    expect(conversationIn(state.sessionFile)).toEqual([
      "user:first question",
      "assistant:first answer",
      "user:edited second question",
      "assistant:edited answer",
    ]);
    // The original session keeps its own history.
    expect(conversationIn(file)).toEqual(["user:first question", "assistant:first answer", "user:second question", "assistant:second answer"]);
    await finish(rpc);
  });

  test("fork from the first message starts an empty session", async () => {
    const { rpc, file } = await twoExchanges();
    const forkable = (await rpc.request({ type: "get_fork_messages" })).data.messages;
    const response = await rpc.request({ type: "fork", entryId: forkable[0].entryId });
    expect(response.data).toEqual({ text: "first question", cancelled: false });
    const state = (await rpc.request({ type: "get_state" })).data;
    expect(state.messageCount).toBe(0);
    expect(state.sessionFile).not.toBe(file);
    await finish(rpc);
  });

  test("branch behaves like fork and lists the same messages", async () => {
    const { rpc, file } = await twoExchanges();
    const branchable = (await rpc.request({ type: "get_branch_messages" })).data.messages;
    const response = await rpc.request({ type: "branch", entryId: branchable[1].entryId });
    expect(response).toMatchObject({ command: "branch", success: true, data: { text: "second question", cancelled: false } });
    expect((await rpc.request({ type: "get_messages" })).data.messages.map(textOf)).toEqual(["first question", "first answer"]);
    expect((await rpc.request({ type: "get_state" })).data.sessionFile).not.toBe(file);
    await finish(rpc);
  });

  test("fork and branch reject an entry id that is not a user message of the session", async () => {
    const { rpc, file } = await twoExchanges();
    const messages = (await rpc.request({ type: "get_fork_messages" })).data.messages;
    for (const type of ["fork", "branch"]) {
      const unknown = await rpc.request({ type, entryId: "no-such-entry" });
      expect(unknown).toMatchObject({ command: type, success: false });
      expect(unknown.error).toContain("no-such-entry");
      expect((await rpc.request({ type })).success).toBe(false);
    }
    // An assistant message's entry is not forkable either: find one in the file.
    const entries = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    const assistantEntry = entries.find((entry) => entry.type === "message" && entry.message.role === "assistant");
    expect((await rpc.request({ type: "fork", entryId: assistantEntry.id })).success).toBe(false);

    // Nothing moved.
    const state = (await rpc.request({ type: "get_state" })).data;
    expect(state.sessionFile).toBe(file);
    expect(state.messageCount).toBe(4);
    expect((await rpc.request({ type: "get_fork_messages" })).data.messages).toEqual(messages);
    await finish(rpc);
  });

  test("clone copies the active branch into a new session file", async () => {
    const { rpc, file } = await twoExchanges();
    const response = await rpc.request({ type: "clone" });
    expect(response).toMatchObject({ command: "clone", success: true, data: { cancelled: false } });
    const state = (await rpc.request({ type: "get_state" })).data;
    expect(state.sessionFile).not.toBe(file);
    expect(state.messageCount).toBe(4);
    expect(existsSync(state.sessionFile)).toBe(true);
    expect(conversationIn(state.sessionFile)).toEqual(conversationIn(file));

    await ask(rpc, "only in the clone", "clone answer");
    expect(conversationIn(state.sessionFile)).toHaveLength(6);
    expect(conversationIn(file)).toHaveLength(4);
    await finish(rpc);
  });
});
