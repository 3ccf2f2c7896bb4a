/**
 * pi 1.6.0's own example extensions, unchanged, in the built binary. The files are
 * copied at test time from the reference package (devDependency `pi-coding-agent-160`,
 * an alias of @earendil-works/pi-coding-agent@1.6.0), so none of pi's text lives in
 * this repository; each is loaded with `-e` in rpc mode against the fake LLM, and the
 * tests look at what a user would: the commands and models they add, the system
 * prompt and messages the model receives, the session file.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

const EXAMPLES = join(dirname(Bun.resolveSync("pi-coding-agent-160/package.json", import.meta.dir)), "examples/extensions");

let fixture: ExtensionFixture;

/** Copies an example (a file, or a folder with its index.ts) next to the test's extensions; returns its entry path. */
function example(name: string): string {
  const target = join(fixture.home.home, "ext", "pi-examples", name);
  cpSync(join(EXAMPLES, name), target, { recursive: true });
  return name.endsWith(".ts") ? target : join(target, "index.ts");
}

/** The system prompt and messages of a recorded chat-completions request, as one text. */
function requestText(request: { body: any }): string {
  return JSON.stringify(request.body.messages);
}

function systemPromptOf(request: { body: any }): string {
  const system = request.body.messages.find((message: any) => message.role === "system" || message.role === "developer");
  return typeof system?.content === "string" ? system.content : JSON.stringify(system?.content);
}

