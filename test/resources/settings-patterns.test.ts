/**
 * Settings `skills` / `prompts` lists take pi's patterns (settings.md, "Resources"):
 * `!` excludes, also from the scope's auto-discovered folders; a glob narrows the
 * list's own paths; `+` puts back what an exclusion removed. get_commands shows
 * what a person would then be able to type.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRpcFixture, FAKE_MODEL, type RpcFixture } from "../support/rpc-harness.ts";

let fixture: RpcFixture;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const skill = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\n---\nbody\n`;

beforeAll(() => {
  fixture = createRpcFixture();
  const agentDir = fixture.home.agentDir;
  write(join(agentDir, "skills", "keep-me", "SKILL.md"), skill("keep-me"));
  write(join(agentDir, "skills", "brave-search", "SKILL.md"), skill("brave-search"));
  write(join(agentDir, "extra-prompts", "review.md"), "Review $1\n");
  write(join(agentDir, "extra-prompts", "draft.md"), "Draft $1\n");
  write(join(agentDir, "extra-prompts", "notes.txt.md"), "Notes\n");
  write(join(agentDir, "prompts", "legacy.md"), "Legacy\n");
  write(join(agentDir, "prompts", "current.md"), "Current\n");
  fixture.home.writeSettings({
    skills: ["!brave-search"],
    prompts: ["extra-prompts", "extra-prompts/*.md", "!extra-prompts/draft.md", "!legacy.md", "+extra-prompts/draft.md"],
  });
});
afterAll(() => fixture.cleanup());

test("exclusions, globs and force-includes in settings lists decide which skills and templates load", async () => {
  const rpc = fixture.start(["--model", FAKE_MODEL, "--no-session"]);
  const commands = (await rpc.request({ type: "get_commands" })).data.commands as { name: string; source: string }[];
  const names = commands.map((command) => command.name).sort();
  // "!brave-search" removed the discovered skill; "!legacy.md" the discovered template;
  // "+extra-prompts/draft.md" put back what "!extra-prompts/draft.md" removed.
  expect(names).toEqual(["current", "draft", "notes.txt", "review", "skill:keep-me"].sort());
  expect(rpc.stderr).not.toContain("does not exist");
  expect(await rpc.close()).toBe(0);
});
