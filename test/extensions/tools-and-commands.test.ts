/**
 * Extension tools and commands through the built binary in RPC mode: a
 * registered tool is offered to the model and runs with the extension context,
 * an override of `read` replaces the built-in, tool_call can block and rewrite
 * arguments (and blocks when it throws), tool_result patches chain, and
 * `/name args` runs a command at once and is listed by get_commands.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../support/cli.ts";
import { createExtensionFixture, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const offered = (index: number): string[] => (fixture.server.requests[index].body.tools ?? []).map((tool: any) => tool.function.name);
const toolMessages = (index: number) => fixture.server.requests[index].body.messages.filter((message: any) => message.role === "tool");
const callTool = (name: string, args: Record<string, unknown>, id = "call_1") => ({ content: [{ type: "toolCall" as const, id, name, arguments: args }] });

describe("tools", () => {
  test("a registered tool is offered to the model, runs with ctx, and its result reaches the model", async () => {
    const ext = fixture.writeExtension(
      "greet.ts",
      `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "greet",
    label: "Greet",
    description: "Greet someone by name",
    promptSnippet: "Greet a person",
    parameters: Type.Object({ name: Type.String() }),
    async execute(_id, params, _signal, onUpdate, ctx) {
      onUpdate?.({ content: [{ type: "text", text: "warming up" }], details: {} });
      return { content: [{ type: "text", text: "Hello, " + params.name + " from " + ctx.cwd.split("/").pop() }], details: { greeted: params.name } };
    },
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(callTool("greet", { name: "Ada" }), { content: [{ type: "text", text: "done" }] });
    await rpc.request({ type: "prompt", message: "greet Ada" });
    const end = await rpc.waitForEvent("tool_execution_end");
    await rpc.waitForEvent("agent_end");

    expect(offered(before)).toEqual(expect.arrayContaining(["read", "bash", "edit", "write", "greet"]));
    expect(fixture.server.requests[before].body.messages[0].content).toContain("- greet: Greet a person");
    expect(end).toMatchObject({ toolName: "greet", isError: false, result: { details: { greeted: "Ada" } } });
    expect(rpc.ofType("tool_execution_update")[0]?.partialResult.content[0].text).toBe("warming up");
    expect(JSON.stringify(toolMessages(before + 1))).toContain("Hello, Ada from project");
    expect(await rpc.close()).toBe(0);
  });

  test("an extension's read replaces the built-in one; a throwing execute is an error result", async () => {
    const ext = fixture.writeExtension(
      "read-override.ts",
      `import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "read",
    label: "Read (audited)",
    description: "Read a file, with an audit trail",
    parameters: Type.Object({ path: Type.String() }),
    async execute(_id, params) {
      if (params.path.includes("secret")) throw new Error("Access to " + params.path + " is not allowed");
      return { content: [{ type: "text", text: "AUDITED:" + params.path }], details: undefined };
    },
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(
      { content: [callTool("read", { path: "notes.txt" }, "c1").content[0], callTool("read", { path: "secret.env" }, "c2").content[0]] },
      { content: [{ type: "text", text: "ok" }] },
    );
    await rpc.request({ type: "prompt", message: "read two files" });
    await rpc.waitForEvent("agent_end");
    const results = toolMessages(before + 1);
    expect(offered(before).filter((name) => name === "read")).toHaveLength(1);
    expect(JSON.stringify(results[0].content)).toContain("AUDITED:notes.txt");
    expect(JSON.stringify(results[1].content)).toContain("Access to secret.env is not allowed");
    const ends = rpc.ofType("tool_execution_end");
    expect(ends.map((frame) => frame.isError)).toEqual([false, true]);
    expect(await rpc.close()).toBe(0);
  });
});

describe("tool_call and tool_result", () => {
  test("tool_call rewrites the input in place, blocks by rule, and a throwing gate blocks too", async () => {
    writeFileSync(join(fixture.cwd, "hello.txt"), "hello from the file\n");
    const ext = fixture.writeExtension(
      "gate.ts",
      `import { isToolCallEventType } from "@earendil-works/pi-coding-agent";
export default function (pi) {
  pi.on("tool_call", async (event) => {
    if (isToolCallEventType("bash", event)) {
      if (event.input.command.includes("rm -rf")) return { block: true, reason: "Dangerous command blocked" };
      event.input.command = "echo rewritten";
    }
    if (event.toolName === "read" && event.input.path === "explode.txt") throw new Error("gate crashed");
  });
}`,
    );
    const second = fixture.writeExtension(
      "second-gate.ts",
      `export default function (pi) {
  pi.on("tool_call", (event) => { if (event.toolName === "bash") pi.appendEntry("saw-command", { command: event.input.command }); });
}`,
    );
    const rpc = fixture.start(withExtensions(ext, second));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(
      {
        content: [
          callTool("bash", { command: "echo original" }, "b1").content[0],
          callTool("bash", { command: "rm -rf /" }, "b2").content[0],
          callTool("read", { path: "explode.txt" }, "r1").content[0],
          callTool("read", { path: "hello.txt" }, "r2").content[0],
        ],
      },
      { content: [{ type: "text", text: "ok" }] },
    );
    await rpc.request({ type: "prompt", message: "run things" });
    await rpc.waitForEvent("agent_end");
    const results = toolMessages(before + 1).map((message: any) => JSON.stringify(message.content));
    expect(results[0]).toContain("rewritten");
    expect(results[1]).toContain("Dangerous command blocked");
    expect(results[2]).toContain("gate crashed");
    expect(results[3]).toContain("hello from the file");
    // The later handler saw the earlier one's rewrite.
    const errors = rpc.ofType("extension_error");
    expect(errors).toEqual([expect.objectContaining({ type: "extension_error", event: "tool_call", error: "gate crashed", extensionPath: ext })]);
    const state = await rpc.request({ type: "get_state" });
    await rpc.close();
    const session = await Bun.file(state.data.sessionFile).text();
    expect(session).toContain('"customType":"saw-command","data":{"command":"echo rewritten"}');
  });

  test("tool_result handlers chain patches; later handlers see earlier changes", async () => {
    const ext = fixture.writeExtension(
      "patch.ts",
      `export default function (pi) {
  pi.on("tool_result", (event) => ({ content: [{ type: "text", text: "[first] " + event.content[0].text }] }));
  pi.on("tool_result", (event) => ({ details: { seen: event.content[0].text }, isError: event.toolName === "bash" }));
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(callTool("bash", { command: "echo patched-output" }), { content: [{ type: "text", text: "ok" }] });
    await rpc.request({ type: "prompt", message: "run" });
    const end = await rpc.waitForEvent("tool_execution_end");
    await rpc.waitForEvent("agent_end");
    expect(end.isError).toBe(true);
    expect(end.result.content[0].text).toStartWith("[first] patched-output");
    expect(end.result.details).toEqual({ seen: end.result.content[0].text });
    const sent = toolMessages(before + 1)[0];
    expect(JSON.stringify(sent.content)).toContain("[first] patched-output");
    expect(await rpc.close()).toBe(0);
  });
});

describe("commands", () => {
  test("/name args runs the command at once; get_commands lists it; shared names get :1 and :2", async () => {
    const one = fixture.writeExtension(
      "one.ts",
      `export default function (pi) {
  pi.registerCommand("stats", {
    description: "Show entry count",
    handler: async (args, ctx) => { ctx.ui.notify("entries=" + ctx.sessionManager.getEntries().length + " args=" + args, "info"); },
  });
  pi.registerCommand("review", { description: "Review one", handler: async (_a, ctx) => ctx.ui.notify("review one") });
}`,
    );
    const two = fixture.writeExtension(
      "two.ts",
      `export default function (pi) {
  pi.registerCommand("review", { description: "Review two", handler: async (_a, ctx) => ctx.ui.notify("review two") });
}`,
    );
    const rpc = fixture.start(withExtensions(one, two));
    const commands = (await rpc.request({ type: "get_commands" })).data.commands;
    const provenance = (path: string) => ({ path, source: "cli", scope: "temporary", origin: "top-level", baseDir: expect.any(String) });
    expect(commands).toEqual([
      { name: "stats", description: "Show entry count", source: "extension", path: one, sourceInfo: provenance(one) },
      { name: "review:1", description: "Review one", source: "extension", path: one, sourceInfo: provenance(one) },
      { name: "review:2", description: "Review two", source: "extension", path: two, sourceInfo: provenance(two) },
    ]);
    const requestsBefore = fixture.server.requests.length;
    expect((await rpc.request({ type: "prompt", message: "/stats  a b " })).success).toBe(true);
    const notice = await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify");
    expect(notice.message).toBe("entries=0 args=a b");
    await rpc.request({ type: "prompt", message: "/review:2" });
    expect((await rpc.waitFor((frame) => frame.method === "notify" && frame.message.startsWith("review"))).message).toBe("review two");
    // Nothing went to the model.
    expect(fixture.server.requests.length).toBe(requestsBefore);
    expect(rpc.ofType("agent_start")).toHaveLength(0);
    expect(await rpc.close()).toBe(0);
  });

  test("a command sent as steer or prompt while the agent streams runs immediately", async () => {
    const ext = fixture.writeExtension(
      "status.ts",
      `export default function (pi) {
  pi.registerCommand("status", { handler: async (_a, ctx) => ctx.ui.notify("idle=" + ctx.isIdle()) });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    fixture.server.enqueue({ content: [{ type: "text", text: "a slow answer" }], chunkSize: 1, chunkDelayMs: 30 });
    await rpc.request({ type: "prompt", message: "talk slowly" });
    await rpc.waitForEvent("message_update");
    expect((await rpc.request({ type: "steer", message: "/status" })).success).toBe(true);
    const notice = await rpc.waitFor((frame) => frame.method === "notify");
    expect(notice.message).toBe("idle=false");
    // A plain prompt needs no streamingBehavior for a command: it is not queued, it runs.
    expect((await rpc.request({ type: "prompt", message: "/status" })).success).toBe(true);
    await rpc.waitFor((frame) => frame.method === "notify" && frame.id !== notice.id);
    const end = await rpc.waitForEvent("agent_end");
    // The command was not queued as a message.
    expect(JSON.stringify(end.messages)).not.toContain("/status");
    expect(await rpc.close()).toBe(0);
  });
});

describe("robustness", () => {
  test("abort ends a run whose tool_call handler never settles; a tool without a schema takes no arguments", async () => {
    const ext = fixture.writeExtension(
      "stuck.ts",
      `export default function (pi) {
  pi.on("tool_call", (event) => (event.toolName === "bash" ? new Promise(() => {}) : undefined));
  pi.registerTool({ name: "ping", description: "Answer pong", async execute() { return { content: [{ type: "text", text: "pong" }] }; } });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(callTool("ping", {}), { content: [{ type: "text", text: "ok" }] });
    await rpc.request({ type: "prompt", message: "ping" });
    await rpc.waitForEvent("agent_end");
    const ping = fixture.server.requests[before].body.tools.find((tool: any) => tool.function.name === "ping");
    expect(ping.function.parameters).toMatchObject({ type: "object" });
    expect(JSON.stringify(toolMessages(before + 1))).toContain("pong");

    fixture.server.enqueue(callTool("bash", { command: "echo never" }));
    const mark = rpc.mark();
    await rpc.request({ type: "prompt", message: "run" });
    await rpc.waitForEvent("tool_execution_start", undefined, undefined, mark);
    expect((await rpc.request({ type: "abort" })).success).toBe(true);
    const end = await rpc.waitForEvent("agent_end", undefined, 3_000, mark);
    const result = end.messages.find((message: any) => message.role === "toolResult");
    expect(result.isError).toBe(true);
    expect(await rpc.close()).toBe(0);
  });

  test("bad values from handlers never reach the session: a tool name providers reject, a contentless replacement, odd custom content", async () => {
    const ext = fixture.writeExtension(
      "odd.ts",
      `export default function (pi) {
  pi.on("message_end", (event) => (event.message.role === "assistant" ? { message: { role: "assistant" } } : undefined));
  pi.on("before_agent_start", () => ({ message: { customType: "odd", content: { not: "text" } } }));
  pi.registerCommand("bad-tool", { handler: async (_a, ctx) => {
    try { pi.registerTool({ name: "has space", description: "x", execute: async () => ({ content: [] }) }); }
    catch (error) { ctx.ui.notify(error.message); }
  } });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "/bad-tool" });
    const notice = await rpc.waitFor((frame) => frame.method === "notify");
    expect(notice.message).toContain('Tool name "has space" is not allowed');
    fixture.server.enqueue({ content: [{ type: "text", text: "kept answer" }] });
    await rpc.request({ type: "prompt", message: "hi" });
    const end = await rpc.waitForEvent("agent_end");
    expect(end.messages.at(-1).content[0].text).toBe("kept answer");
    const custom = end.messages.find((message: any) => message.role === "custom");
    expect(custom.content).toBe('{"not":"text"}');
    // The next request still goes out well-formed.
    const beforePrompt1 = rpc.mark();
    await rpc.request({ type: "prompt", message: "again" });
    const next = await rpc.waitForEvent("agent_end", undefined, undefined, beforePrompt1);
    expect(next.messages.at(-1).stopReason).toBe("stop");
    expect(await rpc.close()).toBe(0);
  });

  test("an extension that is slow to load is named on stderr while start-up waits for it", async () => {
    const ext = fixture.writeExtension("slow.ts", "export default async function () { await new Promise((resolve) => setTimeout(resolve, 5600)); }");
    const result = await runXcsh(["-p", "-e", ext, "--model", "fake/fake-model", "hi"], { env: fixture.home.env, cwd: fixture.cwd });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(`still loading extension ${ext} (5 s)`);
  }, 20_000);
});