beforeAll(() => {
  fixture = createExtensionFixture();
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

describe("pi 1.6.0's example extensions load in xcsh", () => {
  test("minimal-mode, subagent, overlay-test, jev-router, prompt-customizer and plan-mode load without an error", async () => {
    const paths = ["minimal-mode.ts", "subagent", "overlay-test.ts", "jev-router.ts", "prompt-customizer.ts", "plan-mode"].map(example);
    const rpc = fixture.start(withExtensions(...paths));
    const state = await rpc.request({ type: "get_state" });
    expect(state.success).toBe(true);
    expect(rpc.ofType("extension_error")).toEqual([]);
    const commands = (await rpc.request({ type: "get_commands" })).data.commands.map((command: { name: string }) => command.name);
    expect(commands).toEqual(expect.arrayContaining(["plan", "todos", "overlay-test"]));
    expect(await rpc.close()).toBe(0);
  });
});

describe("prompt-customizer: systemPromptOptions.sections", () => {
  test("the section it sets in before_agent_start reaches the model's system prompt as an XML block", async () => {
    const rpc = fixture.start(withExtensions(example("prompt-customizer.ts")));
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_end");
    const system = systemPromptOf(fixture.server.requests.at(-1)!);
    expect(system).toMatch(/<tool_guidance>\n- Use `read` for file contents[^]*\n<\/tool_guidance>/);
    expect(system).toContain("- Use `bash` for file operations");
    expect(await rpc.close()).toBe(0);
  });
});

describe("systemPromptOptions: selectedTools and promptGuidelines", () => {
  test("a handler's edits take effect: the tool it removes is gone from the request and stays inactive; a rule it adds is in this run's prompt only", async () => {
    const ext = fixture.writeExtension(
      "prompt-options.ts",
      `let runs = 0;
export default function (pi) {
  pi.on("before_agent_start", (event) => {
    if (++runs > 1) return;
    event.systemPromptOptions.selectedTools = event.systemPromptOptions.selectedTools.filter((name) => name !== "bash");
    event.systemPromptOptions.promptGuidelines.push("Answer in one short sentence.");
  });
  pi.on("agent_end", (_event, ctx) => ctx.ui.notify("active " + pi.getActiveTools().includes("bash")));
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "first" });
    await rpc.waitFor((frame) => frame.method === "notify" && String(frame.message).startsWith("active"));
    const first = fixture.server.requests.at(-1)!;
    expect(systemPromptOf(first)).toContain("- Answer in one short sentence.");
    const toolNames = (request: { body: any }) => (request.body.tools ?? []).map((tool: any) => tool.function?.name ?? tool.name);
    expect(toolNames(first)).not.toContain("bash");
    expect(toolNames(first)).toContain("read");
    await rpc.request({ type: "prompt", message: "second" });
    await rpc.waitFor(() => notices(rpc).filter((line) => line.startsWith("active")).length === 2);
    const second = fixture.server.requests.at(-1)!;
    expect(systemPromptOf(second)).not.toContain("Answer in one short sentence.");
    expect(toolNames(second)).not.toContain("bash");
    expect(notices(rpc).filter((line) => line.startsWith("active"))).toEqual(["active false", "active false"]);
    expect(await rpc.close()).toBe(0);
  });
});

/** An extension of the test's own: it starts a run with a custom message, and notes what before_agent_start saw. */
const TRIGGER = `export default function (pi) {
  pi.on("before_agent_start", (event, ctx) => {
    ctx.ui.notify("start " + event.messageType + " " + (event.messageType === "user" ? event.prompt : event.message.customType));
  });
  pi.registerCommand("ping", { handler: async () => {
    pi.sendMessage({ customType: "background-task", content: "The task finished.", display: true }, { triggerTurn: true });
  } });
}`;

describe("plan-mode and before_agent_start's messageType", () => {
  test("in plan mode a prompt carries plan mode's context; a run started by sendMessage(triggerTurn) is a custom start, which plan mode skips", async () => {
    const rpc = fixture.start(withExtensions(example("plan-mode"), fixture.writeExtension("trigger.ts", TRIGGER)));
    await rpc.request({ type: "prompt", message: "/plan" });
    await rpc.waitFor((frame) => frame.method === "notify" && String(frame.message).startsWith("Plan mode enabled"));

    await rpc.request({ type: "prompt", message: "look at the code" });
    await rpc.waitForEvent("agent_end");
    const planned = fixture.server.requests.at(-1)!;
    expect(requestText(planned)).toContain("[PLAN MODE ACTIVE]");
    expect(requestText(planned)).toContain("look at the code");

    const before = fixture.server.requests.length;
    const ends = rpc.ofType("agent_end").length;
    await rpc.request({ type: "prompt", message: "/ping" });
    await rpc.waitFor(() => rpc.ofType("agent_end").length > ends);
    const triggered = fixture.server.requests.slice(before);
    expect(triggered.length).toBe(1);
    // The custom message started the run; plan mode did not add its context a second time.
    expect(requestText(triggered[0]!)).toContain("The task finished.");
    expect(requestText(triggered[0]!).split("[PLAN MODE ACTIVE]").length - 1).toBe(1);
    expect(notices(rpc).filter((line) => line.startsWith("start "))).toEqual(["start user look at the code", "start custom background-task"]);
    expect(await rpc.close()).toBe(0);
  });
});

describe("jev-router: a virtual model", () => {
  const CODEX_MODELS = ["gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna"];

  function useCodexModels(): void {
    const modelsJson = JSON.parse(readFileSync(join(fixture.home.agentDir, "models.json"), "utf8"));
    modelsJson.providers["openai-codex"] = { ...modelsJson.providers.fake, models: CODEX_MODELS.map((id) => ({ id, reasoning: true })) };
    fixture.home.writeModelsJson(modelsJson);
  }

  test("jev/auto is listed and selectable; it plans on Terra (no classifier here), keeps its phase as router state, and moves to Luna after the first edit", async () => {
    useCodexModels();
    writeFileSync(join(fixture.cwd, "notes.txt"), "draft\n");
    const rpc = fixture.start(["-e", example("jev-router.ts"), "--model", "jev/auto"]);
    const models = (await rpc.request({ type: "get_available_models" })).data.models;
    expect(models.find((model: any) => model.provider === "jev" && model.id === "auto")).toMatchObject({ name: "Auto (Jev)", contextWindow: 272_000 });
    const selected = (await rpc.request({ type: "get_state" })).data;
    expect(selected.model).toMatchObject({ provider: "jev", id: "auto" });
    // Only the levels the router offers can be selected ("off" is not one of jev's).
    expect(["low", "medium", "high", "xhigh"]).toContain(selected.thinkingLevel);

    const before = fixture.server.requests.length;
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_1", name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "draft", newText: "final" }] } }] },
      { content: [{ type: "text", text: "Edited." }] },
    );
    await rpc.request({ type: "prompt", message: "finish the notes" });
    await rpc.waitForEvent("agent_end");
    // Planning on Terra made the edit; the rest of the turn went to Luna.
    expect(fixture.server.requests.slice(before).map((request) => request.body.model)).toEqual(["gpt-5.6-terra", "gpt-5.6-luna"]);
    expect(readFileSync(join(fixture.cwd, "notes.txt"), "utf8")).toBe("final\n");

    const sessionFile = (await rpc.request({ type: "get_state" })).data.sessionFile;
    expect(await rpc.close()).toBe(0);
    const entries = readFileSync(sessionFile, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    const states = entries.filter((entry) => entry.type === "custom" && entry.customType === "pi.virtual-model-state").map((entry) => entry.data);
    expect(states).toEqual([
      { provider: "jev", id: "auto", state: { phase: "planning", model: "gpt-5.6-terra" } },
      { provider: "jev", id: "auto", state: { phase: "implementation", model: "gpt-5.6-luna" } },
    ]);
    // Assistant messages name the physical model that answered.
    const answered = entries.filter((entry) => entry.type === "message" && entry.message.role === "assistant").map((entry) => `${entry.message.provider}/${entry.message.model}`);
    expect(answered).toEqual(["openai-codex/gpt-5.6-terra", "openai-codex/gpt-5.6-luna"]);
    // The level passes through to the physical model and is recorded on its answers.
    const levels = entries.filter((entry) => entry.type === "message" && entry.message.role === "assistant").map((entry) => entry.message.thinkingLevel);
    expect(levels).toEqual([selected.thinkingLevel, selected.thinkingLevel]);
  });
});

describe("virtual models: the request's reason", () => {
  test("the agent loop's requests are user then continuation with the stored state; an extension's own call is direct, without state, and keeps none", async () => {
    const ext = fixture.writeExtension(
      "router.ts",
      `export default function (pi) {
  pi.registerVirtualModel({
    provider: "router",
    id: "auto",
    thinkingLevels: ["off"],
    route(request, ctx) {
      ctx.ui.notify("route " + request.reason + " state=" + JSON.stringify(request.state ?? null));
      return { model: ctx.modelRegistry.find("fake", "fake-model"), state: { seen: (request.state?.seen ?? 0) + 1 } };
    },
  });
  pi.registerCommand("direct", { handler: async (_args, ctx) => {
    const answer = await ctx.modelRegistry.complete(ctx.model, { systemPrompt: "", messages: [{ role: "user", content: "hi", timestamp: Date.now() }] });
    ctx.ui.notify("direct answered by " + answer.provider + "/" + answer.model);
  } });
}`,
    );
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_1", name: "ls", arguments: {} }] },
      { content: [{ type: "text", text: "Listed." }] },
      { content: [{ type: "text", text: "Direct." }] },
    );
    const rpc = fixture.start(["-e", ext, "--model", "router/auto"]);
    await rpc.request({ type: "prompt", message: "list" });
    await rpc.waitForEvent("agent_end");
    await rpc.request({ type: "prompt", message: "/direct" });
    await rpc.waitFor((frame) => frame.method === "notify" && String(frame.message).startsWith("direct"));
    expect(notices(rpc)).toEqual([
      "route user state=null",
      'route continuation state={"seen":1}',
      "route direct state=null",
      "direct answered by fake/fake-model",
    ]);
    const sessionFile = (await rpc.request({ type: "get_state" })).data.sessionFile;
    expect(await rpc.close()).toBe(0);
    const states = readFileSync(sessionFile, "utf8").trim().split("\n").map((line) => JSON.parse(line))
      .filter((entry) => entry.type === "custom" && entry.customType === "pi.virtual-model-state").map((entry) => entry.data.state);
    expect(states).toEqual([{ seen: 1 }, { seen: 2 }]);
  });
});

describe("virtual models: a retry", () => {
  test("the first request of an automatic retry is routed as retry, with the failed model and answer", async () => {
    fixture.home.writeSettings({ retry: { enabled: true, baseDelayMs: 10, maxRetries: 2 } });
    const ext = fixture.writeExtension(
      "retry-router.ts",
      `export default function (pi) {
  pi.registerVirtualModel({
    provider: "router",
    id: "auto",
    route(request, ctx) {
      const failed = request.failed ? " failed=" + request.failed.model.id + ":" + request.failed.message.stopReason : "";
      ctx.ui.notify("route " + request.reason + failed);
      return { model: ctx.modelRegistry.find("fake", "fake-model") };
    },
  });
}`,
    );
    fixture.server.enqueue({ type: "error", status: 503, message: "overloaded" }, { content: [{ type: "text", text: "Back." }] });
    const rpc = fixture.start(["-e", ext, "--model", "router/auto"]);
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_settled");
    expect(notices(rpc)).toEqual(["route user", "route retry failed=fake-model:error"]);
    expect(await rpc.close()).toBe(0);
    fixture.home.writeSettings({});
  });
});

describe("pi 1.x's pi.exec", () => {
  test("a command ended by a signal reports 128 + its number; maxBuffer cuts the output and ends the command; split characters stay whole", async () => {
    const ext = fixture.writeExtension(
      "exec-1x.ts",
      `export default function (pi) {
  pi.registerCommand("run", { handler: async (_args, ctx) => {
    const slow = await pi.exec("sh", ["-c", "sleep 5"], { timeout: 100 });
    const selfKilled = await pi.exec("sh", ["-c", "kill -KILL $$"]);
    const flood = await pi.exec("sh", ["-c", "while :; do echo 0123456789; done"], { maxBuffer: 1000 });
    const utf8 = await pi.exec("sh", ["-c", "printf '\\\\303'; sleep 0.1; printf '\\\\251\\\\n'"]);
    ctx.ui.notify("exec " + JSON.stringify({
      slow: [slow.code, slow.killed, slow.truncated],
      selfKilled: [selfKilled.code, selfKilled.killed],
      flood: [flood.stdout.length, flood.killed, flood.truncated, flood.code !== 0],
      utf8: utf8.stdout,
    }));
  } });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "/run" });
    await rpc.waitFor((frame) => frame.method === "notify" && String(frame.message).startsWith("exec "), 15_000);
    const result = JSON.parse(notices(rpc).find((line) => line.startsWith("exec "))!.slice(5));
    expect(result).toEqual({
      slow: [143, true, false],
      selfKilled: [137, false],
      flood: [1000, true, true, true],
      utf8: "é\n",
    });
    expect(await rpc.close()).toBe(0);
  });
});

describe("pi 1.x's argument coercion for plain JSON Schema tools", () => {
  test("a numeric string becomes a number and one string an array, as typebox tools already get", async () => {
    const ext = fixture.writeExtension(
      "plain-schema.ts",
      `export default function (pi) {
  pi.registerTool({
    name: "tally",
    label: "Tally",
    description: "Counts tags",
    parameters: { type: "object", properties: { count: { type: "integer" }, tags: { type: "array", items: { type: "string" } }, strict: { type: "boolean" } }, required: ["count", "tags"] },
    async execute(_id, params, _signal, _update, ctx) {
      ctx.ui.notify("tally " + JSON.stringify(params));
      return { content: [{ type: "text", text: "ok" }], details: {} };
    },
  });
}`,
    );
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_1", name: "tally", arguments: { count: "3", tags: "red", strict: "false" } }] },
      { content: [{ type: "text", text: "Counted." }] },
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "count" });
    await rpc.waitForEvent("agent_end");
    expect(notices(rpc)).toContain('tally {"count":3,"tags":["red"],"strict":false}');
    expect(await rpc.close()).toBe(0);
  });
});

