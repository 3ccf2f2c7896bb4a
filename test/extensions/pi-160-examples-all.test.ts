/**
 * Every example extension pi 1.6.0 ships (issue #33), unchanged, in the built binary over
 * `--mode rpc`. The examples are copied at test time from the reference package (the
 * devDependency `pi-coding-agent-160`), a folder's npm dependencies linked where
 * `bun install` would put them: from this repository's node_modules when installed, else
 * from the stand-ins in fixtures/fake-registry (no network).
 *
 * The first part loads them all, several per process where they do not clash (one override
 * of the built-in tools per process, `/todos` of todo.ts and plan-mode apart), and checks
 * what pi 1.6.0 showed for each when loaded alone (scripts/pi-examples-side-by-side.ts):
 * no load error, the commands get_commands lists, the tools the model is offered. The
 * lists are written here, not read from pi. The rest drives a dozen of them as a user
 * would and looks at what the user and the model see.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";
import type { Frame, RpcProcess } from "../support/rpc-harness.ts";
import { runXcsh } from "../support/cli.ts";

const ROOT = join(import.meta.dir, "../..");
const EXAMPLES = join(dirname(Bun.resolveSync("pi-coding-agent-160/package.json", import.meta.dir)), "examples/extensions");
const FAKE_REGISTRY = join(import.meta.dir, "fixtures/fake-registry");
const BUILT_IN_TOOLS = ["bash", "edit", "read", "write"];

/**
 * What pi 1.6.0 lists for each example loaded alone: its own commands (prompt templates as
 * `prompt:name`) and the tools it adds to the four built-in ones the model is offered.
 */
