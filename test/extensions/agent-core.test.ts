/**
 * Sub-agents, as published extensions build them: a tool or command that runs
 * pi-agent-core's `Agent` (or its `agentLoop`) with `ctx.model`, through the built
 * binary in RPC mode against the fake LLM. What a user sees: the sub-agent's own
 * system prompt and task reach the model with xcsh's configured key, its tool
 * calls really run, its events reach the extension (and only the extension), and
 * its answer comes back.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../support/cli.ts";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";
import type { RecordedRequest } from "../support/fake-llm/server.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
  writeFileSync(join(fixture.cwd, "notes.txt"), "the fixture says: amber-owl-42\n");
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const toolCall = (name: string, args: Record<string, unknown>, id = "sub_call_1") => ({ content: [{ type: "toolCall" as const, id, name, arguments: args }] });
const systemOf = (request: RecordedRequest): string => {
  const system = request.body.messages.find((message: any) => message.role === "system");
  return typeof system?.content === "string" ? system.content : JSON.stringify(system?.content ?? "");
};
const userTexts = (request: RecordedRequest): string =>
  JSON.stringify(request.body.messages.filter((message: any) => message.role === "user").map((message: any) => message.content));

/** A command /ask <task> that runs a sub-agent importing `agentCore` and notifies what it saw. */
function subAgentCommand(agentCore: string): string {
  return `
import { Agent } from "${agentCore}";
import { createReadOnlyTools } from "@earendil-works/pi-coding-agent";
export default function (pi) {
  pi.registerCommand("ask", {
    description: "Ask a read-only sub-agent",
    handler: async (task, ctx) => {
      const agent = new Agent({
        initialState: { systemPrompt: "You are the research sub-agent.", model: ctx.model, thinkingLevel: "off", tools: createReadOnlyTools(ctx.cwd) },
      });
      const seen = [];
      agent.subscribe((event) => {
        if (event.type === "tool_execution_end") seen.push("tool:" + event.toolName + ":" + (event.isError ? "error" : "ok"));
        else if (event.type === "agent_start" || event.type === "agent_end") seen.push(event.type);
      });
      await agent.prompt(task);
      const last = agent.state.messages[agent.state.messages.length - 1];
      const answer = last.content.filter((block) => block.type === "text").map((block) => block.text).join("");
      ctx.ui.notify(JSON.stringify({ answer, seen, idle: !agent.state.isStreaming, count: agent.state.messages.length }), "info");
    },
  });
}`;
}