describe("pi 1.x's timing and thinking level records", () => {
  test("tool_execution_end carries durationMs of a tool that ran, none for one that did not; assistant messages record their thinking level", async () => {
    const ext = fixture.writeExtension(
      "timing.ts",
      `export default function (pi) {
  pi.on("tool_execution_end", (event, ctx) => ctx.ui.notify("end " + event.toolName + " " + (event.durationMs === undefined ? "none" : event.durationMs >= 150 ? "timed" : "short:" + event.durationMs)));
}`,
    );
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "sleep 0.2" } }, { type: "toolCall", id: "call_2", name: "nosuchtool", arguments: {} }] },
      { content: [{ type: "text", text: "Slept." }] },
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "sleep" });
    await rpc.waitForEvent("agent_end");
    expect(notices(rpc).filter((line) => line.startsWith("end ")).sort()).toEqual(["end bash timed", "end nosuchtool none"]);
    const sessionFile = (await rpc.request({ type: "get_state" })).data.sessionFile;
    expect(await rpc.close()).toBe(0);
    const levels = readFileSync(sessionFile, "utf8").trim().split("\n").map((line) => JSON.parse(line))
      .filter((entry) => entry.type === "message" && entry.message.role === "assistant").map((entry) => entry.message.thinkingLevel);
    expect(levels).toEqual(["off", "off"]);
  });
});

