/**
 * Broken skills and templates never stop xcsh: each bad file gets one warning
 * on stderr naming the file and the problem, stdout keeps carrying protocol
 * frames only, and the good resources around them still work.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createRpcFixture, FAKE_MODEL, textOf, type RpcFixture } from "../support/rpc-harness.ts";

let fixture: RpcFixture;
let skills: string;
let prompts: string;

function write(path: string, text: string | Uint8Array): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

beforeAll(() => {
  fixture = createRpcFixture();
  skills = join(fixture.home.agentDir, "skills");
  prompts = join(fixture.home.agentDir, "prompts");
  write(join(skills, "good", "SKILL.md"), "---\nname: good\ndescription: A good skill\n---\nGood body\n");
  write(join(skills, "broken-yaml", "SKILL.md"), "---\nname: broken-yaml\ndescription: [unclosed\n---\nbody\n");
  write(join(skills, "no-description", "SKILL.md"), "---\nname: no-description\n---\nbody\n");
  write(join(skills, "list-description", "SKILL.md"), "---\nname: list-description\ndescription:\n  - a\n  - b\n---\nbody\n");
  mkdirSync(join(skills, "dir-skill", "SKILL.md"), { recursive: true });
  write(join(skills, "huge", "SKILL.md"), `---\nname: huge\ndescription: Huge\n---\n${"x".repeat(2 * 1024 * 1024)}\n`);
  write(join(skills, "binary", "SKILL.md"), new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01, 0x02]));
  mkdirSync(join(skills, "dangling"), { recursive: true });
  symlinkSync(join(skills, "nowhere", "SKILL.md"), join(skills, "dangling", "SKILL.md"));
  write(join(skills, "Bad--Name", "SKILL.md"), "---\nname: Bad--Name\ndescription: Loads with a warning\n---\nbody\n");
  write(join(skills, "spaced", "SKILL.md"), "---\nname: has space\ndescription: Cannot be typed\n---\nbody\n");
  write(join(skills, "xml-chars", "SKILL.md"), '---\nname: xml-chars\ndescription: "Uses <tags> & \\"quotes\\""\n---\nbody\n');
  write(join(skills, "unreadable", "SKILL.md"), "---\nname: unreadable\ndescription: Cannot be read\n---\nbody\n");
  chmodSync(join(skills, "unreadable", "SKILL.md"), 0o000);
  write(join(prompts, "fine.md"), "FINE $1\n");
  write(join(prompts, "bad-yaml.md"), "---\ndescription: : :\n  bad: [\n---\nbody\n");
  mkdirSync(join(prompts, "folder.md"), { recursive: true });
  write(join(prompts, "with space.md"), "spaces\n");
  fixture.home.writeSettings({ skills: ["missing-skills"], prompts: ["missing-prompt.md"] });
});
afterAll(() => fixture.cleanup());

const isRoot = process.getuid?.() === 0;

test("each bad skill or template gets one clear warning on stderr; the rest loads and stdout stays protocol-only", async () => {
  const rpc = fixture.start(["--model", FAKE_MODEL]);
  const commands = (await rpc.request({ type: "get_commands" })).data.commands.map((command: { name: string }) => command.name);
  expect(commands).toContain("fine");
  expect(commands).toContain("skill:good");
  expect(commands).toContain("skill:Bad--Name");
  expect(commands).toContain("skill:xml-chars");
  for (const left of ["skill:broken-yaml", "skill:no-description", "skill:list-description", "skill:huge", "skill:binary", "skill:dangling", "skill:has", "bad-yaml", "folder", "with"]) {
    expect(commands.some((name: string) => name.startsWith(left))).toBe(false);
  }

  await rpc.request({ type: "prompt", message: "/fine works" });
  await rpc.waitForEvent("agent_end");
  const request = fixture.server.requests.at(-1)!;
  expect(textOf(request.body.messages.at(-1))).toBe("FINE works\n");
  // Descriptions reach the prompt escaped, so they cannot break the list.
  expect(textOf(request.body.messages[0])).toContain("<description>Uses &lt;tags&gt; &amp; \"quotes\"</description>");
  expect((await rpc.request({ type: "get_state" })).success).toBe(true);
  expect(await rpc.close()).toBe(0);

  const lines = rpc.stderr.split("\n");
  const warningFor = (path: string) => lines.filter((line) => line.includes(path));
  const expectations: Array<[string, string]> = [
    [join(skills, "broken-yaml", "SKILL.md"), "invalid YAML frontmatter"],
    [join(skills, "no-description", "SKILL.md"), "no description"],
    [join(skills, "list-description", "SKILL.md"), "description is not text"],
    [join(skills, "dir-skill", "SKILL.md"), "is a folder, not a file"],
    [join(skills, "huge", "SKILL.md"), "larger than"],
    [join(skills, "binary", "SKILL.md"), "not a text file"],
    [join(skills, "dangling", "SKILL.md"), "not a regular file"],
    [join(skills, "Bad--Name", "SKILL.md"), "lowercase letters"],
    [join(skills, "spaced", "SKILL.md"), "contains whitespace"],
    [join(prompts, "bad-yaml.md"), "invalid YAML frontmatter"],
    [join(prompts, "folder.md"), "is a folder, not a file"],
    [join(prompts, "with space.md"), "cannot be used as a command name"],
    [join(fixture.home.agentDir, "missing-skills"), "does not exist"],
    [join(fixture.home.agentDir, "missing-prompt.md"), "does not exist"],
  ];
  if (!isRoot) expectations.push([join(skills, "unreadable", "SKILL.md"), "permission denied"]);
  for (const [path, reason] of expectations) {
    const warnings = warningFor(path);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toStartWith("xcsh: ");
    expect(warnings[0]).toContain(reason);
  }
  expect(warningFor(join(skills, "good", "SKILL.md"))).toEqual([]);
  expect(rpc.frames.every((frame) => frame.type !== "__unparseable_stdout__")).toBe(true);
});
