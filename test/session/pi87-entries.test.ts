/**
 * Sessions written by pi 0.87.1, continued by the built binary over RPC:
 * context_edit entries change what reaches the model (and only on their
 * branch), usage entries count in the session's totals, pi's role "system"
 * messages stay in the file and in get_messages but never reach the provider,
 * and malformed entries are reported, not fatal. Fixtures: see fixtures/README.md.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRpcFixture, textOf, type RpcFixture, type RpcProcess } from "../support/rpc-harness.ts";

const FIXTURES = join(import.meta.dir, "fixtures");

let fixture: RpcFixture;
beforeAll(() => {
  fixture = createRpcFixture({ models: ["m"] });
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

let copies = 0;
/** A copy of a fixture whose header names this test's project as cwd; `extraLines` are appended as they are. */
function copyFixture(name: string, extraLines: string[] = []): string {
  const lines = readFileSync(join(FIXTURES, name), "utf8").split("\n");
  lines[0] = JSON.stringify({ ...JSON.parse(lines[0]), cwd: fixture.cwd });
  const file = join(fixture.home.home, `copy-${++copies}-${name}`);
  writeFileSync(file, lines.join("\n") + extraLines.map((line) => line + "\n").join(""));
  return file;
}

const open = (file: string) => fixture.start(["--model", "fake/m", "--session", file]);

/** Sends a prompt, waits for its answer, and returns the messages of the request the fake server got. */
async function promptAndCapture(rpc: RpcProcess, message: string): Promise<any[]> {
  fixture.server.enqueue({ content: [{ type: "text", text: "ok" }] });
  const before = fixture.server.requests.length;
  const from = rpc.mark();
  await rpc.request({ type: "prompt", message });
  await rpc.waitForEvent("agent_end", undefined, 10_000, from);
  expect(fixture.server.requests.length).toBe(before + 1);
  return fixture.server.requests.at(-1)!.body.messages;
}

/** "role: text" of each message the fake server received (OpenAI Chat Completions shape). */
function sent(messages: any[]): string[] {
  return messages.map((message) => {
    const content = typeof message.content === "string" ? message.content : Array.isArray(message.content) ? textOf(message) : "";
    const calls = (message.tool_calls ?? []).map((call: any) => `${call.function.name}(${call.function.arguments})`).join("");
    return `${message.role}: ${content}${calls}`;
  });
}

const shown = (messages: any[]) => messages.map((message) => `${message.role}: ${message.role === "compactionSummary" ? message.summary : textOf(message)}`);

