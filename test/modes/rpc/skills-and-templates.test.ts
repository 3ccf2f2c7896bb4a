/**
 * Skills and prompt templates over RPC, as an editor meets them: get_commands
 * lists extension commands, then templates, then skills from every place
 * (user and project folders, .agents/skills, settings, flags, an extension's
 * resources_discover), clashes keep the first and report the loser once on
 * stderr, the system prompt lists the skills, and `/skill:name` and `/template`
 * are expanded in prompt, steer and follow_up — also while the agent works.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createExtensionFixture, type ExtensionFixture } from "../../support/extensions.ts";
import { FAKE_MODEL, textOf, type RpcProcess } from "../../support/rpc-harness.ts";

let fixture: ExtensionFixture;
let home: string;
let agentDir: string;
let cwd: string;
let extensionPath: string;

function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const skill = (name: string, description: string, extra = "") => `---\nname: ${name}\ndescription: ${description}\n${extra}---\n# ${name}\nInstructions of ${name}.\n`;

beforeAll(() => {
  fixture = createExtensionFixture();
  home = fixture.home.home;
  agentDir = fixture.home.agentDir;
  cwd = fixture.cwd;
  // User folders.
  write(join(agentDir, "skills", "alpha", "SKILL.md"), skill("alpha", "User alpha"));
  write(join(agentDir, "skills", "hidden-skill", "SKILL.md"), skill("hidden-skill", "Only by command", "disable-model-invocation: true\n"));
  write(join(agentDir, "skills", "user-skill", "SKILL.md"), skill("user-skill", "User skill"));
  write(join(home, ".agents", "skills", "home-agents-skill", "SKILL.md"), skill("home-agents-skill", "From ~/.agents"));
  write(join(agentDir, "prompts", "review.md"), "---\ndescription: Template review\n---\nTEMPLATE REVIEW $1\n");
  write(join(agentDir, "prompts", "shared.md"), "user shared\n");
  write(join(agentDir, "prompts", "user-tpl.md"), "---\ndescription: User template\nargument-hint: <a> <b>\n---\nA=[$1] B=[$2] NINE=[$9] ALL=[$@] ARGS=[$ARGUMENTS] FROM2=[${@:2}] ONE=[${@:2:1}]\n");
  // Project folders. The project is a git repository, so .agents/skills is not looked for above it (HOME is its parent).
  mkdirSync(join(cwd, ".git"), { recursive: true });
  write(join(cwd, ".xcsh", "skills", "alpha", "SKILL.md"), skill("alpha", "Project alpha"));
  write(join(cwd, ".agents", "skills", "agents-skill", "SKILL.md"), skill("agents-skill", "From .agents"));
  write(join(cwd, ".xcsh", "prompts", "shared.md"), "\nProject shared first line\nSHARED $@\n");
  // Settings (relative to the config root, and with ~), flags, an extension.
  write(join(home, "settings-skills", "set-skill", "SKILL.md"), skill("set-skill", "From settings"));
  write(join(home, "settings-prompts", "set-tpl.md"), "---\ndescription: Settings template\n---\nSET\n");
  fixture.home.writeSettings({ skills: ["../../settings-skills"], prompts: ["~/settings-prompts/set-tpl.md"] });
  write(join(home, "flag", "flag-skill", "SKILL.md"), skill("flag-skill", "From the flag"));
  write(join(home, "flag", "flag-tpl.md"), "---\ndescription: Flag template\n---\nFLAG $1\n");
  write(join(home, "ext-res", "skills", "ext-skill", "SKILL.md"), skill("ext-skill", "From an extension"));
  write(join(home, "ext-res", "prompts", "ext-tpl.md"), "---\ndescription: Extension template\n---\nEXT $@\n");
  extensionPath = fixture.writeExtension(
    "resources.ts",
    `export default function (pi) {
      pi.registerCommand("review", { description: "Extension review", handler: async (args) => { console.error("EXTENSION REVIEW RAN " + args); } });
      pi.on("resources_discover", () => ({ skillPaths: [${JSON.stringify(join(home, "ext-res", "skills"))}], promptPaths: [${JSON.stringify(join(home, "ext-res", "prompts"))}] }));
    }`,
  );
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

function startFull(): RpcProcess {
  return fixture.start([
    "-e",
    extensionPath,
    "--skill",
    join(home, "flag", "flag-skill"),
    "--prompt-template",
    join(home, "flag", "flag-tpl.md"),
    "--model",
    FAKE_MODEL,
  ]);
}

/** Texts of the user messages the model received in its last request. */
function lastUserTexts(): string[] {
  const request = fixture.server.requests.at(-1)!;
  return request.body.messages.filter((message: { role: string }) => message.role === "user").map((message: { content: unknown }) => textOf(message));
}

