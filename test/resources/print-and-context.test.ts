/**
 * Headless runs (`xcsh -p`): a template or skill typed as the prompt is
 * expanded before the model sees it, and the context files (AGENTS.md /
 * CLAUDE.md) reach the system prompt outermost first — the config root's, then
 * each folder's from the top down to the working directory — unless
 * --no-context-files is given.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeFakeModelHome, runXcsh, type FakeModelHome } from "../support/cli.ts";
import { textOf } from "../support/rpc-harness.ts";

let fake: FakeModelHome;
let project: string;
let nested: string;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

beforeAll(async () => {
  fake = await makeFakeModelHome();
  const { home, agentDir } = fake.home;
  project = join(home, "work", "project");
  nested = join(project, "packages", "app");
  mkdirSync(nested, { recursive: true });
  write(join(agentDir, "AGENTS.md"), "GLOBAL RULES\n");
  write(join(home, "work", "CLAUDE.md"), "WORK RULES\n");
  write(join(project, "AGENTS.md"), "PROJECT RULES\n");
  write(join(project, "CLAUDE.md"), "NOT READ: AGENTS.md of the same folder wins\n");
  write(join(nested, "AGENTS.md"), "APP RULES\n");
  write(join(project, ".xcsh", "prompts", "explain.md"), "---\ndescription: Explain\n---\nExplain $1 in $2 words.\n");
  write(join(agentDir, "skills", "tidy", "SKILL.md"), "---\nname: tidy\ndescription: Tidies code\n---\nTidy everything.\n");
});
afterAll(() => fake.cleanup());

function lastRequest() {
  return fake.server.requests.at(-1)!;
}

const systemPrompt = () => textOf(lastRequest().body.messages[0]);

describe("print mode", () => {
  test("expands a prompt template given as the prompt", async () => {
    const result = await runXcsh(["-p", "/explain closures 'fifty'", "--model", "fake/m"], { env: fake.home.env, cwd: project });
    expect(result.exitCode).toBe(0);
    expect(textOf(lastRequest().body.messages.at(-1))).toBe("Explain closures in fifty words.\n");
  });

  test("expands /skill:name; with --no-prompt-templates a template name is sent as typed", async () => {
    await runXcsh(["-p", "/skill:tidy src/", "--model", "fake/m"], { env: fake.home.env, cwd: project });
    const text = textOf(lastRequest().body.messages.at(-1));
    expect(text).toContain("Tidy everything.");
    expect(text).toEndWith("User: src/");

    await runXcsh(["-p", "/explain closures", "--no-prompt-templates", "--model", "fake/m"], { env: fake.home.env, cwd: project });
    expect(textOf(lastRequest().body.messages.at(-1))).toBe("/explain closures");
  });
});

test('settings "enableSkillCommands": false sends /skill:name as typed; the skill stays in the system prompt', async () => {
  fake.home.writeSettings({ enableSkillCommands: false });
  try {
    await runXcsh(["-p", "/skill:tidy src/", "--model", "fake/m"], { env: fake.home.env, cwd: project });
    expect(textOf(lastRequest().body.messages.at(-1))).toBe("/skill:tidy src/");
    expect(systemPrompt()).toContain("<name>tidy</name>");
  } finally {
    rmSync(join(fake.home.agentDir, "settings.json"));
  }
});

describe("context files", () => {
  test("reach the system prompt outermost first, one per folder", async () => {
    const result = await runXcsh(["-p", "hi", "--model", "fake/m"], { env: fake.home.env, cwd: nested });
    expect(result.exitCode).toBe(0);
    const system = systemPrompt();
    const order = ["GLOBAL RULES", "WORK RULES", "PROJECT RULES", "APP RULES"].map((text) => system.indexOf(text));
    expect(order.every((index) => index !== -1)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(system).not.toContain("NOT READ");
    expect(system).toContain(join(fake.home.agentDir, "AGENTS.md"));
    expect(system).toContain(join(nested, "AGENTS.md"));
  });

  test("--no-context-files leaves them all out", async () => {
    const result = await runXcsh(["-p", "hi", "--no-context-files", "--model", "fake/m"], { env: fake.home.env, cwd: nested });
    expect(result.exitCode).toBe(0);
    const system = systemPrompt();
    for (const text of ["GLOBAL RULES", "WORK RULES", "PROJECT RULES", "APP RULES"]) expect(system).not.toContain(text);
    // The rest of the prompt is still there.
    expect(system).toContain("Current working directory: " + nested);
  });
});
