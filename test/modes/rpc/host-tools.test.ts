/**
 * Host tools (seed 001): the host declares tools with set_host_tools, the
 * scripted model calls one, xcsh sends host_tool_call, the host streams
 * host_tool_update and answers with host_tool_result; abort sends
 * host_tool_cancel. What the model is offered and receives is checked in the
 * fake server's request bodies.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createRpcFixture, duplicateResponseIds, type Frame, type RpcFixture, type RpcProcess } from "../../support/rpc-harness.ts";

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture();
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const echoHost = {
  name: "echo_host",
  label: "Echo Host",
  description: "Echo a value from the embedding host",
  parameters: {
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"],
    additionalProperties: false,
  },
};

const tool = (name: string, description = `The ${name} tool`) => ({ name, description, parameters: { type: "object", properties: {} } });

/** Tool names offered to the model in one request (OpenAI chat completions format). */
function offeredTools(requestIndex: number): string[] {
  return (fixture.server.requests[requestIndex].body.tools ?? []).map((entry: { function: { name: string } }) => entry.function.name);
}

/** The tool-result messages the model received in one request. */
function toolMessages(requestIndex: number): Array<{ role: string; tool_call_id: string; content: unknown }> {
  return fixture.server.requests[requestIndex].body.messages.filter((message: { role: string }) => message.role === "tool");
}

async function finish(rpc: RpcProcess): Promise<void> {
  expect(await rpc.close()).toBe(0);
  expect(duplicateResponseIds(rpc.frames)).toEqual([]);
}

/** Declares echo_host and starts a run in which the model calls it; resolves with the host_tool_call frame. */
async function callEchoHost(rpc: RpcProcess, message: string, after: Parameters<RpcFixture["server"]["enqueue"]>[0][] = []): Promise<Frame> {
  expect((await rpc.request({ type: "set_host_tools", tools: [echoHost] })).data).toEqual({ toolNames: ["echo_host"] });
  fixture.server.enqueue({ content: [{ type: "toolCall", id: "call_host_1", name: "echo_host", arguments: { message } }] }, ...after);
  await rpc.request({ type: "prompt", message: "use the host tool" });
  return rpc.waitForEvent("host_tool_call");
}

describe("declaring host tools", () => {
  test("set_host_tools offers the tools to the model next to the built-in ones", async () => {
    const rpc = fixture.start();
    const response = await rpc.request({ type: "set_host_tools", tools: [echoHost, tool("second_tool")], id: "tools-1" });
    expect(response).toEqual({ id: "tools-1", type: "response", command: "set_host_tools", success: true, data: { toolNames: ["echo_host", "second_tool"] } });

    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_end");
    const offered = offeredTools(before);
    expect(offered).toEqual(expect.arrayContaining(["bash", "read", "echo_host", "second_tool"]));
    const declared = fixture.server.requests[before].body.tools.find((entry: { function: { name: string } }) => entry.function.name === "echo_host");
    expect(declared.function.description).toBe(echoHost.description);
    expect(declared.function.parameters).toMatchObject(echoHost.parameters);
    await finish(rpc);
  });

  test("sending set_host_tools again replaces the whole set", async () => {
    const rpc = fixture.start();
    await rpc.request({ type: "set_host_tools", tools: [tool("alpha"), tool("beta")] });
    expect((await rpc.request({ type: "set_host_tools", tools: [tool("gamma")] })).data).toEqual({ toolNames: ["gamma"] });

    let before = fixture.server.requests.length;
    let from = rpc.mark();
    await rpc.request({ type: "prompt", message: "first" });
    await rpc.waitForEvent("agent_end", () => true, 5_000, from);
    expect(offeredTools(before)).toContain("gamma");
    expect(offeredTools(before)).not.toContain("alpha");
    expect(offeredTools(before)).not.toContain("beta");

    expect((await rpc.request({ type: "set_host_tools", tools: [] })).data).toEqual({ toolNames: [] });
    before = fixture.server.requests.length;
    from = rpc.mark();
    await rpc.request({ type: "prompt", message: "second" });
    await rpc.waitForEvent("agent_end", () => true, 5_000, from);
    expect(offeredTools(before)).not.toContain("gamma");
    expect(offeredTools(before)).toContain("bash");
    await finish(rpc);
  });

  test("invalid definitions are rejected and the previous set stays", async () => {
    const rpc = fixture.start();
    await rpc.request({ type: "set_host_tools", tools: [tool("kept_tool")] });
    const invalid: unknown[] = [
      "not a list",
      undefined,
      [{ description: "no name", parameters: { type: "object" } }],
      [tool("bad name!")],
      [tool("x".repeat(65))],
      [tool("twice"), tool("twice")],
      [{ name: "no_params", description: "missing parameters" }],
      [{ name: "null_params", description: "null parameters", parameters: null }],
      [tool("bash")],
    ];
    for (const tools of invalid) {
      const response = await rpc.request({ type: "set_host_tools", tools });
      expect(response).toMatchObject({ command: "set_host_tools", success: false });
      expect(typeof response.error).toBe("string");
    }
    const clash = await rpc.request({ type: "set_host_tools", tools: [tool("read")] });
    expect(clash.error).toContain("read");

    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "which tools?" });
    await rpc.waitForEvent("agent_end");
    expect(offeredTools(before)).toContain("kept_tool");
    expect(offeredTools(before).filter((name) => name === "bash")).toHaveLength(1);
    await finish(rpc);
  });
});

