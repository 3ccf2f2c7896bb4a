/**
 * The agent loop driven through a real provider SDK against the fake LLM
 * server: event order, tool execution, queues, interrupts and abort.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Type } from "typebox";
import { Agent, type AgentOptions } from "../../src/agent/agent.ts";
import type { AgentEvent, AgentTool } from "../../src/agent/types.ts";
import type { BashExecutionMessage } from "../../src/agent/messages.ts";
import type { Model } from "../../src/ai/types.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";

let server: FakeLlmServer;
let model: Model;

beforeAll(() => {
  server = startFakeLlm();
  model = {
    id: "claude-test",
    name: "Claude Test",
    api: "anthropic-messages",
    provider: "fake-anthropic",
    baseUrl: server.baseUrl("anthropic-messages"),
    reasoning: false,
    input: ["text"],
    cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 100_000,
    maxTokens: 4096,
  };
});
afterAll(() => server.close());

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const call = (name: string, args: Record<string, unknown>, id?: string) => ({ type: "toolCall" as const, name, arguments: args, id });

/** A tool that records its calls and waits for `gate` (if given) before answering. */
function echoTool(name = "echo", options: { gate?: Promise<void>; delayMs?: number; throws?: boolean } = {}) {
  const calls: string[] = [];
  const tool: AgentTool<any> = {
    name,
    label: name,
    description: "Echoes its text",
    parameters: Type.Object({ text: Type.String() }),
    async execute(_id, params: { text: string }, signal, onUpdate) {
      calls.push(params.text);
      onUpdate?.({ content: [{ type: "text", text: `working on ${params.text}` }], details: {} });
      if (options.delayMs) await Bun.sleep(options.delayMs);
      if (options.gate) {
        await Promise.race([
          options.gate,
          new Promise<void>((_, reject) => signal?.addEventListener("abort", () => reject(new Error("tool aborted")), { once: true })),
        ]);
      }
      if (options.throws) throw new Error(`echo failed for ${params.text}`);
      return { content: [{ type: "text", text: `echo: ${params.text}` }], details: { length: params.text.length } };
    },
  };
  return { tool, calls };
}

function makeAgent(tools: AgentTool<any>[], extra: Partial<AgentOptions> = {}) {
  const agent = new Agent({
    initialState: { model, systemPrompt: "You are a test.", tools },
    getApiKey: () => "test-key",
    ...extra,
  });
  const events: AgentEvent[] = [];
  agent.subscribe((event) => {
    events.push(event);
  });
  return { agent, events };
}

const types = (events: AgentEvent[]) => events.map((event) => event.type);
const requestMessages = (index: number): any[] => server.requests[index].body.messages;

describe("a text-only run", () => {
  test("emits the seed 000 event sequence and keeps the transcript", async () => {
    server.enqueue({ ...text("Hello there"), chunkSize: 4 });
    const { agent, events } = makeAgent([]);
    await agent.prompt("Hi");
    const sequence = types(events).filter((type, index, all) => type !== "message_update" || all[index - 1] !== "message_update");
    expect(sequence).toEqual([
      "agent_start",
      "turn_start",
      "message_start",
      "message_end",
      "message_start",
      "message_update",
      "message_end",
      "turn_end",
      "agent_end",
    ]);
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(agent.state.messages).toHaveLength(2);
    const deltas = events.filter((event) => event.type === "message_update").map((event: any) => event.assistantMessageEvent.type);
    expect(deltas).toContain("text_delta");
    expect(server.requests.at(-1)!.body.system[0].text).toContain("You are a test.");
  });
});

