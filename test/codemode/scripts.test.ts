/**
 * What a model gets back from a codemode script: output, console block,
 * failures with partial output, options, limits, the sandbox's empty world,
 * and that a runaway script neither hangs the agent nor its next prompt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRpcFixture, type RpcFixture, type RpcProcess } from "../support/rpc-harness.ts";
import { CODEMODE_ARGS, resultText, runScriptPrompt } from "./codemode-support.ts";

let fixture: RpcFixture;
let rpc: RpcProcess;

beforeAll(() => {
  fixture = createRpcFixture();
  writeFileSync(join(fixture.cwd, "a.txt"), "alpha\n");
  writeFileSync(join(fixture.cwd, "b.txt"), "beta\n");
  rpc = fixture.start(CODEMODE_ARGS);
});

afterAll(async () => {
  await rpc.close();
  await fixture.cleanup();
});

describe("codemode scripts", () => {
  test("a script's return value and console lines reach the model as one result", async () => {
    const end = await runScriptPrompt(rpc, fixture.server, "s1", 'const text = await tools.read({ path: "a.txt" });\nconsole.log("read", text.length, { ok: true });\nreturn text.trim();');
    expect(end.isError).toBe(false);
    expect(resultText(end)).toMatch(/^Script completed\nWall time \d+\.\d seconds\nOutput:\nalpha\n<console_output>\nread 5 \{"ok":true\}\n<\/console_output>$/);
  });

  test("parallel calls with one failing: allSettled keeps the good result and the failure's message", async () => {
    const code = 'const results = await Promise.allSettled([tools.read({ path: "a.txt" }), tools.read({ path: "missing.txt" }), tools.read({ path: "b.txt" })]);\nreturn results.map((r) => r.status === "fulfilled" ? r.value.trim() : "failed: " + r.reason.message);';
    const end = await runScriptPrompt(rpc, fixture.server, "s2", code);
    const output = JSON.parse(resultText(end).split("Output:\n")[1]);
    expect(output[0]).toBe("alpha");
    expect(output[1]).toStartWith("failed: ");
    expect(output[1]).toContain("missing.txt");
    expect(output[2]).toBe("beta");
    // Each call was a tool call of its own, named for its parent.
    const nested = rpc.ofType("tool_execution_end").filter((frame) => frame.parentToolCallId === "s2");
    expect(nested.map((frame) => [frame.toolCallId, frame.isError])).toEqual(
      expect.arrayContaining([["s2/1", false], ["s2/2", true], ["s2/3", false]]),
    );
  });

  test("Promise.all rejects with the failing tool's error, and the script fails keeping its earlier output", async () => {
    const code = 'text("before");\nawait Promise.all([tools.read({ path: "a.txt" }), tools.read({ path: "missing.txt" })]);\ntext("never");';
    const end = await runScriptPrompt(rpc, fixture.server, "s3", code);
    expect(end.isError).toBe(true);
    const text = resultText(end);
    expect(text).toStartWith("Script failed\n");
    expect(text).toContain("Output:\nbefore\nScript error:\nError: ");
    expect(text).toContain("missing.txt");
    expect(text).not.toContain("never");
  });

  test("bash resolves to a structured value, also for a non-zero exit code", async () => {
    const end = await runScriptPrompt(rpc, fixture.server, "s4", 'const r = await tools.bash({ command: "echo out; exit 3" });\nreturn { output: r.output, exit_code: r.exit_code, truncated: r.truncated, seconds: typeof r.wall_time_seconds };');
    expect(JSON.parse(resultText(end).split("Output:\n")[1])).toEqual({ output: "out", exit_code: 3, truncated: false, seconds: "number" });
  });

  test("the sandbox has no require, fetch, timers or process; exit() ends the script successfully", async () => {
    const end = await runScriptPrompt(rpc, fixture.server, "s5", 'text([typeof require, typeof fetch, typeof setTimeout, typeof setInterval, typeof process].join(","));\nexit();\ntext("after exit");');
    expect(end.isError).toBe(false);
    expect(resultText(end)).toEndWith("Output:\nundefined,undefined,undefined,undefined,undefined");
  });

  test("several text items are numbered; ALL_TOOLS, searchTools and describeTool know the session's tools", async () => {
    const code = 'text(ALL_TOOLS.map((t) => t.name).join(","));\ntext((await searchTools("shell command")).map((t) => t.name)[0]);\nconst d = await describeTool("read");\ntext(d.includes("tools.read(args: {") ? "declared" : d);';
    const text = resultText(await runScriptPrompt(rpc, fixture.server, "s6", code));
    expect(text).toContain("==> text 1/3 <==\nread,bash\n==> text 2/3 <==\nbash\n==> text 3/3 <==\ndeclared");
  });

  test("// @options: max_output_tokens cuts the output to its start and end, the whole of it in a file", async () => {
    const code = '// @options: {"max_output_tokens": 50}\nlet s = "";\nfor (let i = 0; i < 300; i++) s += "line " + i + "\\n";\nreturn s;';
    const end = await runScriptPrompt(rpc, fixture.server, "s7", code);
    const text = resultText(end);
    expect(text).toContain("line 0\n");
    expect(text).toContain("line 299");
    expect(text).not.toContain("line 150\n");
    const path = /\[Full output: (\S+) /.exec(text)?.[1];
    expect(path).toBeDefined();
    expect(end.result.details.fullOutputPath).toBe(path);
    expect(existsSync(path!)).toBe(true);
    expect(readFileSync(path!, "utf8")).toContain("line 150\n");
  });

  test("an options line that is not the first line fails the call before the script runs", async () => {
    const end = await runScriptPrompt(rpc, fixture.server, "s8", 'await tools.bash({ command: "touch ran.txt" });\n// @options: {"timeout_ms": 100}');
    expect(end.isError).toBe(true);
    expect(resultText(end)).toContain("Script error:\nThe // @options: line must be the script's first line.");
    expect(existsSync(join(fixture.cwd, "ran.txt"))).toBe(false);
  });

  test("an endless loop is stopped at timeout_ms, and the agent serves the next prompt", async () => {
    const started = Date.now();
    const end = await runScriptPrompt(rpc, fixture.server, "s9", '// @options: {"timeout_ms": 400}\nconsole.log("spinning");\nwhile (true) {}');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(end.isError).toBe(true);
    expect(resultText(end)).toContain("Script error:\nScript timed out after 400 ms");
    // The next prompt is answered as usual.
    fixture.server.enqueue({ content: [{ type: "text", text: "still here" }] });
    const from = rpc.mark();
    await rpc.request({ type: "prompt", message: "hello again" });
    const answer = await rpc.waitForEvent("message_end", (frame) => frame.message.role === "assistant", 10_000, from);
    expect(answer.message.content[0].text).toBe("still here");
    await rpc.waitForEvent("agent_end", () => true, 5_000, from);
  });

  test("a timeout cancels the tool call the script was waiting on", async () => {
    const end = await runScriptPrompt(rpc, fixture.server, "s10", '// @options: {"timeout_ms": 500}\nawait tools.bash({ command: "sleep 20; touch slept.txt" });');
    expect(resultText(end)).toContain("Script timed out after 500 ms");
    const nested = rpc.ofType("tool_execution_end").find((frame) => frame.toolCallId === "s10/1");
    expect(nested?.isError).toBe(true);
    expect(end.result.details.calls[0].status).toBe("cancelled");
  });

  test("aborting the run stops an endless loop that has no timeout", async () => {
    fixture.server.enqueue({ content: [{ type: "toolCall", id: "s11", name: "codemode", arguments: { code: "while (true) {}" } }] }, { content: [{ type: "text", text: "done" }] });
    const from = rpc.mark();
    await rpc.request({ type: "prompt", message: "spin" });
    await rpc.waitForEvent("tool_execution_start", (frame) => frame.toolCallId === "s11", 5_000, from);
    await Bun.sleep(300);
    await rpc.request({ type: "abort" });
    const end = await rpc.waitForEvent("tool_execution_end", (frame) => frame.toolCallId === "s11", 5_000, from);
    expect(resultText(end)).toContain("The script was aborted.");
    await rpc.waitForEvent("agent_end", () => true, 5_000, from);
    fixture.server.clearScript();
  });

  test("each call is recorded as nestedCalls on the codemode result in the session file", async () => {
    await runScriptPrompt(rpc, fixture.server, "s12", 'await tools.read({ path: "a.txt" });\nawait tools.bash({ command: "true" });\nreturn "ok";');
    const state = await rpc.request({ type: "get_state" });
    const entries = readFileSync(state.data.sessionFile, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    const result = entries.find((entry) => entry.type === "message" && entry.message.role === "toolResult" && entry.message.toolCallId === "s12");
    expect(result.message.nestedCalls).toEqual({
      calls: [
        { id: "s12/1", name: "read", status: "ok", arguments: { path: "a.txt" }, durationMs: expect.any(Number) },
        { id: "s12/2", name: "bash", status: "ok", arguments: { command: "true" }, durationMs: expect.any(Number) },
      ],
      complete: true,
    });
  });

  test("read of an image resolves to an image block that image() shows, kept as a file named before it", async () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    writeFileSync(join(fixture.cwd, "dot.png"), Buffer.from(png, "base64"));
    const end = await runScriptPrompt(rpc, fixture.server, "s15", 'const dot = await tools.read({ path: "dot.png" });\ntext(dot.type + " " + dot.mimeType);\nimage(dot);');
    const blocks = end.result.content as { type: string; text?: string; data?: string; mimeType?: string }[];
    expect(blocks[1].text).toBe("image image/png");
    expect(blocks[2].text).toMatch(/^\[Image: \S+\.png\]$/);
    expect(blocks[3]).toEqual({ type: "image", data: png, mimeType: "image/png" });
    const path = /^\[Image: (\S+)\]$/.exec(blocks[2].text!)![1];
    expect(readFileSync(path).toString("base64")).toBe(png);
  });

  test("store() keeps values for later scripts through codemode-store session entries", async () => {
    await runScriptPrompt(rpc, fixture.server, "s13", 'store("cursor", { page: 2 });\nreturn "saved";');
    const end = await runScriptPrompt(rpc, fixture.server, "s14", 'return load("cursor");');
    expect(resultText(end)).toEndWith('Output:\n{"page":2}');
    const state = await rpc.request({ type: "get_state" });
    const entries = readFileSync(state.data.sessionFile, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    expect(entries.some((entry) => entry.type === "custom" && entry.customType === "codemode-store" && entry.data.set.cursor.page === 2)).toBe(true);
  });
});
