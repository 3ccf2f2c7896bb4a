/**
 * A busy remote MCP server (HTTP 408, 429, 5xx) is asked again where asking again is
 * safe (pi 1.6.0: "transient statuses (408, 429, and 5xx) are retried twice"): the
 * handshake, lists, resource reads, and a tool call refused with 429; a tool call
 * answered 5xx is not sent again, since the tool may have run, and the model is told.
 * The test's own HTTP server (test/mcp/support/http-server.ts) refuses a set number of
 * messages; the built binary runs one prompt against it.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { startRpc } from "../support/rpc-harness.ts";
import { waitUntil, writeMcpJson } from "./support/mcp-fixture.ts";
import { startHttpMcpServer, type HttpMcpOptions, type HttpMcpServer } from "./support/http-server.ts";

ensureBinary();
const fixture = await makeFakeModelHome([{ id: "m" }]);
const { home, server } = fixture;
let web: HttpMcpServer | undefined;
afterAll(() => fixture.cleanup());
beforeEach(() => server.clearScript());
afterEach(async () => {
  await web?.close();
  web = undefined;
});

/** Starts the refusing server, declares it, and runs one prompt whose turn makes `call`; returns the run and the tool result the model read. */
async function runWith(refuse: HttpMcpOptions["refuse"], call?: { name: string; arguments: Record<string, unknown> }) {
  web = await startHttpMcpServer("web", { refuse, resources: true });
  writeMcpJson(join(home.agentDir, "mcp.json"), { web: { type: "http", url: `${web.url}/mcp`, exposure: "direct" } });
  if (call) server.enqueue({ content: [{ type: "toolCall", id: "c1", ...call }] }, { content: [{ type: "text", text: "done" }] });
  else server.enqueue({ content: [{ type: "text", text: "done" }] });
  const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "hi"], { env: home.env, cwd: home.home, timeoutMs: 30_000 });
  const messages = (server.requests.at(-1)?.body.messages ?? []) as { role: string; content: unknown }[];
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  const toolText = tool ? (typeof tool.content === "string" ? tool.content : JSON.stringify(tool.content)) : undefined;
  return { result, toolText, seen: (method: string) => web!.messages.filter((message) => message.method === method) };
}

const echo = { name: "mcp__web__echo", arguments: { text: "again" } };

