/**
 * MCP servers' lives, through the built binary: one that crashes at start is
 * reported once while another works; one that hangs delays the first prompt only
 * up to its startupTimeout; an abort or a per-call timeout cancels a slow call on
 * the server; no server process outlives xcsh, however it ends; and with no server
 * configured nothing of MCP is loaded at all.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";
import { isAlive } from "../support/process.ts";
import { allGone, bodyText, readEvents, startedPids, stdioServer, waitUntil, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
const mcpJson = join(home.agentDir, "mcp.json");
const started: RpcProcess[] = [];
afterAll(async () => {
  for (const rpc of started) rpc.kill();
  await fixture.cleanup();
});
beforeEach(() => server.clearScript());

let count = 0;
/** A fresh event log per test, so pids and lines belong to this test only. */
function eventsFile(): string {
  return join(home.home, `events-${++count}.log`);
}

function start(args: string[] = []): RpcProcess {
  const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--model", "fake/m", "--no-session", ...args] });
  started.push(rpc);
  return rpc;
}

describe("failures", () => {
  test("a server that crashes at start is reported once on stderr while another server's tools work", async () => {
    const events = eventsFile();
    writeMcpJson(mcpJson, { good: stdioServer(events, { MCP_NAME: "good" }), broken: stdioServer(events, { MCP_CRASH: "1" }) });
    server.enqueue(
      { content: [{ type: "toolCall", id: "c1", name: "mcp__good__echo", arguments: { text: "hi" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "echo hi"], { env: home.env, cwd: home.home, timeoutMs: 20_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("done\n");
    const reports = result.stderr.split("\n").filter((line) => line.includes('MCP server "broken"'));
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain("exit code 3");
    expect(result.stderr).toContain("fatal: the test server was told to crash");
    expect(bodyText(server.requests.at(-1)!)).toContain("good echo: hi");
  }, 30_000);

  test("in RPC mode the failure is a notice frame, and an entry with an unset variable is one too", async () => {
    const events = eventsFile();
    writeMcpJson(mcpJson, {
      good: stdioServer(events),
      broken: stdioServer(events, { MCP_CRASH: "1" }),
      tokenless: { url: "https://example.invalid/mcp", headers: { Authorization: "Bearer ${XCSH_TEST_UNSET_TOKEN}" } },
    });
    const rpc = start();
    const crash = await rpc.waitForEvent("notice", (frame) => String(frame.message).includes('"broken"'), 15_000);
    expect(crash.level).toBe("warning");
    const unset = rpc.ofType("notice").find((frame) => String(frame.message).includes('"tokenless"'));
    expect(unset?.message).toContain("${XCSH_TEST_UNSET_TOKEN} is not set");
    expect(await rpc.close()).toBe(0);
  }, 30_000);

  test("a server that never answers delays the first prompt only up to its startupTimeout, then is reported", async () => {
    const events = eventsFile();
    writeMcpJson(mcpJson, { mute: { command: "bash", args: ["-c", `echo "start $$" >> ${events}; exec sleep 38.25`], startupTimeout: 1, exposure: "direct" } });
    server.enqueue({ content: [{ type: "text", text: "answered" }] });
    const begun = Date.now();
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "hello"], { env: home.env, cwd: home.home, timeoutMs: 20_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("answered\n");
    expect(Date.now() - begun).toBeLessThan(8_000);
    expect(result.stderr).toContain('MCP server "mute" is still connecting after 1 s');
    // And it does not outlive xcsh.
    expect(await allGone(startedPids(events), 3_000)).toBe(true);
  }, 30_000);
});

describe("cancellation", () => {
  test("an abort cancels the slow call on the server", async () => {
    const events = eventsFile();
    writeMcpJson(mcpJson, { t: stdioServer(events) });
    server.enqueue({ content: [{ type: "toolCall", id: "s1", name: "mcp__t__slow", arguments: {} }] });
    const rpc = start();
    await rpc.request({ type: "prompt", message: "be slow" });
    await waitUntil(() => readEvents(events).some((line) => line.startsWith("slow started")), 15_000, "the slow tool to start");
    const from = rpc.mark();
    expect((await rpc.request({ type: "abort" })).success).toBe(true);
    await waitUntil(() => readEvents(events).some((line) => line.startsWith("cancelled slow")), 5_000, "the server to see the cancellation");
    const end = await rpc.waitForEvent("tool_execution_end", () => true, 5_000, 0);
    expect(end.isError).toBe(true);
    await rpc.waitForEvent("agent_end", () => true, 5_000, from);
    expect(await rpc.close()).toBe(0);
  }, 30_000);

  test("a call past the server's timeout is cancelled and the model reads why", async () => {
    const events = eventsFile();
    writeMcpJson(mcpJson, { t: { ...stdioServer(events), timeout: 1 } });
    server.enqueue({ content: [{ type: "toolCall", id: "s1", name: "mcp__t__slow", arguments: {} }] }, { content: [{ type: "text", text: "gave up" }] });
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "be slow"], { env: home.env, cwd: home.home, timeoutMs: 20_000 });
    expect(result.exitCode).toBe(0);
    expect(bodyText(server.requests.at(-1)!)).toContain("no answer within 1 s");
    await waitUntil(() => readEvents(events).some((line) => line.startsWith("cancelled slow")), 3_000, "the server to see the cancellation");
  }, 30_000);
});

describe("no server outlives xcsh", () => {
  test("at stdin's end in RPC mode", async () => {
    const events = eventsFile();
    writeMcpJson(mcpJson, { a: stdioServer(events, { MCP_LINGER: "1" }), b: stdioServer(events, { MCP_LINGER: "1" }) });
    const rpc = start();
    await waitUntil(() => startedPids(events).length === 2, 15_000, "both servers to start");
    const pids = startedPids(events);
    expect(pids.every(isAlive)).toBe(true);
    expect(await rpc.close()).toBe(0);
    expect(await allGone(pids, 3_000)).toBe(true);
  }, 30_000);

  test("when xcsh is SIGKILLed (the watchdog ends them)", async () => {
    const events = eventsFile();
    writeMcpJson(mcpJson, { a: stdioServer(events, { MCP_LINGER: "1" }), b: stdioServer(events, { MCP_LINGER: "1" }) });
    const rpc = start();
    await waitUntil(() => startedPids(events).length === 2, 15_000, "both servers to start");
    const pids = startedPids(events);
    rpc.proc.kill("SIGKILL");
    await rpc.proc.exited;
    expect(await allGone(pids, 5_000)).toBe(true);
  }, 30_000);
});

describe("start-up cost", () => {
  test("with no server configured the MCP client is never loaded; with one, it is", async () => {
    writeMcpJson(mcpJson, {});
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
    const env = { ...home.env, XCSH_TRACE_LOAD: "1" };
    const without = await runXcsh(["-p", "--model", "fake/m", "--no-session", "hi"], { env, cwd: home.home });
    expect(without.exitCode).toBe(0);
    expect(without.stderr).not.toContain("modelcontextprotocol");
    writeMcpJson(mcpJson, { t: stdioServer(eventsFile()) });
    const withOne = await runXcsh(["-p", "--model", "fake/m", "--no-session", "hi"], { env, cwd: home.home });
    expect(withOne.stderr).toContain("xcsh: loaded @modelcontextprotocol/sdk");
  }, 30_000);
});
