/**
 * A server's sampling request, through the built binary in RPC mode, with the test
 * server's `sample` tool: its `modelPreferences` hint picks an available model that
 * it names (the priorities choosing among several), else the session's model answers;
 * its `includeContext` sends the results of earlier MCP tool calls — this server's or
 * every server's — in the system prompt. The person's dialog names the model and says
 * what context goes along.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome } from "../support/cli.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";
import { stdioServer, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome([
  { id: "m", cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 } },
  { id: "m2", cost: { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 } },
  { id: "pro-large", cost: { input: 5, output: 25, cacheRead: 0, cacheWrite: 0 } },
  { id: "pro-small", cost: { input: 0.1, output: 0.4, cacheRead: 0, cacheWrite: 0 } },
]);
const { home, server } = fixture;
const events = join(home.home, "events.log");
writeMcpJson(join(home.agentDir, "mcp.json"), {
  web: stdioServer(events, { MCP_NAME: "web", MCP_SAMPLE: "1" }),
  other: stdioServer(events, { MCP_NAME: "other" }),
});
let rpc: RpcProcess | undefined;
afterAll(() => fixture.cleanup());
beforeEach(() => server.clearScript());
afterEach(async () => {
  await rpc?.close();
  rpc = undefined;
});

/** Says yes to every confirm until the call ends; returns each dialog's title and message. */
async function allowSampling(toolCallId: string, from: number): Promise<{ title: string; message: string }[]> {
  const answered = new Set<string>();
  const asked: { title: string; message: string }[] = [];
  const until = Date.now() + 20_000;
  while (!rpc!.ofType("tool_execution_end").some((frame) => frame.toolCallId === toolCallId)) {
    if (Date.now() > until) throw new Error("the call did not end");
    for (const frame of rpc!.ofType("extension_ui_request", from)) {
      if (answered.has(frame.id) || frame.method !== "confirm") continue;
      answered.add(frame.id);
      asked.push({ title: frame.title, message: frame.message });
      rpc!.send({ type: "extension_ui_response", id: frame.id, confirmed: true });
    }
    await Bun.sleep(20);
  }
  return asked;
}

/** One prompt whose turn calls `tool`; the sampling (if any) is allowed. Returns the tool's text, the dialogs, and the model request the sampling made. */
async function call(tool: string, args: Record<string, unknown>, id: string, answer = "a fig") {
  server.enqueue({ content: [{ type: "toolCall", id, name: tool, arguments: args }] }, { content: [{ type: "text", text: answer }] }, { content: [{ type: "text", text: "done" }] });
  const from = rpc!.mark();
  const before = server.requests.length;
  await rpc!.request({ type: "prompt", message: `run ${id}` });
  const asked = await allowSampling(id, from);
  await rpc!.waitForEvent("agent_end", undefined, 20_000, from);
  const end = rpc!.ofType("tool_execution_end", from).find((frame) => frame.toolCallId === id)!;
  return { text: end.result.content[0].text as string, asked, sampling: server.requests[before + 1] };
}

function startSession(): void {
  rpc = startRpc({ env: home.env, cwd: home.home, args: ["--model", "fake/m", "--no-session"] });
}

describe("sampling preferences", () => {
  test("a hint that names an available model picks it; one that names none leaves the session's model", async () => {
    startSession();
    const named = await call("mcp__web__sample", { prompt: "name a fruit", hint: "m2" }, "s1");
    expect(named.asked.map((dialog) => dialog.title)).toEqual(['MCP server "web" wants to use the model fake/m2']);
    expect(named.sampling!.body.model).toBe("m2");
    expect(named.text).toBe("fake/m2: a fig");

    const unknown = await call("mcp__web__sample", { prompt: "name a fruit", hint: "gpt-9" }, "s2");
    expect(unknown.sampling!.body.model).toBe("m");
    expect(unknown.text).toBe("fake/m: a fig");
  }, 60_000);

  test("among the models a hint names, cost first takes the cheapest and intelligence first the dearest; the session's model wins when named", async () => {
    startSession();
    expect((await call("mcp__web__sample", { prompt: "quick", hint: "pro", cost: 1, intelligence: 0.2 }, "c1")).sampling!.body.model).toBe("pro-small");
    expect((await call("mcp__web__sample", { prompt: "deep", hint: "pro", intelligence: 1 }, "c2")).sampling!.body.model).toBe("pro-large");
    expect((await call("mcp__web__sample", { prompt: "deep", hint: "fake/", intelligence: 1 }, "c3")).sampling!.body.model).toBe("m");
  }, 60_000);

  test("includeContext sends earlier results of this server's tools, or of every server's, and the dialog says so", async () => {
    startSession();
    server.enqueue({ content: [{ type: "toolCall", id: "e1", name: "mcp__web__echo", arguments: { text: "marmalade-42" } }, { type: "toolCall", id: "e2", name: "mcp__other__echo", arguments: { text: "quince-7" } }] }, { content: [{ type: "text", text: "echoed" }] });
    const from = rpc!.mark();
    await rpc!.request({ type: "prompt", message: "echo twice" });
    await rpc!.waitForEvent("agent_end", undefined, 20_000, from);

    const none = await call("mcp__web__sample", { prompt: "what came before?" }, "x0");
    expect(JSON.stringify(none.sampling!.body)).not.toContain("marmalade-42");
    expect(none.asked[0]!.message).not.toContain("result");

    const own = await call("mcp__web__sample", { prompt: "what came before?", context: "thisServer" }, "x1");
    const ownBody = JSON.stringify(own.sampling!.body);
    expect(ownBody).toContain("web echo: marmalade-42");
    expect(ownBody).not.toContain("quince-7");
    // The echo and the first sample: both this server's.
    expect(own.asked[0]!.message).toContain("with 2 results of its tool calls in this session");

    const all = await call("mcp__web__sample", { prompt: "what came before?", context: "allServers" }, "x2");
    const allBody = JSON.stringify(all.sampling!.body);
    expect(allBody).toContain("web echo: marmalade-42");
    expect(allBody).toContain("other echo: quince-7");
    expect(all.asked[0]!.message).toContain("with 4 results of MCP servers' tool calls in this session");
  }, 60_000);
});
