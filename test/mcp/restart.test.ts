/**
 * A local MCP server that crashes is started again by the next call of one of its
 * tools (pi 1.6.0: "reconnects on the next call"), through the built binary: the model
 * calls the test server's `die`, which exits the process mid-call, then `echo`, which
 * must work on a fresh process; the stop is reported with its exit code.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { bodyText, startedPids, stdioServer, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
afterAll(() => fixture.cleanup());

describe("a crashed stdio server", () => {
  test("starts again on the next call; the first call's error and the stop are reported", async () => {
    const events = join(home.home, "restart.log");
    writeMcpJson(join(home.agentDir, "mcp.json"), { t: stdioServer(events, { MCP_NAME: "t" }) });
    server.enqueue(
      { content: [{ type: "toolCall", id: "d1", name: "mcp__t__die", arguments: {} }] },
      { content: [{ type: "toolCall", id: "e1", name: "mcp__t__echo", arguments: { text: "back again" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "crash it"], { env: home.env, cwd: home.home, timeoutMs: 25_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("done\n");
    expect(result.stderr).toContain('MCP server "t"');
    expect(result.stderr).toContain("exit code 7");
    expect(bodyText(server.requests.at(-1)!)).toContain("t echo: back again");
    // Two processes: the one that died and the one the echo started.
    expect(startedPids(events)).toHaveLength(2);
  }, 30_000);
});
