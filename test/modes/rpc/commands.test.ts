/**
 * The RPC commands that read or change settings of the session (state,
 * models, thinking, queue modes, user bash, stats, names, todos), each with
 * its success and its failure, through the real binary.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRpcFixture, duplicateResponseIds, type RpcFixture, type RpcProcess } from "../../support/rpc-harness.ts";

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture({
    models: ["fake-model", { id: "thinker", reasoning: true }],
    otherModels: [{ id: "alt-model", name: "Alternative", contextWindow: 50_000, input: ["text", "image"] }],
  });
});
afterAll(() => fixture.cleanup());

/** Each test's process: closed at the end, and every response id answered exactly once. */
async function finish(rpc: RpcProcess): Promise<void> {
  expect(await rpc.close()).toBe(0);
  expect(duplicateResponseIds(rpc.frames)).toEqual([]);
}

describe("get_state", () => {
  test("reports every field of seeds 000 and 001; sessionName is omitted until set", async () => {
    const rpc = fixture.start();
    const state = await rpc.request({ type: "get_state", id: "state-1" });
    expect(state).toMatchObject({ id: "state-1", type: "response", command: "get_state", success: true });
    const data = state.data;
    expect(Object.keys(data).sort()).toEqual(
      [
        "autoCompactionEnabled",
        "followUpMode",
        "interruptMode",
        "isCompacting",
        "isStreaming",
        "messageCount",
        "model",
        "pendingMessageCount",
        "queuedMessageCount",
        "sessionFile",
        "sessionId",
        "steeringMode",
        "thinkingLevel",
        "todoPhases",
      ].sort(),
    );
    expect(data.model).toMatchObject({ provider: "fake", id: "fake-model", api: "openai-completions", reasoning: false });
    expect(data.model.baseUrl).toBe(fixture.server.baseUrl("openai-completions"));
    expect(typeof data.model.contextWindow).toBe("number");
    expect(data).toMatchObject({
      thinkingLevel: "off",
      isStreaming: false,
      isCompacting: false,
      steeringMode: "one-at-a-time",
      followUpMode: "one-at-a-time",
      interruptMode: "wait",
      autoCompactionEnabled: true,
      messageCount: 0,
      pendingMessageCount: 0,
      queuedMessageCount: 0,
      todoPhases: [],
    });
    expect(data.sessionFile).toEndWith(".jsonl");
    expect(data.sessionFile).toContain(data.sessionId);

    expect((await rpc.request({ type: "set_session_name", name: "  my-feature-work  " })).success).toBe(true);
    expect((await rpc.request({ type: "get_state" })).data.sessionName).toBe("my-feature-work");
    await finish(rpc);
  });

  test("--no-session omits sessionFile; --name sets sessionName at start", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session", "--name", "from-cli"]);
    const data = (await rpc.request({ type: "get_state" })).data;
    expect("sessionFile" in data).toBe(false);
    expect(typeof data.sessionId).toBe("string");
    expect(data.sessionName).toBe("from-cli");
    await finish(rpc);
  });
});

