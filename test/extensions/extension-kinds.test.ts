/**
 * The kinds of extension seed 003 lists, written in pi's style and run by the
 * built binary: a permission gate that asks before `rm -rf` (RPC dialog, and
 * the headless default in print mode), protected paths, a todo tool whose
 * state lives in tool-result details, a counter kept with appendEntry, tools
 * added and switched at runtime, session names and bookmarks, messages an
 * extension sends, the shared event bus, pi.exec, an extension with its own
 * npm dependency, and CLI flags. Each test checks what a host or user sees:
 * frames, what the model was sent, files on disk, exit codes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../support/cli.ts";
import { createExtensionFixture, withExtensions, type ExtensionFixture } from "../support/extensions.ts";
import type { Frame, RpcProcess } from "../support/rpc-harness.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const callTool = (name: string, args: Record<string, unknown>, id = "call_1") => ({ content: [{ type: "toolCall" as const, id, name, arguments: args }] });
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });
const offered = (index: number): string[] => (fixture.server.requests[index].body.tools ?? []).map((tool: any) => tool.function.name);
const toolMessages = (index: number) => fixture.server.requests[index].body.messages.filter((message: any) => message.role === "tool");
const requestText = (index: number) => JSON.stringify(fixture.server.requests[index].body.messages);
const sessionEntries = (file: string) => readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

/** The next notify request at or after `from` whose message starts with `prefix`. */
const notice = (rpc: RpcProcess, prefix: string, from = 0): Promise<Frame> =>
  rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify" && String(frame.message).startsWith(prefix), 5_000, `a notify "${prefix}…"`, from);

/** Sends `/command` and resolves with the notify it produces. */
async function runCommand(rpc: RpcProcess, text: string, prefix: string): Promise<string> {
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: text })).success).toBe(true);
  return (await notice(rpc, prefix, from)).message;
}

/** Sends a prompt and waits for the run it starts to end. */
async function promptAndWait(rpc: RpcProcess, message: string): Promise<Frame> {
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message })).success).toBe(true);
  return rpc.waitForEvent("agent_end", undefined, 5_000, from);
}

const PERMISSION_GATE = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

// Asks before a bash command that deletes recursively or escalates privileges.
const RISKY = [/\\brm\\s+-[a-z]*r[a-z]*f?\\b/i, /\\bsudo\\b/];

