/**
 * MCP tools inside codemode scripts (pi 1.6.0's contract): a call resolves to the
 * server's CallToolResult — content, structuredContent and isError, an error result
 * too — and scripts find tools by server: describeNamespace(), the `namespace`
 * option of searchTools(), and the server's `description` in the ranking. Through
 * the built binary, the repo's MCP test server and the fake model.
 */
import { afterAll, beforeEach, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { stdioServer, writeMcpJson } from "../mcp/support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
afterAll(() => fixture.cleanup());
beforeEach(() => server.clearScript());

let count = 0;

/** One print-mode run whose model runs `code` as a codemode script; resolves to the script's result text. */
async function runScript(servers: Record<string, unknown>, code: string): Promise<string> {
  const cwd = join(home.home, `m${++count}`);
  mkdirSync(cwd, { recursive: true });
  const file = join(cwd, "mcp.json");
  writeMcpJson(file, servers);
  server.enqueue({ content: [{ type: "toolCall", id: "c1", name: "codemode", arguments: { code } }] }, { content: [{ type: "text", text: "done" }] });
  const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "--no-mcp", "--mcp-config", file, "go"], { env: home.env, cwd, timeoutMs: 25_000 });
  expect(result.exitCode).toBe(0);
  const messages = server.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
  const tool = messages.filter((message) => message.role === "tool").at(-1)!;
  return typeof tool.content === "string" ? tool.content : JSON.stringify(tool.content);
}

/** The test server as pi's default exposure has it (codemode). */
function plain(name: string, extra: Record<string, unknown> = {}, env: Record<string, string> = {}): Record<string, unknown> {
  const { exposure: _direct, ...entry } = stdioServer(join(home.home, `${name}-${count}.log`), env);
  return { ...entry, ...extra };
}

/** The JSON a script returned, from its result text. */
const output = (text: string) => JSON.parse(text.split("Output:\n")[1]);

test("MCP calls resolve to their CallToolResult: content, structuredContent, and isError without rejecting", async () => {
  const text = await runScript({ t: plain("t") }, [
    'const echo = await tools.mcp__t__echo({ text: "plum" });',
    "const structured = await tools.mcp__t__structured({});",
    "const failed = await tools.mcp__t__fail({});",
    "return { echo, structured: structured.structuredContent, failed };",
  ].join("\n"));
  expect(text).toStartWith("Script completed");
  const value = output(text);
  expect(value.echo.isError).toBe(false);
  expect(value.echo.content).toEqual([{ type: "text", text: expect.stringContaining("plum") }]);
  expect(value.structured).toEqual({ answer: 42, unit: "widgets" });
  expect(value.failed).toEqual({ content: [{ type: "text", text: "the widget is broken" }], isError: true });
}, 30_000);

test("describeNamespace() and searchTools({ namespace }) find tools by server (`mcp__<server>` or `<server>`), tool names listed; the server's description ranks", async () => {
  const text = await runScript({ t: plain("t", { description: "Marmalade recipes and jam" }), u: plain("u", {}, { MCP_INSTRUCTIONS: "Call echo before anything else." }) }, [
    'const ns = await describeNamespace("t");',
    'const other = await describeNamespace("mcp__u");',
    'const within = await searchTools("echo", { namespace: "u" });',
    'const byServer = await searchTools("marmalade");',
    'return { name: ns.name, description: ns.description, instructions: [ns.instructions, other.instructions], count: ns.tools.length, anyOther: ns.tools.some((name) => !name.startsWith("mcp__t__")), within: within.map((tool) => tool.name), top: byServer[0].name.split("__")[1], none: await describeNamespace("nope") === undefined };',
  ].join("\n"));
  expect(text).toStartWith("Script completed");
  const value = output(text);
  // pi 1.6.0's name for a server's group, found by the server's own name too.
  expect(value.name).toBe("mcp__t");
  expect(value.description).toBe("Marmalade recipes and jam");
  expect(value.instructions).toEqual([null, "Call echo before anything else."]);
  expect(value.count).toBeGreaterThan(3);
  expect(value.anyOther).toBe(false);
  expect(value.within).toEqual(["mcp__u__echo"]);
  expect(value.top).toBe("t");
  expect(value.none).toBe(true);
}, 30_000);