describe("pi-agent-core's Agent inside an extension", () => {
  test("a command's sub-agent asks the model with its own system prompt and xcsh's key, runs read, and answers", async () => {
    const ext = fixture.writeExtension("ask.ts", subAgentCommand("@earendil-works/pi-agent-core"));
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(toolCall("read", { path: "notes.txt" }), text("The notes say amber-owl-42."));
    await rpc.request({ type: "prompt", message: "/ask What do the notes say?" });
    await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify", 10_000);
    const report = JSON.parse(notices(rpc)[0]!);

    expect(report.answer).toBe("The notes say amber-owl-42.");
    expect(report.seen).toEqual(["agent_start", "tool:read:ok", "agent_end"]);
    expect(report.idle).toBe(true);
    // user, assistant (tool call), tool result, assistant (answer)
    expect(report.count).toBe(4);

    const [first, second] = fixture.server.requests.slice(before);
    expect(fixture.server.requests.length - before).toBe(2);
    expect(systemOf(first!)).toBe("You are the research sub-agent.");
    expect(userTexts(first!)).toContain("What do the notes say?");
    expect(first!.headers.authorization).toBe("Bearer test-key");
    expect((first!.body.tools ?? []).map((tool: any) => tool.function.name).sort()).toEqual(["find", "grep", "ls", "read"]);
    const toolResult = second!.body.messages.find((message: any) => message.role === "tool");
    expect(JSON.stringify(toolResult.content)).toContain("amber-owl-42");
    // The sub-agent's events are the extension's, not the RPC host's.
    expect(rpc.ofType("tool_execution_start")).toHaveLength(0);
    expect(rpc.ofType("message_start")).toHaveLength(0);
    expect(await rpc.close()).toBe(0);
  });

  test("a tool that delegates to a sub-agent (@mariozechner spelling) returns the sub-agent's answer to the main model", async () => {
    const ext = fixture.writeExtension(
      "delegate.ts",
      `
import { Agent } from "@mariozechner/pi-agent-core";
import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "delegate",
    label: "Delegate",
    description: "Hand a task to a sub-agent",
    parameters: Type.Object({ task: Type.String() }),
    async execute(_id, params, signal, _onUpdate, ctx) {
      const agent = new Agent({ initialState: { systemPrompt: "You are the delegate.", model: ctx.model } });
      let streamed = "";
      agent.subscribe((event) => {
        if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") streamed += event.assistantMessageEvent.delta;
      });
      signal?.addEventListener("abort", () => agent.abort());
      await agent.prompt(params.task);
      return { content: [{ type: "text", text: "sub-agent said: " + streamed }], details: { error: agent.state.errorMessage ?? null } };
    },
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(toolCall("delegate", { task: "Name a colour." }, "main_1"), text("Vermilion."), text("The delegate answered."));
    await rpc.request({ type: "prompt", message: "use the delegate" });
    const end = await rpc.waitForEvent("tool_execution_end", () => true, 10_000);
    await rpc.waitForEvent("agent_end", () => true, 10_000);

    expect(end).toMatchObject({ toolName: "delegate", isError: false, result: { details: { error: null } } });
    const [main, sub, mainAgain] = fixture.server.requests.slice(before);
    expect(systemOf(main!)).not.toBe("You are the delegate.");
    expect(systemOf(sub!)).toBe("You are the delegate.");
    expect(userTexts(sub!)).toContain("Name a colour.");
    expect(sub!.body.tools ?? []).toEqual([]);
    const toolResult = mainAgain!.body.messages.find((message: any) => message.role === "tool");
    expect(JSON.stringify(toolResult.content)).toContain("sub-agent said: Vermilion.");
    expect(await rpc.close()).toBe(0);
  });

  test("agentLoop streams a run's events and ends with the messages it added; bad arguments are clear errors", async () => {
    const ext = fixture.writeExtension(
      "loop.ts",
      `
import { agentLoop, Agent } from "@earendil-works/pi-agent-core";
const thrown = async (fn) => { try { await fn(); return "no error"; } catch (error) { return error.message; } };
export default function (pi) {
  pi.registerCommand("loop", {
    handler: async (_args, ctx) => {
      const context = { systemPrompt: "Loop system.", messages: [], tools: [] };
      const stream = agentLoop([{ role: "user", content: "loop task", timestamp: Date.now() }], context, { model: ctx.model });
      const types = [];
      for await (const event of stream) types.push(event.type);
      const added = await stream.result();
      const errors = {
        noModel: await thrown(() => new Agent({ initialState: {} }).prompt("hi")),
        badHook: await thrown(() => new Agent({ prepareRequest: () => undefined })),
        badMessages: await thrown(() => new Agent({ initialState: { messages: "nope" } })),
        badLoop: await thrown(() => agentLoop([], { messages: [] }, {})),
        continueEmpty: await thrown(() => new Agent({ initialState: { model: ctx.model } }).continue()),
      };
      ctx.ui.notify(JSON.stringify({ types, added: added.map((m) => m.role), untouched: context.messages.length, errors }), "info");
    },
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(text("loop answer"));
    await rpc.request({ type: "prompt", message: "/loop" });
    await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify", 10_000);
    const report = JSON.parse(notices(rpc)[0]!);

    expect(report.types[0]).toBe("agent_start");
    expect(report.types.at(-1)).toBe("agent_end");
    expect(report.types).toContain("message_update");
    expect(report.added).toEqual(["user", "assistant"]);
    expect(report.untouched).toBe(0);
    expect(systemOf(fixture.server.requests[before]!)).toBe("Loop system.");
    expect(report.errors.noModel).toContain("has no model");
    expect(report.errors.badHook).toContain('"prepareRequest"');
    expect(report.errors.badHook).toContain("not supported by xcsh");
    expect(report.errors.badMessages).toContain("initialState.messages must be an array");
    expect(report.errors.badLoop).toContain("config.model");
    expect(report.errors.continueEmpty).toContain("No messages to continue from");
    expect(await rpc.close()).toBe(0);
  });
});

describe("pi-agent-core's text helpers", () => {
  test("sanitizeBinaryOutput drops escape sequences, control characters and undecodable bytes, keeping tabs and line ends", async () => {
    const ext = fixture.writeExtension(
      "sanitize.ts",
      `
import { sanitizeBinaryOutput } from "@earendil-works/pi-agent-core";
export default function (pi) {
  pi.registerCommand("clean", {
    handler: async (_args, ctx) => {
      const raw = "a\\x1b[31mred\\x1b[0m\\tb\\x1b]2;title\\x07c\\x1b]8;;http://x\\x1b\\\\d\\x1bMe\\x00\\x08f\\r\\n\\uFFFDg";
      ctx.ui.notify(JSON.stringify(sanitizeBinaryOutput(raw)), "info");
    },
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "/clean" });
    await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify", 10_000);
    expect(JSON.parse(notices(rpc)[0]!)).toBe("ared\tbcdef\r\ng");
    expect(await rpc.close()).toBe(0);
  });
});

describe("start-up cost", () => {
  const LOADED = "xcsh: loaded extensions/agent-core";
  const run = (args: string[]) => {
    fixture.server.enqueue(text("ok"));
    return runXcsh(["-p", "hi", "--model", "fake/fake-model", ...args], { env: { ...fixture.home.env, XCSH_TRACE_LOAD: "1" }, cwd: fixture.cwd });
  };

  test("pi-agent-core loads only when an extension imports it", async () => {
    const plain = fixture.writeExtension("plain.ts", `import { keyHint } from "@earendil-works/pi-coding-agent";\nexport default function (pi) { pi.on("session_start", () => keyHint("app.tools.expand", "")); }`);
    const importing = fixture.writeExtension("importing.ts", `import { Agent } from "@mariozechner/pi-agent-core";\nexport default function (pi) { pi.on("session_start", () => typeof Agent); }`);

    const none = await run([]);
    const withPlain = await run(["-e", plain]);
    const withImport = await run(["-e", importing]);

    expect([none.exitCode, withPlain.exitCode, withImport.exitCode]).toEqual([0, 0, 0]);
    expect(none.stdout.trim()).toBe("ok");
    expect(none.stderr).not.toContain(LOADED);
    expect(withPlain.stderr).not.toContain(LOADED);
    expect(withImport.stderr).toContain(LOADED);
  });
});