describe("tool calls", () => {
  test("runs a tool, feeds its result back and loops until a text answer", async () => {
    const { tool, calls } = echoTool();
    server.enqueue({ content: [call("echo", { text: "ping" })] }, text("done"));
    const before = server.requests.length;
    const { agent, events } = makeAgent([tool]);
    await agent.prompt("use echo");
    expect(calls).toEqual(["ping"]);
    const toolEvents = events.filter((event) => event.type.startsWith("tool_execution"));
    expect(types(toolEvents)).toEqual(["tool_execution_start", "tool_execution_update", "tool_execution_end"]);
    expect((toolEvents[1] as any).partialResult.content[0].text).toBe("working on ping");
    expect((toolEvents[2] as any).isError).toBe(false);
    const turnEnds = events.filter((event) => event.type === "turn_end") as any[];
    expect(turnEnds).toHaveLength(2);
    expect(turnEnds[0].toolResults[0].content[0].text).toBe("echo: ping");
    // The second request carries the tool result back to the model.
    const second = requestMessages(before + 1);
    const resultBlock = second.at(-1).content.find((block: any) => block.type === "tool_result");
    expect(JSON.stringify(resultBlock.content)).toContain("echo: ping");
    expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });

  test("parallel calls: a fast call ends first, results stay in source order", async () => {
    const slow = echoTool("slow", { delayMs: 300 });
    const fast = echoTool("fast");
    server.enqueue({ content: [call("slow", { text: "a" }), call("fast", { text: "b" })] }, text("ok"));
    const { agent, events } = makeAgent([slow.tool, fast.tool]);
    await agent.prompt("go");
    const ends = events.filter((event) => event.type === "tool_execution_end").map((event: any) => event.toolName);
    expect(ends).toEqual(["fast", "slow"]);
    const results = events.filter((event) => event.type === "message_end" && (event as any).message.role === "toolResult");
    expect(results.map((event: any) => event.message.toolName)).toEqual(["slow", "fast"]);
  });

  test("sequential mode runs one call after the other", async () => {
    const slow = echoTool("slow", { delayMs: 150 });
    const fast = echoTool("fast");
    server.enqueue({ content: [call("slow", { text: "a" }), call("fast", { text: "b" })] }, text("ok"));
    const { agent, events } = makeAgent([slow.tool, fast.tool], { toolExecution: "sequential" });
    await agent.prompt("go");
    const order = events
      .filter((event) => event.type === "tool_execution_start" || event.type === "tool_execution_end")
      .map((event: any) => `${event.type.replace("tool_execution_", "")}:${event.toolName}`);
    expect(order).toEqual(["start:slow", "end:slow", "start:fast", "end:fast"]);
  });

  test("invalid arguments, unknown tools and throwing tools become error results the model reads", async () => {
    const { tool } = echoTool();
    const failing = echoTool("fails", { throws: true });
    server.enqueue(
      { content: [call("echo", { message: "wrong field" }), call("nope", {}), call("fails", { text: "x" })] },
      text("recovered"),
    );
    const before = server.requests.length;
    const { agent, events } = makeAgent([tool, failing.tool]);
    await agent.prompt("go");
    const ends = events.filter((event) => event.type === "tool_execution_end") as any[];
    expect(ends.every((event) => event.isError)).toBe(true);
    const texts = ends.map((event) => event.result.content[0].text);
    expect(texts.find((t) => t.includes("Invalid arguments for tool \"echo\""))).toBeDefined();
    expect(texts.find((t) => t.includes('Tool "nope" not found'))).toBeDefined();
    expect(texts.find((t) => t.includes("echo failed for x"))).toBeDefined();
    const second = requestMessages(before + 1);
    const toolResults = second.at(-1).content.filter((block: any) => block.type === "tool_result");
    expect(toolResults).toHaveLength(3);
    expect(toolResults.every((block: any) => block.is_error === true)).toBe(true);
    expect((events.at(-1) as any).type).toBe("agent_end");
  });

  test("numbers sent as strings are coerced to the schema", async () => {
    const counted: number[] = [];
    const tool: AgentTool<any> = {
      name: "count",
      label: "count",
      description: "counts",
      parameters: Type.Object({ n: Type.Number() }),
      async execute(_id, params: { n: number }) {
        counted.push(params.n);
        return { content: [{ type: "text", text: String(params.n + 1) }], details: {} };
      },
    };
    server.enqueue({ content: [call("count", { n: "41" })] }, text("ok"));
    const { agent } = makeAgent([tool]);
    await agent.prompt("count");
    expect(counted).toEqual([41]);
  });

  test("beforeToolCall blocks with a reason; afterToolCall patches the result", async () => {
    const { tool, calls } = echoTool();
    server.enqueue({ content: [call("echo", { text: "blocked" }), call("echo", { text: "patched" })] }, text("ok"));
    const { agent, events } = makeAgent([tool], {
      beforeToolCall: async ({ args }) => ((args as any).text === "blocked" ? { block: true, reason: "Not allowed by policy" } : undefined),
      afterToolCall: async () => ({ content: [{ type: "text", text: "rewritten" }] }),
    });
    await agent.prompt("go");
    expect(calls).toEqual(["patched"]);
    const ends = events.filter((event) => event.type === "tool_execution_end") as any[];
    expect(ends.map((event) => event.result.content[0].text).sort()).toEqual(["Not allowed by policy", "rewritten"]);
  });
});

