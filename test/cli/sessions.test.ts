/**
 * Session flags of the CLI, on the built binary: where sessions go, how a run
 * continues one, and runs that keep nothing.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";

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
  server.clearScript();
  home = makeTestHome();
  home.writeModelsJson({
    providers: { fake: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "k", models: [{ id: "m" }] } },
  });
  project = join(home.home, "my", "project");
  mkdirSync(project, { recursive: true });
});

const reply = (text: string) => ({ content: [{ type: "text" as const, text }] });
const run = (args: string[]) => runXcsh([...args, "--model", "fake/m", "--no-tools"], { env: home.env, cwd: project });

function sessionFiles(dir = join(home.agentDir, "sessions")): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => join(dir, name));
}
const entriesOf = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));

test("a run is saved under sessions/--<cwd>--/ and -c continues it", async () => {
  server.enqueue(reply("first"));
  expect((await run(["-p", "remember the number 7"])).exitCode).toBe(0);
  const files = sessionFiles();
  expect(files).toHaveLength(1);
  expect(files[0]).toContain(`--${project.slice(1).replaceAll("/", "-")}--`);
  expect(entriesOf(files[0])[0]).toMatchObject({ type: "session", version: 3, cwd: project });

  server.enqueue(reply("it was 7"));
  const before = server.requests.length;
  const continued = await run(["-c", "-p", "what was the number?"]);
  expect(continued.stdout).toBe("it was 7\n");
  expect(JSON.stringify(server.requests[before].body.messages)).toContain("remember the number 7");
  expect(sessionFiles()).toHaveLength(1);
  const roles = entriesOf(files[0]).filter((entry) => entry.type === "message").map((entry) => entry.message.role);
  expect(roles).toEqual(["user", "assistant", "user", "assistant"]);
});

test("--session opens a file by path or by the start of its id; a bad one is a clear error", async () => {
  server.enqueue(reply("one"));
  await run(["-p", "first session"]);
  const [file] = sessionFiles();
  const id = entriesOf(file)[0].id as string;

  server.enqueue(reply("two"), reply("three"));
  const before = server.requests.length;
  await run(["--session", file, "-p", "by path"]);
  await run(["--session", id.slice(0, 8), "-p", "by id"]);
  expect(JSON.stringify(server.requests[before + 1].body.messages)).toContain("by path");
  expect(sessionFiles()).toHaveLength(1);

  const missing = await run(["--session", "nope-not-a-session", "-p", "x"]);
  expect(missing.exitCode).not.toBe(0);
  expect(missing.stderr).toContain("nope-not-a-session");
});

test("--no-session keeps nothing; --session-dir and --name are honoured", async () => {
  server.enqueue(reply("ephemeral"));
  expect((await run(["--no-session", "-p", "hi"])).stdout).toBe("ephemeral\n");
  expect(sessionFiles()).toHaveLength(0);

  server.enqueue(reply("named"));
  const dir = join(home.home, "elsewhere");
  await run(["--session-dir", dir, "-n", "Refactor auth", "-p", "hi"]);
  const files = sessionFiles(dir);
  expect(files).toHaveLength(1);
  expect(entriesOf(files[0]).some((entry) => entry.type === "session_info" && entry.name === "Refactor auth")).toBe(true);
});

test("json mode's first line is the saved session's header", async () => {
  server.enqueue(reply("x"));
  const result = await run(["--mode", "json", "-p", "hi"]);
  const header = JSON.parse(result.stdout.split("\n")[0]);
  const [file] = sessionFiles();
  expect(header).toEqual(entriesOf(file)[0]);
});

test("--session of a file that does not exist yet starts a new session there, in -p, json and rpc mode (as every pi)", async () => {
  server.enqueue(reply("new here"), reply("as json"));
  const file = join(home.home, "not", "yet", "made.jsonl");
  const printed = await run(["--session", file, "-p", "first words"]);
  expect(printed.exitCode).toBe(0);
  expect(printed.stdout).toBe("new here\n");
  const entries = entriesOf(file);
  expect(entries[0]).toMatchObject({ type: "session", version: 3, cwd: project });
  expect(entries.filter((entry) => entry.type === "message").map((entry) => entry.message.role)).toEqual(["user", "assistant"]);
  // Nothing went to the default folder.
  expect(sessionFiles()).toHaveLength(0);

  const jsonFile = join(home.home, "json-made.jsonl");
  const json = await run(["--mode", "json", "--session", jsonFile, "-p", "hi"]);
  expect(json.exitCode).toBe(0);
  expect(JSON.parse(json.stdout.split("\n")[0])).toEqual(entriesOf(jsonFile)[0]);

  const rpcFile = join(home.home, "rpc", "made.jsonl");
  const rpc = await runXcsh(["--mode", "rpc", "--session", rpcFile, "--model", "fake/m", "--no-tools"], {
    env: home.env,
    cwd: project,
    stdin: `${JSON.stringify({ id: "s", type: "get_state" })}\n`,
  });
  expect(rpc.exitCode).toBe(0);
  const state = JSON.parse(rpc.stdout.split("\n")[0]);
  expect(state).toMatchObject({ id: "s", success: true, data: { sessionFile: rpcFile } });
});

test("--session of a new file whose folder cannot be made is a clear usage error", async () => {
  const blocker = join(home.home, "a-file");
  await Bun.write(blocker, "not a folder");
  const result = await run(["--session", join(blocker, "inside", "s.jsonl"), "-p", "x"]);
  expect(result.exitCode).toBe(2);
  expect(result.stderr).toContain(`--session ${join(blocker, "inside", "s.jsonl")}: cannot create the folder for a new session file`);
});

test('settings quietStartup "header" (pi 1.6.0) is accepted', async () => {
  home.writeSettings({ quietStartup: "header" });
  server.enqueue(reply("fine"));
  const result = await run(["-p", "hi"]);
  expect(result.stderr).toBe("");
  expect(result.stdout).toBe("fine\n");
  expect(result.exitCode).toBe(0);
});
