/**
 * pi 1.6.0 runs a resumed session in the working directory its header recorded:
 * `--session <file|id>` and `--continue` started elsewhere use that project's
 * directory (system prompt, AGENTS.md, tools), while the command line's own paths
 * (`@file`) stay relative to where xcsh was started. A recorded folder that is gone is
 * a clear error with exit code 1 (as pi) in print, json and rpc mode, and nothing is sent to the model
 * (the terminal UI asks instead: test/modes/interactive/habit-pickers.test.ts).
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
afterAll(() => fixture.cleanup());
beforeEach(() => server.clearScript());

let count = 0;
function folder(name: string): string {
  const dir = join(home.home, `${name}-${++count}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

const run = (args: string[], cwd: string) => runXcsh(["-p", "--model", "fake/m", "--no-tools", ...args], { env: home.env, cwd });
const lastBody = () => JSON.stringify(server.requests.at(-1)!.body);

/** A session recorded in `project` (optionally in `sessionDir`); returns its file. */
async function sessionIn(project: string, sessionDir?: string): Promise<string> {
  server.enqueue({ content: [{ type: "text", text: "first answer" }] });
  const dirArgs = sessionDir ? ["--session-dir", sessionDir] : [];
  expect((await run([...dirArgs, "remember this"], project)).exitCode).toBe(0);
  const dir = sessionDir ?? join(home.agentDir, "sessions", readdirSync(join(home.agentDir, "sessions")).find((name) => name.includes(project.split("/").at(-1)!))!);
  return join(dir, readdirSync(dir).find((name) => name.endsWith(".jsonl"))!);
}

describe("a resumed session runs where it was recorded", () => {
  test("--session <file> from another folder: the recorded project's cwd and AGENTS.md; @file from where xcsh started", async () => {
    const project = folder("project");
    writeFileSync(join(project, "AGENTS.md"), "PROJECT-A-RULES\n");
    const file = await sessionIn(project);
    const elsewhere = folder("elsewhere");
    writeFileSync(join(elsewhere, "notes.md"), "NOTES-FROM-ELSEWHERE\n");
    server.enqueue({ content: [{ type: "text", text: "second answer" }] });
    const result = await run(["--session", file, "@notes.md", "go on"], elsewhere);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const body = lastBody();
    expect(body).toContain(`Current working directory: ${project}`);
    expect(body).toContain("PROJECT-A-RULES");
    expect(body).toContain("NOTES-FROM-ELSEWHERE");
  });

  test("--continue with a shared --session-dir picks the latest session and runs in its project", async () => {
    const project = folder("shared-project");
    const sessions = folder("shared-sessions");
    await sessionIn(project, sessions);
    const elsewhere = folder("elsewhere");
    server.enqueue({ content: [{ type: "text", text: "continued" }] });
    const result = await run(["--continue", "--session-dir", sessions, "go on"], elsewhere);
    expect(result.exitCode).toBe(0);
    expect(lastBody()).toContain(`Current working directory: ${project}`);
  });

  test("a session whose folder is gone: exit 1 as pi, a message naming the folder and the way out, no request", async () => {
    const project = folder("gone");
    const file = await sessionIn(project);
    rmSync(project, { recursive: true });
    const before = server.requests.length;
    const result = await run(["--session", file, "go on"], folder("elsewhere"));
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`working directory no longer exists: ${project}`);
    expect(result.stderr).toContain(`--fork ${file}`);
    expect(server.requests.length).toBe(before);
  });

  test("json mode says it in the result envelope (error.kind \"session\"), exit 1; --continue from a shared --session-dir too", async () => {
    const project = folder("gone-json");
    const sessions = folder("gone-sessions");
    await sessionIn(project, sessions);
    rmSync(project, { recursive: true });
    const before = server.requests.length;
    const result = await run(["--mode", "json", "--continue", "--session-dir", sessions, "go on"], folder("elsewhere"));
    expect(result.exitCode).toBe(1);
    const envelope = JSON.parse(result.stdout.trim().split("\n").at(-1)!);
    expect(envelope).toMatchObject({ type: "result", status: "error", error: { kind: "session", retryable: false } });
    expect(envelope.error.message).toContain(`working directory no longer exists: ${project}`);
    expect(server.requests.length).toBe(before);
  });

  test("rpc mode exits 1 at start with the message on stderr and nothing on stdout", async () => {
    const project = folder("gone-rpc");
    const file = await sessionIn(project);
    rmSync(project, { recursive: true });
    const result = await runXcsh(["--mode", "rpc", "--model", "fake/m", "--session", file], { env: home.env, cwd: folder("elsewhere"), stdin: "" });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`working directory no longer exists: ${project}`);
  });
});
