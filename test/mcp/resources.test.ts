/**
 * MCP resources for the model, through the binary: a server with resources gets one
 * more tool, `mcp__<server>__read_resource`, whose description lists them; the model
 * reads one and its text reaches the model; a URI the server does not know is an error
 * result that says so; a server without resources gets no such tool.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { bodyText, offeredTools, stdioServer, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome([{ id: "m" }]);
const { home, server } = fixture;
const events = join(home.home, "events.log");
writeMcpJson(join(home.agentDir, "mcp.json"), {
  docs: stdioServer(events, { MCP_NAME: "docs", MCP_RESOURCES: "1" }),
  plain: stdioServer(events, { MCP_NAME: "plain" }),
});
afterAll(() => fixture.cleanup());
beforeEach(() => server.clearScript());

const run = (args: string[]) => runXcsh(["-p", "--model", "fake/m", "--no-session", ...args], { env: home.env, cwd: home.home, timeoutMs: 20_000 });

describe("MCP resources for the model", () => {
  test("the model reads a resource with the server's read_resource tool and gets its text", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "c1", name: "mcp__docs__read_resource", arguments: { uri: "file:///docs/guide.md" } }] },
      { content: [{ type: "text", text: "read it" }] },
    );
    const result = await run(["what does the guide say?"]);
    expect(result.exitCode).toBe(0);
    const [first, second] = server.requests.slice(-2);
    const offered = offeredTools(first);
    expect(offered).toContain("mcp__docs__read_resource");
    expect(offered).not.toContain("mcp__plain__read_resource");
    const reader = first.body.tools.find((tool: any) => tool.function.name === "mcp__docs__read_resource");
    expect(reader.function.description).toContain("memo://notes/today");
    expect(reader.function.parameters.required).toEqual(["uri"]);
    expect(bodyText(second)).toContain("The secret word is marmalade.");
  }, 30_000);

  test("a URI the server does not have is an error result naming it", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "c1", name: "mcp__docs__read_resource", arguments: { uri: "memo://nope" } }] },
      { content: [{ type: "text", text: "ok" }] },
    );
    const result = await run(["read it"]);
    expect(result.exitCode).toBe(0);
    const sent = bodyText(server.requests.at(-1)!);
    expect(sent).toContain("memo://nope");
    expect(sent).toMatch(/not found/i);
  }, 30_000);
});
