/**
 * pi 1.6.0's own RpcClient, unchanged, drives the built xcsh binary through every one
 * of its public methods: a host written for pi 1.6.0 starts xcsh instead and keeps
 * working — prompt dispositions, agent_settled.aborted, tool_execution_end.durationMs
 * and the orderly SIGTERM its stop() sends included.
 *
 * Every public method is wrapped to record that the test called it; the last test
 * compares that record with the methods the class has (from its prototype, less the
 * ones its .d.ts declares private), so a method a later pi adds fails here until a
 * test exercises it.
 *
 * RpcClient spawns `node <cliPath> --mode rpc …`: an executable named `node` first on
 * the PATH handed to the client drops cliPath and runs the xcsh binary instead.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// pi 1.6.0's client as pi ships it, from the aliased devDependency (by file: the exports map omits it).
import { RpcClient } from "../../../node_modules/pi-coding-agent-160/dist/modes/rpc/rpc-client.js";
import { ensureBinary, makeFakeModelHome, type FakeModelHome } from "../../support/cli.ts";

type Event = { type: string; [field: string]: any };

const CLIENT_DTS = join(import.meta.dir, "../../../node_modules/pi-coding-agent-160/dist/modes/rpc/rpc-client.d.ts");

let fake: FakeModelHome;
let shimDir: string;
let client: RpcClient;
let shutdownMark: string;
const events: Event[] = [];
const called = new Set<string>();
const cwd = () => join(fake.home.home, "work");

/** The methods a host can call: the prototype's, less the constructor and what the .d.ts marks private. */
function publicMethods(): string[] {
  const hidden = new Set([...readFileSync(CLIENT_DTS, "utf8").matchAll(/^\s*private (\w+)/gm)].map((match) => match[1]));
  return Object.getOwnPropertyNames(RpcClient.prototype).filter((name) => name !== "constructor" && !hidden.has(name));
}

/** Records each method the test calls itself (not the client's calls of its own methods). */
function recordCalls(target: RpcClient): void {
  let depth = 0;
  for (const name of publicMethods()) {
    const original = (target as any)[name] as (...args: unknown[]) => unknown;
    (target as any)[name] = function (this: unknown, ...args: unknown[]) {
      if (depth === 0) called.add(name);
      depth++;
      try {
        return original.apply(target, args);
      } finally {
        depth--;
      }
    };
  }
}

// A user extension: an input handler that consumes "swallow", a command, and a
// session_shutdown handler whose async work (a file after 200 ms) must finish.
const EXTENSION = `
import { writeFileSync } from "node:fs";
export default function (pi) {
  pi.on("input", (event) => (event.text === "swallow" ? { action: "handled" } : { action: "continue" }));
  pi.registerCommand("noop", { description: "does nothing", handler: async () => {} });
  pi.on("session_shutdown", async () => {
    await new Promise((resolve) => setTimeout(resolve, 200));
    writeFileSync(process.env.SHUTDOWN_MARK, "done");
  });
}
`;

beforeAll(async () => {
  const binary = ensureBinary();
  fake = await makeFakeModelHome([
    { id: "m", reasoning: true, thinkingLevelMap: { xhigh: "xhigh" } },
    { id: "plain", reasoning: false },
  ]);
  fake.home.writeSettings({ retry: { enabled: true, maxRetries: 2, baseDelayMs: 20 } });
  mkdirSync(join(fake.home.agentDir, "prompts"), { recursive: true });
  writeFileSync(join(fake.home.agentDir, "prompts", "greet.md"), "---\ndescription: Say hello\n---\nSay hello to $1\n");
  mkdirSync(join(fake.home.agentDir, "extensions"), { recursive: true });
  writeFileSync(join(fake.home.agentDir, "extensions", "host-test.ts"), EXTENSION);
  mkdirSync(cwd(), { recursive: true });
  shutdownMark = join(fake.home.home, "shutdown-mark");
  shimDir = mkdtempSync(join(tmpdir(), "xcsh-node-shim-"));
  writeFileSync(join(shimDir, "node"), `#!/bin/sh\nshift\nexec "${binary}" "$@"\n`);
  chmodSync(join(shimDir, "node"), 0o755);
  client = new RpcClient({
    cliPath: "pi-cli.js",
    cwd: cwd(),
    env: { ...fake.home.env, PATH: `${shimDir}:${process.env.PATH}`, SHUTDOWN_MARK: shutdownMark },
    provider: "fake",
    model: "m",
    args: ["--offline"],
  });
  recordCalls(client);
  await client.start();
  client.onEvent((event) => void events.push(event as Event));
}, 120_000);

afterAll(async () => {
  await client?.stop();
  rmSync(shimDir, { recursive: true, force: true });
  await fake.cleanup();
});

const since = (mark: number, type: string) => events.slice(mark).filter((event) => event.type === type);

