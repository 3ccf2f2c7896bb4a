/**
 * How MCP tools reach the model (pi 1.6.0's `exposure` / `toolExposure`), through the
 * built binary and the repo's test server: the schema the model gets is the server's
 * own; without `exposure` the tools are codemode's (found with searchTools(), not
 * declared); `deferred` tools are found with tool_search and declared from the next
 * call on; `hidden` and per-tool patterns; the first prompt does not wait for a server
 * it would not declare; and what a large server costs in input under each exposure.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { createTestServer } from "./support/test-server.ts";
import { bodyText, offeredTools, readEvents, stdioServer, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
const userFile = join(home.home, "mcp-under-test.json");
afterAll(() => fixture.cleanup());
beforeEach(() => server.clearScript());

let count = 0;
function freshDir(): string {
  const cwd = join(home.home, `e${++count}`);
  mkdirSync(cwd, { recursive: true });
  return cwd;
}

/** One print-mode run with `servers` as its only MCP config. */
function run(servers: Record<string, unknown>, prompt: string, extra: string[] = []) {
  const cwd = freshDir();
  const file = join(cwd, "mcp.json");
  writeMcpJson(file, servers);
  return runXcsh(["-p", "--model", "fake/m", "--no-session", "--no-mcp", "--mcp-config", file, ...extra, prompt], { env: home.env, cwd, timeoutMs: 25_000 });
}

/** The test server's entry without the fixture's `direct`: pi's default exposure. */
function plainServer(events: string, env: Record<string, string> = {}): Record<string, unknown> {
  const { exposure: _direct, ...entry } = stdioServer(events, env);
  return entry;
}

/** What the server itself lists, asked in-process over the SDK. */
async function serverToolSchemas(): Promise<Map<string, Record<string, unknown>>> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const mcp = createTestServer("t");
  await mcp.connect(serverSide);
  const client = new Client({ name: "test", version: "1" });
  await client.connect(clientSide);
  const { tools } = await client.listTools();
  await client.close();
  return new Map(tools.map((tool) => [tool.name, tool.inputSchema as Record<string, unknown>]));
}

function toolResultTexts(request: { body: any }): string {
  return (request.body.messages ?? [])
    .filter((message: any) => message.role === "tool")
    .map((message: any) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)))
    .join("\n");
}

