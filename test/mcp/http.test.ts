/**
 * Remote MCP servers: the test server in this process over Streamable HTTP and over
 * SSE; xcsh connects with the configured headers (variables expanded), the model calls
 * the tools, and the results reach the fake model. A server that refuses the client
 * (401) is reported with what to do.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createServer } from "node:http";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { bodyText, writeMcpJson } from "./support/mcp-fixture.ts";
import { startHttpMcpServer } from "./support/http-server.ts";

ensureBinary();
const fixture = await makeFakeModelHome([{ id: "m", input: ["text", "image"] }]);
const { home, server } = fixture;
const web = await startHttpMcpServer("web");
afterAll(async () => {
  await web.close();
  await fixture.cleanup();
});
beforeEach(() => server.clearScript());

const run = (args: string[], env: Record<string, string> = {}) =>
  runXcsh(["-p", "--model", "fake/m", "--no-session", ...args], { env: { ...home.env, ...env }, cwd: home.home, timeoutMs: 20_000 });

describe("remote MCP servers", () => {
  test("over Streamable HTTP, with the configured headers: the model's call and its image come back", async () => {
    writeMcpJson(join(home.agentDir, "mcp.json"), { web: { type: "http", url: `${web.url}/mcp`, headers: { Authorization: "Bearer ${XCSH_TEST_TOKEN}" }, exposure: "direct" } });
    server.enqueue(
      { content: [{ type: "toolCall", id: "c1", name: "mcp__web__echo", arguments: { text: "over http" } }, { type: "toolCall", id: "c2", name: "mcp__web__picture", arguments: {} }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const result = await run(["hi"], { XCSH_TEST_TOKEN: "s3cret" });
    expect(result.exitCode).toBe(0);
    const sent = bodyText(server.requests.at(-1)!);
    expect(sent).toContain("web echo: over http");
    expect(sent).toContain("here is a red pixel");
    expect(web.headers.some((headers) => headers.authorization === "Bearer s3cret")).toBe(true);
  }, 30_000);

  test("over SSE", async () => {
    writeMcpJson(join(home.agentDir, "mcp.json"), { old: { type: "sse", url: `${web.url}/sse`, exposure: "direct" } });
    server.enqueue({ content: [{ type: "toolCall", id: "c1", name: "mcp__old__echo", arguments: { text: "over sse" } }] }, { content: [{ type: "text", text: "done" }] });
    const result = await run(["hi"]);
    expect(result.exitCode).toBe(0);
    expect(bodyText(server.requests.at(-1)!)).toContain("web echo: over sse");
  }, 30_000);

  test("a server that answers 401 is reported with how to give it a token", async () => {
    const refusing = createServer((_request, response) => response.writeHead(401, { "content-type": "text/plain" }).end("unauthorized"));
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    const { port } = refusing.address() as { port: number };
    writeMcpJson(join(home.agentDir, "mcp.json"), { locked: { url: `http://127.0.0.1:${port}/mcp`, exposure: "direct" } });
    server.enqueue({ content: [{ type: "text", text: "still works" }] });
    const result = await run(["hi"]);
    refusing.close();
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("still works\n");
    const report = result.stderr.split("\n").find((line) => line.includes('MCP server "locked"'));
    expect(report).toContain("could not connect");
    expect(report).toContain('"Authorization": "Bearer ${TOKEN}"');
  }, 30_000);
});