describe("pi 1.6.0's RpcClient drives xcsh", () => {
  test("promptAndWait runs a tool and the answer; the run settles not aborted; the tool's durationMs is reported", async () => {
    fake.server.enqueue(
      { content: [{ type: "toolCall", name: "bash", arguments: { command: "sleep 0.2; echo done" } }] },
      { content: [{ type: "text", text: "Hello there" }] },
    );
    const run = (await client.promptAndWait("hello")) as Event[];
    expect(run.at(-1)).toEqual({ type: "agent_settled", aborted: false });
    const end = run.find((event) => event.type === "tool_execution_end")!;
    expect(end.isError).toBe(false);
    expect(typeof end.durationMs).toBe("number");
    expect(end.durationMs).toBeGreaterThanOrEqual(150);
    expect(await client.getLastAssistantText()).toBe("Hello there");
    expect((await client.getMessages()).map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(client.getStderr()).not.toContain("Unknown option");
  });

  test("prompt, steer and followUp return their disposition; abort settles the run as aborted", async () => {
    fake.server.enqueue({ content: [{ type: "text", text: "slow" }], delayMs: 3_000 });
    const idle = client.waitForIdle(15_000);
    const mark = events.length;
    expect(await client.prompt("take your time")).toBe("started");
    expect(await client.steer("steer me")).toBe("queued");
    expect(await client.followUp("then this")).toBe("queued");
    expect(await client.prompt("and this", undefined, "followUp")).toBe("queued");
    // An input handler consumed it, and an extension command: no run of their own.
    expect(await client.steer("swallow")).toBe("handled");
    expect(await client.prompt("/noop")).toBe("handled");
    expect(since(mark, "queue_update").at(-1)).toMatchObject({ steering: ["steer me"], followUp: ["then this", "and this"] });
    expect(await client.clearQueue()).toEqual({ steering: ["steer me"], followUp: ["then this", "and this"] });
    await client.abort();
    await idle;
    expect(since(mark, "agent_settled")).toEqual([{ type: "agent_settled", aborted: true }]);
    expect(since(mark, "agent_start")).toHaveLength(1);
    // Idle: an input handler still consumes a prompt, and then no run starts.
    const before = events.length;
    expect(await client.prompt("swallow")).toBe("handled");
    await Bun.sleep(200);
    expect(since(before, "agent_start")).toHaveLength(0);
    fake.server.clearScript();
  });

  test("state, models and thinking levels", async () => {
    const state = await client.getState();
    expect(state.model?.id).toBe("m");
    expect(existsSync(state.sessionFile!)).toBe(true);
    expect((await client.getAvailableModels()).map((model) => model.id).sort()).toEqual(["m", "plain"]);
    expect(await client.getAvailableThinkingLevels()).toEqual(["off", "minimal", "low", "medium", "high", "xhigh"]);
    await client.setThinkingLevel("high");
    expect((await client.getState()).thinkingLevel).toBe("high");
    expect(await client.cycleThinkingLevel()).toEqual({ level: "xhigh" });
    expect((await client.setModel("fake", "plain")).id).toBe("plain");
    expect((await client.cycleModel())?.model.id).toBe("m");
    await client.setSteeringMode("all");
    await client.setFollowUpMode("all");
    await client.setAutoCompaction(false);
    const after = await client.getState();
    expect([after.steeringMode, after.followUpMode, after.autoCompactionEnabled]).toEqual(["all", "all", false]);
    await client.setAutoCompaction(true);
  });

  test("collectEvents sees a retried run through to agent_settled", async () => {
    await client.setAutoRetry(true);
    await client.abortRetry();
    fake.server.enqueue({ type: "error", status: 529, message: "overloaded" }, { content: [{ type: "text", text: "recovered" }] });
    const collected = client.collectEvents(15_000);
    expect(await client.prompt("retry me")).toBe("started");
    const run = (await collected) as Event[];
    expect(run.filter((event) => event.type === "agent_end").map((event) => event.willRetry)).toEqual([true, false]);
    expect(run.at(-1)).toEqual({ type: "agent_settled", aborted: false });
  });

  test("bash and abortBash", async () => {
    expect(await client.bash("echo one")).toMatchObject({ output: "one\n", exitCode: 0, cancelled: false });
    const running = client.bash("sleep 10");
    await Bun.sleep(300);
    await client.abortBash();
    expect((await running).cancelled).toBe(true);
  });

  test("compact, session stats and export", async () => {
    fake.server.enqueue({ content: [{ type: "text", text: "SUMMARY" }] });
    expect((await client.compact("keep it short")).summary).toBe("SUMMARY");
    expect((await client.getSessionStats()).userMessages).toBeGreaterThanOrEqual(2);
    const htmlPath = join(fake.home.home, "export.html");
    expect(await client.exportHtml(htmlPath)).toEqual({ path: htmlPath });
    expect(readFileSync(htmlPath, "utf8")).toContain("<html");
  });

  test("entries, tree, names, fork, clone, switch and new session, commands", async () => {
    const { entries, leafId } = await client.getEntries();
    expect(leafId).toBe(entries.at(-1)!.id);
    expect((await client.getEntries(entries.at(-2)!.id)).entries.map((entry) => entry.id)).toEqual([leafId!]);
    expect((await client.getTree()).tree[0].entry.id).toBe(entries[0].id);
    await client.setSessionName("named by host");
    const original = (await client.getState()).sessionFile!;
    const first = (await client.getForkMessages()).find((message) => message.text === "hello")!;
    expect(await client.fork(first.entryId)).toEqual({ text: "hello", cancelled: false });
    expect(await client.clone()).toEqual({ cancelled: false });
    expect(await client.switchSession(original)).toEqual({ cancelled: false });
    expect(await client.newSession()).toEqual({ cancelled: false });
    expect(await client.getMessages()).toEqual([]);
    const commands = await client.getCommands();
    expect(commands.find((command) => command.name === "greet")).toMatchObject({ source: "prompt" });
    expect(commands.find((command) => command.name === "noop")).toMatchObject({ source: "extension" });
  });

  test("stop() sends SIGTERM: the extension's session_shutdown work finishes before the process ends", async () => {
    await client.stop();
    // stop() waits for the exit (SIGKILL after 1 s): the file is there only if the shutdown was orderly.
    expect(readFileSync(shutdownMark, "utf8")).toBe("done");
  });

  test("every public method of pi 1.6.0's RpcClient was exercised", () => {
    // start and onEvent were called in beforeAll, through the same wrappers.
    const missing = publicMethods().filter((name) => !called.has(name));
    expect(missing).toEqual([]);
    expect(publicMethods()).toContain("promptAndWait");
  });
});