describe("pi 1.x's settings and settling", () => {
  test("pi.getSettings() is a copy of the effective settings; agent_settled says whether the run was aborted", async () => {
    fixture.home.writeSettings({ hideThinkingBlock: true });
    const ext = fixture.writeExtension(
      "settings-1x.ts",
      `export default function (pi) {
  pi.registerCommand("settings", { handler: async (_args, ctx) => {
    const settings = pi.getSettings();
    settings.hideThinkingBlock = "changed";
    ctx.ui.notify("settings " + pi.getSettings().hideThinkingBlock);
  } });
  pi.on("agent_settled", (event, ctx) => ctx.ui.notify("settled aborted=" + event.aborted));
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "/settings" });
    await rpc.waitFor((frame) => frame.method === "notify" && String(frame.message).startsWith("settings "));
    await rpc.request({ type: "prompt", message: "finish" });
    await rpc.waitFor((frame) => frame.method === "notify" && String(frame.message).startsWith("settled"));
    fixture.server.enqueue({ content: [{ type: "text", text: "a long answer" }], delayMs: 3000 });
    await rpc.request({ type: "prompt", message: "stop me" });
    await rpc.waitForEvent("agent_start");
    await rpc.request({ type: "abort" });
    await rpc.waitFor(() => notices(rpc).filter((line) => line.startsWith("settled")).length === 2);
    expect(notices(rpc).filter((line) => line.startsWith("settings ") || line.startsWith("settled"))).toEqual([
      "settings true",
      "settled aborted=false",
      "settled aborted=true",
    ]);
    expect(rpc.ofType("agent_settled").map((frame) => frame.aborted)).toEqual([false, true]);
    expect(await rpc.close()).toBe(0);
  });
});

describe("pi 1.x's ctx.scopedModels", () => {
  test("lists the models --models scopes the session to, with a pinned level; empty when unscoped", async () => {
    const ext = fixture.writeExtension(
      "scoped.ts",
      `export default function (pi) {
  pi.registerCommand("scoped", { handler: async (_args, ctx) => {
    ctx.ui.notify("scoped " + JSON.stringify(ctx.scopedModels.map((entry) => [entry.model.provider + "/" + entry.model.id, entry.thinkingLevel ?? null])));
  } });
}`,
    );
    for (const [args, expected] of [
      [["--models", "fake/fake-model:low"], 'scoped [["fake/fake-model","low"]]'],
      [[], "scoped []"],
    ] as const) {
      const rpc = fixture.start([...withExtensions(ext), ...args]);
      await rpc.request({ type: "prompt", message: "/scoped" });
      await rpc.waitFor((frame) => frame.method === "notify" && String(frame.message).startsWith("scoped"));
      expect(notices(rpc)).toEqual([expected]);
      expect(await rpc.close()).toBe(0);
    }
  });
});