export default function (pi: ExtensionAPI) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash") return undefined;
    const command = String(event.input.command);
    if (!RISKY.some((pattern) => pattern.test(command))) return undefined;
    const allowed = await ctx.ui.confirm("Dangerous command", "Allow: " + command + " ?");
    if (!allowed) return { block: true, reason: "Blocked by the user: " + command };
    return undefined;
  });
}`;

describe("permission gate", () => {
  test("over RPC the host's yes lets rm -rf run and its no blocks it with a reason the model sees", async () => {
    mkdirSync(join(fixture.cwd, "gate-doomed"), { recursive: true });
    mkdirSync(join(fixture.cwd, "gate-kept"), { recursive: true });
    const ext = fixture.writeExtension("permission-gate.ts", PERMISSION_GATE);
    const rpc = fixture.start(withExtensions(ext));

    const yesRequest = fixture.server.requests.length;
    fixture.server.enqueue(callTool("bash", { command: "rm -rf gate-doomed && echo removed-it" }), say("deleted"));
    let from = rpc.mark();
    await rpc.request({ type: "prompt", message: "delete gate-doomed" });
    const ask = await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "confirm", 5_000, "a confirm", from);
    expect(ask.title).toBe("Dangerous command");
    expect(ask.message).toContain("rm -rf gate-doomed");
    // Nothing ran before the answer.
    expect(existsSync(join(fixture.cwd, "gate-doomed"))).toBe(true);
    rpc.send({ type: "extension_ui_response", id: ask.id, confirmed: true });
    await rpc.waitForEvent("agent_end", undefined, 5_000, from);
    expect(existsSync(join(fixture.cwd, "gate-doomed"))).toBe(false);
    expect(JSON.stringify(toolMessages(yesRequest + 1))).toContain("removed-it");

    const noRequest = fixture.server.requests.length;
    fixture.server.enqueue(callTool("bash", { command: "rm -rf gate-kept" }), say("ok, not deleted"));
    from = rpc.mark();
    await rpc.request({ type: "prompt", message: "delete gate-kept" });
    const second = await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "confirm", 5_000, "a confirm", from);
    rpc.send({ type: "extension_ui_response", id: second.id, confirmed: false });
    const end = await rpc.waitForEvent("tool_execution_end", undefined, 5_000, from);
    await rpc.waitForEvent("agent_end", undefined, 5_000, from);
    expect(end.isError).toBe(true);
    expect(existsSync(join(fixture.cwd, "gate-kept"))).toBe(true);
    expect(JSON.stringify(toolMessages(noRequest + 1))).toContain("Blocked by the user: rm -rf gate-kept");
    expect(await rpc.close()).toBe(0);
  });

  test("in print mode the confirm resolves to false at once: the command is blocked and the run ends", async () => {
    mkdirSync(join(fixture.cwd, "print-kept"), { recursive: true });
    const ext = fixture.writeExtension("permission-gate-print.ts", PERMISSION_GATE);
    const before = fixture.server.requests.length;
    fixture.server.enqueue(callTool("bash", { command: "rm -rf print-kept" }), say("I could not delete it."));
    const started = performance.now();
    const result = await runXcsh(["-p", "delete print-kept", "-e", ext, "--model", "fake/fake-model"], { env: fixture.home.env, cwd: fixture.cwd, timeoutMs: 10_000 });
    const elapsed = performance.now() - started;

    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("I could not delete it.");
    expect(existsSync(join(fixture.cwd, "print-kept"))).toBe(true);
    expect(fixture.server.requests.length).toBe(before + 2);
    expect(JSON.stringify(toolMessages(before + 1))).toContain("Blocked by the user: rm -rf print-kept");
    // A dialog waiting for an answer nobody can give would run into the 10 s kill.
    expect(elapsed).toBeLessThan(8_000);
  });
});

describe("protected paths", () => {
  test("write and edit to .env or node_modules/ are blocked; other writes land on disk", async () => {
    writeFileSync(join(fixture.cwd, ".env"), "SECRET=original\n");
    const ext = fixture.writeExtension(
      "protected-paths.ts",
      `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

const PROTECTED = [".env", "node_modules/"];

export default function (pi: ExtensionAPI) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "write" && event.toolName !== "edit") return undefined;
    const path = String(event.input.path);
    if (!PROTECTED.some((part) => path.includes(part))) return undefined;
    if (ctx.hasUI) ctx.ui.notify("Refused to touch " + path, "warning");
    return { block: true, reason: "Path " + path + " is protected" };
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(
      {
        content: [
          callTool("write", { path: ".env", content: "SECRET=stolen\n" }, "w1").content[0],
          callTool("edit", { path: ".env", edits: [{ oldText: "original", newText: "edited" }] }, "e1").content[0],
          callTool("write", { path: "node_modules/evil/index.js", content: "bad()\n" }, "w2").content[0],
          callTool("write", { path: "src/app.ts", content: "export const ok = true;\n" }, "w3").content[0],
        ],
      },
      say("done"),
    );
    await promptAndWait(rpc, "write some files");

    expect(readFileSync(join(fixture.cwd, ".env"), "utf8")).toBe("SECRET=original\n");
    expect(existsSync(join(fixture.cwd, "node_modules", "evil"))).toBe(false);
    expect(readFileSync(join(fixture.cwd, "src", "app.ts"), "utf8")).toBe("export const ok = true;\n");
    const results = toolMessages(before + 1).map((message: any) => JSON.stringify(message.content));
    expect(results).toHaveLength(4);
    expect(results[0]).toContain("Path .env is protected");
    expect(results[1]).toContain("Path .env is protected");
    expect(results[2]).toContain("Path node_modules/evil/index.js is protected");
    expect(results[3]).not.toContain("protected");
    const ends = rpc.ofType("tool_execution_end");
    expect(ends.map((frame) => [frame.toolCallId, frame.isError])).toEqual([
      ["w1", true],
      ["e1", true],
      ["w2", true],
      ["w3", false],
    ]);
    const warnings = rpc.ofType("extension_ui_request").filter((frame) => frame.method === "notify").map((frame) => frame.message);
    expect(warnings).toEqual(expect.arrayContaining(["Refused to touch .env", "Refused to touch node_modules/evil/index.js"]));
    expect(await rpc.close()).toBe(0);
  });
});