function systemPromptOf(index: number): string {
  const system = fixture.server.requests[index].body.messages.find((message: { role: string }) => message.role === "system" || message.role === "developer");
  return textOf(system);
}

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

describe("get_commands", () => {
  test("lists extension commands, then templates, then skills from every place, first of a name winning, in seed 000's shape", async () => {
    const rpc = startFull();
    const response = await rpc.request({ type: "get_commands" });
    expect(response.success).toBe(true);
    const commands = response.data.commands.map(({ sourceInfo: _sourceInfo, ...command }: Record<string, unknown>) => command);
    expect(commands).toEqual([
      { name: "review", description: "Extension review", source: "extension", path: extensionPath },
      { name: "shared", description: "Project shared first line", source: "prompt", location: "project", path: join(cwd, ".xcsh", "prompts", "shared.md") },
      { name: "user-tpl", description: "User template", source: "prompt", location: "user", path: join(agentDir, "prompts", "user-tpl.md") },
      { name: "set-tpl", description: "Settings template", source: "prompt", location: "path", path: join(home, "settings-prompts", "set-tpl.md") },
      { name: "flag-tpl", description: "Flag template", source: "prompt", location: "path", path: join(home, "flag", "flag-tpl.md") },
      { name: "ext-tpl", description: "Extension template", source: "prompt", location: "path", path: join(home, "ext-res", "prompts", "ext-tpl.md") },
      { name: "skill:alpha", description: "Project alpha", source: "skill", location: "project", path: join(cwd, ".xcsh", "skills", "alpha", "SKILL.md") },
      { name: "skill:agents-skill", description: "From .agents", source: "skill", location: "project", path: join(cwd, ".agents", "skills", "agents-skill", "SKILL.md") },
      { name: "skill:hidden-skill", description: "Only by command", source: "skill", location: "user", path: join(agentDir, "skills", "hidden-skill", "SKILL.md") },
      { name: "skill:user-skill", description: "User skill", source: "skill", location: "user", path: join(agentDir, "skills", "user-skill", "SKILL.md") },
      { name: "skill:home-agents-skill", description: "From ~/.agents", source: "skill", location: "user", path: join(home, ".agents", "skills", "home-agents-skill", "SKILL.md") },
      { name: "skill:set-skill", description: "From settings", source: "skill", location: "path", path: join(home, "settings-skills", "set-skill", "SKILL.md") },
      { name: "skill:flag-skill", description: "From the flag", source: "skill", location: "path", path: join(home, "flag", "flag-skill", "SKILL.md") },
      { name: "skill:ext-skill", description: "From an extension", source: "skill", location: "path", path: join(home, "ext-res", "skills", "ext-skill", "SKILL.md") },
    ]);

    // The losers are reported once each, however often the list is asked for.
    await rpc.request({ type: "get_commands" });
    await rpc.request({ type: "prompt", message: "/review now" });
    await rpc.request({ type: "get_commands" });
    expect(await rpc.close()).toBe(0);
    expect(rpc.stderr).toContain("EXTENSION REVIEW RAN now");
    expect(occurrences(rpc.stderr, `${join(agentDir, "prompts", "review.md")} is hidden`)).toBe(1);
    expect(occurrences(rpc.stderr, `${join(agentDir, "skills", "alpha", "SKILL.md")} is ignored`)).toBe(1);
    expect(occurrences(rpc.stderr, `${join(agentDir, "prompts", "shared.md")} is ignored`)).toBe(1);
    // The extension command ran instead of the template: the model was never asked.
    expect(fixture.server.requests.some((request) => JSON.stringify(request.body).includes("TEMPLATE REVIEW"))).toBe(false);
    expect(rpc.frames.every((frame) => frame.type !== "__unparseable_stdout__")).toBe(true);
  });

  test("--no-skills and --no-prompt-templates keep only the flag paths", async () => {
    const rpc = fixture.start([
      "--no-skills",
      "--no-prompt-templates",
      "--skill",
      join(home, "flag", "flag-skill"),
      "--prompt-template",
      join(home, "flag", "flag-tpl.md"),
      "--model",
      FAKE_MODEL,
    ]);
    const response = await rpc.request({ type: "get_commands" });
    expect(response.data.commands.map((command: { name: string }) => command.name)).toEqual(["flag-tpl", "skill:flag-skill"]);

    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "/user-tpl a b" });
    await rpc.waitForEvent("agent_end");
    // Not a template any more: sent as typed; and only the flag's skill is offered to the model.
    expect(lastUserTexts()).toEqual(["/user-tpl a b"]);
    const system = systemPromptOf(before);
    expect(system).toContain(join(home, "flag", "flag-skill", "SKILL.md"));
    expect(system).not.toContain("user-skill");
    expect(await rpc.close()).toBe(0);
  });
  test("a folder's templates are listed in the order of their names: implement before implement-and-review; nested folders are not read", async () => {
    const folder = join(home, "ordered-prompts");
    const names = ["implement-and-review", "implement", "implement_x", "implementX", "Implement2", "a.b", "a-b", "ab", "a", "10", "9"];
    for (const name of names) write(join(folder, `${name}.md`), `${name}\n`);
    write(join(folder, "nested", "deep.md"), "deep\n");
    const rpc = fixture.start(["--no-skills", "--no-prompt-templates", "--prompt-template", folder, "--model", FAKE_MODEL]);
    const response = await rpc.request({ type: "get_commands" });
    expect(response.data.commands.map((command: { name: string }) => command.name)).toEqual([
      "10",
      "9",
      "Implement2",
      "a",
      "a-b",
      "a.b",
      "ab",
      "implement",
      "implement-and-review",
      "implementX",
      "implement_x",
    ]);
    expect(await rpc.close()).toBe(0);
  });
});

