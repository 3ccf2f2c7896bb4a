/**
 * The rest of pi 1.x's extension API, through the built binary in RPC mode
 * with the fake LLM: ctx.executeTool (nested calls on the agent's one tool
 * path, recorded on the calling tool's result) and the smaller pieces.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const callTool = (name: string, args: Record<string, unknown>, id = "call_1") => ({ content: [{ type: "toolCall" as const, id, name, arguments: args }] });
const done = { content: [{ type: "text" as const, text: "done" }] };

// A tool that runs others through ctx.executeTool and reports what came back.
const ORCHESTRATOR = `import { Type } from "typebox";
export default function (pi) {
  pi.on("tool_call", (event, ctx) => {
    ctx.ui.notify("tool_call " + event.toolName + " " + event.toolCallId + " parent " + event.parentToolCallId);
    if (event.toolName === "bash" && String(event.input.command).includes("forbidden")) return { block: true, reason: "no forbidden commands" };
  });
  pi.on("tool_result", (event, ctx) => { ctx.ui.notify("tool_result " + event.toolName + " " + event.toolCallId + " parent " + event.parentToolCallId); });
  pi.on("tool_execution_start", (event, ctx) => { ctx.ui.notify("execution_start " + event.toolCallId + " parent " + event.parentToolCallId); });
  pi.registerTool({
    name: "orchestrate",
    label: "Orchestrate",
    description: "Run other tools",
    parameters: Type.Object({}),
    async execute(id, _params, _signal, _onUpdate, ctx) {
      const names = ctx.tools.map((tool) => tool.name);
      const updates = [];
      const read = await ctx.executeTool("read", { path: "notes.txt" });
      const echo = await ctx.executeTool("bash", { command: "echo nested-hello" }, { onUpdate: (partial) => updates.push(partial) });
      const blocked = await ctx.executeTool("bash", { command: "echo forbidden > escaped.txt" });
      const unknown = await ctx.executeTool("no_such_tool", {});
      const invalid = await ctx.executeTool("read", { nope: 1 });
      const text = (outcome) => outcome.result.content.map((block) => block.text ?? "").join("");
      const report = {
        canCall: ["read", "bash"].every((name) => names.includes(name)),
        read: [read.toolCall.id, read.isError, text(read).trim()],
        echo: [echo.toolCall.id, echo.isError, text(echo).trim(), typeof echo.durationMs],
        blocked: [blocked.isError, text(blocked)],
        unknown: [unknown.isError, text(unknown).startsWith('Tool "no_such_tool" not found')],
        invalid: invalid.isError,
        updates: updates.length > 0,
      };
      return { content: [{ type: "text", text: JSON.stringify(report) }], details: {} };
    },
  });
}`;

describe("ctx.executeTool", () => {
  test("nested calls run through hooks and permissions, carry their parent's id, and are recorded on the caller's result", async () => {
    await Bun.write(`${fixture.cwd}/notes.txt`, "the notes\n");
    const ext = fixture.writeExtension("orchestrate.ts", ORCHESTRATOR);
    const rpc = fixture.start(withExtensions(ext));
    const from = rpc.mark();
    fixture.server.enqueue(callTool("orchestrate", {}, "o1"), done);
    await rpc.request({ type: "prompt", message: "orchestrate" });
    await rpc.waitForEvent("agent_end");

    const ends = rpc.frames.slice(from).filter((frame) => frame.type === "tool_execution_end");
    const parentEnd = ends.find((frame) => frame.toolCallId === "o1")!;
    const report = JSON.parse(parentEnd.result.content[0].text);
    expect(report).toEqual({
      canCall: true,
      read: ["o1/1", false, "the notes"],
      echo: ["o1/2", false, "nested-hello", "number"],
      blocked: [true, "no forbidden commands"],
      unknown: [true, true],
      invalid: true,
      updates: true,
    });
    // A blocked nested call did not run.
    expect(await Bun.file(`${fixture.cwd}/escaped.txt`).exists()).toBe(false);

    // Events of the nested calls name the parent, and come inside the parent's start and end.
    const starts = rpc.frames.slice(from).filter((frame) => frame.type === "tool_execution_start");
    expect(starts.map((frame) => [frame.toolCallId, frame.toolName, frame.parentToolCallId])).toEqual([
      ["o1", "orchestrate", undefined],
      ["o1/1", "read", "o1"],
      ["o1/2", "bash", "o1"],
      ["o1/3", "bash", "o1"],
      ["o1/4", "no_such_tool", "o1"],
      ["o1/5", "read", "o1"],
    ]);
    expect(ends.at(-1)!.toolCallId).toBe("o1");
    // Extension hooks saw the nested calls by their own ids.
    const seen = notices(rpc);
    expect(seen).toContain("tool_call orchestrate o1 parent undefined");
    expect(seen).toContain("tool_call read o1/1 parent o1");
    expect(seen).toContain("tool_result read o1/1 parent o1");
    expect(seen).toContain("tool_call bash o1/3 parent o1");
    expect(seen).toContain("execution_start o1/2 parent o1");

    // The transcript holds no nested call; the caller's result message keeps the record.
    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    const toolResults = messages.filter((message: any) => message.role === "toolResult");
    expect(toolResults.map((message: any) => message.toolCallId)).toEqual(["o1"]);
    const record = toolResults[0].nestedCalls;
    expect(record.complete).toBe(true);
    expect(record.calls.map((call: any) => [call.id, call.name, call.status])).toEqual([
      ["o1/1", "read", "ok"],
      ["o1/2", "bash", "ok"],
      ["o1/3", "bash", "blocked"],
      ["o1/4", "no_such_tool", "error"],
      ["o1/5", "read", "error"],
    ]);
    expect(record.calls[1].arguments).toEqual({ command: "echo nested-hello" });
    expect(record.calls[2].error).toBe("no forbidden commands");
    // Nothing of the nested calls reaches the model but the caller's own result.
    const sentTools = fixture.server.requests.at(-1)!.body.messages.filter((message: any) => message.role === "tool");
    expect(sentTools.map((message: any) => message.tool_call_id)).toEqual(["o1"]);
    expect(await rpc.close()).toBe(0);
  });
});

// Tools of every exposure, and a probe that reports what an extension sees of them.
const EXPOSURES = `import { Type } from "typebox";
export default function (pi) {
  const tool = (name, extra = {}) => pi.registerTool({
    name, label: name, description: "the " + name + " tool", parameters: Type.Object({}),
    async execute() { return { content: [{ type: "text", text: name + " ran" }], details: {} }; },
    ...extra,
  });
  tool("plain");
  tool("modelonly", { exposure: "model-only" });
  tool("scripted", { exposure: "codemode", namespace: { name: "kit", description: "a kit of tools" }, annotations: { readOnlyHint: true } });
  tool("findable", { exposure: "deferred" });
  tool("withdrawn", { exposure: "hidden" });
  tool("dormant", { defaultActive: false });
  pi.registerTool({
    name: "data", label: "data", description: "returns data", parameters: Type.Object({}),
    outputSchema: Type.Object({ count: Type.Number() }),
    async execute() { return { content: [{ type: "text", text: "count is 3" }], details: {}, structuredContent: { count: 3 }, isError: true }; },
  });
  pi.on("tool_result", (event, ctx) => {
    if (event.toolName === "data") ctx.ui.notify("structured " + JSON.stringify(event.structuredContent));
  });
  pi.registerTool({
    name: "probe", label: "probe", description: "reports", parameters: Type.Object({}),
    async execute(_id, _params, _signal, _onUpdate, ctx) {
      const infos = Object.fromEntries(pi.getAllTools().map((info) => [info.name, [info.exposure, info.namespace?.name ?? null, info.annotations?.readOnlyHint ?? null]]));
      const call = async (name) => { const outcome = await ctx.executeTool(name, {}); return outcome.isError ? "error" : outcome.result.content[0].text; };
      const report = {
        infos: ["plain", "modelonly", "scripted", "findable", "withdrawn", "dormant"].map((name) => infos[name]),
        active: pi.getActiveTools().filter((name) => ["plain", "modelonly", "scripted", "findable", "withdrawn", "dormant"].includes(name)),
        callable: ctx.tools.map((tool) => tool.name).filter((name) => ["plain", "modelonly", "scripted", "findable", "withdrawn", "dormant"].includes(name)),
        calls: [await call("scripted"), await call("findable"), await call("withdrawn"), await call("modelonly")],
      };
      return { content: [{ type: "text", text: JSON.stringify(report) }], details: {} };
    },
  });
}`;

describe("tool definitions of pi 1.x", () => {
  test("exposure decides what the model is offered and what other tools may call; getAllTools reports exposure, namespace and annotations", async () => {
    const ext = fixture.writeExtension("exposures.ts", EXPOSURES);
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(callTool("probe", {}, "p1"), done);
    await rpc.request({ type: "prompt", message: "probe" });
    const end = await rpc.waitForEvent("tool_execution_end", (frame) => frame.toolCallId === "p1");
    await rpc.waitForEvent("agent_end");

    const offered = (fixture.server.requests[before].body.tools ?? []).map((tool: any) => tool.function.name);
    expect(offered).toEqual(expect.arrayContaining(["plain", "modelonly", "data", "probe"]));
    for (const name of ["scripted", "findable", "withdrawn", "dormant"]) expect(offered).not.toContain(name);
    const report = JSON.parse(end.result.content[0].text);
    expect(report.infos).toEqual([
      ["direct", null, null],
      ["model-only", null, null],
      ["codemode", "kit", true],
      ["deferred", null, null],
      ["hidden", null, null],
      ["direct", null, null],
    ]);
    expect(report.active).toEqual(["plain", "modelonly"]);
    expect(report.callable).toEqual(["plain", "scripted", "findable"]);
    expect(report.calls).toEqual(["scripted ran", "findable ran", "error", "error"]);
    expect(await rpc.close()).toBe(0);
  });

  test("a tool's structuredContent is on tool_execution_end and shown to tool_result handlers, not kept in the transcript; a returned isError is an error result", async () => {
    const ext = fixture.writeExtension("exposures.ts", EXPOSURES);
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(callTool("data", {}, "d1"), done);
    await rpc.request({ type: "prompt", message: "data" });
    const end = await rpc.waitForEvent("tool_execution_end");
    await rpc.waitForEvent("agent_end");

    expect(end.isError).toBe(true);
    expect(end.result.structuredContent).toEqual({ count: 3 });
    expect(notices(rpc)).toContain('structured {"count":3}');
    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    const result = messages.find((message: any) => message.role === "toolResult");
    // As in pi 1.6.0: the transcript keeps what the model saw, not the structured copy.
    expect(result).toMatchObject({ toolCallId: "d1", isError: true });
    expect(result.structuredContent).toBeUndefined();
    // The model receives the text content.
    const sent = fixture.server.requests[before + 1].body.messages.find((message: any) => message.role === "tool");
    expect(JSON.stringify(sent.content)).toContain("count is 3");
    expect(await rpc.close()).toBe(0);
  });
});

describe("MCP servers registered by extensions", () => {
  test("registerMcpServer connects a server like mcp.json's; a later one connects at once, unregisterMcpServer closes it, mcp_servers_change tells", async () => {
    const { stdioServer, startedPids, allGone, offeredTools } = await import("../mcp/support/mcp-fixture.ts");
    const firstLog = `${fixture.home.home}/reg-first.log`;
    const lateLog = `${fixture.home.home}/reg-late.log`;
    const ext = fixture.writeExtension(
      "mcp-register.ts",
      `export default function (pi) {
  pi.registerMcpServer("first", ${JSON.stringify(stdioServer(firstLog))});
  try { pi.registerMcpServer("bad name!", { command: "x" }); } catch (error) { pi.on("session_start", (_e, ctx) => ctx.ui.notify("refused: " + error.message)); }
  try { pi.registerMcpServer("nothing", { args: [] }); } catch (error) { pi.on("session_start", (_e, ctx) => ctx.ui.notify("refused config")); }
  pi.on("session_start", (_e, ctx) => ctx.ui.notify("servers at start: " + pi.getMcpServers().map((server) => server.name).join(",")));
  pi.on("mcp_servers_change", (event, ctx) => ctx.ui.notify("change: " + event.servers.map((server) => server.name).join(",")));
  pi.registerCommand("reg-late", { handler: async () => pi.registerMcpServer("late", ${JSON.stringify(stdioServer(lateLog))}) });
  pi.registerCommand("unreg-first", { handler: async () => pi.unregisterMcpServer("first") });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    fixture.server.enqueue(done, done, done);
    let from = rpc.mark();
    let before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "one" });
    await rpc.waitForEvent("agent_end", () => true, 15_000, from);
    expect(offeredTools(fixture.server.requests[before])).toContain("mcp__first__echo");
    expect(notices(rpc)).toContain("servers at start: first");
    expect(notices(rpc).some((line) => line.startsWith('refused: MCP server name "bad name!"'))).toBe(true);
    expect(notices(rpc)).toContain("refused config");

    await rpc.request({ type: "prompt", message: "/reg-late" });
    await rpc.waitFor(() => notices(rpc).includes("change: first,late"), 5_000);
    from = rpc.mark();
    before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "two" });
    await rpc.waitForEvent("agent_end", () => true, 15_000, from);
    expect(offeredTools(fixture.server.requests[before])).toEqual(expect.arrayContaining(["mcp__first__echo", "mcp__late__echo"]));

    const firstPids = startedPids(firstLog);
    expect(firstPids.length).toBe(1);
    await rpc.request({ type: "prompt", message: "/unreg-first" });
    await rpc.waitFor(() => notices(rpc).includes("change: late"), 5_000);
    expect(await allGone(firstPids, 5_000)).toBe(true);
    from = rpc.mark();
    before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "three" });
    await rpc.waitForEvent("agent_end", () => true, 15_000, from);
    const offered = offeredTools(fixture.server.requests[before]);
    expect(offered).toContain("mcp__late__echo");
    expect(offered).not.toContain("mcp__first__echo");
    expect(await rpc.close()).toBe(0);
  });
});

describe("MCP servers registered by extensions, beside mcp.json", () => {
  test("an mcp.json server of the same name wins over the registration", async () => {
    const { stdioServer, startedPids, offeredTools, writeMcpJson } = await import("../mcp/support/mcp-fixture.ts");
    const { rmSync } = await import("node:fs");
    const fileLog = `${fixture.home.home}/same-file.log`;
    const extLog = `${fixture.home.home}/same-ext.log`;
    const mcpJson = `${fixture.home.agentDir}/mcp.json`;
    writeMcpJson(mcpJson, { same: stdioServer(fileLog) });
    try {
      const ext = fixture.writeExtension("mcp-same.ts", `export default function (pi) { pi.registerMcpServer("same", ${JSON.stringify(stdioServer(extLog))}); }`);
      const rpc = fixture.start(withExtensions(ext));
      fixture.server.enqueue(done);
      const from = rpc.mark();
      const before = fixture.server.requests.length;
      await rpc.request({ type: "prompt", message: "one" });
      await rpc.waitForEvent("agent_end", () => true, 15_000, from);
      expect(offeredTools(fixture.server.requests[before])).toContain("mcp__same__echo");
      expect(startedPids(fileLog).length).toBe(1);
      expect(startedPids(extLog)).toEqual([]);
      expect(await rpc.close()).toBe(0);
    } finally {
      rmSync(mcpJson, { force: true });
    }
  });
});

const SMALL_PIECES = `import { keyText } from "@earendil-works/pi-coding-agent";
export default function (pi) {
  pi.registerCommand("probe-registry", {
    handler: async (_args, ctx) => {
      const provider = ctx.modelRegistry.getProvider("fake");
      const auth = await ctx.modelRegistry.getProviderAuth("fake");
      ctx.ui.notify("provider " + JSON.stringify([provider.id, provider.baseUrl.startsWith("http://"), provider.getModels().map((model) => model.id)]));
      ctx.ui.notify("unknown " + JSON.stringify([ctx.modelRegistry.getProvider("nope") ?? null, (await ctx.modelRegistry.getProviderAuth("nope")) ?? null]));
      ctx.ui.notify("auth " + auth.auth.apiKey);
      ctx.ui.notify("status " + JSON.stringify([ctx.modelRegistry.getProviderAuthStatus("fake"), ctx.modelRegistry.getProviderAuthStatus("nope")]));
      ctx.ui.notify("keys " + JSON.stringify([keyText("no.such.binding"), keyText("tui.select.cancel") !== ""]));
    },
  });
  pi.on("before_agent_start", (event, ctx) => {
    ctx.ui.notify("hidden " + JSON.stringify(event.systemPromptOptions.hiddenTools));
  });
}`;

describe("smaller pieces of pi 1.x", () => {
  test("modelRegistry.getProvider and getProviderAuth, keyText of an id without keys", async () => {
    const ext = fixture.writeExtension("small.ts", SMALL_PIECES);
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "/probe-registry" });
    await rpc.waitFor(() => notices(rpc).some((line) => line.startsWith("keys ")), 5_000);
    const seen = notices(rpc);
    expect(seen).toContain('provider ["fake",true,["fake-model"]]');
    expect(seen).toContain("unknown [null,null]");
    // The key pi would send; pi's getApiKeyForProvider exposes the same.
    expect(seen).toContain("auth test-key");
    expect(seen).toContain('status [{"configured":true,"source":"models_json_key"},{"configured":false}]');
    expect(seen).toContain("keys [\"\",true]");
    expect(await rpc.close()).toBe(0);
  });

  test("systemPromptOptions.hiddenTools names the active tools codemode stands in for", async () => {
    const only = createExtensionFixture({ settings: { codemode: { mode: "only" } } });
    try {
      const ext = only.writeExtension("small.ts", SMALL_PIECES);
      const plain = only.start(withExtensions(ext));
      only.server.enqueue(done);
      await plain.request({ type: "prompt", message: "hi" });
      await plain.waitForEvent("agent_end");
      expect(notices(plain)).toContain("hidden []");
      await plain.close();

      const rpc = only.start(["-e", ext, "--model", "fake/fake-model", "--tools", "codemode,read,bash"]);
      only.server.enqueue(done);
      await rpc.request({ type: "prompt", message: "hi" });
      await rpc.waitForEvent("agent_end");
      const hidden = JSON.parse(notices(rpc).find((line) => line.startsWith("hidden "))!.slice("hidden ".length));
      expect(hidden).toEqual(expect.arrayContaining(["read", "bash"]));
      expect(hidden).not.toContain("codemode");
      expect(await rpc.close()).toBe(0);
    } finally {
      await only.cleanup();
    }
  });
});
