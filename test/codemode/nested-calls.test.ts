/**
 * A script's calls are tool calls like the model's own: extension hooks see
 * and may block them, RPC clients see them as tool_execution events naming
 * their parent, and `codemode.mode` decides what the model is declared.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createExtensionFixture, notices, type ExtensionFixture } from "../support/extensions.ts";
import { createRpcFixture, type RpcFixture } from "../support/rpc-harness.ts";
import { makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { CODEMODE_ARGS, resultText, runScriptPrompt } from "./codemode-support.ts";
import { bwrapWorks, createSandboxFixture } from "../sandbox/sandbox-fixture.ts";
import { rmSync } from "node:fs";

let fixture: ExtensionFixture | RpcFixture | undefined;

afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

const BLOCK_BASH = `export default function (pi) {
  pi.on("tool_call", (event, ctx) => {
    ctx.ui.notify("tool_call " + event.toolName + " " + event.toolCallId);
    if (event.toolName === "bash") return { block: true, reason: "bash is not allowed here" };
  });
  pi.on("tool_result", (event, ctx) => { ctx.ui.notify("tool_result " + event.toolName + " " + event.toolCallId); });
}`;

describe("nested calls", () => {
  test("an extension's tool_call hook that blocks bash blocks it inside a script too", async () => {
    const extensions = createExtensionFixture();
    fixture = extensions;
    const ext = extensions.writeExtension("block-bash.ts", BLOCK_BASH);
    const rpc = extensions.start(["-e", ext, ...CODEMODE_ARGS]);
    const code = 'const results = await Promise.allSettled([tools.bash({ command: "touch escaped.txt" }), tools.read({ path: "x.txt" })]);\nreturn results.map((r) => r.status + ": " + (r.reason ? r.reason.message : "ok"));';
    await Bun.write(`${extensions.cwd}/x.txt`, "x\n");
    const end = await runScriptPrompt(rpc, extensions.server, "b1", code);
    const output = JSON.parse(resultText(end).split("Output:\n")[1]);
    expect(output).toEqual(["rejected: bash is not allowed here", "fulfilled: ok"]);
    expect(await Bun.file(`${extensions.cwd}/escaped.txt`).exists()).toBe(false);
    // The hooks saw the script's calls by their own ids, the codemode call's too.
    const seen = notices(rpc);
    expect(seen).toContain("tool_call codemode b1");
    expect(seen).toContain("tool_call bash b1/1");
    expect(seen).toContain("tool_call read b1/2");
    expect(seen).toContain("tool_result read b1/2");
    expect(end.result.details.calls.map((call: { name: string; status: string }) => `${call.name}:${call.status}`)).toEqual(["bash:blocked", "read:ok"]);
    await rpc.close();
  });

  test("RPC clients get tool_execution_start/end of each nested call, with parentToolCallId, inside the parent's", async () => {
    const rpcFixture = createRpcFixture();
    fixture = rpcFixture;
    const rpc = rpcFixture.start(CODEMODE_ARGS);
    const from = rpc.mark();
    await runScriptPrompt(rpc, rpcFixture.server, "p1", 'await tools.bash({ command: "echo one" });\nreturn "done";');
    const tools = rpc.frames.slice(from).filter((frame) => frame.type === "tool_execution_start" || frame.type === "tool_execution_end");
    expect(tools.map((frame) => [frame.type, frame.toolCallId, frame.toolName, frame.parentToolCallId])).toEqual([
      ["tool_execution_start", "p1", "codemode", undefined],
      ["tool_execution_start", "p1/1", "bash", "p1"],
      ["tool_execution_end", "p1/1", "bash", "p1"],
      ["tool_execution_end", "p1", "codemode", undefined],
    ]);
    const nestedStart = tools[1];
    expect(nestedStart.args).toEqual({ command: "echo one" });
    expect(tools[2].result.content[0].text).toBe("one");
    await rpc.close();
  });

  test("codemode.mode only: the model is declared codemode alone, and its description lists the tools scripts call", async () => {
    const rpcFixture = createRpcFixture({ settings: { codemode: { mode: "only" } } });
    fixture = rpcFixture;
    const rpc = rpcFixture.start(CODEMODE_ARGS);
    await runScriptPrompt(rpc, rpcFixture.server, "o1", 'return (await tools.bash({ command: "echo via script" })).output;');
    const request = rpcFixture.server.requests[0].body;
    const declared = request.tools.map((tool: { function: { name: string } }) => tool.function.name);
    expect(declared).toEqual(["codemode"]);
    const description: string = request.tools[0].function.description;
    expect(description).toContain("### `read`");
    expect(description).toContain("tools.bash(args: {");
    await rpc.close();
  });

  test("codemode.inlineBudget 0 lists no declaration; the tools stay callable and findable", async () => {
    const rpcFixture = createRpcFixture({ settings: { codemode: { mode: "only", inlineBudget: 0 } } });
    fixture = rpcFixture;
    const rpc = rpcFixture.start(CODEMODE_ARGS);
    const end = await runScriptPrompt(rpc, rpcFixture.server, "i1", 'return ALL_TOOLS.map((t) => t.name).join(",") + " " + (await tools.bash({ command: "echo x" })).output;');
    expect(resultText(end)).toEndWith("Output:\nread,bash x");
    const description: string = rpcFixture.server.requests[0].body.tools[0].function.description;
    expect(description).not.toContain("### `read`");
    expect(description).toContain("2 more tools are callable but not listed here");
    await rpc.close();
  });

  test("codemode.mode on (the default): the tools stay declared beside codemode, which does not repeat them", async () => {
    const rpcFixture = createRpcFixture();
    fixture = rpcFixture;
    const rpc = rpcFixture.start(CODEMODE_ARGS);
    await runScriptPrompt(rpc, rpcFixture.server, "n1", 'return "x";');
    const request = rpcFixture.server.requests[0].body;
    const declared = request.tools.map((tool: { function: { name: string } }) => tool.function.name);
    expect([...declared].sort()).toEqual(["bash", "codemode", "read"]);
    const codemode = request.tools.find((tool: { function: { name: string } }) => tool.function.name === "codemode");
    expect(codemode.function.description).toContain("tools.<name>");
    expect(codemode.function.description).not.toContain("### `read`");
    // The declared tools say how they answer scripts.
    const bash = request.tools.find((tool: { function: { name: string } }) => tool.function.name === "bash");
    expect(bash.function.description).toEndWith("In codemode scripts, `tools.bash(args)` resolves to `{ output, truncated, full_output_path?, exit_code, wall_time_seconds }`, also when the command exits non-zero.");
    await rpc.close();
  });
});

describe("enabling codemode", () => {
  test("--tools codemode is accepted (it was a usage error) and settings' defaultTools can name it", async () => {
    const home = await makeFakeModelHome();
    try {
      home.server.enqueue({ content: [{ type: "toolCall", id: "d1", name: "codemode", arguments: { code: "return 6 * 7;" } }] }, { content: [{ type: "text", text: "ok" }] });
      const alone = await runXcsh(["--model", "fake/m", "--tools", "codemode", "-p", "go"], { env: home.home.env });
      expect(alone.exitCode).toBe(0);
      const toolResult = home.server.requests[1].body.messages.find((message: { role: string }) => message.role === "tool");
      expect(JSON.stringify(toolResult.content)).toContain("Script completed");
      expect(JSON.stringify(toolResult.content)).toContain("42");

      home.home.writeSettings({ defaultTools: ["read", "codemode"] });
      home.server.enqueue({ content: [{ type: "text", text: "ok" }] });
      const fromSettings = await runXcsh(["--model", "fake/m", "-p", "go"], { env: home.home.env });
      expect(fromSettings.exitCode).toBe(0);
      expect(fromSettings.stderr).not.toContain("defaultTools");
      expect(home.server.requests[2].body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(["read", "codemode"]);
    } finally {
      await home.cleanup();
    }
  });
});

describe("the sandbox", () => {
  test.skipIf(!bwrapWorks())("a script's bash runs under --sandbox read-only like the model's own: it cannot write the project", async () => {
    const { base, fixture: sandboxed } = createSandboxFixture("xcsh-codemode-sandbox-");
    fixture = sandboxed;
    try {
      const rpc = sandboxed.start([...CODEMODE_ARGS, "--sandbox", "read-only"]);
      const end = await runScriptPrompt(rpc, sandboxed.server, "sb1", 'const r = await tools.bash({ command: "echo hi > written.txt; echo status=$?" });\nreturn r.output;');
      expect(resultText(end)).toContain("status=1");
      expect(await Bun.file(`${sandboxed.cwd}/written.txt`).exists()).toBe(false);
      await rpc.close();
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("workers", () => {
  test("scripts wait for a free worker (XCSH_CODEMODE_MAX_WORKERS), and one whose timeout passes while waiting does not run", async () => {
    const rpcFixture = createRpcFixture();
    fixture = rpcFixture;
    rpcFixture.home.env.XCSH_CODEMODE_MAX_WORKERS = "1";
    const rpc = rpcFixture.start(CODEMODE_ARGS);
    rpcFixture.server.enqueue(
      {
        content: [
          { type: "toolCall", id: "w1", name: "codemode", arguments: { code: '// @options: {"timeout_ms": 1500}\ntext("first");\nwhile (true) {}' } },
          { type: "toolCall", id: "w2", name: "codemode", arguments: { code: '// @options: {"timeout_ms": 300}\nawait tools.bash({ command: "touch second-ran.txt" });' } },
          { type: "toolCall", id: "w3", name: "codemode", arguments: { code: 'return "third ran";' } },
        ],
      },
      { content: [{ type: "text", text: "done" }] },
    );
    await rpc.request({ type: "prompt", message: "three scripts" });
    const end = (id: string) => rpc.waitForEvent("tool_execution_end", (frame) => frame.toolCallId === id, 15_000);
    const [first, second, third] = await Promise.all([end("w1"), end("w2"), end("w3")]);
    expect(resultText(first)).toContain("Script timed out after 1500 ms");
    expect(resultText(second)).toContain("No codemode worker became free in time; the script did not run.");
    expect(await Bun.file(`${rpcFixture.cwd}/second-ran.txt`).exists()).toBe(false);
    // The third waited its turn (no timeout of its own) and ran once the first was stopped.
    expect(resultText(third)).toEndWith("Output:\nthird ran");
    await rpc.close();
  });
});