describe("a remote server that answers 408, 429 or 5xx", () => {
  test("a handshake answered 503 twice succeeds on the third attempt, and the tool runs", async () => {
    const { result, toolText, seen } = await runWith((method, earlier) => (method === "initialize" && earlier < 2 ? { status: 503 } : undefined), echo);
    expect(result.exitCode).toBe(0);
    expect(toolText).toBe("web echo: again");
    expect(seen("initialize")).toHaveLength(3);
  }, 40_000);

  test("a server that keeps answering 502 is reported with the status and the number of attempts", async () => {
    const { result, seen } = await runWith((method) => (method === "initialize" ? { status: 502, body: "bad gateway" } : undefined));
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("done\n");
    const report = result.stderr.split("\n").find((line) => line.includes('MCP server "web"'));
    expect(report).toContain("could not connect");
    expect(report).toContain("HTTP 502 (bad gateway), still after 3 attempts");
    expect(seen("initialize")).toHaveLength(3);
  }, 40_000);

  test("a tool list answered 429 with Retry-After is asked again after the wait the server named", async () => {
    const { toolText, seen } = await runWith((method, earlier) => (method === "tools/list" && earlier === 0 ? { status: 429, headers: { "retry-after": "1" } } : undefined), echo);
    expect(toolText).toBe("web echo: again");
    const lists = seen("tools/list");
    expect(lists).toHaveLength(2);
    // One second, the shortest Retry-After: more than the 250 ms xcsh waits when the server names none.
    expect(lists[1]!.at - lists[0]!.at).toBeGreaterThanOrEqual(900);
  }, 40_000);

  test("a 429 whose Retry-After asks for a minute is not waited for: it fails at once, saying how long was asked", async () => {
    const started = Date.now();
    const { result, seen } = await runWith((method) => (method === "initialize" ? { status: 429, headers: { "retry-after": "60" }, body: "slow down" } : undefined));
    expect(Date.now() - started).toBeLessThan(20_000);
    const report = result.stderr.split("\n").find((line) => line.includes('MCP server "web"'));
    expect(report).toContain("HTTP 429 (slow down; the server asks to wait 60 s), not sent again");
    expect(seen("initialize")).toHaveLength(1);
  }, 40_000);

  test("a garbage Retry-After (-1) means the usual waits, not 'at once', and escape sequences in the server's answer never reach the terminal", async () => {
    const body = "\x1b]52;c;aGk=\x07\x1b[2Jbad gateway";
    const { result, seen } = await runWith((method) => (method === "initialize" ? { status: 503, headers: { "retry-after": "-1" }, body } : undefined));
    const attempts = seen("initialize");
    expect(attempts).toHaveLength(3);
    // 250 ms and 1 s, the waits used when the server names none (Date.parse read "-1" as a date in 2001: no wait).
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(200);
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(900);
    const report = result.stderr.split("\n").find((line) => line.includes('MCP server "web"'));
    expect(report).toContain("HTTP 503 (bad gateway), still after 3 attempts");
    expect(result.stderr).not.toContain("\x1b");
  }, 40_000);

  test("a tool call refused with 429 is sent again and runs", async () => {
    const { toolText, seen } = await runWith((method, earlier) => (method === "tools/call" && earlier === 0 ? { status: 429 } : undefined), echo);
    expect(toolText).toBe("web echo: again");
    expect(seen("tools/call")).toHaveLength(2);
  }, 40_000);

  test("a tool call answered 503 is not sent again (the tool may have run), and the model is told why", async () => {
    const { toolText, seen } = await runWith((method) => (method === "tools/call" ? { status: 503, body: "overloaded" } : undefined), echo);
    expect(toolText).toContain('MCP server "web", tool echo: HTTP 503 (overloaded; the server may have run the tool), not sent again');
    expect(seen("tools/call")).toHaveLength(1);
  }, 40_000);

  test("a resource read answered 500 once is asked again and its text comes back", async () => {
    const { toolText, seen } = await runWith((method, earlier) => (method === "resources/read" && earlier === 0 ? { status: 500 } : undefined), {
      name: "mcp__web__read_resource",
      arguments: { uri: "file:///docs/guide.md" },
    });
    expect(toolText).toContain("# Guide");
    expect(seen("resources/read")).toHaveLength(2);
  }, 40_000);

  test("a tool call cancelled while it waits to be sent again (429, Retry-After) is not sent again", async () => {
    web = await startHttpMcpServer("web", { refuse: (method) => (method === "tools/call" ? { status: 429, headers: { "retry-after": "2" } } : undefined) });
    writeMcpJson(join(home.agentDir, "mcp.json"), { web: { type: "http", url: `${web.url}/mcp`, exposure: "direct" } });
    server.enqueue({ content: [{ type: "toolCall", id: "c1", ...echo }] }, { content: [{ type: "text", text: "stopped" }] });
    const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--model", "fake/m", "--no-session"] });
    try {
      const from = rpc.mark();
      await rpc.request({ type: "prompt", message: "echo" });
      const calls = () => web!.messages.filter((message) => message.method === "tools/call").length;
      await waitUntil(() => calls() === 1, 20_000, "the first tools/call");
      await rpc.request({ type: "abort" });
      await rpc.waitForEvent("agent_end", undefined, 20_000, from);
      // Past the 2 s the server asked for: still the one refused call.
      await Bun.sleep(2_500);
      expect(calls()).toBe(1);
    } finally {
      await rpc.close();
    }
  }, 40_000);
});