describe("models", () => {
  test("set_model returns the full model and is used for the next prompt; an unknown one is named", async () => {
    const rpc = fixture.start();
    const response = await rpc.request({ type: "set_model", provider: "other", modelId: "alt-model" });
    expect(response.success).toBe(true);
    expect(response.data).toMatchObject({ provider: "other", id: "alt-model", name: "Alternative", contextWindow: 50_000, input: ["text", "image"] });
    expect(response.data.cost).toBeDefined();
    expect((await rpc.request({ type: "get_state" })).data.model).toEqual(response.data);

    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "which model?" });
    await rpc.waitForEvent("agent_end");
    expect(fixture.server.requests[before].model).toBe("alt-model");

    const unknown = await rpc.request({ type: "set_model", provider: "nope", modelId: "missing" });
    expect(unknown).toMatchObject({ command: "set_model", success: false, error: "Model not found: nope/missing" });
    const missingField = await rpc.request({ type: "set_model", modelId: "alt-model" });
    expect(missingField.success).toBe(false);
    expect(missingField.error).toContain("provider");
    expect((await rpc.request({ type: "get_state" })).data.model.id).toBe("alt-model");
    await finish(rpc);
  });

  test("get_available_models lists exactly the configured models that have a key", async () => {
    const rpc = fixture.start();
    const models = (await rpc.request({ type: "get_available_models" })).data.models;
    const names: string[] = models.map((model: { provider: string; id: string }) => `${model.provider}/${model.id}`);
    // Built-in providers without a key (the test HOME has none) and the offline faux model are not offered.
    expect(names.sort()).toEqual(["fake/fake-model", "fake/thinker", "other/alt-model"]);
    for (const model of models) expect(Object.keys(model)).toEqual(expect.arrayContaining(["id", "name", "api", "provider", "baseUrl", "reasoning", "input", "contextWindow", "maxTokens", "cost"]));
    await finish(rpc);
  });

  test("cycle_model goes through every available model and back to the first", async () => {
    const rpc = fixture.start();
    const available: string[] = (await rpc.request({ type: "get_available_models" })).data.models.map(
      (model: { provider: string; id: string }) => `${model.provider}/${model.id}`,
    );
    const seen: string[] = [];
    for (let i = 0; i < available.length; i++) {
      const response = await rpc.request({ type: "cycle_model" });
      expect(response.success).toBe(true);
      expect(response.data).toMatchObject({ isScoped: false });
      expect(typeof response.data.thinkingLevel).toBe("string");
      seen.push(`${response.data.model.provider}/${response.data.model.id}`);
      const state = (await rpc.request({ type: "get_state" })).data;
      expect(`${state.model.provider}/${state.model.id}`).toBe(seen.at(-1)!);
    }
    expect([...seen].sort()).toEqual([...available].sort());
    expect(seen.at(-1)).toBe("fake/fake-model");
    await finish(rpc);
  });

  test("cycle_model answers null data when only one model is available", async () => {
    // One configured provider with one model and no keys in the environment. (The built-in
    // offline faux model must not count: it is never chosen unless named.)
    const single = createRpcFixture();
    try {
      const rpc = single.start();
      const response = await rpc.request({ type: "cycle_model" });
      expect(response).toMatchObject({ command: "cycle_model", success: true, data: null });
      expect((await rpc.request({ type: "get_state" })).data.model.id).toBe("fake-model");
      await finish(rpc);
    } finally {
      await single.cleanup();
    }
  });
});

describe("thinking levels", () => {
  test("set_thinking_level on a reasoning model, cycle_thinking_level, and an invalid level", async () => {
    const rpc = fixture.start(["--model", "fake/thinker"]);
    expect((await rpc.request({ type: "set_thinking_level", level: "high" })).success).toBe(true);
    expect((await rpc.request({ type: "get_state" })).data.thinkingLevel).toBe("high");

    const cycled = await rpc.request({ type: "cycle_thinking_level" });
    expect(cycled.success).toBe(true);
    expect(typeof cycled.data.level).toBe("string");
    expect(cycled.data.level).not.toBe("high");
    expect((await rpc.request({ type: "get_state" })).data.thinkingLevel).toBe(cycled.data.level);

    const invalid = await rpc.request({ type: "set_thinking_level", level: "huge" });
    expect(invalid.success).toBe(false);
    expect(invalid.error).toContain("level");
    expect((await rpc.request({ type: "get_state" })).data.thinkingLevel).toBe(cycled.data.level);
    await finish(rpc);
  });

  test("cycle_thinking_level answers null for a model without reasoning", async () => {
    const rpc = fixture.start();
    const response = await rpc.request({ type: "cycle_thinking_level" });
    expect(response).toMatchObject({ success: true, data: null });
    expect((await rpc.request({ type: "get_state" })).data.thinkingLevel).toBe("off");
    await finish(rpc);
  });
});

