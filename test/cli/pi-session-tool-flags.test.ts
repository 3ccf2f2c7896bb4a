/**
 * pi 0.87.1's tool, model and session flags through the built binary: which tools a
 * request offers (--tools with an extension's tool, --exclude-tools, --no-tools),
 * the models cycle_model goes through (--models), the session file --fork writes,
 * and -r where no one can pick a session.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createExtensionFixture, type ExtensionFixture } from "../support/extensions.ts";
import { runXcsh } from "../support/cli.ts";

let fixture: ExtensionFixture;
let toolExtension: string;

beforeAll(() => {
  fixture = createExtensionFixture({ models: ["fake-model", "second", "third"] });
  // One tool registered while loading, one in session_start: both count for the tool flags.
  toolExtension = fixture.writeExtension(
    "tools.ts",
    `import { Type } from "typebox";
const tool = (name) => ({ name, label: name, description: name + " tool", parameters: Type.Object({}),
  async execute() { return { content: [{ type: "text", text: name + " ran" }], details: {} }; } });
export default function (pi) {
  pi.registerTool(tool("ext_echo"));
  pi.on("session_start", () => pi.registerTool(tool("late_tool")));
}`,
  );
});
afterAll(() => fixture.cleanup());

const run = (args: string[], options: { stdin?: string } = {}) =>
  runXcsh(["--model", "fake/fake-model", ...args], { env: fixture.home.env, cwd: fixture.cwd, ...options });
const reply = (text: string) => ({ content: [{ type: "text" as const, text }] });

/** The tool names the model was offered by the next -p run. */
async function offeredTools(args: string[]): Promise<string[]> {
  fixture.server.enqueue(reply("ok"));
  const before = fixture.server.requests.length;
  const result = await run(["-p", "--no-session", "-e", toolExtension, ...args, "hi"]);
  expect(result.stderr).toBe("");
  expect(result.exitCode).toBe(0);
  return (fixture.server.requests[before].body.tools ?? []).map((tool: any) => tool.function.name).sort();
}