describe("the system prompt", () => {
  test("lists the skills with their files, without disable-model-invocation ones, once extensions added theirs", async () => {
    const rpc = startFull();
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_end");
    const system = systemPromptOf(before);
    const listed = [...system.matchAll(/<name>([^<]+)<\/name>\s*<description>([^<]+)<\/description>\s*<location>([^<]+)<\/location>/g)].map((match) => [match[1], match[2], match[3]]);
    expect(listed).toEqual([
      ["alpha", "Project alpha", join(cwd, ".xcsh", "skills", "alpha", "SKILL.md")],
      ["agents-skill", "From .agents", join(cwd, ".agents", "skills", "agents-skill", "SKILL.md")],
      ["user-skill", "User skill", join(agentDir, "skills", "user-skill", "SKILL.md")],
      ["home-agents-skill", "From ~/.agents", join(home, ".agents", "skills", "home-agents-skill", "SKILL.md")],
      ["set-skill", "From settings", join(home, "settings-skills", "set-skill", "SKILL.md")],
      ["flag-skill", "From the flag", join(home, "flag", "flag-skill", "SKILL.md")],
      ["ext-skill", "From an extension", join(home, "ext-res", "skills", "ext-skill", "SKILL.md")],
    ]);
    expect(system).toContain("read tool");
    expect(await rpc.close()).toBe(0);
  });

  test("has no skills list when the read tool is off (the model could not open them)", async () => {
    const rpc = fixture.start(["--tools", "bash", "--model", FAKE_MODEL]);
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_end");
    expect(systemPromptOf(before)).not.toContain("<available_skills>");
    expect(await rpc.close()).toBe(0);
  });
});

