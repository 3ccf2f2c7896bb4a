/**
 * The MCP servers an editor sends with ACP's session/new: a stdio one (xcsh spawns
 * the test server) and an http one (the test server in this process) connect for
 * that session only. The model's calls reach them, a tool that may change things
 * asks permission like edit and bash do, their prompts join the session's commands,
 * and closing the session ends the stdio server.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createAcpFixture } from "../modes/acp/support/acp-harness.ts";
import { allGone, bodyText, offeredTools, startedPids, TEST_SERVER } from "./support/mcp-fixture.ts";
import { startHttpMcpServer } from "./support/http-server.ts";

const fixture = await createAcpFixture();
const web = await startHttpMcpServer("web");
afterAll(async () => {
  await web.close();
  await fixture.cleanup();
});
beforeEach(() => fixture.fake.server.clearScript());

describe("ACP clients' MCP servers", () => {
  test("initialize advertises http and sse MCP servers", async () => {
    const client = fixture.spawn();
    const answer = await client.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    expect(answer.agentCapabilities?.mcpCapabilities).toMatchObject({ http: true, sse: true });
    expect(await client.close()).toBe(0);
  });

  test("session/new's servers serve that session only; their prompts are commands; closing the session ends them", async () => {
    const events = join(fixture.cwd, "acp-events.log");
    const client = fixture.spawn();
    await client.initialize();
    const { sessionId } = await client.agent.request("session/new", {
      cwd: fixture.cwd,
      mcpServers: [
        { name: "local", command: process.execPath, args: [TEST_SERVER], env: [{ name: "MCP_EVENTS", value: events }, { name: "MCP_NAME", value: "local" }] },
        { type: "http", name: "web", url: `${web.url}/mcp`, headers: [{ name: "X-Editor", value: "test-editor" }] },
      ],
    });
    const server = fixture.fake.server;
    server.enqueue(
      {
        content: [
          { type: "toolCall", id: "c1", name: "mcp__local__echo", arguments: { text: "from the editor" } },
          { type: "toolCall", id: "c2", name: "mcp__web__picture", arguments: {} },
        ],
      },
      { content: [{ type: "text", text: "both answered" }] },
    );
    expect((await client.prompt(sessionId, "use the editor's servers")).stopReason).toBe("end_turn");
    const sent = bodyText(server.requests.at(-1)!);
    expect(sent).toContain("local echo: from the editor");
    expect(sent).toContain("here is a red pixel");
    expect(web.headers.some((headers) => headers["x-editor"] === "test-editor")).toBe(true);
    // echo may change things (no readOnlyHint): asked; picture says it only reads: not asked.
    expect(client.permissionRequests.map((request) => request.toolCall.title)).toEqual([expect.stringContaining("mcp__local__echo")]);

    const commands = await client.waitFor(
      () => client.ofKind(sessionId, "available_commands_update").find((update) => update.availableCommands.some((command) => command.name === "mcp__local__review")),
      "the MCP prompt in the command list",
    );
    expect(commands.availableCommands.map((command) => command.name)).toContain("mcp__web__review");

    const other = await client.agent.request("session/new", { cwd: fixture.cwd, mcpServers: [] });
    server.enqueue({ content: [{ type: "text", text: "plain" }] });
    await client.prompt(other.sessionId, "and here?");
    expect(offeredTools(server.requests.at(-1)!).filter((name) => name.startsWith("mcp__local__") || name.startsWith("mcp__web__"))).toEqual([]);

    const pids = startedPids(events);
    expect(pids).toHaveLength(1);
    await client.agent.request("session/close", { sessionId });
    expect(await allGone(pids, 3_000)).toBe(true);
    expect(await client.close()).toBe(0);
  }, 40_000);

  test("a client's server that cannot start is a notice, and the session works without it", async () => {
    const client = fixture.spawn();
    await client.agent.request("initialize", { protocolVersion: 1, clientCapabilities: { session: { notices: {} } } });
    const { sessionId } = await client.agent.request("session/new", {
      cwd: fixture.cwd,
      mcpServers: [{ name: "missing", command: join(fixture.cwd, "no-such-program"), args: [], env: [] }],
    });
    fixture.fake.server.enqueue({ content: [{ type: "text", text: "still here" }] });
    expect((await client.prompt(sessionId, "hi")).stopReason).toBe("end_turn");
    const notice = await client.waitFor(
      () => client.updatesOf(sessionId).find((update) => update.sessionUpdate === "notice" && String(update.description).includes('"missing"')),
      "a notice about the server",
    );
    expect(notice).toMatchObject({ severity: "warning", title: "MCP server" });
    expect(String((notice as { description?: string }).description)).toContain("could not connect");
    expect(client.stderr).toContain('MCP server "missing"');
    expect(await client.close()).toBe(0);
  }, 30_000);
});