const EXPECTED: Record<string, { commands: string[]; tools: string[] }> = {
  "auto-commit-on-exit.ts": { commands: [], tools: [] },
  "bash-spawn-hook.ts": { commands: [], tools: [] },
  "bookmark.ts": { commands: ["bookmark", "unbookmark"], tools: [] },
  "border-status-editor.ts": { commands: [], tools: [] },
  "built-in-tool-renderer.ts": { commands: [], tools: [] },
  "claude-rules.ts": { commands: [], tools: [] },
  "commands.ts": { commands: ["commands"], tools: [] },
  "confirm-destructive.ts": { commands: [], tools: [] },
  "custom-compaction.ts": { commands: [], tools: [] },
  "custom-footer.ts": { commands: ["footer"], tools: [] },
  "custom-header.ts": { commands: ["builtin-header"], tools: [] },
  "custom-provider-anthropic": { commands: [], tools: [] },
  "custom-provider-gitlab-duo": { commands: [], tools: [] },
  "debug-provider.ts": { commands: ["debug-provider"], tools: [] },
  "dirty-repo-guard.ts": { commands: [], tools: [] },
  "doom-overlay": { commands: ["doom-overlay"], tools: [] },
  "dynamic-resources": { commands: ["prompt:dynamic"], tools: [] },
  "dynamic-tools.ts": { commands: ["add-echo-tool"], tools: ["echo_session"] },
  "entry-renderer.ts": { commands: ["status-card"], tools: [] },
  "event-bus.ts": { commands: ["emit"], tools: [] },
  "file-trigger.ts": { commands: [], tools: [] },
  "git-checkpoint.ts": { commands: [], tools: [] },
  "git-merge-and-resolve.ts": { commands: [], tools: [] },
  "github-issue-autocomplete.ts": { commands: [], tools: [] },
  gondolin: { commands: ["gondolin"], tools: ["find", "grep", "ls"] },
  "handoff.ts": { commands: ["handoff"], tools: [] },
  "hello.ts": { commands: [], tools: ["hello"] },
  "hidden-thinking-label.ts": { commands: ["thinking-label"], tools: [] },
  "inline-bash.ts": { commands: [], tools: [] },
  "input-transform-streaming.ts": { commands: [], tools: [] },
  "input-transform.ts": { commands: [], tools: [] },
  "interactive-shell.ts": { commands: [], tools: [] },
  "jev-router.ts": { commands: [], tools: [] },
  "mac-system-theme.ts": { commands: [], tools: [] },
  "message-renderer.ts": { commands: ["status"], tools: [] },
  "minimal-mode.ts": { commands: [], tools: ["find", "grep", "ls"] },
  "modal-editor.ts": { commands: [], tools: [] },
  "model-status.ts": { commands: [], tools: [] },
  "notify.ts": { commands: [], tools: [] },
  "overlay-qa-tests.ts": {
    commands: [
      "overlay-anchors",
      "overlay-animation",
      "overlay-edge",
      "overlay-focus",
      "overlay-margins",
      "overlay-maxheight",
      "overlay-overflow",
      "overlay-passive",
      "overlay-percent",
      "overlay-sidepanel",
      "overlay-stack",
      "overlay-streaming",
      "overlay-toggle",
    ],
    tools: [],
  },
  "overlay-test.ts": { commands: ["overlay-test"], tools: [] },
  "permission-gate.ts": { commands: [], tools: [] },
  "pirate.ts": { commands: ["pirate"], tools: [] },
  "plan-mode": { commands: ["plan", "todos"], tools: [] },
  "preset.ts": { commands: ["preset"], tools: [] },
  "project-trust.ts": { commands: [], tools: [] },
  "prompt-customizer.ts": { commands: [], tools: [] },
  "protected-paths.ts": { commands: [], tools: [] },
  "provider-payload.ts": { commands: [], tools: [] },
  "qna.ts": { commands: ["qna"], tools: [] },
  "question.ts": { commands: [], tools: ["question"] },
  "questionnaire.ts": { commands: [], tools: ["questionnaire"] },
  "rainbow-editor.ts": { commands: [], tools: [] },
  "reload-runtime.ts": { commands: ["reload-runtime"], tools: ["reload_runtime"] },
  "rpc-demo.ts": { commands: ["rpc-editor", "rpc-input", "rpc-prefill"], tools: [] },
  "send-user-message.ts": { commands: ["ask", "askwith", "followup", "steer"], tools: [] },
  "session-name.ts": { commands: ["session-name"], tools: [] },
  "shutdown-command.ts": { commands: ["quit"], tools: ["deploy_and_exit", "finish_and_exit"] },
  "snake.ts": { commands: ["snake"], tools: [] },
  "space-invaders.ts": { commands: ["invaders"], tools: [] },
  "ssh.ts": { commands: [], tools: [] },
  "status-line.ts": { commands: [], tools: [] },
  "structured-output.ts": { commands: [], tools: ["structured_output"] },
  // A folder with prompts/ is a package: pi loads its prompts, and its index.ts only from extensions/.
  subagent: { commands: ["prompt:implement", "prompt:implement-and-review", "prompt:scout-and-plan"], tools: [] },
  "summarize.ts": { commands: ["summarize"], tools: [] },
  "system-prompt-header.ts": { commands: [], tools: [] },
  "tic-tac-toe.ts": { commands: ["tic-tac-toe"], tools: ["tic_tac_toe", "tic_tac_toe_see_board"] },
  "timed-confirm.ts": { commands: ["timed", "timed-select", "timed-signal"], tools: [] },
  "titlebar-spinner.ts": { commands: [], tools: [] },
  "todo.ts": { commands: ["todos"], tools: ["todo"] },
  "tool-override.ts": { commands: ["read-log"], tools: [] },
  "tools.ts": { commands: ["tools"], tools: [] },
  "trigger-compact.ts": { commands: ["trigger-compact"], tools: [] },
  "truncated-tool.ts": { commands: [], tools: ["rg"] },
  "widget-placement.ts": { commands: [], tools: [] },
  "with-deps": { commands: [], tools: ["parse_duration"] },
  "working-indicator.ts": { commands: ["working-indicator"], tools: [] },
  "working-message-test.ts": { commands: [], tools: [] },
};

/** Each replaces built-in tools, so each goes to a process of its own; the rest are dealt out among them. */
const TOOL_OVERRIDES = ["bash-spawn-hook.ts", "built-in-tool-renderer.ts", "minimal-mode.ts", "ssh.ts", "tool-override.ts", "gondolin"];

