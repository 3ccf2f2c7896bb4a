/**
 * A remote MCP server whose connection drops is connected again by the next call of
 * one of its tools, as a crashed stdio server is started again (pi 1.6.0: "A dropped
 * connection is shown as disconnected and reconnects on the next call"). The test's
 * own HTTP server (the SDK's server transports) is stopped and started again on the
 * same port between prompts of one RPC session of the built binary. Prompts (as slash
 * commands) and resources reconnect the same way.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome } from "../support/cli.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";
import { writeMcpJson } from "./support/mcp-fixture.ts";
import { startHttpMcpServer, type HttpMcpServer } from "./support/http-server.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
let web: HttpMcpServer | undefined;
let rpc: RpcProcess | undefined;
afterAll(() => fixture.cleanup());
beforeEach(() => server.clearScript());
afterEach(async () => {
  await rpc?.close();
  await web?.close();
  rpc = web = undefined;
});

/** One prompt whose turn calls `tool` with `text`; resolves to the tool result the model read back. */
async function callEcho(tool: string, text: string): Promise<string> {
  server.enqueue({ content: [{ type: "toolCall", id: `c-${text}`, name: tool, arguments: { text } }] }, { content: [{ type: "text", text: "done" }] });
  const from = rpc!.mark();
  await rpc!.request({ type: "prompt", message: `echo ${text}` });
  await rpc!.waitForEvent("agent_end", undefined, 20_000, from);
  const messages = server.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
  const result = messages.filter((message) => message.role === "tool").at(-1)!;
  return typeof result.content === "string" ? result.content : JSON.stringify(result.content);
}

async function startSession(path: string): Promise<number> {
  web = await startHttpMcpServer("web", { resources: true });
  const port = Number(new URL(web.url).port);
  const type = path === "/sse" ? "sse" : "http";
  writeMcpJson(join(home.home, "remote.json"), { web: { type, url: `${web.url}${path}`, exposure: "direct" } });
  rpc = startRpc({ env: home.env, cwd: home.home, args: ["--model", "fake/m", "--no-session", "--no-mcp", "--mcp-config", join(home.home, "remote.json")] });
  return port;
}

async function restartServer(port: number): Promise<void> {
  await web!.close();
  web = await startHttpMcpServer("web", { port, resources: true });
}

/** The text of the last user message the model was sent. */
function lastUserText(): string {
  const messages = server.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
  const user = messages.filter((message) => message.role === "user").at(-1)!;
  return typeof user.content === "string" ? user.content : JSON.stringify(user.content);
}

/** Stops the server, lets a call find it gone (it shows as disconnected), and starts it again. */
async function dropAndReturn(port: number): Promise<void> {
  expect(await callEcho("mcp__web__echo", "first")).toBe("web echo: first");
  await web!.close();
  expect(await callEcho("mcp__web__echo", "nobody")).toContain("on the next call");
  web = await startHttpMcpServer("web", { port, resources: true });
}

describe("a remote server that drops", () => {
  test("Streamable HTTP: restarted between calls (the session forgotten), the next call connects again and succeeds", async () => {
    const port = await startSession("/mcp");
    expect(await callEcho("mcp__web__echo", "first")).toBe("web echo: first");
    await restartServer(port);
    const initializes = web!.headers.length;
    expect(await callEcho("mcp__web__echo", "second")).toBe("web echo: second");
    // A new session: the new server saw a handshake without a session id.
    expect(web!.headers.slice(initializes).some((headers) => headers["mcp-session-id"] === undefined)).toBe(true);
  }, 40_000);

  test("Streamable HTTP: down during a call, the call fails saying so; up again, the next call reconnects", async () => {
    const port = await startSession("/mcp");
    expect(await callEcho("mcp__web__echo", "first")).toBe("web echo: first");
    await web!.close();
    const failed = await callEcho("mcp__web__echo", "nobody");
    expect(failed).toStartWith('MCP server "web"');
    expect(failed).toContain("refused the connection");
    expect(failed).toContain("on the next call");
    // Still down: the tool stays declared, and the call says so again.
    expect(await callEcho("mcp__web__echo", "still nobody")).toContain("on the next call");
    web = await startHttpMcpServer("web", { port });
    expect(await callEcho("mcp__web__echo", "third")).toBe("web echo: third");
    const offered = (server.requests.at(-1)!.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
    expect(offered).toContain("mcp__web__echo");
  }, 40_000);

  test("SSE: restarted between calls, the next call connects again and succeeds", async () => {
    const port = await startSession("/sse");
    expect(await callEcho("mcp__web__echo", "first")).toBe("web echo: first");
    await restartServer(port);
    expect(await callEcho("mcp__web__echo", "second")).toBe("web echo: second");
  }, 40_000);

  test("a prompt command of a disconnected server connects it again and its text reaches the model", async () => {
    const port = await startSession("/mcp");
    await dropAndReturn(port);
    server.enqueue({ content: [{ type: "text", text: "reviewed" }] });
    const from = rpc!.mark();
    await rpc!.request({ type: "prompt", message: "/mcp__web__review the parser" });
    await rpc!.waitForEvent("agent_end", undefined, 20_000, from);
    expect(lastUserText()).toContain("Please review the parser carefully (from web).");
  }, 40_000);

  test("the resource reader of a disconnected server connects it again and reads", async () => {
    const port = await startSession("/mcp");
    await dropAndReturn(port);
    server.enqueue({ content: [{ type: "toolCall", id: "r1", name: "mcp__web__read_resource", arguments: { uri: "file:///docs/guide.md" } }] }, { content: [{ type: "text", text: "read" }] });
    const from = rpc!.mark();
    await rpc!.request({ type: "prompt", message: "read the guide" });
    await rpc!.waitForEvent("agent_end", undefined, 20_000, from);
    const messages = server.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
    expect(JSON.stringify(messages.filter((message) => message.role === "tool").at(-1)!.content)).toContain("The secret word is marmalade.");
  }, 40_000);

  test("a prompt command after the server restarted (its session forgotten) is asked again on a new session", async () => {
    const port = await startSession("/mcp");
    expect(await callEcho("mcp__web__echo", "first")).toBe("web echo: first");
    await restartServer(port);
    server.enqueue({ content: [{ type: "text", text: "reviewed" }] });
    const from = rpc!.mark();
    await rpc!.request({ type: "prompt", message: "/mcp__web__review the lexer" });
    await rpc!.waitForEvent("agent_end", undefined, 20_000, from);
    expect(lastUserText()).toContain("Please review the lexer carefully (from web).");
  }, 40_000);
});