describe("queue and interrupt modes", () => {
  test("set_steering_mode, set_follow_up_mode and set_interrupt_mode change get_state; invalid modes are rejected", async () => {
    const rpc = fixture.start();
    expect((await rpc.request({ type: "set_steering_mode", mode: "all" })).success).toBe(true);
    expect((await rpc.request({ type: "set_follow_up_mode", mode: "all" })).success).toBe(true);
    expect((await rpc.request({ type: "set_interrupt_mode", mode: "immediate" })).success).toBe(true);
    expect((await rpc.request({ type: "get_state" })).data).toMatchObject({ steeringMode: "all", followUpMode: "all", interruptMode: "immediate" });

    for (const type of ["set_steering_mode", "set_follow_up_mode", "set_interrupt_mode"]) {
      const invalid = await rpc.request({ type, mode: "sometimes" });
      expect(invalid).toMatchObject({ command: type, success: false });
      expect(invalid.error).toContain("mode");
    }
    expect((await rpc.request({ type: "set_interrupt_mode", mode: "all" })).success).toBe(false);
    expect((await rpc.request({ type: "get_state" })).data).toMatchObject({ steeringMode: "all", followUpMode: "all", interruptMode: "immediate" });

    expect((await rpc.request({ type: "set_steering_mode", mode: "one-at-a-time" })).success).toBe(true);
    expect((await rpc.request({ type: "set_interrupt_mode", mode: "wait" })).success).toBe(true);
    expect((await rpc.request({ type: "get_state" })).data).toMatchObject({ steeringMode: "one-at-a-time", interruptMode: "wait" });
    await finish(rpc);
  });

  test("set_auto_compaction and set_auto_retry take booleans only; abort_retry succeeds when idle", async () => {
    const rpc = fixture.start();
    expect((await rpc.request({ type: "set_auto_compaction", enabled: false })).success).toBe(true);
    expect((await rpc.request({ type: "get_state" })).data.autoCompactionEnabled).toBe(false);
    expect((await rpc.request({ type: "set_auto_compaction", enabled: "yes" })).success).toBe(false);
    expect((await rpc.request({ type: "get_state" })).data.autoCompactionEnabled).toBe(false);
    expect((await rpc.request({ type: "set_auto_compaction", enabled: true })).success).toBe(true);
    expect((await rpc.request({ type: "get_state" })).data.autoCompactionEnabled).toBe(true);

    expect((await rpc.request({ type: "set_auto_retry", enabled: false })).success).toBe(true);
    expect((await rpc.request({ type: "set_auto_retry", enabled: 1 })).success).toBe(false);
    expect(await rpc.request({ type: "abort_retry" })).toMatchObject({ command: "abort_retry", success: true });
    await finish(rpc);
  });
});

describe("user bash", () => {
  test("bash returns output and exit code, and the output reaches the model with the next prompt", async () => {
    const rpc = fixture.start();
    const response = await rpc.request({ type: "bash", command: "echo rpc-bash-marker; exit 3" });
    expect(response.success).toBe(true);
    expect(response.data).toMatchObject({ output: "rpc-bash-marker\n", exitCode: 3, cancelled: false, truncated: false });
    expect(response.data.fullOutputPath).toBeUndefined();

    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    expect(messages.at(-1)).toMatchObject({ role: "bashExecution", command: "echo rpc-bash-marker; exit 3", exitCode: 3 });

    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "what did it print?" });
    await rpc.waitForEvent("agent_end");
    expect(JSON.stringify(fixture.server.requests[before].body.messages)).toContain("rpc-bash-marker");
    await finish(rpc);
  });

  test("long output is truncated to its tail, with the full output in fullOutputPath", async () => {
    const rpc = fixture.start();
    const response = await rpc.request({ type: "bash", command: "seq 1 200000" });
    expect(response.data).toMatchObject({ exitCode: 0, cancelled: false, truncated: true });
    expect(response.data.output).toContain("200000");
    expect(response.data.output).not.toStartWith("1\n2\n");
    const path: string = response.data.fullOutputPath;
    expect(existsSync(path)).toBe(true);
    const full = readFileSync(path, "utf8");
    expect(full.startsWith("1\n2\n3\n")).toBe(true);
    expect(full.trimEnd().endsWith("\n200000")).toBe(true);
    await finish(rpc);
  });

  test("abort_bash cancels a running command promptly", async () => {
    const rpc = fixture.start();
    const marker = join(fixture.cwd, "bash-started");
    const running = rpc.request({ type: "bash", command: `touch ${marker}; sleep 30` }, 10_000);
    // The command's own side effect says it is running; only then can abort_bash find it.
    while (!existsSync(marker)) await Bun.sleep(10);
    const started = Date.now();
    expect(await rpc.request({ type: "abort_bash" })).toMatchObject({ command: "abort_bash", success: true });
    const response = await running;
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(response.success).toBe(true);
    expect(response.data.cancelled).toBe(true);
    expect(await rpc.request({ type: "abort_bash" })).toMatchObject({ success: true });
    expect((await rpc.request({ type: "bash", command: "echo after" })).data.output).toBe("after\n");
    await finish(rpc);
  });

  test("bash without a command string fails", async () => {
    const rpc = fixture.start();
    const response = await rpc.request({ type: "bash" });
    expect(response).toMatchObject({ command: "bash", success: false });
    expect(response.error).toContain("command");
    await finish(rpc);
  });
});

