/**
 * `/mcp` outside the terminal, through the built binary: in RPC mode the prompt's response
 * carries the servers' rows and text (and a `notify` extension_ui_request shows it, as
 * pi's hosts expect); `/mcp reconnect <name>` connects a fixed server afresh; in ACP the
 * answer is an agent message and no run starts; with -p it is printed. The model is never asked.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { startRpc } from "../support/rpc-harness.ts";
import { createAcpFixture } from "../modes/acp/support/acp-harness.ts";
import { stdioServer, TEST_SERVER, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
const acp = await createAcpFixture();
afterAll(async () => {
  await fixture.cleanup();
  await acp.cleanup();
});

describe("/mcp over RPC", () => {
  test("lists each server's state and error in the response; reconnect connects a fixed one", async () => {
    const mcpJson = join(home.agentDir, "mcp.json");
    const events = join(home.home, "cmd.log");
    writeMcpJson(mcpJson, { good: stdioServer(events, { MCP_NAME: "good" }), bad: stdioServer(events, { MCP_CRASH: "1" }) });
    const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--model", "fake/m", "--no-session"] });
    const before = server.requests.length;
    const listed = await rpc.request({ type: "prompt", message: "/mcp" });
    expect(listed.success).toBe(true);
    expect(listed.data.disposition).toBe("handled");
    const rows = new Map(listed.data.mcp.servers.map((row: any) => [row.name, row]));
    expect((rows.get("good") as any).state).toBe("connected");
    expect((rows.get("bad") as any).state).toBe("failed");
    expect(listed.data.mcp.text).toContain("fatal: the test server was told to crash");
    const notice = rpc.ofType("extension_ui_request").find((frame) => frame.method === "notify");
    expect(notice?.message).toContain("good  connected");

    writeMcpJson(mcpJson, { good: stdioServer(events, { MCP_NAME: "good" }), bad: stdioServer(events, { MCP_NAME: "bad" }) });
    const again = await rpc.request({ type: "prompt", message: "/mcp reconnect bad" });
    expect(again.data.mcp.servers[0]).toMatchObject({ name: "bad", state: "connected" });
    const unknown = await rpc.request({ type: "prompt", message: "/mcp reconnect nope" });
    expect(unknown.data.mcp.isError).toBe(true);
    expect(unknown.data.mcp.text).toContain('no MCP server "nope"');
    expect(server.requests.length).toBe(before);
    expect(await rpc.close()).toBe(0);
  }, 30_000);
});

describe("/mcp in print mode", () => {
  test("prints the servers' state; the model is not asked", async () => {
    writeMcpJson(join(home.agentDir, "mcp.json"), { good: stdioServer(join(home.home, "print.log"), { MCP_NAME: "good" }) });
    const before = server.requests.length;
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "/mcp"], { env: home.env, cwd: home.home, timeoutMs: 20_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/good\s+connected/);
    expect(server.requests.length).toBe(before);
  }, 30_000);
});

describe("/mcp over ACP", () => {
  test("is answered as an agent message, with no model run", async () => {
    const client = acp.spawn();
    await client.initialize();
    const { sessionId } = await client.agent.request("session/new", {
      cwd: acp.cwd,
      mcpServers: [{ name: "local", command: process.execPath, args: [TEST_SERVER], env: [{ name: "MCP_NAME", value: "local" }] }],
    });
    const before = acp.fake.server.requests.length;
    expect((await client.prompt(sessionId, "/mcp")).stopReason).toBe("end_turn");
    const said = client
      .ofKind(sessionId, "agent_message_chunk")
      .map((update: any) => update.content.text)
      .join("");
    expect(said).toMatch(/local\s+connected/);
    expect(acp.fake.server.requests.length).toBe(before);
    const commands = client.ofKind(sessionId, "available_commands_update").at(-1);
    expect(commands?.availableCommands.map((command: any) => command.name)).toContain("mcp");
    expect(await client.close()).toBe(0);
  }, 30_000);
});
