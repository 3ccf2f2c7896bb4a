/**
 * What xcsh does to keep the providers' prompt caches working, seen in the
 * requests the built binary sends to the fake LLM server (docs/costs.md): the
 * compaction's summary request writes no cache entry, the cached prefix holds no
 * date, settings' cacheRetention and the session id reach the request, a session
 * slower than the short cache switches to the long one, tool output kept by a
 * compaction goes out trimmed (an old file read as a one-line note), and the
 * default system prompt and tools stay under a token budget.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeApi, FakeResponse, RecordedRequest } from "../support/fake-llm/server.ts";
import type { FakeBlock } from "../support/fake-llm/script.ts";
import { createRpcFixture, type FixtureOptions, type RpcFixture, type RpcProcess } from "../support/rpc-harness.ts";
import { PromptCache, type CacheUsage } from "../../scripts/bench/prompt-cache.ts";

const fixtures: RpcFixture[] = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.cleanup()));
});

function fixtureFor(api: FakeApi, options: Omit<FixtureOptions, "api"> = {}): RpcFixture {
  const fixture = createRpcFixture({ api, ...options });
  fixtures.push(fixture);
  return fixture;
}

const isSummaryRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("handover note");
const chatRequests = (fixture: RpcFixture) => fixture.server.requests.filter((request) => !isSummaryRequest(request));

/** Sends a prompt and waits until the run (and anything after it) has settled. */
async function ask(rpc: RpcProcess, message: string): Promise<void> {
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message })).success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 15_000, from);
}

const text = (value: string): FakeResponse => ({ content: [{ type: "text", text: value }] });

describe("one-off requests", () => {
  test("the compaction's summary request carries no cache breakpoint; the conversation's requests do", async () => {
    const fixture = fixtureFor("anthropic-messages");
    const rpc = fixture.start();
    fixture.server.enqueue(text("first answer"), text("second answer"));
    await ask(rpc, "first question");
    await ask(rpc, "second question");
    fixture.server.enqueue(text("SUMMARY: two questions were asked."));
    const compacted = await rpc.request({ type: "compact" }, 15_000);
    expect(compacted.success).toBe(true);
    const summary = fixture.server.requests.find(isSummaryRequest);
    expect(summary).toBeDefined();
    expect(JSON.stringify(summary!.body)).not.toContain("cache_control");
    expect(JSON.stringify(chatRequests(fixture).at(-1)!.body)).toContain("cache_control");
  }, 30_000);
});

