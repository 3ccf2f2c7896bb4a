/**
 * AgentSession end to end through a real provider SDK against the fake LLM
 * server, with real session files in a temp directory: persistence, retry,
 * compaction, user bash, model and navigation commands, stats.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../../src/agent/agent.ts";
import { ModelRegistry } from "../../src/config/model-registry.ts";
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from "../../src/config/settings.ts";
import { AgentSession } from "../../src/core/agent-session.ts";
import { ToolSet } from "../../src/core/tool-set.ts";
import type { AgentSessionEvent } from "../../src/core/session-events.ts";
import { SessionManager } from "../../src/session/session-manager.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";

let server: FakeLlmServer;
let root: string;

beforeAll(() => {
  server = startFakeLlm();
  root = mkdtempSync(join(tmpdir(), "xcsh-session-"));
  writeFileSync(
    join(root, "models.json"),
    JSON.stringify({
      providers: {
        fake: {
          baseUrl: server.baseUrl("anthropic-messages"),
          api: "anthropic-messages",
          apiKey: "test-key",
          models: [
            { id: "small", contextWindow: 4000, reasoning: true, cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 } },
            { id: "other", contextWindow: 100000 },
          ],
        },
      },
    }),
  );
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});
afterEach(() => {
  // A test that failed midway must not leave scripted replies for the next one.
  server.clearScript();
});

const text = (value: string, extra: Record<string, unknown> = {}) => ({ content: [{ type: "text" as const, text: value }], ...extra });

function makeSession(options: { settings?: Record<string, unknown>; sessionDir?: string; manager?: SessionManager } = {}) {
  const registry = ModelRegistry.load({ modelsJsonPath: join(root, "models.json") });
  const model = registry.find("fake", "small")!;
  const settings = mergeSettings(structuredClone(DEFAULT_SETTINGS) as Settings, {
    retry: { baseDelayMs: 10 },
    ...options.settings,
  });
  const sessionDir = options.sessionDir ?? mkdtempSync(join(root, "sessions-"));
  const manager = options.manager ?? SessionManager.create(root, sessionDir);
  const agent = new Agent({ initialState: { model, systemPrompt: "test" } });
  agent.state.messages = manager.buildSessionContext().messages;
  const toolSet = new ToolSet(agent, { cwd: root, contextFiles: [] }, [], []);
  const session = new AgentSession({ cwd: root, agent, sessionManager: manager, settings, registry, toolSet });
  const events: AgentSessionEvent[] = [];
  session.subscribe((event) => {
    events.push(event);
  });
  return { session, events, manager, sessionDir, registry };
}

const eventsOf = <T extends AgentSessionEvent["type"]>(events: AgentSessionEvent[], type: T) =>
  events.filter((event): event is Extract<AgentSessionEvent, { type: T }> => event.type === type);

describe("persistence", () => {
  test("every message is in the session file and a reopened session continues from it", async () => {
    server.enqueue(text("first answer"));
    const { session, manager } = makeSession();
    await session.prompt("first question");
    const file = manager.getSessionFile()!;
    const lines = readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: "session", version: 3, cwd: root });
    const roles = lines.filter((line) => line.type === "message").map((line) => line.message.role);
    expect(roles).toEqual(["user", "assistant"]);

    server.enqueue(text("second answer"));
    const before = server.requests.length;
    const reopened = makeSession({ manager: SessionManager.open(file) });
    await reopened.session.prompt("second question");
    const sent = JSON.stringify(server.requests[before].body.messages);
    expect(sent).toContain("first question");
    expect(sent).toContain("first answer");
    expect(reopened.session.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });
});

describe("auto-retry", () => {
  test("a 529 is retried with backoff and the run succeeds", async () => {
    server.enqueue({ type: "error", status: 529, message: "Overloaded" }, text("made it"));
    const { session, events } = makeSession();
    await session.prompt("hello");
    const starts = eventsOf(events, "auto_retry_start");
    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({ attempt: 1, maxAttempts: 3, delayMs: 10 });
    expect(starts[0].errorMessage).toContain("529");
    expect(eventsOf(events, "auto_retry_end")).toEqual([{ type: "auto_retry_end", success: true, attempt: 1 }]);
    expect(session.getLastAssistantText()).toBe("made it");
    // The failed reply is not part of what the model sees next.
    expect(session.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  test("after maxRetries the failure is final and reported", async () => {
    const overloaded = { type: "error" as const, status: 503, message: "Service unavailable" };
    server.enqueue(overloaded, overloaded, overloaded);
    const { session, events } = makeSession({ settings: { retry: { baseDelayMs: 5, maxRetries: 2 } } });
    await session.prompt("hello");
    expect(eventsOf(events, "auto_retry_start").map((event) => event.delayMs)).toEqual([5, 10]);
    const end = eventsOf(events, "auto_retry_end");
    expect(end).toHaveLength(1);
    expect(end[0]).toMatchObject({ success: false, attempt: 2 });
    expect(end[0].finalError).toContain("503");
  });

  test("a non-transient error is final at once", async () => {
    server.enqueue({ type: "error", status: 400, message: "invalid request: bad field" });
    const { session, events } = makeSession();
    await session.prompt("hello");
    expect(eventsOf(events, "auto_retry_start")).toHaveLength(0);
    expect((session.messages.at(-1) as any).stopReason).toBe("error");
  });

  test("abortRetry cancels the wait", async () => {
    server.enqueue({ type: "error", status: 429, message: "Rate limit exceeded" });
    const { session, events } = makeSession({ settings: { retry: { baseDelayMs: 60_000 } } });
    const run = session.prompt("hello");
    while (eventsOf(events, "auto_retry_start").length === 0) await Bun.sleep(5);
    expect(session.isRetrying).toBe(true);
    session.abortRetry();
    await run;
    expect(eventsOf(events, "auto_retry_end")[0]).toMatchObject({ success: false, attempt: 1 });
    expect(session.isStreaming).toBe(false);
  });
});

describe("compaction", () => {
  const bigUsage = { usage: { input: 3900, output: 50 } };

  test("past the threshold the context is summarized after the run", async () => {
    const { session, events, manager } = makeSession({ settings: { compaction: { reserveTokens: 500, keepRecentTokens: 1 } } });
    server.enqueue(text("one"), text("two"), { ...text("three"), ...bigUsage }, text("## Goal\nThe summary."));
    await session.prompt("question one");
    await session.prompt("question two");
    await session.prompt("question three");
    expect(eventsOf(events, "compaction_start")).toEqual([{ type: "compaction_start", reason: "threshold" }]);
    expect(eventsOf(events, "auto_compaction_start")).toHaveLength(1);
    const end = eventsOf(events, "compaction_end")[0];
    expect(end).toMatchObject({ reason: "threshold", aborted: false, willRetry: false });
    expect(end.result!.summary).toContain("The summary.");
    expect(manager.getEntries().some((entry) => entry.type === "compaction")).toBe(true);
    expect(session.messages[0].role).toBe("compactionSummary");
    expect(session.getSessionStats().contextUsage).toMatchObject({ tokens: null, percent: null, contextWindow: 4000 });
  });

  test("a follow-up queued during the compaction after a run is still delivered", async () => {
    const { session, events } = makeSession({ settings: { compaction: { reserveTokens: 500, keepRecentTokens: 1 } } });
    // keepRecentTokens 1 splits the last turn: two summary calls (history and turn prefix).
    const slowSummary = { ...text("Slow summary."), delayMs: 150 };
    server.enqueue(text("one"), { ...text("two"), ...bigUsage }, slowSummary, slowSummary, text("answer to the follow-up"));
    await session.prompt("question one");
    session.subscribe((event) => {
      if (event.type === "compaction_start") void session.prompt("and one more thing", { streamingBehavior: "followUp" });
    });
    await session.prompt("question two");
    expect(eventsOf(events, "compaction_end")).toHaveLength(1);
    expect(session.pendingMessageCount).toBe(0);
    expect(session.getLastAssistantText()).toBe("answer to the follow-up");
  });

  test("a context overflow is compacted and the prompt retried once", async () => {
    const { session, events } = makeSession({ settings: { compaction: { reserveTokens: 500, keepRecentTokens: 1 } } });
    server.enqueue(text("earlier answer"));
    await session.prompt("earlier question");
    server.enqueue(
      { type: "error", status: 400, message: "prompt is too long: 213462 tokens > 200000 maximum" },
      text("Summary of the earlier talk."),
      text("answer after compaction"),
    );
    const before = server.requests.length;
    await session.prompt("new question");
    expect(eventsOf(events, "compaction_start").at(-1)).toEqual({ type: "compaction_start", reason: "overflow" });
    expect(eventsOf(events, "compaction_end").at(-1)).toMatchObject({ reason: "overflow", willRetry: true, aborted: false });
    expect(session.getLastAssistantText()).toBe("answer after compaction");
    const retried = JSON.stringify(server.requests[before + 2].body.messages);
    expect(retried).toContain("Summary of the earlier talk.");
    expect(retried).toContain("new question");
  });

  test("manual compaction with instructions; a failure is reported, not thrown away", async () => {
    const { session, events } = makeSession({ settings: { compaction: { reserveTokens: 500, keepRecentTokens: 1 } } });
    server.enqueue(text("a"), text("b"));
    await session.prompt("one");
    await session.prompt("two");
    server.enqueue(text("Manual summary."));
    const before = server.requests.length;
    const result = await session.compact("Focus on the numbers");
    expect(result.summary).toContain("Manual summary.");
    expect(JSON.stringify(server.requests[before].body)).toContain("Focus on the numbers");

    server.enqueue(text("c"), { type: "error", status: 402, message: "quota exceeded" });
    await session.prompt("three");
    await expect(session.compact()).rejects.toThrow(/quota exceeded/);
    const failed = eventsOf(events, "compaction_end").at(-1)!;
    expect(failed).toMatchObject({ reason: "manual", result: null, aborted: false });
    expect(failed.errorMessage).toContain("quota exceeded");
  });
});

describe("user bash", () => {
  test("the output is returned, stored, and reaches the model with the next prompt", async () => {
    const { session, manager } = makeSession();
    const result = await session.executeBash("echo hello from bash; exit 4");
    expect(result).toMatchObject({ output: "hello from bash\n", exitCode: 4, cancelled: false, truncated: false });
    expect(manager.getEntries().at(-1)).toMatchObject({ type: "message", message: { role: "bashExecution", command: "echo hello from bash; exit 4" } });
    server.enqueue(text("saw it"));
    const before = server.requests.length;
    await session.prompt("what happened?");
    expect(JSON.stringify(server.requests[before].body.messages)).toContain("Ran `echo hello from bash; exit 4`");
  });

  test("abortBash cancels a running command", async () => {
    const { session } = makeSession();
    const running = session.executeBash("sleep 30");
    await Bun.sleep(100);
    session.abortBash();
    const result = await running;
    expect(result.cancelled).toBe(true);
    expect(result.exitCode).toBeUndefined();
  });
});

describe("credentials", () => {
  test("a !command header is resolved for every request; authHeader sends the key", async () => {
    const counter = join(root, "header-counter");
    writeFileSync(
      join(root, "models-headers.json"),
      JSON.stringify({
        providers: {
          tokened: {
            baseUrl: server.baseUrl("anthropic-messages"),
            api: "anthropic-messages",
            apiKey: "secret-key",
            authHeader: true,
            headers: { "x-token": `!echo tick >> ${counter}; wc -l < ${counter}` },
            models: [{ id: "m" }],
          },
        },
      }),
    );
    const registry = ModelRegistry.load({ modelsJsonPath: join(root, "models-headers.json") });
    const agent = new Agent({ initialState: { model: registry.find("tokened", "m")! } });
    const settings = structuredClone(DEFAULT_SETTINGS) as Settings;
    const toolSet = new ToolSet(agent, { cwd: root, contextFiles: [] }, [], []);
    const session = new AgentSession({ cwd: root, agent, sessionManager: SessionManager.inMemory(root), settings, registry, toolSet });
    server.enqueue(text("one"), text("two"));
    const before = server.requests.length;
    await session.prompt("first");
    await session.prompt("second");
    const [first, second] = server.requests.slice(before).map((request) => request.headers);
    expect(first["x-token"]).toBe("1");
    expect(second["x-token"]).toBe("2");
    expect(second.authorization).toBe("Bearer secret-key");
  });
});

describe("models, names, stats", () => {
  test("model and thinking changes are recorded and restored on switch", async () => {
    const { session, manager, registry } = makeSession();
    session.models.setThinkingLevel("high");
    await session.models.setModel(registry.find("fake", "other")!);
    server.enqueue(text("hi"));
    await session.prompt("hello");
    const types = manager.getEntries().map((entry) => entry.type);
    expect(types).toContain("model_change");
    expect(types).toContain("thinking_level_change");
    // "other" has no reasoning: the level was clamped to off.
    expect(session.thinkingLevel).toBe("off");

    const fresh = makeSession();
    await fresh.session.navigation.switchSession(manager.getSessionFile()!);
    expect(fresh.session.model.id).toBe("other");
    expect(fresh.session.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  test("switching to a session file that does not exist is refused", async () => {
    const { session } = makeSession();
    await expect(session.navigation.switchSession(join(root, "no-such-session.jsonl"))).rejects.toThrow(/Session file not found/);
  });

  test("labels mark entries, and clearing one removes it", async () => {
    const { session, manager } = makeSession();
    server.enqueue(text("labelled answer"));
    await session.prompt("question");
    const answer = manager.getEntries().find((entry) => entry.type === "message" && entry.message.role === "assistant")!;
    session.setLabel(answer.id, "checkpoint-1");
    expect(manager.getLabel(answer.id)).toBe("checkpoint-1");
    expect(SessionManager.open(manager.getSessionFile()!).getLabel(answer.id)).toBe("checkpoint-1");
    session.setLabel(answer.id, undefined);
    expect(manager.getLabel(answer.id)).toBeUndefined();
    expect(() => session.setLabel("ffffffff", "x")).toThrow(/No entry/);
  });

  test("session name, stats and last assistant text", async () => {
    const { session } = makeSession();
    expect(() => session.setSessionName("   ")).toThrow("Session name cannot be empty");
    session.setSessionName("my work");
    expect(session.sessionName).toBe("my work");
    server.enqueue({ ...text("answer"), usage: { input: 100, output: 20 } });
    await session.prompt("question");
    const stats = session.getSessionStats();
    expect(stats).toMatchObject({ userMessages: 1, assistantMessages: 1, toolCalls: 0, totalMessages: 2 });
    expect(stats.tokens).toMatchObject({ input: 100, output: 20, total: 120 });
    expect(stats.cost).toBeCloseTo((100 * 1 + 20 * 2) / 1_000_000);
    expect(stats.contextUsage!.contextWindow).toBe(4000);
    expect(stats.contextUsage!.tokens).toBe(120);
    expect(session.getLastAssistantText()).toBe("answer");
  });

  test("steering while busy is queued and reported in queue_update", async () => {
    const { session, events } = makeSession();
    server.enqueue({ ...text("slow"), delayMs: 150 }, text("steered"));
    const run = session.prompt("start");
    await Bun.sleep(20);
    await expect(session.prompt("no behaviour given")).rejects.toThrow(/streamingBehavior/);
    await session.prompt("go left", { streamingBehavior: "steer" });
    expect(session.pendingMessageCount).toBe(1);
    await run;
    const updates = eventsOf(events, "queue_update");
    expect(updates[0]).toEqual({ type: "queue_update", steering: ["go left"], followUp: [] });
    expect(updates.at(-1)).toEqual({ type: "queue_update", steering: [], followUp: [] });
  });
});

describe("fork, clone, new", () => {
  async function twoExchanges() {
    const made = makeSession();
    server.enqueue(text("answer one"), text("answer two"));
    await made.session.prompt("question one");
    await made.session.prompt("question two");
    return made;
  }

  test("fork from the second question: a new file with the history before it", async () => {
    const { session, manager } = await twoExchanges();
    const original = manager.getSessionFile()!;
    const forkable = session.navigation.forkableMessages();
    expect(forkable.map((entry) => entry.text)).toEqual(["question one", "question two"]);
    const { text: forkedText } = await session.navigation.fork(forkable[1].entryId);
    expect(forkedText).toBe("question two");
    expect(manager.getSessionFile()).not.toBe(original);
    expect(manager.getHeader()!.parentSession).toBe(original);
    expect(session.messages.map((message) => (message as any).content?.[0]?.text ?? (message as any).content)).toEqual([
      "question one",
      "answer one",
    ]);
  });

  test("clone copies the active branch; new starts empty with a parent", async () => {
    const { session, manager } = await twoExchanges();
    const original = manager.getSessionFile()!;
    await session.navigation.clone();
    expect(manager.getSessionFile()).not.toBe(original);
    expect(session.messages).toHaveLength(4);
    await session.navigation.newSession({ parentSession: original });
    expect(session.messages).toHaveLength(0);
    expect(manager.getHeader()!.parentSession).toBe(original);
  });

  test("navigating to an earlier entry branches in place", async () => {
    const { session, manager } = await twoExchanges();
    const firstAnswer = manager.getEntries().find((entry) => entry.type === "message" && entry.message.role === "assistant")!;
    await session.navigation.navigateTo(firstAnswer.id);
    server.enqueue(text("alternative two"));
    await session.prompt("another question two");
    expect(session.messages).toHaveLength(4);
    expect(manager.getTree()).toHaveLength(1);
    expect(manager.getChildren(firstAnswer.id)).toHaveLength(2);
  });
});