function groups(): string[][] {
  const result = TOOL_OVERRIDES.map((name) => [name]);
  const rest = Object.keys(EXPECTED).filter((name) => !TOOL_OVERRIDES.includes(name));
  rest.forEach((name, index) => result[index % result.length]!.push(name));
  // todo.ts and plan-mode both register /todos.
  const withTodo = result.findIndex((group) => group.includes("todo.ts"));
  const withPlan = result.findIndex((group) => group.includes("plan-mode"));
  if (withTodo === withPlan) {
    const other = result[(withPlan + 1) % result.length]!;
    result[withPlan]!.splice(result[withPlan]!.indexOf("plan-mode"), 1);
    other.push("plan-mode");
  }
  return result;
}

let fixture: ExtensionFixture;

/** Copies an example into the test's home (a folder with its dependencies linked in); returns its `-e` path. */
function example(name: string): string {
  const target = join(fixture.home.home, "ext", "pi-examples", name);
  if (existsSync(target)) return target;
  cpSync(join(EXAMPLES, name), target, { recursive: true });
  const manifest = join(target, "package.json");
  if (existsSync(manifest)) {
    for (const dep of Object.keys(JSON.parse(readFileSync(manifest, "utf8")).dependencies ?? {})) {
      const source = [join(ROOT, "node_modules", dep), join(FAKE_REGISTRY, dep)].find((path) => existsSync(path));
      if (!source) throw new Error(`${name} needs ${dep}, which is neither installed nor in the fake registry`);
      mkdirSync(dirname(join(target, "node_modules", dep)), { recursive: true });
      symlinkSync(source, join(target, "node_modules", dep));
    }
  }
  return target;
}

/** Dialogs an example opens are answered with `answer` (default: cancelled), so runs always end. */
function answerDialogs(rpc: RpcProcess, answer: (frame: Frame) => Record<string, unknown> = () => ({ cancelled: true })): void {
  const answered = new Set<string>();
  const poll = setInterval(() => {
    for (const frame of rpc.ofType("extension_ui_request")) {
      if (answered.has(frame.id) || !["select", "confirm", "input", "editor"].includes(frame.method)) continue;
      answered.add(frame.id);
      rpc.send({ type: "extension_ui_response", id: frame.id, ...answer(frame) });
    }
  }, 20);
  void rpc.proc.exited.then(() => clearInterval(poll));
}

const toolNames = (request: { body: any }) => (request.body.tools ?? []).map((tool: any) => tool.function?.name ?? tool.name).sort();
const requestText = (request: { body: any }) => JSON.stringify(request.body.messages);
const sorted = (items: Iterable<string>) => [...new Set(items)].sort();

async function commandsOf(rpc: RpcProcess): Promise<string[]> {
  const commands = (await rpc.request({ type: "get_commands" }, 15_000)).data.commands as { name: string; source: string }[];
  return sorted(commands.filter((command) => command.source !== "skill").map((command) => (command.source === "extension" ? command.name : `${command.source}:${command.name}`)));
}

async function waitForNotice(rpc: RpcProcess, start: string, timeoutMs = 15_000): Promise<string> {
  const frame = await rpc.waitFor((candidate) => candidate.method === "notify" && String(candidate.message).startsWith(start), timeoutMs, `a notice "${start}…"`);
  return frame.message as string;
}

function sessionEntries(file: string): any[] {
  return readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
}

beforeAll(() => {
  fixture = createExtensionFixture();
  // provider-payload.ts logs into the project's config folder, which a user of it has.
  mkdirSync(join(fixture.cwd, ".xcsh"), { recursive: true });
});
afterEach(() => {
  fixture.server.clearScript();
  fixture.home.writeSettings({});
});
afterAll(() => fixture.cleanup());

