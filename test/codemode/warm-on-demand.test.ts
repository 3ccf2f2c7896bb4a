/**
 * A codemode worker (a thread with a QuickJS VM, ~11 MiB while it waits) is started
 * only when the model begins writing a script (src/core/codemode-warmup.ts): a process
 * that never prompts, and a session whose model only calls tools directly, start none.
 * XCSH_TRACE_LOAD=1 reports each worker's start on stderr and whether it was warmed
 * ahead of its script; the tests read that once the process has exited, so every line
 * it would ever write is there.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRpcFixture, startRpc, type RpcFixture, type RpcProcess } from "../support/rpc-harness.ts";
import { runXcsh } from "../support/cli.ts";
import { CODEMODE_ARGS, resultText, runScriptPrompt } from "./codemode-support.ts";

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture();
  writeFileSync(join(fixture.cwd, "a.txt"), "alpha\n");
});

afterAll(async () => {
  await fixture.cleanup();
});

function tracedRpc(): RpcProcess {
  return startRpc({ env: { ...fixture.home.env, XCSH_TRACE_LOAD: "1" }, cwd: fixture.cwd, args: CODEMODE_ARGS });
}

/** The worker starts xcsh reported, in order: "ahead of a script" or "for a script, none waiting". */
function workerStarts(stderr: string): string[] {
  return [...stderr.matchAll(/^xcsh: loaded codemode worker \((.*)\)$/gm)].map((match) => match[1]!);
}

describe("codemode workers start only when a script is coming", () => {
  test("an RPC host that never prompts starts no worker", async () => {
    const rpc = tracedRpc();
    const state = await rpc.request({ type: "get_state" });
    expect(state.success).toBe(true);
    expect(await rpc.close()).toBe(0);
    expect(workerStarts(rpc.stderr)).toEqual([]);
  }, 30_000);

  test("--help and --version with codemode on start no worker", async () => {
    for (const flag of ["--help", "--version"]) {
      const result = await runXcsh([...CODEMODE_ARGS, flag], { env: { ...fixture.home.env, XCSH_TRACE_LOAD: "1" }, cwd: fixture.cwd });
      expect(result.exitCode).toBe(0);
      expect(workerStarts(result.stderr)).toEqual([]);
    }
  }, 30_000);

  test("a session whose model calls read directly starts no worker, though codemode is offered", async () => {
    const rpc = tracedRpc();
    fixture.server.enqueue({ content: [{ type: "toolCall", id: "d1", name: "read", arguments: { path: "a.txt" } }] }, { content: [{ type: "text", text: "Read it." }] });
    const from = rpc.mark();
    await rpc.request({ type: "prompt", message: "read a.txt" });
    const end = await rpc.waitForEvent("tool_execution_end", (frame) => frame.toolCallId === "d1", 15_000, from);
    expect(resultText(end)).toContain("alpha");
    await rpc.waitForEvent("agent_end", () => true, 15_000, from);
    // The request offered codemode: the model could have written a script.
    const offered = (fixture.server.requests.at(-1)?.body?.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
    expect(offered).toContain("codemode");
    expect(await rpc.close()).toBe(0);
    expect(workerStarts(rpc.stderr)).toEqual([]);
  }, 30_000);

  test("a script runs on the worker warmed as its call began, and the next one is warmed after it", async () => {
    const rpc = tracedRpc();
    const end = await runScriptPrompt(rpc, fixture.server, "s1", 'return (await tools.read({ path: "a.txt" })).trim();');
    expect(end.isError).toBe(false);
    expect(resultText(end)).toContain("Output:\nalpha");
    expect(await rpc.close()).toBe(0);
    expect(workerStarts(rpc.stderr)).toEqual(["ahead of a script", "ahead of a script"]);
  }, 30_000);
});