describe("MCP tool exposure", () => {
  test("a direct tool reaches the model with the server's own input schema, `required` and all", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const result = await run({ t: stdioServer(join(home.home, "schema.log")) }, "hi");
    expect(result.exitCode).toBe(0);
    const offered = new Map<string, any>(server.requests.at(-1)!.body.tools.map((tool: any) => [tool.function.name, tool.function.parameters]));
    const own = await serverToolSchemas();
    expect(own.size).toBeGreaterThan(5);
    for (const [name, schema] of own) {
      const { $schema: _marker, ...expected } = schema;
      expect({ name, schema: offered.get(`mcp__t__${name}`) }).toEqual({ name, schema: expected });
    }
    expect(offered.get("mcp__t__echo").required).toEqual(["text"]);
  }, 30_000);

  test("without `exposure` the tools are codemode's: not declared, not listed, found and called by a script", async () => {
    const script = [
      'const found = await searchTools("echoes text back");',
      'const said = await tools.mcp__t__echo({ text: "marmalade" });',
      "return JSON.stringify({ first: found[0].name, said });",
    ].join("\n");
    server.enqueue(
      { content: [{ type: "toolCall", id: "c1", name: "codemode", arguments: { code: script } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const result = await run({ t: { ...plainServer(join(home.home, "codemode.log")), description: "Echoes words and draws pictures" } }, "use the server");
    expect(result.exitCode).toBe(0);
    const [first, second] = server.requests.slice(-2);
    // The system prompt names the server, what it offers and how to reach its tools.
    const system = first.body.messages[0].content as string;
    expect(system).toContain("<mcp_servers>");
    expect(system).toContain("- t: Echoes words and draws pictures");
    expect(system).toContain("searchTools()");
    const offered = offeredTools(first);
    // codemode came on by itself, for the server's tools; none of them is declared or listed in its description.
    expect(offered).toContain("codemode");
    expect(offered.filter((name) => name.startsWith("mcp__"))).toEqual([]);
    expect(bodyText(first)).not.toContain("mcp__t__echo");
    expect(toolResultTexts(second)).toContain("mcp__t__echo");
    expect(toolResultTexts(second)).toContain("marmalade");
  }, 30_000);

  test("deferred tools are found with tool_search and declared from the next call on", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "s1", name: "tool_search", arguments: { query: "echo the text back" } }] },
      { content: [{ type: "toolCall", id: "e1", name: "mcp__t__echo", arguments: { text: "quince" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const result = await run({ t: { ...plainServer(join(home.home, "deferred.log")), exposure: "deferred" } }, "find a tool");
    expect(result.exitCode).toBe(0);
    const [first, second, third] = server.requests.slice(-3);
    expect(offeredTools(first)).toContain("tool_search");
    expect(first.body.messages[0].content).toContain("load them with tool_search");
    expect(offeredTools(first).filter((name) => name.startsWith("mcp__"))).toEqual([]);
    expect(toolResultTexts(second)).toContain("mcp__t__echo");
    expect(offeredTools(second)).toContain("mcp__t__echo");
    expect(offeredTools(second).filter((name) => name.startsWith("mcp__")).length).toBeLessThanOrEqual(5);
    // The loaded tool's declaration is the server's, schema and all.
    const echo = second.body.tools.find((tool: any) => tool.function.name === "mcp__t__echo");
    expect(echo.function.parameters.required).toEqual(["text"]);
    expect(toolResultTexts(third)).toContain("quince");
  }, 30_000);

  test("tools tool_search loaded stay declared when the session is resumed", async () => {
    const cwd = freshDir();
    const file = join(cwd, "mcp.json");
    writeMcpJson(file, { t: { ...plainServer(join(home.home, "resume.log")), exposure: "deferred" } });
    const runIn = (args: string[]) => runXcsh(["-p", "--model", "fake/m", "--no-mcp", "--mcp-config", file, ...args], { env: home.env, cwd, timeoutMs: 25_000 });
    server.enqueue(
      { content: [{ type: "toolCall", id: "s1", name: "tool_search", arguments: { query: "echo the text back", limit: 1 } }] },
      { content: [{ type: "text", text: "found it" }] },
    );
    expect((await runIn(["find the echo tool"])).exitCode).toBe(0);
    server.enqueue({ content: [{ type: "text", text: "still here" }] });
    expect((await runIn(["--continue", "use it"])).exitCode).toBe(0);
    expect(offeredTools(server.requests.at(-1)!)).toContain("mcp__t__echo");
    server.enqueue({ content: [{ type: "text", text: "new" }] });
    expect((await runIn(["a new session"])).exitCode).toBe(0);
    expect(offeredTools(server.requests.at(-1)!)).not.toContain("mcp__t__echo");
  }, 40_000);

  test("`hidden` with a toolExposure pattern: only the matching tool is declared, the rest cannot be reached", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "c1", name: "codemode", arguments: { code: "return await tools.mcp__t__getenv({ name: 'HOME' });" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const result = await run({ t: { ...plainServer(join(home.home, "hidden.log")), exposure: "hidden", toolExposure: { "ec*": "direct", picture: "codemode" } } }, "hi", ["--tools", "+codemode"]);
    expect(result.exitCode).toBe(0);
    const [first, second] = server.requests.slice(-2);
    expect(offeredTools(first).filter((name) => name.startsWith("mcp__"))).toEqual(["mcp__t__echo"]);
    // picture (codemode by name) is there for scripts; getenv (hidden) is not.
    expect(toolResultTexts(second)).toContain("tools.mcp__t__getenv does not exist");
    expect(toolResultTexts(second)).toContain("mcp__t__picture");
  }, 30_000);

  test("codemode left out by --tools: the server's tools cannot be reached, and that is said once", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const result = await run({ t: plainServer(join(home.home, "unreached.log")) }, "hi", ["--tools", "read,bash"]);
    expect(result.exitCode).toBe(0);
    expect(offeredTools(server.requests.at(-1)!)).toEqual(["read", "bash"]);
    expect(result.stderr.split("neither codemode nor tool_search is on")).toHaveLength(2);
  }, 30_000);

  test('"autoEnableCodemode": false beside mcpServers keeps codemode off, and says the tools cannot be reached', async () => {
    const cwd = freshDir();
    const file = join(cwd, "mcp.json");
    await Bun.write(file, JSON.stringify({ autoEnableCodemode: false, mcpServers: { t: plainServer(join(home.home, "auto.log")) } }));
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "--no-mcp", "--mcp-config", file, "hi"], { env: home.env, cwd, timeoutMs: 25_000 });
    expect(result.exitCode).toBe(0);
    expect(offeredTools(server.requests.at(-1)!)).toEqual(["read", "bash", "edit", "write"]);
    expect(result.stderr).toContain("neither codemode nor tool_search is on");
  }, 30_000);

  test("the first prompt waits for a server that declares tools, not for one reached only by scripts", async () => {
    // The direct server's wait is sat through, so it is short; the other's is longer than the run may take.
    const mute = (startupTimeout: number, exposure?: string) => ({
      command: "bash",
      args: ["-c", "exec sleep 30"],
      startupTimeout,
      ...(exposure ? { exposure } : {}),
    });
    server.enqueue({ content: [{ type: "text", text: "a" }] });
    const direct = await run({ mute: mute(1, "direct") }, "hi");
    expect(direct.stderr).toContain('MCP server "mute" is still connecting after 1 s');
    server.enqueue({ content: [{ type: "text", text: "b" }] });
    const started = Date.now();
    const indirect = await run({ mute: mute(2) }, "hi");
    expect(indirect.exitCode).toBe(0);
    expect(indirect.stdout).toBe("b\n");
    expect(indirect.stderr).not.toContain("still connecting");
    expect(Date.now() - started).toBeLessThan(2000);
  }, 30_000);

  test("a server of 40 tools: what one request costs under direct and deferred exposure", async () => {
    const many = (exposure: string) => ({ big: { ...plainServer(join(home.home, "many.log"), { MCP_MANY: "40" }), exposure } });
    server.enqueue({ content: [{ type: "text", text: "a" }] });
    expect((await run(many("direct"), "hi")).exitCode).toBe(0);
    const direct = server.requests.at(-1)!;
    server.enqueue({ content: [{ type: "text", text: "b" }] });
    expect((await run(many("deferred"), "hi")).exitCode).toBe(0);
    const deferred = server.requests.at(-1)!;
    expect(offeredTools(direct).filter((name) => name.startsWith("mcp__big__record_")).length).toBe(40);
    expect(offeredTools(deferred).filter((name) => name.startsWith("mcp__"))).toEqual([]);
    const size = (request: { body: unknown }) => JSON.stringify(request.body).length;
    // Estimated input tokens: characters / 4, the usual rule of thumb for English and JSON.
    const tokens = { direct: Math.round(size(direct) / 4), deferred: Math.round(size(deferred) / 4) };
    console.error(`input of one request with 40 MCP tools, estimated tokens (chars/4): ${JSON.stringify(tokens)}`);
    expect(tokens.direct - tokens.deferred).toBeGreaterThan(40 * 100);
  }, 40_000);
});

void readEvents;
