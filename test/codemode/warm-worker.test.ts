/**
 * The warm script worker (src/codemode/warm-worker.ts) changes no behaviour: each
 * script still gets a VM of its own, so nothing one script leaves on its globals
 * is seen by the next, a waiting worker does not keep a finished print-mode
 * run alive, and one released after waiting unused (with the compiled QuickJS) is
 * made again for the next script.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRpcFixture, startRpc, type RpcFixture, type RpcProcess } from "../support/rpc-harness.ts";
import { makeTestHome, runXcsh } from "../support/cli.ts";
import { CODEMODE_ARGS, resultText, runScriptPrompt } from "./codemode-support.ts";

let fixture: RpcFixture;
let rpc: RpcProcess;

beforeAll(() => {
  fixture = createRpcFixture();
  writeFileSync(join(fixture.cwd, "a.txt"), "alpha\n");
  rpc = fixture.start(CODEMODE_ARGS);
});

afterAll(async () => {
  await rpc.close();
  await fixture.cleanup();
});

describe("warm codemode workers", () => {
  test("a script never sees the globals a previous script left", async () => {
    const first = await runScriptPrompt(rpc, fixture.server, "w1", 'globalThis.leaked = "yes"; var declared = 1; Object.prototype.polluted = true; tools.extra = 1;\nreturn (await tools.read({ path: "a.txt" })).trim();');
    expect(resultText(first)).toContain("Output:\nalpha");
    for (const id of ["w2", "w3"]) {
      const next = await runScriptPrompt(rpc, fixture.server, id, "return [typeof leaked, typeof declared, typeof ({}).polluted, typeof tools.read].join(' ');");
      expect(next.isError).toBe(false);
      expect(resultText(next)).toContain("Output:\nundefined undefined undefined function");
    }
  });

  test("two scripts of one turn each get a worker of their own and both run", async () => {
    fixture.server.enqueue(
      {
        content: [
          { type: "toolCall", id: "p1", name: "codemode", arguments: { code: 'globalThis.mark = 1; return (await tools.read({ path: "a.txt" })).trim();' } },
          { type: "toolCall", id: "p2", name: "codemode", arguments: { code: "return typeof mark;" } },
        ],
      },
      { content: [{ type: "text", text: "done" }] },
    );
    const from = rpc.mark();
    await rpc.request({ type: "prompt", message: "two scripts" });
    await rpc.waitForEvent("agent_end", () => true, 15_000, from);
    const ends = rpc.ofType("tool_execution_end").filter((frame) => frame.toolCallId === "p1" || frame.toolCallId === "p2");
    expect(ends.map((frame) => [frame.toolCallId, resultText(frame).split("Output:\n")[1]]).sort()).toEqual([
      ["p1", "alpha"],
      ["p2", "undefined"],
    ]);
  });

  test("a spare worker released after waiting unused is made again: later scripts run", async () => {
    const idle = startRpc({ env: { ...fixture.home.env, XCSH_CODEMODE_SPARE_IDLE_MS: "50" }, cwd: fixture.cwd, args: CODEMODE_ARGS });
    try {
      for (const id of ["r1", "r2", "r3"]) {
        const end = await runScriptPrompt(idle, fixture.server, id, 'return (await tools.read({ path: "a.txt" })).trim();');
        expect(end.isError).toBe(false);
        expect(resultText(end)).toContain("Output:\nalpha");
        // Longer than the idle limit: the spare warmed after this script is released before the next.
        await Bun.sleep(400);
      }
    } finally {
      expect(await idle.close()).toBe(0);
    }
  });

  test("a print-mode run that ran a script exits once it has answered, the next worker waiting or not", async () => {
    const home = makeTestHome();
    try {
      writeFileSync(join(home.home, "calls.json"), JSON.stringify([
        { content: [{ type: "toolCall", name: "codemode", arguments: { code: "return 6 * 7;" } }] },
        { content: [{ type: "text", text: "The answer is in." }] },
      ]));
      const began = performance.now();
      const result = await runXcsh(["--provider", "faux", "--faux-script", "calls.json", "--tools", "codemode", "-p", "compute"], { env: home.env, timeoutMs: 10_000 });
      expect(result.stdout).toBe("The answer is in.\n");
      expect(result.exitCode).toBe(0);
      expect(performance.now() - began).toBeLessThan(5_000);
    } finally {
      home.cleanup();
    }
  });
});
