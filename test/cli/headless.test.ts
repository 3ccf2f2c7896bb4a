/**
 * What a CI pipeline observes from a headless run (docs/headless.md): the exit
 * code of each outcome, its one stderr line, and the result envelope — the last
 * line of --mode json, the only output of -p --output-format json.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { BINARY, ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";

let server: FakeLlmServer;
let home: TestHome;
let project: string;

beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
});
afterAll(() => server.close());
beforeEach(() => {
  server.clearScript();
  home?.cleanup();
  home = makeTestHome();
  // $0.10 per token either way: each scripted reply below (10 in, 5 out) costs $1.50.
  home.writeModelsJson({
    providers: {
      fake: {
        baseUrl: server.baseUrl("openai-completions"),
        api: "openai-completions",
        apiKey: "test-key",
        models: [{ id: "fake-model", cost: { input: 100_000, output: 100_000, cacheRead: 0, cacheWrite: 0 } }],
      },
    },
  });
  home.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 1 } });
  project = join(home.home, "project");
  mkdirSync(project);
  writeFileSync(join(project, "notes.txt"), "one\n");
});

const usage = { input: 10, output: 5 };
const MODEL = ["--model", "fake/fake-model"];

/** A model that never stops calling tools: each reply runs `ls`. */
function endlessToolCalls(count: number): void {
  for (let i = 0; i < count; i++) {
    server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: "ls" } }], usage });
  }
}

/** -p --output-format json: stdout must be exactly one JSON line. */
function envelopeOf(stdout: string): any {
  const lines = stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]);
}

function lastLineOf(stdout: string): any {
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

/** Every line of the session file is a complete entry. */
function sessionEntries(file: string): any[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

describe("the result envelope", () => {
  test("-p --output-format json prints only the envelope of a successful run", async () => {
    server.enqueue({ content: [{ type: "text", text: "All done." }], usage });
    const result = await runXcsh(["-p", "hi", "--output-format", "json", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    const envelope = envelopeOf(result.stdout);
    expect(envelope).toMatchObject({ type: "result", status: "success", stopReason: "stop", turns: 1, filesChanged: [] });
    expect(envelope.usage).toMatchObject({ input: 10, output: 5 });
    expect(envelope.costUsd).toBeCloseTo(1.5, 6);
    expect(envelope.durationMs).toBeGreaterThanOrEqual(0);
    expect(typeof envelope.sessionId).toBe("string");
    expect(existsSync(envelope.sessionFile)).toBe(true);
    expect(envelope.error).toBeUndefined();
  });

  test("--mode json ends with one result line that lists the files edit and write changed", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", name: "write", arguments: { path: "new.txt", content: "fresh\n" } }], usage },
      { content: [{ type: "toolCall", name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "one", newText: "two" }] } }], usage },
      { content: [{ type: "toolCall", name: "edit", arguments: { path: "missing.txt", edits: [{ oldText: "a", newText: "b" }] } }], usage },
      { content: [{ type: "text", text: "Edited." }], usage },
    );
    const result = await runXcsh(["--mode", "json", "-p", "edit things", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.type === "result")).toHaveLength(1);
    const envelope = lines.at(-1);
    expect(envelope).toMatchObject({ type: "result", status: "success", turns: 4 });
    // The failed edit of a missing file changed nothing.
    expect(envelope.filesChanged.sort()).toEqual(["new.txt", "notes.txt"]);
    expect(envelope.costUsd).toBeCloseTo(6, 6);
  });

  test("in a git work tree, files a bash command created, changed or deleted are listed; files dirty before are not", async () => {
    const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: project, env: { ...home.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
    writeFileSync(join(project, "tracked.txt"), "v1\n");
    writeFileSync(join(project, "gone.txt"), "bye\n");
    mkdirSync(join(project, "sub"));
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "start");
    // Dirty before the run, and left alone by it: not the run's change.
    writeFileSync(join(project, "notes.txt"), "edited by the user\n");
    const command = "echo v2 > ../tracked.txt && rm ../gone.txt && echo new > made.txt";
    server.enqueue(
      { content: [{ type: "toolCall", name: "bash", arguments: { command } }], usage },
      { content: [{ type: "text", text: "Done." }], usage },
    );
    const result = await runXcsh(["-p", "run it", "--output-format", "json", ...MODEL], { env: home.env, cwd: join(project, "sub") });
    expect(result.exitCode).toBe(0);
    const envelope = JSON.parse(result.stdout.trim());
    // Like edit and write paths: relative inside the working directory (sub/), absolute outside it.
    expect(envelope.filesChanged.sort()).toEqual([join(project, "gone.txt"), join(project, "tracked.txt"), "made.txt"].sort());
  });
});