describe("state that survives a restart", () => {
  test("a todo tool keeps its list in tool-result details and rebuilds it from the branch on session_start", async () => {
    const ext = fixture.writeExtension(
      "todo.ts",
      `import { StringEnum } from "@mariozechner/pi-ai";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";

interface TodoState { items: string[] }
let items: string[] = [];

function rebuild(ctx: ExtensionContext) {
  items = [];
  for (const entry of ctx.sessionManager.getBranch()) {
    if (entry.type !== "message" || entry.message.role !== "toolResult" || entry.message.toolName !== "todo") continue;
    const details = entry.message.details as TodoState | undefined;
    if (details?.items) items = [...details.items];
  }
}

export default function (pi: ExtensionAPI) {
  pi.on("session_start", async (_event, ctx) => rebuild(ctx));
  pi.on("session_tree", async (_event, ctx) => rebuild(ctx));

  pi.registerTool({
    name: "todo",
    label: "Todo",
    description: "Keep a todo list: add an item or list them",
    parameters: Type.Object({ action: StringEnum(["add", "list"] as const), text: Type.Optional(Type.String()) }),
    async execute(_toolCallId, params) {
      if (params.action === "add") {
        if (!params.text) throw new Error("add needs text");
        items.push(params.text);
      }
      const listing = items.length === 0 ? "No todos" : items.map((item, i) => "#" + (i + 1) + " " + item).join("\\n");
      return { content: [{ type: "text", text: listing }], details: { items: [...items] } satisfies TodoState };
    },
  });
}`,
    );
    const first = fixture.start(withExtensions(ext));
    fixture.server.enqueue(callTool("todo", { action: "add", text: "write the tests" }, "t1"), callTool("todo", { action: "add", text: "ship it" }, "t2"), say("added two"));
    await promptAndWait(first, "plan the release");
    const added = first.ofType("tool_execution_end");
    expect(added.map((frame) => frame.result.details)).toEqual([{ items: ["write the tests"] }, { items: ["write the tests", "ship it"] }]);
    const sessionFile = (await first.request({ type: "get_state" })).data.sessionFile as string;
    expect(await first.close()).toBe(0);

    const second = fixture.start([...withExtensions(ext), "--session", sessionFile]);
    const before = fixture.server.requests.length;
    fixture.server.enqueue(callTool("todo", { action: "list" }, "t3"), say("here they are"));
    await promptAndWait(second, "what is left?");
    const listed = second.ofType("tool_execution_end").at(-1)!;
    expect(listed).toMatchObject({ toolName: "todo", isError: false, result: { details: { items: ["write the tests", "ship it"] } } });
    expect(listed.result.content[0].text).toBe("#1 write the tests\n#2 ship it");
    const sentBack = toolMessages(before + 1).at(-1);
    expect(JSON.stringify(sentBack.content)).toContain("#1 write the tests\\n#2 ship it");
    expect(await second.close()).toBe(0);
  });

  test("a counter kept with pi.appendEntry is restored on session_start after a restart", async () => {
    const ext = fixture.writeExtension(
      "counter.ts",
      `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  let count = 0;
  pi.on("session_start", async (event, ctx) => {
    count = 0;
    for (const entry of ctx.sessionManager.getEntries()) {
      if (entry.type === "custom" && entry.customType === "counter-state") count = (entry.data as { count: number }).count;
    }
    ctx.ui.notify("restored count=" + count + " (" + event.reason + ")");
  });
  pi.registerCommand("count", {
    description: "Count one up",
    handler: async (_args, ctx) => {
      count++;
      pi.appendEntry("counter-state", { count });
      ctx.ui.notify("count=" + count);
    },
  });
}`,
    );
    const first = fixture.start(withExtensions(ext));
    expect((await notice(first, "restored")).message).toBe("restored count=0 (startup)");
    // A real conversation first, so the session is on disk.
    await promptAndWait(first, "hello");
    expect(await runCommand(first, "/count", "count=")).toBe("count=1");
    expect(await runCommand(first, "/count", "count=")).toBe("count=2");
    const sessionFile = (await first.request({ type: "get_state" })).data.sessionFile as string;
    expect(await first.close()).toBe(0);
    const customs = sessionEntries(sessionFile).filter((entry) => entry.type === "custom");
    expect(customs.map((entry) => [entry.customType, entry.data])).toEqual([
      ["counter-state", { count: 1 }],
      ["counter-state", { count: 2 }],
    ]);

    const second = fixture.start([...withExtensions(ext), "--session", sessionFile]);
    expect((await notice(second, "restored")).message).toMatch(/^restored count=2 \(/);
    expect(await runCommand(second, "/count", "count=")).toBe("count=3");
    // Custom entries are not part of what the model sees.
    const before = fixture.server.requests.length;
    await promptAndWait(second, "still there?");
    expect(requestText(before)).not.toContain("counter-state");
    expect(await second.close()).toBe(0);
  });
});

describe("tools at runtime", () => {
  test("a command registers a tool the next request offers; getAllTools lists builtins and it; setActiveTools narrows the offer", async () => {
    const ext = fixture.writeExtension(
      "dynamic-tools.ts",
      `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("add-tool", {
    description: "Register a tool named by the argument",
    handler: async (args, ctx) => {
      const name = args.trim() || "echo_back";
      pi.registerTool({
        name,
        label: name,
        description: "Echo the text back",
        parameters: Type.Object({ text: Type.String() }),
        async execute(_id, params) {
          return { content: [{ type: "text", text: "echo: " + params.text }], details: {} };
        },
      });
      ctx.ui.notify("registered " + name);
    },
  });
  pi.registerCommand("tools", {
    handler: async (_args, ctx) => {
      const all = pi.getAllTools().map((tool) => ({ name: tool.name, source: tool.sourceInfo.source, path: tool.sourceInfo.path }));
      ctx.ui.notify("tools " + JSON.stringify({ all, active: pi.getActiveTools() }));
    },
  });
  pi.registerCommand("read-only", {
    handler: async (_args, ctx) => {
      pi.setActiveTools(["read"]);
      ctx.ui.notify("active " + pi.getActiveTools().join(","));
    },
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const first = fixture.server.requests.length;
    await promptAndWait(rpc, "hi");
    expect(offered(first)).not.toContain("echo_back");

    expect(await runCommand(rpc, "/add-tool echo_back", "registered")).toBe("registered echo_back");
    const second = fixture.server.requests.length;
    fixture.server.enqueue(callTool("echo_back", { text: "ping" }), say("echoed"));
    await promptAndWait(rpc, "use the new tool");
    expect(offered(second)).toEqual(expect.arrayContaining(["read", "bash", "edit", "write", "echo_back"]));
    expect(JSON.stringify(toolMessages(second + 1))).toContain("echo: ping");

    const listing = JSON.parse((await runCommand(rpc, "/tools", "tools ")).slice("tools ".length));
    const byName = new Map<string, { source: string; path: string }>(listing.all.map((tool: any) => [tool.name, tool]));
    for (const builtin of ["read", "bash", "edit", "write"]) expect(byName.get(builtin)?.source).toBe("builtin");
    expect(byName.get("echo_back")?.source).not.toBe("builtin");
    expect(byName.get("echo_back")?.path).toBe(ext);
    expect(listing.active).toEqual(expect.arrayContaining(["read", "bash", "edit", "write", "echo_back"]));

    expect(await runCommand(rpc, "/read-only", "active")).toBe("active read");
    const third = fixture.server.requests.length;
    await promptAndWait(rpc, "now only read");
    expect(offered(third)).toEqual(["read"]);
    expect(await rpc.close()).toBe(0);
  });

  // pi ignores unknown names: its own plan-mode example activates "questionnaire", which exists only
  // when the questionnaire extension is loaded.
  test("setActiveTools ignores names no tool has and activates the rest", async () => {
    const ext = fixture.writeExtension(
      "plan-tools.ts",
      `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("plan", {
    handler: async (_args, ctx) => {
      pi.setActiveTools(["read", "grep", "questionnaire"]);
      ctx.ui.notify("active " + pi.getActiveTools().join(","));
    },
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    expect(await runCommand(rpc, "/plan", "active")).toBe("active read,grep");
    expect(rpc.ofType("extension_error")).toEqual([]);
    const before = fixture.server.requests.length;
    await promptAndWait(rpc, "plan only");
    expect(offered(before)).toEqual(["read", "grep"]);
    expect(await rpc.close()).toBe(0);
  });
});

describe("session metadata", () => {
  test("pi.setSessionName from a command shows in get_state; pi.getSessionName returns it", async () => {
    const ext = fixture.writeExtension(
      "session-name.ts",
      `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("name", {
    description: "Name this session",
    handler: async (args, ctx) => {
      pi.setSessionName(args);
      ctx.ui.notify("named " + pi.getSessionName());
    },
  });
  pi.registerCommand("which", { handler: async (_args, ctx) => ctx.ui.notify("name is " + (pi.getSessionName() ?? "(none)")) });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    expect(await runCommand(rpc, "/which", "name is")).toBe("name is (none)");
    expect(await runCommand(rpc, "/name Refactor auth module", "named")).toBe("named Refactor auth module");
    expect((await rpc.request({ type: "get_state" })).data.sessionName).toBe("Refactor auth module");
    expect(await runCommand(rpc, "/which", "name is")).toBe("name is Refactor auth module");
    expect(await rpc.close()).toBe(0);
  });

  test("pi.setLabel bookmarks the last entry: the session file holds a label entry with targetId and label", async () => {
    const ext = fixture.writeExtension(
      "bookmark.ts",
      `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("bookmark", {
    description: "Label the latest entry",
    handler: async (args, ctx) => {
      const last = ctx.sessionManager.getEntries().at(-1);
      if (!last) return ctx.ui.notify("nothing to bookmark", "warning");
      pi.setLabel(last.id, args || "checkpoint");
      ctx.ui.notify("bookmarked " + last.id + " as " + ctx.sessionManager.getLabel(last.id));
    },
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    fixture.server.enqueue(say("a reply worth keeping"));
    await promptAndWait(rpc, "hello");
    const message = await runCommand(rpc, "/bookmark", "bookmarked");
    const [, targetId, label] = /^bookmarked (\S+) as (.*)$/.exec(message)!;
    expect(label).toBe("checkpoint");
    const sessionFile = (await rpc.request({ type: "get_state" })).data.sessionFile as string;
    expect(await rpc.close()).toBe(0);

    const entries = sessionEntries(sessionFile);
    const target = entries.find((entry) => entry.id === targetId);
    expect(target).toMatchObject({ type: "message", message: { role: "assistant" } });
    expect(entries.at(-1)).toMatchObject({ type: "label", targetId, label: "checkpoint" });
  });
});

describe("messages an extension sends", () => {
  const SENDER = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("ask", { handler: async () => pi.sendUserMessage("What is 2+2?") });
  pi.registerCommand("remind", {
    handler: async () => pi.sendMessage({ customType: "reminder", content: "Remember the release notes", display: true }, { triggerTurn: true }),
  });
  pi.registerCommand("later", {
    handler: async (_args, ctx) => {
      pi.sendMessage({ customType: "aside", content: "Deferred aside for the next turn", display: true }, { deliverAs: "nextTurn" });
      ctx.ui.notify("queued");
    },
  });
}`;

  test("sendUserMessage when idle starts a run with that user text; sendMessage with triggerTurn starts one with its content", async () => {
    const ext = fixture.writeExtension("sender.ts", SENDER);
    const rpc = fixture.start(withExtensions(ext));

    let before = fixture.server.requests.length;
    fixture.server.enqueue(say("4"));
    const end = await promptAndWait(rpc, "/ask");
    const users = fixture.server.requests[before].body.messages.filter((message: any) => message.role === "user");
    expect(JSON.stringify(users.at(-1).content)).toContain("What is 2+2?");
    expect(JSON.stringify(end.messages)).not.toContain('"/ask"');

    before = fixture.server.requests.length;
    fixture.server.enqueue(say("noted"));
    await promptAndWait(rpc, "/remind");
    expect(fixture.server.requests.length).toBe(before + 1);
    expect(requestText(before)).toContain("Remember the release notes");
    expect(await rpc.close()).toBe(0);
  });

  test("deliverAs nextTurn starts nothing and rides along with the next prompt only", async () => {
    const ext = fixture.writeExtension("sender-next.ts", SENDER);
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    const from = rpc.mark();
    expect(await runCommand(rpc, "/later", "queued")).toBe("queued");
    // Give a wrongly triggered run the chance to show itself.
    await rpc.request({ type: "get_state" });
    await Bun.sleep(150);
    expect(rpc.ofType("agent_start", from)).toHaveLength(0);
    expect(fixture.server.requests.length).toBe(before);

    await promptAndWait(rpc, "first prompt");
    await promptAndWait(rpc, "second prompt");
    expect(fixture.server.requests.length).toBe(before + 2);
    const withAside = requestText(before);
    expect(withAside).toContain("first prompt");
    expect(occurrences(withAside, "Deferred aside for the next turn")).toBe(1);
    // Delivered once: the second prompt does not bring it again (it is only history now).
    expect(occurrences(requestText(before + 1), "Deferred aside for the next turn")).toBe(1);
    expect(await rpc.close()).toBe(0);
  });
});

describe("extensions talking to the world", () => {
  test("one extension's pi.events.emit reaches another's listener", async () => {
    const sender = fixture.writeExtension(
      "bus-a.ts",
      `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("ping", { handler: async (args) => pi.events.emit("x:ping", { from: "a", note: args }) });
}`,
    );
    const listener = fixture.writeExtension(
      "bus-b.ts",
      `import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  let ui: ExtensionContext["ui"] | undefined;
  pi.on("session_start", async (_event, ctx) => { ui = ctx.ui; });
  pi.events.on("x:ping", (data) => {
    const ping = data as { from: string; note: string };
    ui?.notify("pong to " + ping.from + ": " + ping.note, "info");
  });
}`,
    );
    const rpc = fixture.start(withExtensions(sender, listener));
    expect(await runCommand(rpc, "/ping hello there", "pong")).toBe("pong to a: hello there");
    expect(rpc.ofType("extension_error")).toEqual([]);
    expect(await rpc.close()).toBe(0);
  });

  test("pi.exec reports stdout, stderr and the exit code", async () => {
    const ext = fixture.writeExtension(
      "exec.ts",
      `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("run", {
    handler: async (_args, ctx) => {
      const result = await pi.exec("sh", ["-c", "echo out; echo err >&2; pwd; exit 3"]);
      ctx.ui.notify("exec " + JSON.stringify({ stdout: result.stdout, stderr: result.stderr, code: result.code, killed: result.killed }));
    },
  });
  pi.registerCommand("run-slow", {
    handler: async (_args, ctx) => {
      const result = await pi.exec("sh", ["-c", "echo started; sleep 5"], { timeout: 200 });
      ctx.ui.notify("slow " + JSON.stringify({ stdout: result.stdout, killed: result.killed }));
    },
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const result = JSON.parse((await runCommand(rpc, "/run", "exec ")).slice("exec ".length));
    expect(result).toEqual({ stdout: `out\n${fixture.cwd}\n`, stderr: "err\n", code: 3, killed: false });
    // A timeout kills the command and says so (well before its 5 s sleep ends).
    const slow = JSON.parse((await runCommand(rpc, "/run-slow", "slow ")).slice("slow ".length));
    expect(slow).toEqual({ stdout: "started\n", killed: true });
    // The child's output went to the extension, not to the protocol stream.
    expect(rpc.rawLines.every((line) => line === "" || line.startsWith("{"))).toBe(true);
    expect(await rpc.close()).toBe(0);
  });

  test("an extension folder with its own node_modules dependency loads through -e and uses it", async () => {
    const folder = join(fixture.home.home, "ext", "with-dep");
    fixture.writeExtension(
      "with-dep/package.json",
      JSON.stringify({ name: "with-dep", private: true, type: "module", pi: { extensions: ["./index.ts"] }, dependencies: { "tiny-dep": "1.0.0" } }, null, 2),
    );
    fixture.writeExtension("with-dep/node_modules/tiny-dep/package.json", JSON.stringify({ name: "tiny-dep", version: "1.0.0", main: "index.js" }));
    fixture.writeExtension(
      "with-dep/node_modules/tiny-dep/index.js",
      `"use strict";
module.exports = function shout(text) { return String(text).toUpperCase() + "!"; };
module.exports.version = "1.0.0";
`,
    );
    fixture.writeExtension(
      "with-dep/index.ts",
      `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import shout from "tiny-dep";

export default function (pi: ExtensionAPI) {
  pi.registerCommand("shout", {
    description: "Shout the argument",
    handler: async (args, ctx) => ctx.ui.notify("shouted " + shout(args)),
  });
}`,
    );
    const rpc = fixture.start(withExtensions(folder));
    const commands = (await rpc.request({ type: "get_commands" })).data.commands;
    expect(commands).toContainEqual(expect.objectContaining({ name: "shout", source: "extension" }));
    expect(await runCommand(rpc, "/shout quiet please", "shouted")).toBe("shouted QUIET PLEASE!");
    expect(await rpc.close()).toBe(0);
  });
});

describe("flags", () => {
  const FLAGS = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

export default function (pi: ExtensionAPI) {
  pi.registerFlag("plan", { description: "Start in plan mode", type: "boolean", default: false });
  pi.registerFlag("greeting", { description: "How to greet", type: "string", default: "hello" });
  pi.registerCommand("flags", {
    handler: async (_args, ctx) => ctx.ui.notify("flags " + JSON.stringify({ plan: pi.getFlag("plan"), greeting: pi.getFlag("greeting") })),
  });
}`;

  test("registered flags take their values from the command line, and their defaults without them", async () => {
    const ext = fixture.writeExtension("flags.ts", FLAGS);
    const before = fixture.server.requests.length;
    const given = fixture.start([...withExtensions(ext), "--plan", "--greeting", "hi"]);
    expect(JSON.parse((await runCommand(given, "/flags", "flags ")).slice(6))).toEqual({ plan: true, greeting: "hi" });
    // "hi" was the flag's value, not a prompt.
    expect(fixture.server.requests.length).toBe(before);
    expect(await given.close()).toBe(0);

    const defaults = fixture.start(withExtensions(ext));
    expect(JSON.parse((await runCommand(defaults, "/flags", "flags ")).slice(6))).toEqual({ plan: false, greeting: "hello" });
    expect(await defaults.close()).toBe(0);
  });

  test("an option no extension registered exits 2 with a clear message and asks the model nothing", async () => {
    const ext = fixture.writeExtension("flags-unknown.ts", FLAGS);
    const before = fixture.server.requests.length;
    const result = await runXcsh(["-p", "hello", "-e", ext, "--model", "fake/fake-model", "--plan", "--nope"], {
      env: fixture.home.env,
      cwd: fixture.cwd,
      timeoutMs: 10_000,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("--nope");
    expect(result.stderr.toLowerCase()).toContain("unknown");
    expect(result.stdout).toBe("");
    expect(fixture.server.requests.length).toBe(before);
  });
});
