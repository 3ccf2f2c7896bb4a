/**
 * A project's MCP servers (.mcp.json, .xcsh/mcp.json) start programs, so they wait
 * for the project to be trusted, by the same rules as project extensions: without
 * trust no server process is started (the server's event log stays empty); with
 * --trust-project, or once an RPC host answers the trust question yes, they start.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";
import { bodyText, offeredTools, readEvents, stdioServer, waitUntil, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
const started: RpcProcess[] = [];
afterAll(async () => {
  for (const rpc of started) rpc.kill();
  await fixture.cleanup();
});
beforeEach(() => server.clearScript());

let count = 0;
/** A fresh project with a .mcp.json declaring the test server. */
function project(): { cwd: string; events: string } {
  const cwd = join(home.home, `project-${++count}`);
  mkdirSync(cwd, { recursive: true });
  const events = join(cwd, "events.log");
  writeMcpJson(join(cwd, ".mcp.json"), { proj: stdioServer(events) });
  return { cwd, events };
}

describe("a project's MCP servers", () => {
  test("untrusted in print mode: no server starts, and stderr says which file waits and how to trust it", async () => {
    const { cwd, events } = project();
    server.enqueue({ content: [{ type: "text", text: "fine" }] });
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "hi"], { env: home.env, cwd });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("fine\n");
    const notice = result.stderr.split("\n").find((line) => line.includes("not trusted"));
    expect(notice).toContain(`MCP servers from ${join(cwd, ".mcp.json")}`);
    expect(notice).toContain("--trust-project");
    expect(offeredTools(server.requests.at(-1)!).some((name) => name.startsWith("mcp__"))).toBe(false);
    await Bun.sleep(300);
    expect(readEvents(events)).toEqual([]);
  }, 30_000);

  test("--trust-project starts it and its tools reach the model", async () => {
    const { cwd, events } = project();
    server.enqueue({ content: [{ type: "toolCall", id: "c1", name: "mcp__proj__echo", arguments: { text: "x" } }] }, { content: [{ type: "text", text: "ok" }] });
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "--trust-project", "hi"], { env: home.env, cwd });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).not.toContain("not trusted");
    expect(bodyText(server.requests.at(-1)!)).toContain("test echo: x");
    expect(readEvents(events).some((line) => line.startsWith("start "))).toBe(true);
  }, 30_000);

  test("--no-mcp leaves the project's servers (and the trust question) out", async () => {
    const { cwd, events } = project();
    server.enqueue({ content: [{ type: "text", text: "fine" }] });
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "--no-mcp", "--trust-project", "hi"], { env: home.env, cwd });
    expect(result.exitCode).toBe(0);
    expect(offeredTools(server.requests.at(-1)!).some((name) => name.startsWith("mcp__"))).toBe(false);
    expect(readEvents(events)).toEqual([]);
  }, 30_000);

  test("in RPC mode the host is asked; no starts nothing, yes starts the server and adds its tools", async () => {
    const denied = project();
    const rpcNo = startRpc({ env: home.env, cwd: denied.cwd, args: ["--model", "fake/m", "--no-session"] });
    started.push(rpcNo);
    const askNo = await rpcNo.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "confirm", 10_000, "the trust question");
    expect(askNo.message).toContain("MCP servers");
    rpcNo.send({ type: "extension_ui_response", id: askNo.id, confirmed: false });
    server.enqueue({ content: [{ type: "text", text: "no tools" }] });
    const fromNo = rpcNo.mark();
    await rpcNo.request({ type: "prompt", message: "hi" });
    await rpcNo.waitForEvent("agent_end", () => true, 10_000, fromNo);
    expect(offeredTools(server.requests.at(-1)!).some((name) => name.startsWith("mcp__"))).toBe(false);
    expect(await rpcNo.close()).toBe(0);
    expect(readEvents(denied.events)).toEqual([]);

    const allowed = project();
    const rpcYes = startRpc({ env: home.env, cwd: allowed.cwd, args: ["--model", "fake/m", "--no-session"] });
    started.push(rpcYes);
    const askYes = await rpcYes.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "confirm", 10_000, "the trust question");
    await Bun.sleep(300);
    expect(readEvents(allowed.events)).toEqual([]);
    rpcYes.send({ type: "extension_ui_response", id: askYes.id, confirmed: true });
    await waitUntil(() => readEvents(allowed.events).some((line) => line.startsWith("start ")), 10_000, "the project's server to start");
    server.enqueue({ content: [{ type: "text", text: "with tools" }] });
    const fromYes = rpcYes.mark();
    await rpcYes.request({ type: "prompt", message: "hi" });
    await rpcYes.waitForEvent("agent_end", () => true, 10_000, fromYes);
    expect(offeredTools(server.requests.at(-1)!)).toContain("mcp__proj__echo");
    expect(await rpcYes.close()).toBe(0);
  }, 40_000);
});