describe("a pi 0.87.1 session with context edits", () => {
  test("continues with the edited context: left-out messages are not sent, replaced ones are sent as replaced", async () => {
    const file = copyFixture("pi87-context-edits.jsonl");
    const original = readFileSync(file, "utf8");
    const rpc = open(file);

    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    expect(shown(messages)).toEqual([
      "system: ",
      "user: first prompt, as edited",
      "assistant: ",
      "toolResult: [tool output withheld]",
      "user: second prompt",
      "assistant: second answer",
    ]);
    // A string replacement of a tool result becomes one text block, the shape tool results have.
    expect(messages[3].content).toEqual([{ type: "text", text: "[tool output withheld]" }]);
    expect(messages[3]).toMatchObject({ role: "toolResult", toolCallId: "call_1_1", toolName: "bash" });

    const request = sent(await promptAndCapture(rpc, "third prompt"));
    expect(request.slice(1)).toEqual([
      "user: first prompt, as edited",
      'assistant: bash({"command":"echo secret-output"})',
      "tool: [tool output withheld]",
      "user: second prompt",
      "assistant: second answer",
      "user: third prompt",
    ]);
    const body = JSON.stringify(fixture.server.requests.at(-1)!.body);
    expect(body).not.toContain("first answer");
    expect(body).not.toContain("secret-output\\n");
    expect(body).not.toContain("draft edit");
    expect(await rpc.close()).toBe(0);

    // The file only grew: every entry pi wrote, edits included, is still there as written.
    const after = readFileSync(file, "utf8");
    expect(after.startsWith(original)).toBe(true);
    expect(after.slice(original.length)).toContain('"third prompt"');
  });

  test("edits are branch-relative: a fork from before them sends the original messages", async () => {
    const rpc = open(copyFixture("pi87-context-edits.jsonl"));
    expect(sent(await promptAndCapture(rpc, "edited here"))[1]).toBe("user: first prompt, as edited");
    // Fork at the second prompt: the new session holds the path before it, without the edits further down.
    const forked = await rpc.request({ type: "branch", entryId: "c4e46f7f" });
    expect(forked.success).toBe(true);
    const request = sent(await promptAndCapture(rpc, "again"));
    expect(request.slice(1)).toEqual([
      "user: first prompt",
      'assistant: bash({"command":"echo secret-output"})',
      "tool: secret-output\n",
      "assistant: first answer",
      "user: again",
    ]);
    expect(await rpc.close()).toBe(0);
  });

  test("an edit whose parent is the current leaf applies; one added on another branch does not", async () => {
    // Move back before the edits by hand (a new leaf below the second answer), then edit from there.
    const file = copyFixture("pi87-context-edits.jsonl", [
      '{"type":"context_edit","id":"ed170009","parentId":"efbbb6ee","timestamp":"2026-11-25T12:01:00.000Z","targetId":"c4e46f7f","replacement":{"content":"second prompt, edited on the new branch"}}',
    ]);
    const rpc = open(file);
    const request = sent(await promptAndCapture(rpc, "third"));
    expect(request.slice(1)).toEqual([
      "user: first prompt",
      'assistant: bash({"command":"echo secret-output"})',
      "tool: secret-output\n",
      "assistant: first answer",
      "user: second prompt, edited on the new branch",
      "assistant: second answer",
      "user: third",
    ]);
    expect(await rpc.close()).toBe(0);
  });

  test("compaction summarizes the edited context: what an edit left out does not come back in the summary", async () => {
    const rpc = open(copyFixture("pi87-context-edits.jsonl"));
    fixture.server.enqueue({ content: [{ type: "text", text: "THE SUMMARY" }] });
    const before = fixture.server.requests.length;
    const compacted = await rpc.request({ type: "compact" }, 10_000);
    expect(compacted.success).toBe(true);
    const summarization = JSON.stringify(fixture.server.requests.slice(before).map((request) => request.body.messages));
    expect(summarization).toContain("first prompt, as edited");
    expect(summarization).toContain("[tool output withheld]");
    expect(summarization).not.toContain("secret-output\\n");
    expect(summarization).not.toContain("first answer");
    expect(summarization).not.toContain("operating inside pi");
    expect(await rpc.close()).toBe(0);
  });

  test("the usage entry counts in get_session_stats and is not a message", async () => {
    const rpc = open(copyFixture("pi87-context-edits.jsonl"));
    const stats = (await rpc.request({ type: "get_session_stats" })).data;
    // Three answers of 10 in / 5 out, plus the usage entry's 50000 cache-read tokens and $0.015.
    expect(stats.tokens).toEqual({ input: 30, output: 15, cacheRead: 50000, cacheWrite: 0, total: 50045 });
    expect(stats.cost).toBeCloseTo(0.015, 10);
    expect(stats).toMatchObject({ userMessages: 2, assistantMessages: 3, toolCalls: 1, toolResults: 1, totalMessages: 7 });
    const roles = (await rpc.request({ type: "get_messages" })).data.messages.map((message: any) => message.role);
    expect(roles).not.toContain("usage");
    expect(await rpc.close()).toBe(0);
  });
});