describe("steering and follow-up queues", () => {
  async function runWithSteering(steeringMode: "one-at-a-time" | "all") {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { tool } = echoTool("echo", { gate });
    server.enqueue({ content: [call("echo", { text: "x" })] }, text("after first steer"));
    if (steeringMode === "one-at-a-time") server.enqueue(text("after second steer"));
    const before = server.requests.length;
    const { agent, events } = makeAgent([tool], { steeringMode });
    const run = agent.prompt("start");
    while (!events.some((event) => event.type === "tool_execution_start")) await Bun.sleep(5);
    agent.steer({ role: "user", content: "steer one", timestamp: Date.now() });
    agent.steer({ role: "user", content: "steer two", timestamp: Date.now() });
    release();
    await run;
    return { before, events, requests: server.requests.slice(before) };
  }

  test("one-at-a-time delivers one steering message per turn", async () => {
    const { requests } = await runWithSteering("one-at-a-time");
    expect(requests).toHaveLength(3);
    const second = JSON.stringify(requests[1].body.messages);
    expect(second).toContain("steer one");
    expect(second).not.toContain("steer two");
    expect(JSON.stringify(requests[2].body.messages)).toContain("steer two");
  });

  test("all delivers every queued steering message at once", async () => {
    const { requests } = await runWithSteering("all");
    expect(requests).toHaveLength(2);
    const second = JSON.stringify(requests[1].body.messages);
    expect(second).toContain("steer one");
    expect(second).toContain("steer two");
  });

  test("follow-up in all mode delivers every queued message in one turn", async () => {
    server.enqueue({ ...text("first answer"), delayMs: 100 }, text("both follow-ups answered"));
    const before = server.requests.length;
    const { agent } = makeAgent([], { followUpMode: "all" });
    const run = agent.prompt("question");
    agent.followUp({ role: "user", content: "follow-up one", timestamp: Date.now() });
    agent.followUp({ role: "user", content: "follow-up two", timestamp: Date.now() });
    await run;
    expect(server.requests.length - before).toBe(2);
    const second = JSON.stringify(server.requests[before + 1].body.messages);
    expect(second).toContain("follow-up one");
    expect(second).toContain("follow-up two");
  });

  test("follow-up waits until the agent would stop, within the same run", async () => {
    server.enqueue({ ...text("first answer"), delayMs: 100 }, text("follow-up answer"));
    const before = server.requests.length;
    const { agent, events } = makeAgent([]);
    const run = agent.prompt("question");
    agent.followUp({ role: "user", content: "and then this", timestamp: Date.now() });
    await run;
    expect(server.requests.length - before).toBe(2);
    expect(JSON.stringify(server.requests[before + 1].body.messages)).toContain("and then this");
    expect(types(events).filter((type) => type === "agent_start")).toHaveLength(1);
    expect(types(events).filter((type) => type === "turn_start")).toHaveLength(2);
  });
});

