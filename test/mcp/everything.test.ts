/**
 * xcsh's MCP client against a real server from npm, `@modelcontextprotocol/server-everything`
 * (a devDependency), and a bare one that sends a call's progress and result in one write
 * (support/burst-server.ts), started over stdio by the built binary in RPC mode: every progress
 * notification of a long-running call reaches the host in order (the last one used to be
 * lost when it arrived in the same read as the result), the server sees the project
 * folder as the client's root, and its questions (elicitation) reach the host as dialogs
 * — or are declined in print mode, where nobody can be asked.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";
import { bodyText, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const EVERYTHING = join(import.meta.dir, "..", "..", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
writeMcpJson(join(home.agentDir, "mcp.json"), {
  everything: { command: process.execPath, args: [EVERYTHING, "stdio"], exposure: "direct" },
  burst: { command: process.execPath, args: [join(import.meta.dir, "support", "burst-server.ts")], exposure: "direct" },
});
const started: RpcProcess[] = [];
afterAll(async () => {
  for (const rpc of started) rpc.kill();
  await fixture.cleanup();
});
beforeEach(() => server.clearScript());

async function runPrompt(message: string): Promise<RpcProcess> {
  const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--model", "fake/m", "--no-session"] });
  started.push(rpc);
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message })).success).toBe(true);
  await rpc.waitForEvent("agent_end", () => true, 25_000, from);
  return rpc;
}

describe("server-everything", () => {
  test("a long-running call's progress notifications all reach the host, in order, before its result", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "p1", name: "mcp__everything__trigger-long-running-operation", arguments: { duration: 0.6, steps: 3 } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const rpc = await runPrompt("run it");
    const updates = rpc
      .ofType("tool_execution_update")
      .filter((frame) => frame.toolCallId === "p1")
      .map((frame) => frame.partialResult.content[0].text);
    expect(updates).toEqual(["progress (1/3)", "progress (2/3)", "progress (3/3)"]);
    expect(rpc.ofType("tool_execution_end").at(-1)!.result.content[0].text).toContain("Long running operation completed");
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("progress notifications read in the same chunk as the result are all shown, before it", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "b1", name: "mcp__burst__steps", arguments: {} }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const rpc = await runPrompt("run the steps");
    const updates = rpc
      .ofType("tool_execution_update")
      .filter((frame) => frame.toolCallId === "b1")
      .map((frame) => frame.partialResult.content[0].text);
    expect(updates).toEqual(["progress (1/3)", "progress (2/3)", "progress (3/3)"]);
    expect(rpc.ofType("tool_execution_end").at(-1)!.result.content[0].text).toBe("three steps done");
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("the server gets the project folder as the client's root", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "r1", name: "mcp__everything__get-roots-list", arguments: {} }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const rpc = await runPrompt("which roots");
    expect(bodyText(server.requests.at(-1)!)).toContain(`URI: ${Bun.pathToFileURL(home.home).href}`);
    expect(await rpc.close()).toBe(0);
  }, 40_000);
});

/** Answers every dialog the way a person filling in the form would, until the call ends. */
async function answerDialogs(rpc: RpcProcess, toolCallId: string): Promise<string[]> {
  const answered = new Set<string>();
  const asked: string[] = [];
  const typed: Record<string, string> = { "Your full, legal name": "Ada Lovelace", email: "ada@example.com", website: "https://ada.example", birth: "1815-12-10", "Favorite number": "7.5" };
  const until = Date.now() + 20_000;
  while (!rpc.ofType("tool_execution_end").some((frame) => frame.toolCallId === toolCallId)) {
    if (Date.now() > until) throw new Error("the call did not end");
    for (const frame of rpc.ofType("extension_ui_request")) {
      if (answered.has(frame.id) || !["confirm", "select", "input"].includes(frame.method)) continue;
      answered.add(frame.id);
      asked.push(`${frame.method}: ${frame.title}`);
      if (frame.method === "confirm") rpc.send({ type: "extension_ui_response", id: frame.id, confirmed: true });
      else if (frame.method === "select") rpc.send({ type: "extension_ui_response", id: frame.id, value: frame.options[0] });
      else {
        const key = Object.keys(typed).find((word) => String(frame.title).includes(word));
        rpc.send({ type: "extension_ui_response", id: frame.id, value: key ? typed[key] : "" });
      }
    }
    await Bun.sleep(20);
  }
  return asked;
}

