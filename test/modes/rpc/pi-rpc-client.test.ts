/**
 * pi 0.87.1's own RpcClient, unchanged, drives the built xcsh binary through every one
 * of its methods: a host written for pi starts xcsh instead and keeps working.
 *
 * RpcClient spawns `node <cliPath> --mode rpc …`. The test puts an executable named
 * `node` first on the PATH it hands the client (node:child_process looks the command up
 * in the PATH of the env it is given, under Bun as under Node); that `node` drops
 * cliPath and runs the xcsh binary with the rest of the arguments.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// pi's client, exactly as pi ships it (a devDependency; nothing of it is bundled into xcsh).
// By file: the package's exports map does not list this module.
import { RpcClient } from "../../../node_modules/@earendil-works/pi-coding-agent/dist/modes/rpc/rpc-client.js";
import { ensureBinary, makeFakeModelHome, type FakeModelHome } from "../../support/cli.ts";

type Event = { type: string; [field: string]: any };

let fake: FakeModelHome;
let shimDir: string;
let client: RpcClient;
const events: Event[] = [];
const cwd = () => join(fake.home.home, "work");

const textOf = (message: { content: unknown }): string =>
  typeof message.content === "string"
    ? message.content
    : (message.content as { type: string; text?: string }[]).filter((block) => block.type === "text").map((block) => block.text).join("");

beforeAll(async () => {
  const binary = ensureBinary();
  fake = await makeFakeModelHome([
    { id: "m", reasoning: true, thinkingLevelMap: { xhigh: "xhigh" } },
    { id: "plain", reasoning: false },
  ]);
  fake.home.writeSettings({ retry: { enabled: true, maxRetries: 2, baseDelayMs: 20 } });
  mkdirSync(join(fake.home.agentDir, "prompts"), { recursive: true });
  writeFileSync(join(fake.home.agentDir, "prompts", "greet.md"), "---\ndescription: Say hello\n---\nSay hello to $1\n");
  mkdirSync(cwd(), { recursive: true });
  shimDir = mkdtempSync(join(tmpdir(), "xcsh-node-shim-"));
  // `$1` is the cliPath RpcClient passes to node; xcsh gets everything after it.
  writeFileSync(join(shimDir, "node"), `#!/bin/sh\nshift\nexec "${binary}" "$@"\n`);
  chmodSync(join(shimDir, "node"), 0o755);
  client = new RpcClient({
    cliPath: "pi-cli.js",
    cwd: cwd(),
    env: { ...fake.home.env, PATH: `${shimDir}:${process.env.PATH}` },
    provider: "fake",
    model: "m",
    // What hosts pass when they start pi: accepted, and nothing but frames on stdout.
    args: ["--no-themes", "--offline", "--verbose", "-nc"],
  });
  await client.start();
  client.onEvent((event) => void events.push(event as Event));
}, 120_000);

afterAll(async () => {
  await client?.stop();
  rmSync(shimDir, { recursive: true, force: true });
  await fake.cleanup();
});

const since = (mark: number, type: string) => events.slice(mark).filter((event) => event.type === type);

describe("pi 0.87.1's RpcClient drives xcsh", () => {
  test("promptAndWait returns the run's events, ending in agent_settled, with the model's answer", async () => {
    fake.server.enqueue({ content: [{ type: "text", text: "Hello there" }] });
    const run = await client.promptAndWait("hello");
    expect(run.at(-1)?.type).toBe("agent_settled");
    expect(run.filter((event) => event.type === "agent_settled")).toHaveLength(1);
    const end = run.find((event) => event.type === "agent_end") as Event;
    expect(end.willRetry).toBe(false);
    const answer = run.find((event) => event.type === "message_end" && (event as Event).message.role === "assistant") as Event;
    expect(textOf(answer.message)).toBe("Hello there");
    expect(await client.getLastAssistantText()).toBe("Hello there");
    const messages = await client.getMessages();
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(client.getStderr()).not.toContain("Unknown option");
  });

  test("state, models and thinking levels", async () => {
    const state = await client.getState();
    expect(state.model?.id).toBe("m");
    expect(state.messageCount).toBe(2);
    expect(existsSync(state.sessionFile!)).toBe(true);
    expect((await client.getAvailableModels()).map((model) => model.id).sort()).toEqual(["m", "plain"]);
    expect(await client.getAvailableThinkingLevels()).toEqual(["off", "minimal", "low", "medium", "high", "xhigh"]);

    const mark = events.length;
    await client.setThinkingLevel("high");
    expect((await client.getState()).thinkingLevel).toBe("high");
    expect(await client.cycleThinkingLevel()).toEqual({ level: "xhigh" });
    expect(since(mark, "thinking_level_changed").map((event) => event.level)).toEqual(["high", "xhigh"]);

    const plain = await client.setModel("fake", "plain");
    expect(plain.id).toBe("plain");
    // The model has no reasoning: the level is clamped to off, and the host is told.
    expect(since(mark, "thinking_level_changed").at(-1)?.level).toBe("off");
    expect(await client.getAvailableThinkingLevels()).toEqual(["off"]);
    expect(await client.cycleThinkingLevel()).toBeNull();
    const cycled = await client.cycleModel();
    expect(cycled?.model.id).toBe("m");

    await client.setSteeringMode("all");
    await client.setFollowUpMode("all");
    await client.setAutoCompaction(false);
    const after = await client.getState();
    expect([after.steeringMode, after.followUpMode, after.autoCompactionEnabled]).toEqual(["all", "all", false]);
    await client.setAutoCompaction(true);
  });

  test("steer and followUp queue during a run; clearQueue takes them back; abort and waitForIdle", async () => {
    fake.server.enqueue({ content: [{ type: "text", text: "slow" }], delayMs: 3_000 });
    const idle = client.waitForIdle(15_000);
    const mark = events.length;
    await client.prompt("take your time");
    await client.steer("steer me");
    await client.followUp("then this");
    expect(since(mark, "queue_update").at(-1)).toMatchObject({ steering: ["steer me"], followUp: ["then this"] });
    expect(await client.clearQueue()).toEqual({ steering: ["steer me"], followUp: ["then this"] });
    expect(since(mark, "queue_update").at(-1)).toMatchObject({ steering: [], followUp: [] });
    await client.abort();
    await idle;
    const ends = since(mark, "agent_end");
    expect(ends).toHaveLength(1);
    expect(ends[0].willRetry).toBe(false);
    fake.server.clearScript();
  });

  test("collectEvents sees a retried run through to agent_settled, once, after the last agent_end", async () => {
    await client.setAutoRetry(true);
    await client.abortRetry(); // nothing waiting: succeeds and changes nothing
    fake.server.enqueue({ type: "error", status: 529, message: "overloaded" }, { content: [{ type: "text", text: "recovered" }] });
    const collected = client.collectEvents(15_000);
    await client.prompt("retry me");
    const run = (await collected) as Event[];
    const types = run.map((event) => event.type);
    expect(types.filter((type) => type === "agent_settled")).toHaveLength(1);
    expect(types.at(-1)).toBe("agent_settled");
    expect(run.filter((event) => event.type === "agent_end").map((event) => event.willRetry)).toEqual([true, false]);
    expect(types).toContain("auto_retry_start");
    expect(types.lastIndexOf("agent_end")).toBeLessThan(types.indexOf("agent_settled"));
    expect(await client.getLastAssistantText()).toBe("recovered");
  });

  test("bash streams its output as bash_execution_update; abortBash cancels a running command", async () => {
    const mark = events.length;
    const result = await client.bash("echo one; echo two");
    expect(result).toMatchObject({ output: "one\ntwo\n", exitCode: 0, cancelled: false, truncated: false });
    const updates = since(mark, "bash_execution_update");
    expect(updates.map((update) => update.delta).join("")).toBe("one\ntwo\n");
    // RpcClient gives its commands ids; the updates carry the bash command's.
    expect(updates.every((update) => typeof update.id === "string" && update.id.length > 0)).toBe(true);

    const running = client.bash("sleep 10");
    await Bun.sleep(300);
    await client.abortBash();
    expect((await running).cancelled).toBe(true);
  });

  test("compact, session stats and export", async () => {
    fake.server.enqueue({ content: [{ type: "text", text: "SUMMARY of the talk" }] });
    const compacted = await client.compact("keep it short");
    expect(compacted.summary).toBe("SUMMARY of the talk");
    const stats = await client.getSessionStats();
    expect(stats.userMessages).toBeGreaterThanOrEqual(2);
    const htmlPath = join(fake.home.home, "export.html");
    expect(await client.exportHtml(htmlPath)).toEqual({ path: htmlPath });
    expect(readFileSync(htmlPath, "utf8")).toContain("<html");
  });

  test("entries, tree, names, fork, clone, switch and new session", async () => {
    const { entries, leafId } = await client.getEntries();
    expect(entries.length).toBeGreaterThan(3);
    expect(entries.some((entry) => entry.type === "compaction")).toBe(true);
    expect(leafId).toBe(entries.at(-1)!.id);
    const middle = entries[1].id;
    expect((await client.getEntries(middle)).entries.map((entry) => entry.id)).toEqual(entries.slice(2).map((entry) => entry.id));
    const { tree, leafId: treeLeaf } = await client.getTree();
    expect(treeLeaf).toBe(leafId);
    expect(tree[0].entry.id).toBe(entries[0].id);
    expect(tree[0].children[0].entry.id).toBe(entries[1].id);

    const mark = events.length;
    await client.setSessionName("named by host");
    expect(since(mark, "session_info_changed")).toEqual([{ type: "session_info_changed", name: "named by host" }]);
    const original = (await client.getState()).sessionFile!;

    const forkable = await client.getForkMessages();
    const first = forkable.find((message) => message.text === "hello")!;
    expect(first).toBeDefined();
    expect(await client.fork(first.entryId)).toEqual({ text: "hello", cancelled: false });
    expect((await client.getState()).sessionFile).not.toBe(original);

    expect(await client.clone()).toEqual({ cancelled: false });
    expect(await client.switchSession(original)).toEqual({ cancelled: false });
    expect((await client.getState()).sessionFile).toBe(original);

    expect(await client.newSession()).toEqual({ cancelled: false });
    expect(await client.getMessages()).toEqual([]);
    expect(await client.getEntries()).toEqual({ entries: [], leafId: null });
  });

  test("getCommands lists prompt templates", async () => {
    const commands = await client.getCommands();
    expect(commands.find((command) => command.name === "greet")).toMatchObject({ source: "prompt", description: "Say hello" });
  });
});