describe("the cached prefix", () => {
  test("system prompt and tools hold no date and are byte-identical from one run to the next", async () => {
    const fixture = fixtureFor("anthropic-messages");
    for (const question of ["monday's question", "tuesday's question"]) {
      const rpc = fixture.start();
      fixture.server.enqueue(text("answer"));
      await ask(rpc, question);
      await rpc.close();
    }
    const [first, second] = chatRequests(fixture);
    const prefix = (request: RecordedRequest) => JSON.stringify({ system: request.body.system, tools: request.body.tools });
    expect(prefix(first!)).toBe(prefix(second!));
    // Today's, yesterday's and tomorrow's dates, in UTC and local time: none may appear.
    const days = [-1, 0, 1].flatMap((offset) => {
      const day = new Date(Date.now() + offset * 86_400_000);
      const local = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, "0")}-${String(day.getDate()).padStart(2, "0")}`;
      return [day.toISOString().slice(0, 10), local];
    });
    for (const day of days) expect(prefix(first!)).not.toContain(day);
  }, 30_000);
});

describe("the fixed prefix's size", () => {
  // System prompt and tool definitions go out with every request: 4 characters of their JSON to a token, as the
  // token bench counts (scripts/bench/prompt-cache.ts), without the working directory's path, for the default tools.
  const PREFIX_TOKEN_BUDGET = 1100;

  test(`system prompt and the default tools stay under ${PREFIX_TOKEN_BUDGET} tokens, and say each rule once`, async () => {
    const fixture = fixtureFor("anthropic-messages");
    const rpc = fixture.start();
    fixture.server.enqueue(text("answer"));
    await ask(rpc, "question");
    const body = chatRequests(fixture)[0]!.body;
    expect(body.tools.map((tool: { name: string }) => tool.name)).toEqual(["read", "bash", "edit", "write"]);
    const system = JSON.stringify(body.system);
    const characters = system.length - fixture.cwd.length + JSON.stringify(body.tools).length;
    expect(Math.ceil(characters / 4)).toBeLessThanOrEqual(PREFIX_TOKEN_BUDGET);
    // The tools' rules are in their descriptions, not repeated among the system prompt's guidelines.
    expect(system).not.toContain("oldText");
    expect(system).not.toContain("--no-pager");
    expect(system).not.toContain("complete rewrites");
    const tools = JSON.stringify(body.tools);
    for (const rule of ["read it first", "--no-pager", "complete rewrites"]) expect(tools).toContain(rule);
  }, 30_000);
});

describe("cacheRetention and the session id", () => {
  test("Anthropic: long asks for the 1-hour cache on every breakpoint; none sends no breakpoint", async () => {
    const long = fixtureFor("anthropic-messages", { settings: { cacheRetention: "long" } });
    const rpc = long.start();
    long.server.enqueue(text("answer"));
    await ask(rpc, "question");
    const markers = JSON.stringify(long.server.requests[0]!.body).match(/"cache_control":\{[^}]*\}/g) ?? [];
    expect(markers.length).toBeGreaterThan(0);
    for (const marker of markers) expect(marker).toContain('"ttl":"1h"');

    const none = fixtureFor("anthropic-messages", { settings: { cacheRetention: "none" } });
    const other = none.start();
    none.server.enqueue(text("answer"));
    await ask(other, "question");
    expect(JSON.stringify(none.server.requests[0]!.body)).not.toContain("cache_control");
  }, 30_000);

  test("OpenAI Responses: prompt_cache_key is the session id; long asks for 24-hour retention, none for no key", async () => {
    const model = { id: "fake-model", compat: { supportsLongCacheRetention: true } };
    const short = fixtureFor("openai-responses", { models: [model] });
    const rpc = short.start();
    short.server.enqueue(text("answer"));
    await ask(rpc, "question");
    const state = await rpc.request({ type: "get_state" });
    expect(short.server.requests[0]!.body.prompt_cache_key).toBe(state.data.sessionId);
    expect(short.server.requests[0]!.body.prompt_cache_retention).toBeUndefined();

    const long = fixtureFor("openai-responses", { models: [model], settings: { cacheRetention: "long" } });
    const longRpc = long.start();
    long.server.enqueue(text("answer"));
    await ask(longRpc, "question");
    expect(long.server.requests[0]!.body.prompt_cache_retention).toBe("24h");

    const none = fixtureFor("openai-responses", { models: [model], settings: { cacheRetention: "none" } });
    const noneRpc = none.start();
    none.server.enqueue(text("answer"));
    await ask(noneRpc, "question");
    expect(none.server.requests[0]!.body.prompt_cache_key).toBeUndefined();
  }, 30_000);

  test("a new session brings a new prompt_cache_key", async () => {
    const fixture = fixtureFor("openai-responses");
    const rpc = fixture.start();
    fixture.server.enqueue(text("answer"), text("answer"));
    await ask(rpc, "question");
    expect((await rpc.request({ type: "new_session" })).success).toBe(true);
    await ask(rpc, "question");
    const [first, second] = fixture.server.requests;
    expect(first!.body.prompt_cache_key).toBeString();
    expect(second!.body.prompt_cache_key).toBeString();
    expect(second!.body.prompt_cache_key).not.toBe(first!.body.prompt_cache_key);
  }, 30_000);
});

describe("the automatic retention", () => {
  // The provider reports a 3,000-token prompt written to the cache, then the next prompt: read back or missed.
  const written = { content: [{ type: "text" as const, text: "one" }], usage: { input: 5, cacheRead: 200, cacheWrite: 2800 } };
  const ttlsOf = (request: RecordedRequest) => (JSON.stringify(request.body).match(/"cache_control":\{[^}]*\}/g) ?? []).map((marker) => marker.includes('"ttl":"1h"'));

  test("after a request that missed the previous prompt's cache, later requests ask for the 1-hour cache", async () => {
    const fixture = fixtureFor("anthropic-messages");
    const rpc = fixture.start();
    fixture.server.enqueue(written, { ...written, usage: { input: 5, cacheRead: 0, cacheWrite: 3100 } }, text("three"));
    await ask(rpc, "first");
    await ask(rpc, "second");
    await ask(rpc, "third");
    const [first, second, third] = fixture.server.requests;
    expect(ttlsOf(first!).some(Boolean)).toBe(false);
    expect(ttlsOf(second!).some(Boolean)).toBe(false);
    expect(ttlsOf(third!).length).toBeGreaterThan(0);
    expect(ttlsOf(third!).every(Boolean)).toBe(true);
  }, 30_000);

  test("a session whose cache keeps being read stays on the short cache", async () => {
    const fixture = fixtureFor("anthropic-messages");
    const rpc = fixture.start();
    fixture.server.enqueue(written, { ...written, usage: { input: 5, cacheRead: 3000, cacheWrite: 100 } }, text("three"));
    await ask(rpc, "first");
    await ask(rpc, "second");
    await ask(rpc, "third");
    for (const request of fixture.server.requests) expect(ttlsOf(request).some(Boolean)).toBe(false);
  }, 30_000);

  test("the miss that follows a compaction says nothing about the pace: the session stays on the short cache", async () => {
    const fixture = fixtureFor("anthropic-messages");
    const rpc = fixture.start();
    fixture.server.enqueue(written, { ...written, usage: { input: 5, cacheRead: 3000, cacheWrite: 100 } });
    await ask(rpc, "first");
    await ask(rpc, "second");
    fixture.server.enqueue(text("SUMMARY: two prompts."));
    expect((await rpc.request({ type: "compact" }, 15_000)).success).toBe(true);
    fixture.server.enqueue({ ...written, usage: { input: 5, cacheRead: 0, cacheWrite: 3200 } }, text("four"));
    await ask(rpc, "third");
    await ask(rpc, "fourth");
    for (const request of chatRequests(fixture)) expect(ttlsOf(request).some(Boolean)).toBe(false);
  }, 30_000);
});

describe("tool output kept by a compaction", () => {
  // A file of 400 numbered lines (~12 KB): its first and last lines are what a later turn would look for first.
  const bigFile = Array.from({ length: 400 }, (_, i) => `line ${i + 1}: ${"x".repeat(24)}`).join("\n");
  const settings = { compaction: { keepRecentTokens: 6000 } };
  // The same 400 lines printed by a command instead of read from a file.
  const printLines = 'for i in $(seq 1 400); do echo "out $i: xxxxxxxxxxxxxxxxxxxxxxxx"; done';

  async function sessionWithCompaction(fixture: RpcFixture): Promise<RecordedRequest> {
    writeFileSync(join(fixture.cwd, "big.txt"), bigFile);
    writeFileSync(join(fixture.cwd, "small.txt"), "small-file-original-content\n");
    writeFileSync(join(fixture.cwd, "notes.txt"), "notes-file-content\n");
    const rpc = fixture.start();
    const call = (name: string, args: Record<string, unknown>): FakeResponse => ({ content: [{ type: "toolCall", name, arguments: args }] });
    fixture.server.enqueue(
      text("Hello."),
      call("read", { path: "big.txt" }),
      call("bash", { command: printLines }),
      call("read", { path: "small.txt" }),
      call("read", { path: "notes.txt" }),
      text("big.txt has 400 lines, and so has the command's output."),
      call("bash", { command: "echo latest-turn-output" }),
      call("edit", { path: "./small.txt", edits: [{ oldText: "original", newText: "edited" }] }),
      text("Printed it."),
    );
    await ask(rpc, "say hello");
    await ask(rpc, "read big.txt");
    await ask(rpc, "run the echo");
    fixture.server.enqueue(text("SUMMARY: the user said hello."));
    expect((await rpc.request({ type: "compact" }, 15_000)).success).toBe(true);
    fixture.server.enqueue(text("Done."));
    await ask(rpc, "what is on the last line of big.txt?");
    return chatRequests(fixture).at(-1)!;
  }

  test("the first request after a compaction is smaller: an old read becomes a note, old command output keeps its start and end", async () => {
    const trimmed = await sessionWithCompaction(fixtureFor("openai-completions", { settings }));
    const whole = await sessionWithCompaction(fixtureFor("openai-completions", { settings: { compaction: { ...settings.compaction, trimToolResults: false } } }));
    const body = JSON.stringify(trimmed.body);
    for (const line of ["line 1:", "line 200:", "line 400:", "out 1:", "out 200:", "out 400:"]) expect(JSON.stringify(whole.body)).toContain(line);
    // The file is on disk: its old read goes out as a note saying how to see it again.
    for (const line of ["line 1:", "line 200:", "line 400:"]) expect(body).not.toContain(line);
    expect(body).toContain(`[${bigFile.length} characters (400 lines) of this file left out when the session was compacted; read it again to see them]`);
    // A command's output may not come back the same: its first and last lines stay.
    expect(body).not.toContain("out 200:");
    expect(body).toContain("out 1:");
    expect(body).toContain("out 400:");
    expect(body).toContain("left out here when the session was compacted; run the tool again");
    // The latest kept turn goes out whole, and the summary is there.
    expect(body).toContain("latest-turn-output");
    expect(body).toContain("SUMMARY: the user said hello.");
    expect(body.length).toBeLessThan(JSON.stringify(whole.body).length - 18_000);
  }, 60_000);

  test("an old read of a file that was changed or read again later goes out as a note, however small", async () => {
    const request = await sessionWithCompaction(fixtureFor("openai-completions", { settings }));
    const body = JSON.stringify(request.body);
    // small.txt was edited in the latest turn: its old contents are out of date.
    expect(body).not.toContain("small-file-original-content");
    expect(body).toContain("this copy of the file was left out when the session was compacted: it was read again or changed later");
    // notes.txt was read once and is small: it stays whole.
    expect(body).toContain("notes-file-content");
  }, 60_000);
});

describe("a turn of many parallel tool calls", () => {
  // Twelve reads in one turn add 24 blocks (12 tool_use, 12 tool_result); Anthropic looks for a cached prefix at a
  // breakpoint and at most 20 blocks before it. The provider's usage comes from the bench's simulation of its cache.
  test("the next request still reads the conversation from the cache, and the session stays on the short cache", async () => {
    const fixture = fixtureFor("anthropic-messages");
    const names = Array.from({ length: 12 }, (_, i) => `part-${i}.txt`);
    for (const name of names) writeFileSync(join(fixture.cwd, name), `${name}: ${"content ".repeat(150)}\n`);
    const cache = new PromptCache("anthropic-messages");
    const usages: CacheUsage[] = [];
    let now = 0;
    const answer = (content: { content: FakeBlock[] }) => (request: RecordedRequest): FakeResponse => {
      const usage = cache.account(request.body, (now += 10));
      usages.push(usage);
      return { ...content, usage: { input: usage.input, output: 10, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite + usage.cacheWriteLong } };
    };
    const rpc = fixture.start();
    fixture.server.enqueue(
      answer({ content: names.map((path) => ({ type: "toolCall" as const, name: "read", arguments: { path } })) }),
      answer({ content: [{ type: "text", text: "read them all" }] }),
      answer({ content: [{ type: "text", text: "second answer" }] }),
    );
    await ask(rpc, "read the twelve parts");
    await ask(rpc, "and now?");
    const requests = fixture.server.requests;
    expect(requests).toHaveLength(3);
    const promptOf = (usage: CacheUsage) => usage.input + usage.cacheRead + usage.cacheWrite + usage.cacheWriteLong;
    // The request after the twelve results reads all of the first request's prompt.
    expect(usages[1]!.cacheRead).toBe(promptOf(usages[0]!));
    expect(usages[1]!.cacheWrite).toBeLessThan(promptOf(usages[1]!) - promptOf(usages[0]!) + 10);
    // No more breakpoints than the four a request may carry.
    for (const request of requests) expect((JSON.stringify(request.body).match(/"cache_control"/g) ?? []).length).toBeLessThanOrEqual(4);
    // A missed cache would have made xcsh think the user slow and ask for the dearer 1-hour cache.
    expect(JSON.stringify(requests[2]!.body)).not.toContain('"ttl":"1h"');
    expect(usages[2]!.cacheRead).toBe(promptOf(usages[1]!));
  }, 60_000);
});
