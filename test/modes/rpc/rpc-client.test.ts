/**
 * RpcClient as a host uses it: against the real binary and the fake LLM
 * server for the protocol xcsh speaks today, and against a small fake server
 * script for the extension UI sub-protocol, which xcsh does not emit yet.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { RpcClient, RpcError, RpcProcessExitedError, type AgentSessionEvent, type RpcExtensionUiRequest } from "../../../src/modes/rpc/rpc-client.ts";
import { ensureBinary, makeTestHome, type TestHome } from "../../support/cli.ts";
import { startFakeLlm, type FakeLlmServer } from "../../support/fake-llm/server.ts";

let server: FakeLlmServer;
let home: TestHome;
const clients: RpcClient[] = [];

beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
  home = makeTestHome();
  home.writeModelsJson({
    providers: {
      fake: {
        baseUrl: server.baseUrl("openai-completions"),
        api: "openai-completions",
        apiKey: "test-key",
        models: [{ id: "fake-model" }],
      },
    },
  });
}, 120_000);

afterEach(async () => {
  server.clearScript();
  await Promise.all(clients.splice(0).map((client) => client.stop(2_000)));
});

afterAll(async () => {
  await server.close();
  home.cleanup();
});

/** A started client on the real binary, stopped after the test. */
async function startXcsh(args: string[] = ["--no-session", "--model", "fake/fake-model"]): Promise<RpcClient> {
  const client = new RpcClient({ command: [ensureBinary()], args, cwd: home.home, env: home.env });
  clients.push(client);
  await client.start();
  return client;
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const textDeltas = (events: AgentSessionEvent[]) =>
  events
    .map((event) => (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta" ? event.assistantMessageEvent.delta : ""))
    .join("");

describe("RpcClient against xcsh", () => {
  test("getState returns the session's state, and stop() ends the process with code 0", async () => {
    const client = await startXcsh();
    const state = await client.getState();
    expect(state.model).toMatchObject({ provider: "fake", id: "fake-model" });
    expect(state).toMatchObject({ isStreaming: false, messageCount: 0, thinkingLevel: "off" });
    expect(await client.stop()).toBe(0);
    expect(await client.exited).toBe(0);
  });

  test("promptAndWait resolves with the run's events, from agent_start to agent_end, with the streamed text", async () => {
    const answer = "The scripted model says hello, in several chunks.";
    server.enqueue({ content: [{ type: "text", text: answer }], chunkSize: 6 });
    const client = await startXcsh();

    const events = await client.promptAndWait("Say hello");
    expect(events[0].type).toBe("agent_start");
    expect(events.at(-1)?.type).toBe("agent_end");
    expect(events.filter((event) => event.type === "agent_end")).toHaveLength(1);
    expect(textDeltas(events)).toBe(answer);
    expect(await client.getLastAssistantText()).toEqual({ text: answer });
    expect(server.requests.at(-1)?.body.messages.at(-1)).toMatchObject({ role: "user" });
  });

  test("failed commands reject with RpcError carrying the command and the server's error; the client keeps working", async () => {
    const client = await startXcsh();

    const modelError = await client.setModel("nope", "missing").catch((error: unknown) => error);
    expect(modelError).toBeInstanceOf(RpcError);
    expect(modelError).toMatchObject({ command: "set_model", error: "Model not found: nope/missing" });

    // An unknown command is answered with an error the client reports.
    const unknown = await client.send({ type: "no_such_command" }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(RpcError);
    expect((unknown as RpcError).command).toBe("no_such_command");
    expect((unknown as RpcError).error).toContain("Unknown command");

    // A prompt while the agent works, without a streaming behaviour, is refused.
    server.enqueue({ content: [{ type: "text", text: "a long answer that never finishes" }], stallAfterEvents: 2 });
    const started = client.waitForEvent((event) => event.type === "message_update", 5_000);
    await client.prompt("First");
    await started;
    const refused = await client.promptAndWait("Second").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).error).toContain("already working");

    const ended = client.waitForEvent((event) => event.type === "agent_end", 5_000);
    await client.abort();
    await ended;
    expect((await client.getState()).isStreaming).toBe(false);
  });

  test("a host tool runs through the client: updates stream, its result and its error reach the model", async () => {
    server.enqueue(
      {
        content: [
          { type: "toolCall", name: "echo_host", arguments: { message: "hello" } },
          { type: "toolCall", name: "fail_host", arguments: {} },
        ],
      },
      { content: [{ type: "text", text: "Both tools ran." }] },
    );
    const client = await startXcsh();
    const seenArgs: Record<string, unknown>[] = [];
    const registered = await client.setHostTools([
      {
        name: "echo_host",
        label: "Echo Host",
        description: "Echo a value from the embedding host",
        parameters: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
        async execute(args, { update }) {
          seenArgs.push(args);
          update({ content: [{ type: "text", text: "working" }] });
          return { content: [{ type: "text", text: `echo: ${args.message}` }], details: { echoed: true } };
        },
      },
      {
        name: "fail_host",
        description: "Always fails",
        parameters: { type: "object", properties: {} },
        async execute() {
          throw new Error("the host refused access");
        },
      },
    ]);
    expect(registered).toEqual({ toolNames: ["echo_host", "fail_host"] });

    const requestsBefore = server.requests.length;
    const events = await client.promptAndWait("Use the host tools");
    expect(seenArgs).toEqual([{ message: "hello" }]);

    const update = events.find((event) => event.type === "tool_execution_update");
    expect(update).toMatchObject({ toolName: "echo_host", partialResult: { content: [{ type: "text", text: "working" }] } });
    const ends = events.filter((event) => event.type === "tool_execution_end");
    expect(ends.find((event) => event.toolName === "echo_host")).toMatchObject({
      isError: false,
      result: { content: [{ type: "text", text: "echo: hello" }], details: { echoed: true } },
    });
    expect(ends.find((event) => event.toolName === "fail_host")).toMatchObject({ isError: true });

    // The model's next request carries both results.
    expect(server.requests.length).toBe(requestsBefore + 2);
    const toolMessages = server.requests[requestsBefore + 1].body.messages.filter((message: { role: string }) => message.role === "tool");
    expect(toolMessages.map((message: { content: string }) => message.content)).toEqual(["echo: hello", "the host refused access"]);
    expect(textDeltas(events)).toBe("Both tools ran.");
  });

  test("aborting the run cancels a running host tool: execute's signal fires", async () => {
    server.enqueue({ content: [{ type: "toolCall", name: "wait_host", arguments: {} }] });
    const client = await startXcsh();
    const executing = deferred();
    const cancelled = deferred<unknown>();
    await client.setHostTools([
      {
        name: "wait_host",
        description: "Waits until cancelled",
        parameters: { type: "object", properties: {} },
        execute(_args, { signal }) {
          executing.resolve();
          return new Promise((_resolve, reject) => {
            signal.addEventListener("abort", () => {
              cancelled.resolve(signal.reason);
              reject(signal.reason);
            });
          });
        },
      },
    ]);

    const ended = client.waitForEvent((event) => event.type === "agent_end", 5_000);
    await client.prompt("Wait for the host");
    await executing.promise;
    await client.abort();
    expect(await cancelled.promise).toBeInstanceOf(Error);
    await ended;
    expect((await client.getState()).isStreaming).toBe(false);
  });

  test("when the process exits, pending requests reject with the exit and the tail of stderr", async () => {
    const client = await startXcsh(["--no-session", "--model", "nope/nope"]);
    const error = await client.getState().catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(RpcProcessExitedError);
    expect((error as RpcProcessExitedError).exitCode).toBe(2);
    expect((error as Error).message).toContain('before answering "get_state"');
    expect((error as Error).message).toContain('Unknown model "nope/nope"');
    expect(await client.exited).toBe(2);
    // Later requests fail at once, the same way.
    await expect(client.getState()).rejects.toBeInstanceOf(RpcProcessExitedError);
  });

  test("a run still in progress rejects when the process is killed", async () => {
    server.enqueue({ content: [{ type: "text", text: "never finishes" }], stallAfterEvents: 1 });
    const client = await startXcsh();
    const started = client.waitForEvent((event) => event.type === "agent_start", 5_000);
    const run = client.promptAndWait("Hang").catch((failure: unknown) => failure);
    await started;
    process.kill(client.pid!, "SIGKILL");
    const error = await run;
    expect(error).toBeInstanceOf(RpcProcessExitedError);
    expect(error).toMatchObject({ signal: "SIGKILL" });
    expect((error as Error).message).toContain("the prompt's run ended");
  });
});

describe("RpcClient's extension UI and exit handling (fake server)", () => {
  const fakeServer = join(import.meta.dir, "support", "fake-ui-server.ts");

  async function startFake(frames: object[]): Promise<{ client: RpcClient; echoes: Record<string, unknown>[]; nextEchoes(count: number): Promise<void> }> {
    const client = new RpcClient({ command: [process.execPath, fakeServer], env: { ...process.env, FAKE_RPC_FRAMES: JSON.stringify(frames) } });
    clients.push(client);
    const echoes: Record<string, unknown>[] = [];
    const waiters: { count: number; resolve(): void }[] = [];
    client.onFrame((frame) => {
      if (frame.type !== "echo") return;
      echoes.push(frame.received as Record<string, unknown>);
      for (const waiter of waiters.filter((w) => echoes.length >= w.count)) waiter.resolve();
    });
    await client.start();
    const nextEchoes = (count: number) =>
      echoes.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }));
    return { client, echoes, nextEchoes };
  }

  const request = (id: string, method: string, fields: object = {}) => ({ type: "extension_ui_request", id, method, ...fields });

  test("dialog answers go back as extension_ui_response; notices are delivered and never answered", async () => {
    const seen: RpcExtensionUiRequest[] = [];
    const { client, echoes, nextEchoes } = await startFake([
      request("n1", "notify", { message: "Heads up", notifyType: "warning" }),
      request("c1", "confirm", { title: "Clear session?", message: "All messages will be lost." }),
      request("s1", "select", { title: "Allow?", options: ["Allow", "Block"] }),
      request("i1", "input", { title: "Branch name", placeholder: "feature/..." }),
      request("e1", "editor", { title: "Edit", prefill: "Line 1" }),
      request("w1", "setWidget", { widgetKey: "ext", widgetLines: ["a", "b"] }),
    ]);
    client.onExtensionUiRequest(async (req) => {
      seen.push(req);
      switch (req.method) {
        case "confirm":
          return true;
        case "select":
          return req.options[1];
        case "input":
          return undefined;
        case "editor":
          return `${req.prefill}\nLine 2`;
      }
    });

    await nextEchoes(4);
    // Everything sent before this command is echoed before its response.
    await client.send({ type: "ping" });
    const responses = echoes.filter((frame) => frame.type === "extension_ui_response");
    expect(responses.sort((a, b) => String(a.id).localeCompare(String(b.id)))).toEqual([
      { type: "extension_ui_response", id: "c1", confirmed: true },
      { type: "extension_ui_response", id: "e1", value: "Line 1\nLine 2" },
      { type: "extension_ui_response", id: "i1", cancelled: true },
      { type: "extension_ui_response", id: "s1", value: "Block" },
    ]);
    expect(seen.map((req) => `${req.id}:${req.method}`).sort()).toEqual(["c1:confirm", "e1:editor", "i1:input", "n1:notify", "s1:select", "w1:setWidget"]);
    expect(seen.find((req) => req.id === "n1")).toMatchObject({ message: "Heads up", notifyType: "warning" });
  });

  test("without a handler, dialogs are cancelled so the extension is not left waiting", async () => {
    const { client, echoes, nextEchoes } = await startFake([request("s9", "select", { title: "Pick", options: ["a"] })]);
    await nextEchoes(1);
    expect(echoes).toEqual([{ type: "extension_ui_response", id: "s9", cancelled: true }]);
    await client.stop();
  });

  test("a crash rejects every pending request with the exit code and what it wrote to stderr", async () => {
    const { client } = await startFake([]);
    const crash = client.send({ type: "crash", stderr: "fatal: the disk is on fire\n", code: 3 }).catch((error: unknown) => error);
    const queuedBehind = client.getState().catch((error: unknown) => error);
    for (const error of [await crash, await queuedBehind]) {
      expect(error).toBeInstanceOf(RpcProcessExitedError);
      expect(error).toMatchObject({ exitCode: 3, stderrTail: "fatal: the disk is on fire" });
      expect((error as Error).message).toContain("exited with code 3");
      expect((error as Error).message).toContain("fatal: the disk is on fire");
    }
    expect(await client.exited).toBe(3);
  });
});