describe("exit codes of failures", () => {
  test("1: a model error the provider will not fix by waiting", async () => {
    server.enqueue({ type: "error", status: 400, message: "bad request body" });
    const result = await runXcsh(["-p", "hi", "--output-format", "json", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("bad request body");
    expect(envelopeOf(result.stdout)).toMatchObject({ status: "error", stopReason: "error", error: { kind: "model", retryable: false, httpStatus: 400 } });
  });

  test("2: a bad flag value, before anything runs", async () => {
    const result = await runXcsh(["-p", "hi", "--max-turns", "0", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("--max-turns");
    const timeout = await runXcsh(["-p", "hi", "--timeout", "soon", ...MODEL], { env: home.env, cwd: project });
    expect(timeout.exitCode).toBe(2);
    expect(timeout.stderr).toContain('not "soon"');
  });

  test("2: a broken models.json, with an envelope that says config", async () => {
    writeFileSync(join(home.agentDir, "models.json"), "{ not json");
    const result = await runXcsh(["-p", "hi", "--output-format", "json"], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("models.json");
    expect(envelopeOf(result.stdout)).toMatchObject({ status: "error", error: { kind: "config", retryable: false } });
  });

  test("2: an unknown model", async () => {
    const result = await runXcsh(["-p", "hi", "--model", "no-such-model-anywhere"], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("no-such-model-anywhere");
  });

  test("3: a key the provider rejects (401)", async () => {
    server.enqueue({ type: "error", status: 401, message: "invalid api key" });
    const result = await runXcsh(["-p", "hi", "--output-format", "json", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain("invalid api key");
    expect(envelopeOf(result.stdout)).toMatchObject({ status: "error", error: { kind: "credentials", retryable: false, httpStatus: 401 } });
  });

  test("3: access forbidden (403), in json mode", async () => {
    server.enqueue({ type: "error", status: 403, message: "region not allowed" });
    const result = await runXcsh(["--mode", "json", "-p", "hi", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(3);
    expect(lastLineOf(result.stdout)).toMatchObject({ type: "result", status: "error", error: { kind: "credentials", httpStatus: 403 } });
  });

  test("3: no key at all for a built-in provider", async () => {
    const result = await runXcsh(["-p", "hi", "--provider", "anthropic", "--output-format", "json"], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain("ANTHROPIC_API_KEY");
    expect(envelopeOf(result.stdout)).toMatchObject({ status: "error", error: { kind: "credentials" } });
  });

  test("4: the provider still fails after the retries", async () => {
    server.enqueue({ type: "error", status: 503, message: "service unavailable" }, { type: "error", status: 503, message: "service unavailable" });
    const result = await runXcsh(["-p", "hi", "--output-format", "json", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain("retrying");
    expect(result.stderr).toContain("service unavailable");
    expect(envelopeOf(result.stdout)).toMatchObject({ status: "error", error: { kind: "provider", retryable: true, httpStatus: 503 } });
  });
});

describe("limits stop the run and are their own outcome", () => {
  test("5: --max-turns stops before the next model request; the session ends with the tool results", async () => {
    endlessToolCalls(5);
    const before = server.requests.length;
    const result = await runXcsh(["-p", "loop", "--max-turns", "2", "--output-format", "json", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(5);
    expect(result.stderr).toContain("stopped after 2 turns (--max-turns)");
    expect(server.requests.length - before).toBe(2);
    const envelope = envelopeOf(result.stdout);
    expect(envelope).toMatchObject({ status: "max_turns", stopReason: "toolUse", turns: 2 });
    const roles = sessionEntries(envelope.sessionFile)
      .filter((entry) => entry.type === "message")
      .map((entry) => entry.message.role);
    expect(roles).toEqual(["user", "assistant", "toolResult", "assistant", "toolResult"]);
  });

  test("a run that answers within --max-turns is a success", async () => {
    server.enqueue({ content: [{ type: "text", text: "quick" }], usage });
    const result = await runXcsh(["-p", "hi", "--max-turns", "1", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("quick\n");
  });

  test("6: --max-cost stops once the run has cost that much", async () => {
    endlessToolCalls(5);
    const result = await runXcsh(["--mode", "json", "-p", "loop", "--max-cost", "2", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toContain("--max-cost");
    const envelope = lastLineOf(result.stdout);
    expect(envelope).toMatchObject({ type: "result", status: "max_cost", turns: 2 });
    expect(envelope.costUsd).toBeCloseTo(3, 6);
  });

  test("7: --timeout stops a run that takes too long", async () => {
    server.enqueue({ content: [{ type: "text", text: "too late" }], delayMs: 5_000 });
    const started = Date.now();
    const result = await runXcsh(["-p", "hi", "--timeout", "0.5", "--output-format", "json", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(7);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(result.stderr).toContain("(--timeout)");
    const envelope = envelopeOf(result.stdout);
    expect(envelope).toMatchObject({ status: "timeout", stopReason: "aborted" });
    // The aborted response is saved as such: the session can be continued.
    const last = sessionEntries(envelope.sessionFile).at(-1);
    expect(last.message).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });

  test("7: --idle-timeout stops a stream that went quiet", async () => {
    server.enqueue({ content: [{ type: "text", text: "and then nothing more for a long while" }], chunkSize: 4, stallAfterEvents: 3 });
    const started = Date.now();
    const result = await runXcsh(["--mode", "json", "-p", "hi", "--idle-timeout", "0.5", "--timeout", "10", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(7);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(result.stderr).toContain("no event from the model or a tool");
    expect(lastLineOf(result.stdout)).toMatchObject({ type: "result", status: "idle_timeout", stopReason: "aborted" });
  });

  test("--idle-timeout also covers a tool that runs silently", async () => {
    server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: "sleep 5" } }], usage });
    const started = Date.now();
    const result = await runXcsh(["-p", "wait", "--idle-timeout", "0.5", "--output-format", "json", ...MODEL], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(7);
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(envelopeOf(result.stdout)).toMatchObject({ status: "idle_timeout", turns: 1 });
  });
});

describe("130: interrupted", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    test(`${signal} aborts the run, saves the session and exits 130 with the envelope`, async () => {
      server.enqueue({ content: [{ type: "text", text: "slow" }], delayMs: 5_000 });
      const before = server.requests.length;
      const proc = Bun.spawn([BINARY, "-p", "hi", "--output-format", "json", ...MODEL], { env: home.env, cwd: project, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      const deadline = Date.now() + 5_000;
      while (server.requests.length === before && Date.now() < deadline) await Bun.sleep(20);
      proc.kill(signal);
      const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      expect(exitCode).toBe(130);
      expect(stderr).toContain(`interrupted (${signal})`);
      const envelope = envelopeOf(stdout);
      expect(envelope).toMatchObject({ status: "interrupted", stopReason: "aborted" });
      const roles = sessionEntries(envelope.sessionFile)
        .filter((entry) => entry.type === "message")
        .map((entry) => entry.message.role);
      expect(roles).toEqual(["user", "assistant"]);
    });
  }
});