describe("tool flags", () => {
  test("without flags: the default built-ins and every extension tool", async () => {
    expect(await offeredTools([])).toEqual(["bash", "edit", "ext_echo", "late_tool", "read", "write"]);
  });

  test("--tools takes an extension's tool names, also one registered in session_start", async () => {
    expect(await offeredTools(["--tools", "ext_echo,read"])).toEqual(["ext_echo", "read"]);
    expect(await offeredTools(["-t", "late_tool"])).toEqual(["late_tool"]);
  });

  test("--exclude-tools (-xt) removes built-in and extension tools from the request", async () => {
    expect(await offeredTools(["--exclude-tools", "bash,ext_echo"])).toEqual(["edit", "late_tool", "read", "write"]);
    expect(await offeredTools(["-t", "read,grep", "-xt", "grep"])).toEqual(["read"]);
  });

  test("--no-tools leaves extension tools off too; --tools wins over it", async () => {
    expect(await offeredTools(["--no-tools"])).toEqual([]);
    expect(await offeredTools(["-nt", "-t", "ext_echo"])).toEqual(["ext_echo"]);
  });

  test("a --tools name nothing provides stops the run, listing the tools there are", async () => {
    const before = fixture.server.requests.length;
    const result = await run(["-p", "--no-session", "-e", toolExtension, "--tools", "read,teleport", "hi"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--tools: no tool is named "teleport"');
    expect(result.stderr).toContain("from extensions: ext_echo, late_tool");
    expect(fixture.server.requests.length).toBe(before);
  });

  test("an --exclude-tools name nothing provides is only a warning", async () => {
    fixture.server.enqueue(reply("ok"));
    const result = await run(["-p", "--no-session", "--exclude-tools", "bsh", "hi"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('--exclude-tools: no tool is named "bsh"');
  });
});

describe("--models", () => {
  test("picks the starting model and limits cycle_model in rpc to the patterns, in their order", async () => {
    const rpc = fixture.start(["--no-session", "--models", "third,fake/second"]);
    const state = await rpc.request({ type: "get_state" });
    expect(state.data.model.id).toBe("third");
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const cycled = await rpc.request({ type: "cycle_model" });
      expect(cycled.data.isScoped).toBe(true);
      ids.push(cycled.data.model.id);
    }
    expect(ids).toEqual(["second", "third", "second"]);
    expect(await rpc.close()).toBe(0);
  });

  test("with --provider the start is still the first model the patterns pick (of that provider)", async () => {
    fixture.server.enqueue(reply("ok"));
    const before = fixture.server.requests.length;
    const result = await runXcsh(["-p", "--no-session", "--provider", "fake", "--models", "third,second", "hi"], { env: fixture.home.env, cwd: fixture.cwd });
    expect(result.exitCode).toBe(0);
    expect(fixture.server.requests[before].body.model).toBe("third");
  });

  test("--model still chooses the start; a pattern that matches nothing is named in a warning", async () => {
    fixture.server.enqueue(reply("ok"));
    const before = fixture.server.requests.length;
    const result = await runXcsh(["-p", "--no-session", "--model", "fake/fake-model", "--models", "second,nosuch*", "hi"], { env: fixture.home.env, cwd: fixture.cwd });
    expect(result.exitCode).toBe(0);
    expect(fixture.server.requests[before].body.model).toBe("fake-model");
    expect(result.stderr).toContain('--models: "nosuch*" matches no model');
  });
});

describe("--fork", () => {
  const sessionFiles = () => {
    const root = join(fixture.home.agentDir, "sessions");
    if (!existsSync(root)) return [];
    return readdirSync(root).flatMap((dir) => readdirSync(join(root, dir)).map((file) => join(root, dir, file)));
  };
  const lines = (file: string) => readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));

  test("starts a new session file whose entries are the source's, then continues there; the source is untouched", async () => {
    fixture.server.enqueue(reply("first answer"));
    expect((await run(["-p", "--no-tools", "first question"])).exitCode).toBe(0);
    const [source] = sessionFiles();
    const sourceText = readFileSync(source, "utf8");
    const sourceEntries = lines(source).slice(1);
    const sourceId = lines(source)[0].id as string;

    fixture.server.enqueue(reply("second answer"));
    const before = fixture.server.requests.length;
    const result = await run(["-p", "--no-tools", "--fork", sourceId.slice(0, 13), "second question"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("second answer\n");

    const forked = sessionFiles().filter((file) => file !== source);
    expect(forked).toHaveLength(1);
    const [header, ...entries] = lines(forked[0]);
    expect(header.id).not.toBe(sourceId);
    expect(header.parentSession).toBe(source);
    expect(entries.slice(0, sourceEntries.length)).toEqual(sourceEntries);
    expect(entries.slice(sourceEntries.length).map((entry) => entry.message?.role)).toEqual(["user", "assistant"]);
    const sent = fixture.server.requests[before].body.messages.filter((message: any) => message.role !== "system");
    expect(sent.map((message: any) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(readFileSync(source, "utf8")).toBe(sourceText);

    // --session-id names the fork; an id the project already has is refused.
    fixture.server.enqueue(reply("third"));
    expect((await run(["-p", "--no-tools", "--fork", source, "--session-id", "my-fork", "again"])).exitCode).toBe(0);
    expect(sessionFiles().some((file) => file.endsWith("_my-fork.jsonl"))).toBe(true);
    const taken = await run(["-p", "--no-tools", "--fork", source, "--session-id", "my-fork", "again"]);
    expect(taken.exitCode).toBe(2);
    expect(taken.stderr).toContain("--session-id my-fork");
  });

  test("refuses a session that does not exist, and the flags that choose a session too", async () => {
    const missing = await run(["-p", "--fork", "no-such-session", "hi"]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--fork: No session file or id matches "no-such-session"');
    for (const other of [["-c"], ["--no-session"], ["-r"], ["--session", "x.jsonl"]]) {
      const result = await run(["-p", "--fork", "x", ...other, "hi"]);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain("--fork cannot be combined with");
    }
  });
});

describe("-r / --resume", () => {
  test("with -p and no terminal to pick on, nothing runs and xcsh exits 2 (a usage error), saying why", async () => {
    const before = fixture.server.requests.length;
    const files = readdirSync(join(fixture.home.agentDir, "sessions")).length;
    for (const mode of [["-p"], ["--mode", "json"]]) {
      const result = await run([...mode, "-r", "hi"], { stdin: "" });
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("--resume: standard input is not a terminal to pick a session on, so nothing was run");
    }
    expect(fixture.server.requests.length).toBe(before);
    expect(readdirSync(join(fixture.home.agentDir, "sessions")).length).toBe(files);
  });

  test("in rpc mode it is ignored with a line on stderr; the host is served", async () => {
    const rpc = fixture.start(["--no-session", "--model", "fake/fake-model", "-r"]);
    expect((await rpc.request({ type: "get_state" })).success).toBe(true);
    expect(await rpc.close()).toBe(0);
    expect(rpc.stderr).toContain("--resume is ignored in rpc mode");
  });

  test.if(process.platform === "linux" && existsSync("/usr/bin/script"))("with -p on a terminal, the number typed picks the session the prompt goes to", async () => {
    fixture.server.enqueue(reply("named first"));
    expect((await run(["-p", "--no-tools", "-n", "pick me", "remember the word kumquat"])).exitCode).toBe(0);
    fixture.server.enqueue(reply("picked answer"));
    const before = fixture.server.requests.length;
    // `script` gives the run a terminal on stdin; the answer goes to a file.
    const out = join(fixture.home.home, "picked.txt");
    const command = `cd '${fixture.cwd}' && '${join(import.meta.dir, "..", "..", "dist", "xcsh")}' -p -r --no-tools --model fake/fake-model "what was the word?" > '${out}'`;
    const proc = Bun.spawn(["script", "-qec", command, "/dev/null"], { env: fixture.home.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    let screen = "";
    const reader = (async () => {
      for await (const chunk of proc.stdout) screen += new TextDecoder().decode(chunk);
    })();
    for (let waited = 0; !screen.includes("Resume which one") && waited < 10_000; waited += 50) await Bun.sleep(50);
    const row = screen.split("\n").find((line) => line.includes("pick me"));
    expect(row).toBeDefined();
    proc.stdin.write(`${row!.trim().split(/\s+/)[0]}\n`);
    proc.stdin.flush();
    expect(await proc.exited).toBe(0);
    await reader;
    expect(readFileSync(out, "utf8")).toBe("picked answer\n");
    const sent = fixture.server.requests[before].body.messages.filter((message: any) => message.role === "user");
    expect(JSON.stringify(sent[0])).toContain("kumquat");
  });
});
