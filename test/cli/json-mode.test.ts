/**
 * `xcsh --mode json` and `-p` with tools, as a CI pipeline runs them: the real
 * binary, the real bash and edit tools on a temp project, the fake LLM server.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { isAlive } from "../support/process.ts";

let server: FakeLlmServer;
let home: TestHome;
let project: string;

beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
});
afterAll(() => server.close());
beforeEach(() => {
  home?.cleanup();
  home = makeTestHome();
  home.writeModelsJson({
    providers: {
      fake: {
        baseUrl: server.baseUrl("openai-completions"),
        api: "openai-completions",
        apiKey: "test-key",
        models: [{ id: "fake-model" }],
      },
    },
  });
  project = join(home.home, "project");
  mkdirSync(project);
  writeFileSync(join(project, "greeting.txt"), "hello world\n");
});

const bashThenEdit = () => {
  server.enqueue(
    { content: [{ type: "text", text: "Let me look." }, { type: "toolCall", name: "bash", arguments: { command: "cat greeting.txt" } }] },
    { content: [{ type: "toolCall", name: "edit", arguments: { path: "greeting.txt", edits: [{ oldText: "world", newText: "xcsh" }] } }] },
    { content: [{ type: "text", text: "Changed the greeting." }] },
  );
};


function parseLines(stdout: string): any[] {
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

describe("--mode json", () => {
  test("a long answer's deltas that arrive together are merged; the stream still adds up to the answer", async () => {
    const text = Array.from({ length: 3000 }, (_, i) => `j${i % 10}k`).join(" ");
    server.enqueue({ content: [{ type: "text", text }], chunkSize: 4 });
    const result = await runXcsh(["--mode", "json", "-p", "Stream", "--model", "fake/fake-model"], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(0);
    const deltas = parseLines(result.stdout).filter((event) => event.type === "message_update" && event.assistantMessageEvent.type === "text_delta");
    expect(deltas.map((event) => event.assistantMessageEvent.delta).join("")).toBe(text);
    // One frame per 4-character piece, each repeating the message, would be 3 000 frames and ~60 MB.
    expect(deltas.length).toBeLessThan(text.length / 4 / 2);
    expect(deltas.at(-1).message.content[0].text).toBe(text);
  });

  test("a run that calls bash, then edit, then answers emits the full event sequence", async () => {
    bashThenEdit();
    const before = server.requests.length;
    const result = await runXcsh(["--mode", "json", "-p", "Change the greeting", "--model", "fake/fake-model"], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(0);
    const events = parseLines(result.stdout);

    expect(events[0]).toMatchObject({ type: "session", version: 3, cwd: project });
    expect(typeof events[0].id).toBe("string");
    const types = events.slice(1).map((event) => event.type);
    expect(types[0]).toBe("agent_start");
    // json mode ends with the result envelope, right after agent_end and agent_settled (docs/headless.md).
    expect(types.slice(-3)).toEqual(["agent_end", "agent_settled", "result"]);
    expect(events.at(-1)).toMatchObject({ status: "success", turns: 3, filesChanged: ["greeting.txt"] });
    expect(types.filter((type) => type === "turn_start")).toHaveLength(3);
    expect(types.filter((type) => type === "turn_end")).toHaveLength(3);

    const toolEnds = events.filter((event) => event.type === "tool_execution_end");
    expect(toolEnds.map((event) => event.toolName)).toEqual(["bash", "edit"]);
    expect(toolEnds.every((event) => event.isError === false)).toBe(true);
    expect(toolEnds[0].result.content[0].text).toContain("hello world");
    expect(toolEnds[1].result.details.diff).toContain("xcsh");

    const updates = events.filter((event) => event.type === "message_update").map((event) => event.assistantMessageEvent.type);
    expect(updates).toContain("text_delta");
    expect(updates).toContain("toolcall_end");

    const agentEnd = events.at(-3);
    expect(agentEnd.messages.map((message: any) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(agentEnd.messages.at(-1).content[0].text).toBe("Changed the greeting.");
    expect(readFileSync(join(project, "greeting.txt"), "utf8")).toBe("hello xcsh\n");

    // The model saw the bash output in the second request.
    expect(JSON.stringify(server.requests[before + 1].body.messages)).toContain("hello world");
    // Every stdout line is a protocol frame.
    expect(result.stdout.trim().split("\n").length).toBe(events.length);
  });

  test("a provider error ends with a non-zero exit and the error on stderr", async () => {
    server.enqueue({ type: "error", status: 401, message: "invalid api key" });
    const result = await runXcsh(["--mode", "json", "-p", "hi", "--model", "fake/fake-model"], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(3); // 401: rejected credentials (docs/headless.md)
    expect(result.stderr).toContain("invalid api key");
    const events = parseLines(result.stdout);
    const end = events.find((event) => event.type === "message_end" && event.message.role === "assistant");
    expect(end.message.stopReason).toBe("error");
  });
});

describe("-p with tools", () => {
  test("prints only the final answer; the tools really ran", async () => {
    bashThenEdit();
    const result = await runXcsh(["-p", "Change the greeting", "--model", "fake/fake-model"], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("Changed the greeting.\n");
    expect(readFileSync(join(project, "greeting.txt"), "utf8")).toBe("hello xcsh\n");
  });

  test("--tools limits what the model may call; a disabled tool is an error result", async () => {
    bashThenEdit();
    const before = server.requests.length;
    const result = await runXcsh(["-p", "Change it", "--model", "fake/fake-model", "--tools", "read,edit"], { env: home.env, cwd: project });
    expect(result.exitCode).toBe(0);
    const offered = server.requests[before].body.tools.map((tool: any) => tool.function.name);
    expect(offered).toEqual(["read", "edit"]);
    expect(JSON.stringify(server.requests[before + 1].body.messages)).toContain('Tool \\"bash\\" not found');
  });

  test("--no-tools sends no tools; an unknown tool name is rejected", async () => {
    server.enqueue({ content: [{ type: "text", text: "plain" }] });
    const before = server.requests.length;
    const plain = await runXcsh(["-p", "hi", "--model", "fake/fake-model", "--no-tools"], { env: home.env, cwd: project });
    expect(plain.stdout).toBe("plain\n");
    expect(server.requests[before].body.tools).toBeUndefined();

    const bad = await runXcsh(["-p", "hi", "--tools", "read,teleport"], { env: home.env, cwd: project });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("teleport");
    expect(bad.stderr).toContain("read, bash");
  });

  test("AGENTS.md from the project reaches the system prompt", async () => {
    writeFileSync(join(project, "AGENTS.md"), "Always answer in haiku.");
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const before = server.requests.length;
    await runXcsh(["-p", "hi", "--model", "fake/fake-model"], { env: home.env, cwd: project });
    const system = server.requests[before].body.messages[0];
    expect(system.role).toBe("system");
    expect(system.content).toContain("Always answer in haiku.");
    expect(system.content).toContain(project);
  });

  test("SIGTERM during a long bash command ends the run and the command at once", async () => {
    const pidFile = join(project, "sleep.pid");
    server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: `sleep 30 & echo $! > ${pidFile}; wait` } }] });
    const proc = Bun.spawn([ensureBinary(), "-p", "wait", "--model", "fake/fake-model"], {
      env: home.env,
      cwd: project,
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    const deadline = Date.now() + 10_000;
    // The shell creates the file before it writes the pid: wait for the whole line.
    const pidWritten = () => existsSync(pidFile) && readFileSync(pidFile, "utf8").endsWith("\n");
    while (Date.now() < deadline && !pidWritten()) await Bun.sleep(20);
    const sleepPid = Number(readFileSync(pidFile, "utf8"));
    expect(isAlive(sleepPid)).toBe(true);

    const started = Date.now();
    proc.kill("SIGTERM");
    const code = await proc.exited;
    expect(Date.now() - started).toBeLessThan(1000);
    expect(code).not.toBe(0);
    // The command's own child is gone too: the whole process group was killed.
    const gone = Date.now() + 1000;
    while (Date.now() < gone && isAlive(sleepPid)) await Bun.sleep(20);
    expect(isAlive(sleepPid)).toBe(false);
  });
});
