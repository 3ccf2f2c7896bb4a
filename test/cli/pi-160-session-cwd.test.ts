/**
 * pi 1.6.0 runs a resumed session in the working directory its header recorded:
 * `--session <file|id>` and `--continue` started elsewhere use that project's
 * directory (system prompt, AGENTS.md, tools), while the command line's own paths
 * (`@file`) stay relative to where xcsh was started. A recorded folder that is gone is
 * a clear error (exit 2, xcsh's code for a run that cannot start; pi says 1) and nothing is sent to the model.
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

  test("a session whose folder is gone: exit 2, a message naming the folder and the way out, no request", async () => {
    const project = folder("gone");
    const file = await sessionIn(project);
    rmSync(project, { recursive: true });
    const before = server.requests.length;
    const result = await run(["--session", file, "go on"], folder("elsewhere"));
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`working directory no longer exists: ${project}`);
    expect(result.stderr).toContain(`--fork ${file}`);
    expect(server.requests.length).toBe(before);
  });
});