describe("expansion", () => {
  test("a template gets its arguments: positions, all, slices; a missing position is empty", async () => {
    const rpc = startFull();
    await rpc.request({ type: "prompt", message: `/user-tpl one "two words" 'three $1' four` });
    await rpc.waitForEvent("agent_end");
    expect(lastUserTexts()).toEqual([
      "A=[one] B=[two words] NINE=[] ALL=[one two words three $1 four] ARGS=[one two words three $1 four] FROM2=[two words three $1 four] ONE=[two words]\n",
    ]);
    expect(await rpc.close()).toBe(0);
  });

  test("/skill:name sends the skill's instructions with the arguments; unknown names are sent as typed", async () => {
    const rpc = startFull();
    await rpc.request({ type: "prompt", message: "/skill:user-skill fix the build" });
    await rpc.waitForEvent("agent_end");
    const [expanded] = lastUserTexts();
    expect(expanded).toStartWith(`<skill name="user-skill" location="${join(agentDir, "skills", "user-skill", "SKILL.md")}">`);
    expect(expanded).toContain("Instructions of user-skill.");
    expect(expanded).not.toContain("description: User skill");
    expect(expanded).toEndWith("</skill>\n\nUser: fix the build");

    const mark = rpc.mark();
    await rpc.request({ type: "prompt", message: "/skill:no-such-skill x" });
    await rpc.waitForEvent("agent_end", () => true, 5_000, mark);
    expect(lastUserTexts().at(-1)).toBe("/skill:no-such-skill x");
    expect(await rpc.close()).toBe(0);
  });

  test("while the agent works, steer, follow_up and a queued prompt are expanded before they are queued", async () => {
    const rpc = startFull();
    const release = join(cwd, "release-expansion");
    fixture.server.enqueue(
      { content: [{ type: "toolCall", name: "bash", arguments: { command: `until [ -e ${release} ]; do sleep 0.02; done; echo released` } }] },
      { content: [{ type: "text", text: "after steering" }] },
      { content: [{ type: "text", text: "after follow-ups" }] },
    );
    await rpc.request({ type: "prompt", message: "start working" });
    await rpc.waitForEvent("tool_execution_start");
    expect((await rpc.request({ type: "steer", message: "/flag-tpl steered" })).success).toBe(true);
    expect((await rpc.request({ type: "follow_up", message: "/ext-tpl a b" })).success).toBe(true);
    expect((await rpc.request({ type: "prompt", message: "/skill:set-skill queued", streamingBehavior: "followUp" })).success).toBe(true);
    const queued = await rpc.waitForEvent("queue_update", (frame) => frame.followUp.length === 2);
    expect(queued.steering).toEqual(["FLAG steered\n"]);
    expect(queued.followUp[0]).toBe("EXT a b\n");
    expect(queued.followUp[1]).toStartWith('<skill name="set-skill"');
    writeFileSync(release, "");
    await rpc.waitForEvent("agent_end");
    const texts = lastUserTexts();
    expect(texts).toContain("FLAG steered\n");
    expect(texts).toContain("EXT a b\n");
    expect(texts.some((text) => text.startsWith('<skill name="set-skill"') && text.endsWith("User: queued"))).toBe(true);
    expect(texts.some((text) => text.startsWith("/"))).toBe(false);
    expect(await rpc.close()).toBe(0);
  });
});