describe("elicitation", () => {
  test("over RPC the server's form is asked field by field, and the answers reach it", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "q1", name: "mcp__everything__trigger_elicitation_request", arguments: {} }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--model", "fake/m", "--no-session"] });
    started.push(rpc);
    const from = rpc.mark();
    expect((await rpc.request({ type: "prompt", message: "ask me" })).success).toBe(true);
    const asked = await answerDialogs(rpc, "q1");
    await rpc.waitForEvent("agent_end", () => true, 20_000, from);
    expect(asked[0]).toBe('confirm: MCP server "everything" asks');
    expect(asked.length).toBeGreaterThan(5);
    const result = rpc.ofType("tool_execution_end").find((frame) => frame.toolCallId === "q1")!;
    const text = result.result.content.map((block: any) => block.text).join("\n");
    expect(text).toContain("User provided the requested information");
    expect(text).toContain("- Name: Ada Lovelace");
    expect(text).toContain("- Agreed to terms: true");
    expect(text).toContain("- Favorite Integer: 42");
    expect(text).toContain("- Favorite Number: 7.5");
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("in print mode nobody can be asked: the question is declined and the run goes on", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "q2", name: "mcp__everything__trigger_elicitation_request", arguments: {} }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "ask me"], { env: home.env, cwd: home.home, timeoutMs: 25_000 });
    expect(result.exitCode).toBe(0);
    expect(bodyText(server.requests.at(-1)!)).toContain("User declined to provide the requested information");
  }, 40_000);
});

describe("sampling", () => {
  test("over RPC the person is asked first, then the session's model answers the server; what that cost is the tool call's usage", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "s1", name: "mcp__everything__trigger_sampling_request", arguments: { prompt: "name a fruit", maxTokens: 50 } }] },
      { content: [{ type: "text", text: "plum pudding" }], usage: { input: 321, output: 7 } },
      { content: [{ type: "text", text: "done" }] },
    );
    const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--model", "fake/m", "--no-session"] });
    started.push(rpc);
    const from = rpc.mark();
    const before = server.requests.length;
    expect((await rpc.request({ type: "prompt", message: "sample" })).success).toBe(true);
    const asked = await answerDialogs(rpc, "s1");
    await rpc.waitForEvent("agent_end", () => true, 20_000, from);
    expect(asked).toEqual(['confirm: MCP server "everything" wants to use the model fake/m']);
    const sampling = server.requests[before + 1]!;
    expect(bodyText(sampling)).toContain("You are a helpful test server.");
    expect(bodyText(sampling)).toContain("name a fruit");
    const result = rpc.ofType("tool_execution_end").find((frame) => frame.toolCallId === "s1")!;
    expect(result.isError).toBe(false);
    expect(result.result.content[0].text).toContain("plum pudding");
    // The sampling's tokens roll up into the call that caused it (pi 1.x), and the session counts them.
    expect(result.result.usage).toMatchObject({ input: 321, output: 7 });
    const message = rpc.ofType("message_end").find((frame) => frame.message.role === "toolResult" && frame.message.toolCallId === "s1")!;
    expect(message.message.usage).toMatchObject({ input: 321, output: 7 });
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("in print mode nobody can be asked: the request is refused and the model is not used for it", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "s2", name: "mcp__everything__trigger_sampling_request", arguments: { prompt: "name a fruit" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const before = server.requests.length;
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "sample"], { env: home.env, cwd: home.home, timeoutMs: 25_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("done\n");
    expect(server.requests.length - before).toBe(2);
    expect(bodyText(server.requests.at(-1)!)).toContain("did not allow MCP server");
  }, 40_000);
});