describe("information", () => {
  test("get_last_assistant_text is null before an answer; get_session_stats counts the exchange", async () => {
    const rpc = fixture.start();
    expect((await rpc.request({ type: "get_last_assistant_text" })).data).toEqual({ text: null });
    const emptyStats = (await rpc.request({ type: "get_session_stats" })).data;
    expect(emptyStats).toMatchObject({ userMessages: 0, assistantMessages: 0, totalMessages: 0 });

    fixture.server.enqueue(
      { content: [{ type: "toolCall", name: "bash", arguments: { command: "echo tool" } }], usage: { input: 100, output: 20, cacheRead: 30, cacheWrite: 5 } },
      { content: [{ type: "text", text: "All done." }], usage: { input: 150, output: 10 } },
    );
    await rpc.request({ type: "prompt", message: "run something" });
    await rpc.waitForEvent("agent_end");

    expect((await rpc.request({ type: "get_last_assistant_text" })).data).toEqual({ text: "All done." });
    const stats = (await rpc.request({ type: "get_session_stats" })).data;
    const state = (await rpc.request({ type: "get_state" })).data;
    expect(stats).toMatchObject({
      sessionFile: state.sessionFile,
      sessionId: state.sessionId,
      userMessages: 1,
      assistantMessages: 2,
      toolCalls: 1,
      toolResults: 1,
      totalMessages: 4,
    });
    expect(stats.tokens).toMatchObject({ input: 250, output: 30, cacheRead: 30, cacheWrite: 5 });
    expect(stats.tokens.total).toBe(250 + 30 + 30 + 5);
    expect(typeof stats.cost).toBe("number");
    expect(stats.contextUsage.contextWindow).toBe(state.model.contextWindow);
    expect(stats.contextUsage.tokens).toBeGreaterThan(0);
    expect(typeof stats.contextUsage.percent).toBe("number");
    await finish(rpc);
  });

  // export_html: test/modes/rpc/export-html.test.ts.

  test("get_commands lists no commands (no extensions, prompts or skills)", async () => {
    const rpc = fixture.start();
    expect(await rpc.request({ type: "get_commands" })).toMatchObject({ success: true, data: { commands: [] } });
    await finish(rpc);
  });

  test("set_session_name rejects an empty name and keeps the previous one", async () => {
    const rpc = fixture.start();
    expect((await rpc.request({ type: "set_session_name", name: "kept" })).success).toBe(true);
    for (const name of ["", "   "]) {
      const response = await rpc.request({ type: "set_session_name", name });
      expect(response).toMatchObject({ command: "set_session_name", success: false, error: "Session name cannot be empty" });
    }
    expect((await rpc.request({ type: "set_session_name" })).success).toBe(false);
    expect((await rpc.request({ type: "get_state" })).data.sessionName).toBe("kept");
    await finish(rpc);
  });
});

describe("set_todos", () => {
  test("normalizes the plan and shows it in get_state", async () => {
    const rpc = fixture.start();
    const response = await rpc.request({
      type: "set_todos",
      phases: [
        {
          name: "  Evaluation ",
          tasks: ["Map the read tool surface", { content: "Exercise edit operations", status: "done" }, { id: "mine", content: " Review ", status: "In Progress" }],
        },
        { id: "later", tasks: [{ content: "Ship", status: "whatever" }] },
      ],
    });
    expect(response.success).toBe(true);
    const expected = [
      {
        id: "phase-1",
        name: "Evaluation",
        tasks: [
          { id: "task-1", content: "Map the read tool surface", status: "pending" },
          { id: "task-2", content: "Exercise edit operations", status: "completed" },
          { id: "mine", content: "Review", status: "in_progress" },
        ],
      },
      { id: "later", name: "Todos", tasks: [{ id: "task-4", content: "Ship", status: "pending" }] },
    ];
    expect(response.data.todoPhases).toEqual(expected);
    expect((await rpc.request({ type: "get_state" })).data.todoPhases).toEqual(expected);
    await finish(rpc);
  });

  test("rejects input that is not a plan, keeping the previous one", async () => {
    const rpc = fixture.start();
    const plan = [{ id: "p", name: "Plan", tasks: [{ id: "t", content: "Do it", status: "pending" }] }];
    expect((await rpc.request({ type: "set_todos", phases: plan })).success).toBe(true);
    for (const phases of ["nope", { tasks: [] }, [{ name: "x", tasks: "not a list" }], [{ name: "x", tasks: [{ content: "  " }] }], undefined]) {
      const response = await rpc.request({ type: "set_todos", phases });
      expect(response).toMatchObject({ command: "set_todos", success: false });
      expect(response.error?.length).toBeGreaterThan(0);
    }
    expect((await rpc.request({ type: "get_state" })).data.todoPhases).toEqual(plan);
    await finish(rpc);
  });
});