describe("every pi 1.6.0 example loads", () => {
  test("the expected list covers every example pi ships", () => {
    expect(readdirSync(EXAMPLES).filter((name) => name !== "README.md").sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const group of groups()) {
    test(`${group[0]} with ${group.length - 1} others: no load error, their commands listed, their tools offered`, async () => {
      const rpc = fixture.start(withExtensions(...group.map(example)));
      answerDialogs(rpc);
      const commands = await commandsOf(rpc);
      const before = fixture.server.requests.length;
      await rpc.request({ type: "prompt", message: "hi" }, 15_000);
      await rpc.waitForEvent("agent_end", () => true, 20_000);
      // file-trigger.ts watches /tmp/agent-trigger.txt, which pi reports the same way when it is missing.
      const errors = rpc.ofType("extension_error").filter((frame) => !(String(frame.extensionPath).includes("file-trigger") && /agent-trigger\.txt/.test(frame.error)));
      expect(errors).toEqual([]);
      expect(commands).toEqual(sorted(group.flatMap((name) => EXPECTED[name]!.commands)));
      expect(toolNames(fixture.server.requests[before]!)).toEqual(sorted([...BUILT_IN_TOOLS, ...group.flatMap((name) => EXPECTED[name]!.tools)]));
      expect(await rpc.close(10_000)).toBe(0);
    }, 60_000);
  }
});

describe("a package folder named in settings' extensions list", () => {
  test("subagent in settings loads as pi 1.6.0 loads it there: its index.ts (the subagent tool), none of its prompts", async () => {
    fixture.home.writeSettings({ extensions: [example("subagent")] });
    const rpc = fixture.start();
    const commands = await commandsOf(rpc);
    await rpc.request({ type: "prompt", message: "hi" }, 15_000);
    await rpc.waitForEvent("agent_end", () => true, 20_000);
    expect(rpc.ofType("extension_error")).toEqual([]);
    expect(commands).toEqual([]); // `-e subagent` lists its three prompt:… commands instead (above)
    expect(toolNames(fixture.server.requests.at(-1)!)).toEqual(sorted([...BUILT_IN_TOOLS, "subagent"]));
    expect(await rpc.close(10_000)).toBe(0);
  }, 60_000);

  test("a folder with only extensions/ and prompts/ loads nothing from settings, and the error says to list it under packages", async () => {
    const root = join(fixture.home.home, "ext", "layout-package");
    mkdirSync(join(root, "extensions"), { recursive: true });
    mkdirSync(join(root, "prompts"), { recursive: true });
    writeFileSync(join(root, "extensions", "a.ts"), `export default function (pi) { pi.registerCommand("from-a", { description: "a", handler: async () => {} }); }\n`);
    writeFileSync(join(root, "prompts", "greet.md"), "Say hello\n");
    fixture.home.writeSettings({ extensions: [root] });
    const rpc = fixture.start();
    expect(await commandsOf(rpc)).toEqual([]);
    const errors = rpc.ofType("extension_error");
    expect(errors.map((frame) => [frame.extensionPath, frame.event])).toEqual([[root, "load"]]);
    expect(errors[0]!.error).toContain('list it under "packages"');
    expect(await rpc.close(10_000)).toBe(0);
  }, 60_000);
});

describe("flags the examples register", () => {
  test("--help lists them under Extension CLI Flags, as pi does: plan-mode's --plan, preset's --preset <value>, ssh's --ssh <value>", async () => {
    const result = await runXcsh(["-e", example("plan-mode"), "-e", example("preset.ts"), "-e", example("ssh.ts"), "--help"], { env: fixture.home.env, cwd: fixture.cwd });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.slice(result.stdout.indexOf("Extension CLI Flags:"))).toBe(
      [
        "Extension CLI Flags:",
        "  --plan                      Start in plan mode (read-only exploration)",
        "  --preset <value>            Preset configuration to use",
        "  --ssh <value>               SSH remote: user@host or user@host:/path",
        "",
      ].join("\n"),
    );
  });

  test("plan-mode's --plan starts the session in plan mode: the first prompt carries plan mode's context", async () => {
    const rpc = fixture.start([...withExtensions(example("plan-mode")), "--plan"]);
    await rpc.request({ type: "prompt", message: "look around" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    expect(requestText(fixture.server.requests.at(-1)!)).toContain("[PLAN MODE ACTIVE]");
    expect(await rpc.close()).toBe(0);
  });
});

describe("pi 1.6.0 examples at work", () => {
  test("permission-gate: a dangerous bash command asks first; answering No blocks it and the model is told", async () => {
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "sudo touch gated.txt" } }] },
      { content: [{ type: "text", text: "Understood." }] },
    );
    const rpc = fixture.start(withExtensions(example("permission-gate.ts")));
    answerDialogs(rpc, () => ({ value: "No" }));
    await rpc.request({ type: "prompt", message: "make the file" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    const asked = rpc.ofType("extension_ui_request").find((frame) => frame.method === "select")!;
    expect(asked.title).toContain("sudo touch gated.txt");
    expect(asked.options).toEqual(["Yes", "No"]);
    expect(requestText(fixture.server.requests.at(-1)!)).toContain("Blocked by user");
    expect(existsSync(join(fixture.cwd, "gated.txt"))).toBe(false);
    expect(await rpc.close()).toBe(0);
  });

  test("bash-spawn-hook: the missing ~/.profile's error comes first, then the command's stdout and stderr in the order written", async () => {
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "echo out1; echo err1 >&2; echo out2 $PI_SPAWN_HOOK" } }] },
      { content: [{ type: "text", text: "Ran." }] },
    );
    const rpc = fixture.start(withExtensions(example("bash-spawn-hook.ts")));
    await rpc.request({ type: "prompt", message: "run it" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    const end = rpc.ofType("tool_execution_end").find((frame) => frame.toolName === "bash")!;
    const lines = String(end.result.content[0].text).split("\n");
    expect(lines[0]).toMatch(/\.profile: No such file or directory$/);
    expect(lines.slice(1)).toEqual(["out1", "err1", "out2 1"]);
    expect(await rpc.close()).toBe(0);
  });

  test("protected-paths: a write to .env is blocked with a warning, and the file is not written", async () => {
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_1", name: "write", arguments: { path: ".env", content: "SECRET=1\n" } }] },
      { content: [{ type: "text", text: "Blocked." }] },
    );
    const rpc = fixture.start(withExtensions(example("protected-paths.ts")));
    await rpc.request({ type: "prompt", message: "write the env" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    expect(notices(rpc)).toContain("Blocked write to protected path: .env");
    expect(requestText(fixture.server.requests.at(-1)!)).toContain('Path \\".env\\" is protected');
    expect(existsSync(join(fixture.cwd, ".env"))).toBe(false);
    expect(await rpc.close()).toBe(0);
  });

  test("tool-override: its read replaces the built-in one, refuses .env, and logs each access for /read-log", async () => {
    writeFileSync(join(fixture.cwd, "notes.txt"), "plain notes\n");
    writeFileSync(join(fixture.cwd, ".env"), "SECRET=1\n");
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "notes.txt" } }, { type: "toolCall", id: "call_2", name: "read", arguments: { path: ".env" } }] },
      { content: [{ type: "text", text: "Read." }] },
    );
    const rpc = fixture.start(withExtensions(example("tool-override.ts")));
    await rpc.request({ type: "prompt", message: "read both" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    const seen = requestText(fixture.server.requests.at(-1)!);
    expect(seen).toContain("plain notes");
    expect(seen).toContain("Access denied");
    expect(seen).not.toContain("SECRET=1");
    expect(fixture.server.requests.at(-1)!.body.tools.find((tool: any) => tool.function.name === "read").function.description).toContain("access logging");
    await rpc.request({ type: "prompt", message: "/read-log" });
    const log = await waitForNotice(rpc, "Recent file access");
    expect(log).toMatch(/ALLOWED: .*notes\.txt/);
    expect(log).toMatch(/BLOCKED: .*\.env \(matches blocked pattern\)/);
    expect(await rpc.close()).toBe(0);
  });

  test("dynamic-tools: echo_session is there from the start; /add-echo-tool adds a tool the model can call at once", async () => {
    const rpc = fixture.start(withExtensions(example("dynamic-tools.ts")));
    await waitForNotice(rpc, "Registered dynamic tool: echo_session");
    await rpc.request({ type: "prompt", message: "/add-echo-tool shout" });
    await waitForNotice(rpc, "Registered dynamic tool: shout");
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_1", name: "shout", arguments: { message: "hey" } }] },
      { content: [{ type: "text", text: "Echoed." }] },
    );
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "shout hey" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    const [first, second] = fixture.server.requests.slice(before);
    expect(toolNames(first!)).toEqual(expect.arrayContaining(["echo_session", "shout"]));
    expect(JSON.stringify(first!.body.messages[0])).toContain("Use echo_session when the user asks for exact echo output.");
    expect(requestText(second!)).toContain("[shout] hey");
    expect(await rpc.close()).toBe(0);
  });

  test("input-transform: 'ping' is answered by the extension without the model; '?quick x' reaches the model rewritten", async () => {
    const rpc = fixture.start(withExtensions(example("input-transform.ts")));
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "ping" });
    await waitForNotice(rpc, "pong");
    expect(fixture.server.requests.length).toBe(before);
    await rpc.request({ type: "prompt", message: "?quick what is a monad" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    expect(requestText(fixture.server.requests.at(-1)!)).toContain("Respond briefly in 1-2 sentences: what is a monad");
    expect(await rpc.close()).toBe(0);
  });

  test("send-user-message: /ask starts a run with the text as the user's; /askwith sends its two text parts", async () => {
    const rpc = fixture.start(withExtensions(example("send-user-message.ts")));
    await rpc.request({ type: "prompt", message: "/ask what time is it" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    const asked = fixture.server.requests.at(-1)!.body.messages.at(-1);
    expect(asked.role).toBe("user");
    expect(JSON.stringify(asked.content)).toContain("what time is it");
    const ends = rpc.ofType("agent_end").length;
    await rpc.request({ type: "prompt", message: "/askwith list the files" });
    await rpc.waitFor(() => rpc.ofType("agent_end").length > ends, 15_000);
    const withParts = JSON.stringify(fixture.server.requests.at(-1)!.body.messages.at(-1).content);
    expect(withParts).toContain("User request: list the files");
    expect(withParts).toContain("Please respond concisely.");
    await rpc.request({ type: "prompt", message: "/ask" });
    await waitForNotice(rpc, "Usage: /ask <message>");
    expect(await rpc.close()).toBe(0);
  });

  test("structured-output: its tool result ends the run; the model is not asked again", async () => {
    fixture.server.enqueue({
      content: [{ type: "toolCall", id: "call_1", name: "structured_output", arguments: { headline: "Done", summary: "All good.", actionItems: ["ship"] } }],
    });
    const rpc = fixture.start(withExtensions(example("structured-output.ts")));
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "summarize as structured output" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    expect(fixture.server.requests.length - before).toBe(1);
    expect(JSON.stringify(fixture.server.requests.at(-1)!.body.messages[0])).toContain("Use structured_output as your final action");
    const result = rpc.ofType("tool_execution_end").at(-1)!;
    expect(result.result.content[0].text).toBe("Saved structured output: Done");
    expect(result.result.details).toEqual({ headline: "Done", summary: "All good.", actionItems: ["ship"] });
    expect(await rpc.close()).toBe(0);
  });

  test("todo: the todo tool keeps its list in the session, and a resumed session still has it", async () => {
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_1", name: "todo", arguments: { action: "add", text: "write tests" } }] },
      { content: [{ type: "text", text: "Added." }] },
    );
    const rpc = fixture.start(withExtensions(example("todo.ts")));
    await rpc.request({ type: "prompt", message: "add a todo" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    expect(requestText(fixture.server.requests.at(-1)!)).toContain("Added todo #1: write tests");
    const sessionFile = (await rpc.request({ type: "get_state" })).data.sessionFile;
    expect(await rpc.close()).toBe(0);

    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_2", name: "todo", arguments: { action: "list" } }] },
      { content: [{ type: "text", text: "Listed." }] },
    );
    const resumed = fixture.start([...withExtensions(example("todo.ts")), "--session", sessionFile]);
    await resumed.request({ type: "prompt", message: "list todos" });
    await resumed.waitForEvent("agent_end", () => true, 15_000);
    expect(requestText(fixture.server.requests.at(-1)!)).toContain("#1: write tests");
    expect(await resumed.close()).toBe(0);
  });

  test("bookmark: /bookmark labels the last answer in the session file; /unbookmark removes it", async () => {
    const rpc = fixture.start(withExtensions(example("bookmark.ts")));
    await rpc.request({ type: "prompt", message: "/bookmark early" });
    await waitForNotice(rpc, "No assistant message to bookmark");
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    await rpc.request({ type: "prompt", message: "/bookmark checkpoint" });
    await waitForNotice(rpc, "Bookmarked as: checkpoint");
    await rpc.request({ type: "prompt", message: "/unbookmark" });
    await waitForNotice(rpc, "Removed bookmark: checkpoint");
    const sessionFile = (await rpc.request({ type: "get_state" })).data.sessionFile;
    expect(await rpc.close()).toBe(0);
    const entries = sessionEntries(sessionFile);
    const answer = entries.find((entry) => entry.type === "message" && entry.message.role === "assistant");
    const labels = entries.filter((entry) => entry.type === "label");
    expect(labels.map((entry) => [entry.targetId, entry.label ?? null])).toEqual([
      [answer.id, "checkpoint"],
      [answer.id, null],
    ]);
  });

  test("session-name: /session-name names the session (get_state and the file say so) and shows it back", async () => {
    const rpc = fixture.start(withExtensions(example("session-name.ts")));
    // A first exchange: pi writes the session file only once there is an answer.
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    await rpc.request({ type: "prompt", message: "/session-name" });
    await waitForNotice(rpc, "No session name set");
    await rpc.request({ type: "prompt", message: "/session-name Refactor the parser" });
    await waitForNotice(rpc, "Session named: Refactor the parser");
    await rpc.request({ type: "prompt", message: "/session-name" });
    await waitForNotice(rpc, "Session: Refactor the parser");
    const state = (await rpc.request({ type: "get_state" })).data;
    expect(state.sessionName).toBe("Refactor the parser");
    expect(await rpc.close()).toBe(0);
    expect(sessionEntries(state.sessionFile).filter((entry) => entry.type === "session_info").map((entry) => entry.name)).toEqual(["Refactor the parser"]);
  });

  test("trigger-compact: /trigger-compact compacts with the given instructions and says when it is done", async () => {
    // pi keeps the last 20k tokens verbatim and has nothing to compact in a short session.
    fixture.home.writeSettings({ compaction: { keepRecentTokens: 10 } });
    const rpc = fixture.start(withExtensions(example("trigger-compact.ts")));
    await rpc.request({ type: "prompt", message: "first question" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    await rpc.request({ type: "prompt", message: "second question" });
    await rpc.waitFor(() => rpc.ofType("agent_end").length === 2, 15_000);
    fixture.server.enqueue({ content: [{ type: "text", text: "THE SUMMARY" }] });
    await rpc.request({ type: "prompt", message: "/trigger-compact keep the questions" });
    await waitForNotice(rpc, "Compaction started");
    await waitForNotice(rpc, "Compaction completed", 20_000);
    expect(requestText(fixture.server.requests.at(-1)!)).toContain("keep the questions");
    const sessionFile = (await rpc.request({ type: "get_state" })).data.sessionFile;
    expect(await rpc.close()).toBe(0);
    expect(sessionEntries(sessionFile).filter((entry) => entry.type === "compaction").map((entry) => entry.summary)).toEqual([expect.stringContaining("THE SUMMARY")]);
  });

  test("truncated-tool: rg finds matches in the project, and says so when there are none", async () => {
    writeFileSync(join(fixture.cwd, "haystack.txt"), "hay\nneedle here\nhay\n");
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_1", name: "rg", arguments: { pattern: "needle", glob: "haystack.txt" } }, { type: "toolCall", id: "call_2", name: "rg", arguments: { pattern: "nothing-like-this-anywhere", glob: "haystack.txt" } }] },
      { content: [{ type: "text", text: "Found." }] },
    );
    const rpc = fixture.start(withExtensions(example("truncated-tool.ts")));
    await rpc.request({ type: "prompt", message: "find the needle" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    const results = rpc.ofType("tool_execution_end").map((frame) => frame.result.content[0].text);
    expect(results).toEqual(expect.arrayContaining(["./haystack.txt:2:needle here\n", "No matches found"]));
    expect(await rpc.close()).toBe(0);
  });

  test("provider-payload: each request's payload and each response's status land in .xcsh/provider-payload.log", async () => {
    const rpc = fixture.start(withExtensions(example("provider-payload.ts")));
    await rpc.request({ type: "prompt", message: "log me" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    expect(await rpc.close()).toBe(0);
    const log = readFileSync(join(fixture.cwd, ".xcsh", "provider-payload.log"), "utf8");
    expect(log).toContain('"model": "fake-model"');
    expect(log).toContain("log me");
    expect(log).toMatch(/^\[200\] \{/m);
  });

  test("model-status: a model change is announced and put in the status bar; its console.log goes to stderr, not the protocol", async () => {
    const modelsJson = JSON.parse(readFileSync(join(fixture.home.agentDir, "models.json"), "utf8"));
    modelsJson.providers.other = { ...modelsJson.providers.fake, models: [{ id: "other-model" }] };
    fixture.home.writeModelsJson(modelsJson);
    const rpc = fixture.start(withExtensions(example("model-status.ts")));
    await rpc.request({ type: "set_model", provider: "other", modelId: "other-model" });
    await waitForNotice(rpc, "Model: other/other-model");
    const status = rpc.ofType("extension_ui_request").filter((frame) => frame.method === "setStatus" && frame.statusKey === "model").at(-1)!;
    expect(status.statusText).toBe("🤖 other-model");
    await rpc.waitFor(() => rpc.stderr.includes("[model_select] fake/fake-model → other/other-model (set)"), 5_000, "the log line on stderr");
    expect(rpc.rawLines.every((line) => line.startsWith("{"))).toBe(true);
    expect(await rpc.close()).toBe(0);
  });

  test("custom-compaction: /compact summarizes with the extension's model (gemini-2.5-flash) and keeps its summary", async () => {
    const modelsJson = JSON.parse(readFileSync(join(fixture.home.agentDir, "models.json"), "utf8"));
    modelsJson.providers.google = { ...modelsJson.providers.fake, models: [{ id: "gemini-2.5-flash" }] };
    fixture.home.writeModelsJson(modelsJson);
    fixture.home.writeSettings({ compaction: { keepRecentTokens: 10 } });
    const rpc = fixture.start(withExtensions(example("custom-compaction.ts")));
    await rpc.request({ type: "prompt", message: "first question" });
    await rpc.waitForEvent("agent_end", () => true, 15_000);
    await rpc.request({ type: "prompt", message: "second question" });
    await rpc.waitFor(() => rpc.ofType("agent_end").length === 2, 15_000);
    fixture.server.enqueue({ content: [{ type: "text", text: "## Goals\nGEMINI SUMMARY" }] });
    const compacted = await rpc.request({ type: "compact" }, 20_000);
    expect(compacted.success).toBe(true);
    expect(notices(rpc)).toContain("Custom compaction extension triggered");
    // pi 1.6.0 says the same here: the first exchange is summarized, the second kept.
    expect(notices(rpc)).toContainEqual(expect.stringMatching(/^Custom compaction: summarizing 2 messages \(\d+ tokens\) with gemini-2\.5-flash/));
    const summaryRequest = fixture.server.requests.at(-1)!;
    expect(summaryRequest.body.model).toBe("gemini-2.5-flash");
    expect(requestText(summaryRequest)).toContain("You are a conversation summarizer");
    expect(requestText(summaryRequest)).toContain("first question");
    const sessionFile = (await rpc.request({ type: "get_state" })).data.sessionFile;
    expect(await rpc.close()).toBe(0);
    expect(sessionEntries(sessionFile).filter((entry) => entry.type === "compaction").map((entry) => entry.summary)).toEqual(["## Goals\nGEMINI SUMMARY"]);
  });
});