describe("interrupt modes", () => {
  async function runInterrupted(interruptMode: "immediate" | "wait") {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = echoTool("first", { gate });
    const second = echoTool("second");
    server.enqueue({ content: [call("first", { text: "1" }), call("second", { text: "2" })] }, text("steered"));
    const { agent, events } = makeAgent([first.tool, second.tool], { interruptMode, toolExecution: "sequential" });
    const run = agent.prompt("start");
    while (!events.some((event) => event.type === "tool_execution_start")) await Bun.sleep(5);
    agent.steer({ role: "user", content: "change of plan", timestamp: Date.now() });
    setTimeout(release, 200);
    await run;
    const ends = events.filter((event) => event.type === "tool_execution_end") as any[];
    return { ends, secondCalls: second.calls };
  }

  test("immediate: steering interrupts the running call and skips the rest", async () => {
    const { ends, secondCalls } = await runInterrupted("immediate");
    expect(ends.map((event) => event.isError)).toEqual([true, true]);
    expect(ends[0].result.content[0].text).toContain("Interrupted");
    expect(ends[1].result.content[0].text).toContain("Skipped");
    expect(secondCalls).toEqual([]);
  });

  test("wait: the turn's calls all complete before steering is delivered", async () => {
    const { ends, secondCalls } = await runInterrupted("wait");
    expect(ends.map((event) => event.isError)).toEqual([false, false]);
    expect(secondCalls).toEqual(["2"]);
  });
});

describe("abort", () => {
  test("abort during a stream ends it as aborted, and the agent takes new work", async () => {
    server.enqueue({ ...text("this never finishes streaming"), chunkSize: 2, stallAfterEvents: 5 });
    const { agent, events } = makeAgent([]);
    const run = agent.prompt("hang");
    while (!events.some((event) => event.type === "message_update")) await Bun.sleep(5);
    const started = Date.now();
    agent.abort();
    await run;
    expect(Date.now() - started).toBeLessThan(1000);
    const final = events.filter((event) => event.type === "message_end").at(-1) as any;
    expect(final.message.stopReason).toBe("aborted");
    expect(events.at(-1)!.type).toBe("agent_end");
    expect(agent.isStreaming).toBe(false);

    server.enqueue(text("back again"));
    await agent.prompt("still there?");
    const last = agent.state.messages.at(-1) as any;
    expect(last.content[0].text).toBe("back again");
  });

  test("abort during a tool run stops the tool and ends the run", async () => {
    const { tool } = echoTool("echo", { gate: new Promise(() => {}) });
    server.enqueue({ content: [call("echo", { text: "forever" })] });
    const { agent, events } = makeAgent([tool]);
    const run = agent.prompt("go");
    while (!events.some((event) => event.type === "tool_execution_start")) await Bun.sleep(5);
    agent.abort();
    await run;
    const end = events.find((event) => event.type === "tool_execution_end") as any;
    expect(end.isError).toBe(true);
    expect(events.at(-1)!.type).toBe("agent_end");
    expect(types(events).filter((type) => type === "turn_start")).toHaveLength(1);
  });

  test("a prompt while a run is going is refused with advice", async () => {
    server.enqueue({ ...text("slow"), delayMs: 200 });
    const { agent } = makeAgent([]);
    const run = agent.prompt("one");
    await expect(agent.prompt("two")).rejects.toThrow(/steer|followUp/);
    await run;
  });
});

describe("message conversion", () => {
  test("transformContext rewrites what each LLM call sees, not the transcript", async () => {
    server.enqueue(text("short context seen"));
    const before = server.requests.length;
    const { agent } = makeAgent([], {
      transformContext: async (messages) => [{ role: "user", content: "[earlier messages pruned]", timestamp: 0 }, ...messages.slice(-1)],
    });
    agent.state.messages.push({ role: "user", content: "an old, long message", timestamp: 1 });
    await agent.prompt("latest question");
    const sent = JSON.stringify(requestMessages(before));
    expect(sent).toContain("[earlier messages pruned]");
    expect(sent).toContain("latest question");
    expect(sent).not.toContain("an old, long message");
    expect(agent.state.messages).toHaveLength(3);
  });

  test("a user bash execution reaches the model as a 'Ran `cmd`' user message", async () => {
    server.enqueue(text("seen"));
    const before = server.requests.length;
    const { agent } = makeAgent([]);
    const bash: BashExecutionMessage = {
      role: "bashExecution",
      command: "ls -la",
      output: "total 48\nfile.txt\n",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: Date.now(),
    };
    agent.state.messages.push(bash);
    await agent.prompt("what did I run?");
    const sent = JSON.stringify(requestMessages(before));
    expect(sent).toContain("Ran `ls -la`");
    expect(sent).toContain("file.txt");
  });
});
