/**
 * The system prompt files, seen in the system prompt the fake model receives:
 * SYSTEM.md replaces the built-in opening and APPEND_SYSTEM.md is added at the
 * end — the project's `.xcsh/` copy over the config root's, the command line's
 * flags over both — and AGENTS.override.md stands in for the AGENTS.md /
 * CLAUDE.md of its own folder only.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeFakeModelHome, runXcsh, type FakeModelHome } from "../support/cli.ts";
import { textOf } from "../support/rpc-harness.ts";

let fake: FakeModelHome;
let project: string;
let nested: string;
const written: string[] = [];

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  written.push(path);
}

beforeAll(async () => {
  fake = await makeFakeModelHome();
  project = join(fake.home.home, "work", "project");
  nested = join(project, "app");
  mkdirSync(nested, { recursive: true });
});
afterEach(() => {
  for (const path of written.splice(0)) rmSync(path, { recursive: true, force: true });
});
afterAll(() => fake.cleanup());

/** Runs `xcsh -p hi` in `cwd` and returns the system prompt the model received. */
async function systemPromptIn(cwd: string, flags: string[] = []): Promise<string> {
  const result = await runXcsh(["-p", "hi", "--model", "fake/m", ...flags], { env: fake.home.env, cwd });
  expect(result.stderr).not.toContain("internal");
  expect(result.exitCode).toBe(0);
  return textOf(fake.server.requests.at(-1)!.body.messages[0]);
}

const BUILT_IN_OPENING = "You are xcsh";

describe("SYSTEM.md and APPEND_SYSTEM.md", () => {
  test("the config root's SYSTEM.md replaces the opening, its APPEND_SYSTEM.md comes last; tools and context files stay", async () => {
    write(join(fake.home.agentDir, "SYSTEM.md"), "You are a careful reviewer (global).\n");
    write(join(fake.home.agentDir, "APPEND_SYSTEM.md"), "Always answer in French (global).\n");
    write(join(project, "AGENTS.md"), "PROJECT RULES\n");
    const prompt = await systemPromptIn(project);
    expect(prompt).toStartWith("You are a careful reviewer (global).");
    expect(prompt).not.toContain(BUILT_IN_OPENING);
    expect(prompt).toEndWith("Always answer in French (global).");
    expect(prompt).toContain("- bash:");
    expect(prompt).toContain("PROJECT RULES");
  });

  test("the project's .xcsh/ files win over the config root's, and the two are not combined", async () => {
    write(join(fake.home.agentDir, "SYSTEM.md"), "GLOBAL SYSTEM\n");
    write(join(fake.home.agentDir, "APPEND_SYSTEM.md"), "GLOBAL APPEND\n");
    write(join(project, ".xcsh", "SYSTEM.md"), "PROJECT SYSTEM\n");
    write(join(project, ".xcsh", "APPEND_SYSTEM.md"), "PROJECT APPEND\n");
    const prompt = await systemPromptIn(project);
    expect(prompt).toStartWith("PROJECT SYSTEM");
    expect(prompt).toEndWith("PROJECT APPEND");
    expect(prompt).not.toContain("GLOBAL SYSTEM");
    expect(prompt).not.toContain("GLOBAL APPEND");
  });

  test("only the working directory's .xcsh/ counts: a parent folder's is not read", async () => {
    write(join(project, ".xcsh", "SYSTEM.md"), "PARENT PROJECT SYSTEM\n");
    const prompt = await systemPromptIn(nested);
    expect(prompt).toStartWith(BUILT_IN_OPENING);
    expect(prompt).not.toContain("PARENT PROJECT SYSTEM");
  });

  test("--system-prompt and --append-system-prompt win over the files", async () => {
    write(join(project, ".xcsh", "SYSTEM.md"), "PROJECT SYSTEM\n");
    write(join(fake.home.agentDir, "APPEND_SYSTEM.md"), "GLOBAL APPEND\n");
    const prompt = await systemPromptIn(project, ["--system-prompt", "FLAG SYSTEM", "--append-system-prompt", "FLAG APPEND"]);
    expect(prompt).toStartWith("FLAG SYSTEM");
    expect(prompt).toEndWith("FLAG APPEND");
    expect(prompt).not.toContain("PROJECT SYSTEM");
    expect(prompt).not.toContain("GLOBAL APPEND");
  });

  test("--no-context-files leaves them in effect", async () => {
    write(join(fake.home.agentDir, "SYSTEM.md"), "GLOBAL SYSTEM\n");
    write(join(project, "AGENTS.md"), "PROJECT RULES\n");
    const prompt = await systemPromptIn(project, ["--no-context-files"]);
    expect(prompt).toStartWith("GLOBAL SYSTEM");
    expect(prompt).not.toContain("PROJECT RULES");
  });

  test("an empty SYSTEM.md keeps the built-in opening; a folder named SYSTEM.md is passed over for the next place", async () => {
    write(join(fake.home.agentDir, "SYSTEM.md"), "");
    expect(await systemPromptIn(project)).toStartWith(BUILT_IN_OPENING);

    write(join(fake.home.agentDir, "SYSTEM.md"), "GLOBAL SYSTEM\n");
    mkdirSync(join(project, ".xcsh", "SYSTEM.md"), { recursive: true });
    written.push(join(project, ".xcsh", "SYSTEM.md"));
    expect(await systemPromptIn(project)).toStartWith("GLOBAL SYSTEM");
  });
});

describe("AGENTS.override.md", () => {
  test("stands in for AGENTS.md and CLAUDE.md of its own folder only; other folders' and the config root's still apply", async () => {
    write(join(fake.home.agentDir, "AGENTS.md"), "GLOBAL RULES\n");
    write(join(project, "AGENTS.md"), "PROJECT RULES\n");
    write(join(nested, "AGENTS.override.md"), "APP OVERRIDE\n");
    write(join(nested, "AGENTS.md"), "APP RULES (overridden)\n");
    write(join(nested, "CLAUDE.md"), "APP CLAUDE (overridden)\n");
    const prompt = await systemPromptIn(nested);
    const order = ["GLOBAL RULES", "PROJECT RULES", "APP OVERRIDE"].map((text) => prompt.indexOf(text));
    expect(order.every((index) => index !== -1)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(prompt).not.toContain("(overridden)");
    expect(prompt).toContain(join(nested, "AGENTS.override.md"));
  });

  test("in the config root it stands in for the config root's AGENTS.md", async () => {
    write(join(fake.home.agentDir, "AGENTS.override.md"), "GLOBAL OVERRIDE\n");
    write(join(fake.home.agentDir, "AGENTS.md"), "GLOBAL RULES (overridden)\n");
    const prompt = await systemPromptIn(project);
    expect(prompt).toContain("GLOBAL OVERRIDE");
    expect(prompt).not.toContain("(overridden)");
  });

  test("upper-case AGENTS.MD and CLAUDE.MD are read where nothing else is", async () => {
    write(join(project, "AGENTS.MD"), "UPPER AGENTS\n");
    write(join(nested, "CLAUDE.MD"), "UPPER CLAUDE\n");
    const prompt = await systemPromptIn(nested);
    expect(prompt).toContain("UPPER AGENTS");
    expect(prompt).toContain("UPPER CLAUDE");
  });
});