describe("calling host tools", () => {
  test("host_tool_call, then updates and the result flow back to the model", async () => {
    const rpc = fixture.start();
    const before = fixture.server.requests.length;
    const call = await callEchoHost(rpc, "hello host", [{ content: [{ type: "text", text: "The host echoed." }] }]);
    expect(call).toEqual({ type: "host_tool_call", id: call.id, toolCallId: "call_host_1", toolName: "echo_host", arguments: { message: "hello host" } });
    expect(typeof call.id).toBe("string");
    expect(rpc.ofType("tool_execution_start")[0]).toMatchObject({ toolCallId: "call_host_1", toolName: "echo_host", args: { message: "hello host" } });
    expect((await rpc.request({ type: "get_state" })).data.isStreaming).toBe(true);

    rpc.send({ type: "host_tool_update", id: call.id, partialResult: { content: [{ type: "text", text: "working" }] } });
    const update = await rpc.waitForEvent("tool_execution_update");
    expect(update).toMatchObject({ toolCallId: "call_host_1", toolName: "echo_host", args: { message: "hello host" } });
    expect(update.partialResult.content).toEqual([{ type: "text", text: "working" }]);

    rpc.send({ type: "host_tool_result", id: call.id, result: { content: [{ type: "text", text: "echo: hello host" }] } });
    const end = await rpc.waitForEvent("tool_execution_end");
    expect(end).toMatchObject({ toolCallId: "call_host_1", toolName: "echo_host", isError: false });
    expect(end.result.content).toEqual([{ type: "text", text: "echo: hello host" }]);
    await rpc.waitForEvent("agent_end");

    const results = toolMessages(before + 1);
    expect(results).toHaveLength(1);
    expect(results[0].tool_call_id).toBe("call_host_1");
    expect(JSON.stringify(results[0].content)).toContain("echo: hello host");
    // host frames are not commands: they get no response.
    expect(rpc.responses.filter((frame) => frame.command.startsWith("host_tool"))).toHaveLength(0);
    await finish(rpc);
  });

  test("isError: true makes the host's text an error result", async () => {
    const rpc = fixture.start();
    const before = fixture.server.requests.length;
    const call = await callEchoHost(rpc, "fail please", [{ content: [{ type: "text", text: "It failed." }] }]);
    rpc.send({ type: "host_tool_result", id: call.id, isError: true, result: { content: [{ type: "text", text: "host says no" }] } });
    const end = await rpc.waitForEvent("tool_execution_end");
    expect(end.isError).toBe(true);
    expect(JSON.stringify(end.result.content)).toContain("host says no");
    await rpc.waitForEvent("agent_end");
    expect(JSON.stringify(toolMessages(before + 1)[0].content)).toContain("host says no");
    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    expect(messages.find((message: Frame) => message.role === "toolResult")).toMatchObject({ toolName: "echo_host", isError: true });
    await finish(rpc);
  });

  test("arguments that do not match the schema never reach the host", async () => {
    const rpc = fixture.start();
    await rpc.request({ type: "set_host_tools", tools: [echoHost] });
    fixture.server.enqueue({ content: [{ type: "toolCall", name: "echo_host", arguments: { wrong: 1 } }] }, { content: [{ type: "text", text: "ok" }] });
    await rpc.request({ type: "prompt", message: "call it badly" });
    const end = await rpc.waitForEvent("tool_execution_end");
    expect(end.isError).toBe(true);
    await rpc.waitForEvent("agent_end");
    expect(rpc.ofType("host_tool_call")).toHaveLength(0);
    await finish(rpc);
  });

  test("abort while the host tool runs sends host_tool_cancel for that call", async () => {
    const rpc = fixture.start();
    const call = await callEchoHost(rpc, "slow work");
    expect((await rpc.request({ type: "abort" })).success).toBe(true);
    const cancel = await rpc.waitForEvent("host_tool_cancel");
    expect(cancel).toEqual({ type: "host_tool_cancel", id: cancel.id, targetId: call.id });
    expect(typeof cancel.id).toBe("string");
    expect(cancel.id).not.toBe(call.id);
    const end = await rpc.waitForEvent("tool_execution_end");
    expect(end).toMatchObject({ toolCallId: "call_host_1", isError: true });
    await rpc.waitForEvent("agent_end");

    // A late answer for the cancelled call changes nothing.
    const messagesBefore = (await rpc.request({ type: "get_messages" })).data.messages;
    rpc.send({ type: "host_tool_result", id: call.id, result: { content: [{ type: "text", text: "too late" }] } });
    rpc.send({ type: "host_tool_update", id: "host_unknown", partialResult: { content: [] } });
    const messagesAfter = (await rpc.request({ type: "get_messages" })).data.messages;
    expect(messagesAfter).toEqual(messagesBefore);
    expect(rpc.ofType("host_tool_cancel")).toHaveLength(1);
    await finish(rpc);
  });

  test("closing stdin while a host tool waits ends the run and exits 0", async () => {
    const rpc = fixture.start();
    await callEchoHost(rpc, "never answered");
    // The host is gone: the call can never complete, so it fails and the process exits.
    const code = await rpc.close(5_000);
    expect(code).toBe(0);
    const end = rpc.ofType("tool_execution_end")[0];
    expect(end).toMatchObject({ toolCallId: "call_host_1", isError: true });
    expect(JSON.stringify(end.result.content)).toContain("closed stdin");
    expect(rpc.ofType("agent_end")).toHaveLength(1);
    expect(rpc.ofType("host_tool_cancel")).toHaveLength(0);
  });
});