describe("pi 0.87.1's system messages", () => {
  test("a compacted pi session continues: the checkpoint is in get_messages, never in a request; compaction usage counts", async () => {
    const rpc = open(copyFixture("pi87-compacted.jsonl"));
    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    expect(messages.map((message: any) => message.role)).toEqual(["system", "compactionSummary", "assistant", "user", "assistant", "user", "assistant"]);
    expect(messages[0].sections.preamble).toContain("operating inside pi");

    const stats = (await rpc.request({ type: "get_session_stats" })).data;
    // Four answers of 10 in / 5 out and the compaction's own 10 / 5.
    expect(stats.tokens).toMatchObject({ input: 50, output: 25 });

    const request = await promptAndCapture(rpc, "fourth prompt");
    const systemLike = request.filter((message) => message.role === "system" || message.role === "developer");
    expect(systemLike).toHaveLength(1);
    expect(systemLike[0].content).toContain("xcsh");
    expect(JSON.stringify(request)).not.toContain("operating inside pi");
    expect(sent(request).slice(1, 2)[0]).toContain("SUMMARY OF EARLIER WORK");
    expect(sent(request).at(-1)).toBe("user: fourth prompt");
    expect(await rpc.close()).toBe(0);
  });

  test("the leading system message of an uncompacted pi session is not sent either, and stays in the file", async () => {
    const file = copyFixture("pi87-context-edits.jsonl");
    const rpc = open(file);
    const request = await promptAndCapture(rpc, "third prompt");
    expect(JSON.stringify(request)).not.toContain("operating inside pi");
    expect(await rpc.close()).toBe(0);
    const lines = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(lines.filter((entry) => entry.type === "message" && entry.message.role === "system")).toHaveLength(1);
  });
});

describe("malformed pi 0.87.1 entries", () => {
  test("are reported on load and have no effect; entries below them still count; a torn last line is cut off", async () => {
    const file = copyFixture("pi87-context-edits.jsonl", [
      '{"type":"context_edit","id":"bad00001","parentId":"ed170004","timestamp":"2026-11-25T12:01:00.000Z","replacement":null}',
      '{"type":"context_edit","id":"bad00002","parentId":"bad00001","timestamp":"2026-11-25T12:01:01.000Z","targetId":"c4e46f7f","replacement":{"content":42}}',
      '{"type":"context_edit","id":"bad00003","parentId":"bad00002","timestamp":"2026-11-25T12:01:02.000Z","targetId":"c4e46f7f","replacement":{"content":[{"type":"text"}]}}',
      '{"type":"usage","id":"bad00004","parentId":"bad00003","timestamp":"2026-11-25T12:01:03.000Z","kind":"cache_warm","provider":"fake","model":"m","usage":"lots"}',
      '{"type":"context_edit","id":"ed170005","parentId":"bad00004","timestamp":"2026-11-25T12:01:04.000Z","targetId":"c4e46f7f","replacement":{"content":"second prompt, edited below the bad lines"}}',
    ]);
    appendFileSync(file, '{"type":"context_edit","id":"torn0001","parentId":"ed170005","targetId":"7ec5');
    const rpc = open(file);
    await rpc.waitFor((frame) => frame.type === "notice" && frame.message.includes("incomplete"));
    const warnings = rpc.ofType("notice").map((frame) => frame.message as string);
    expect(warnings.find((warning) => warning.includes("bad00001"))).toContain('"targetId"');
    expect(warnings.find((warning) => warning.includes("bad00002"))).toContain('"replacement.content"');
    expect(warnings.find((warning) => warning.includes("bad00003"))).toContain("text block");
    expect(warnings.find((warning) => warning.includes("bad00004"))).toContain("not counted");

    const stats = (await rpc.request({ type: "get_session_stats" })).data;
    expect(stats.tokens.total).toBe(50045);
    expect(stats.cost).toBeCloseTo(0.015, 10);

    const request = sent(await promptAndCapture(rpc, "third prompt"));
    expect(request.slice(1)).toEqual([
      "user: first prompt, as edited",
      'assistant: bash({"command":"echo secret-output"})',
      "tool: [tool output withheld]",
      "user: second prompt, edited below the bad lines",
      "assistant: second answer",
      "user: third prompt",
    ]);
    expect(await rpc.close()).toBe(0);
    for (const line of readFileSync(file, "utf8").trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
  });
});
