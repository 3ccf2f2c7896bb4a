/**
 * The usage of nested calls rolls up into the calling tool's result (pi 1.x's
 * extensions.md, "Calling Other Tools"): a tool that did model work reports it as
 * `usage`, a tool that called it through `ctx.executeTool()` or a codemode script
 * reports its own plus theirs, at every depth. The result message in the session file
 * keeps it, `get_session_stats` counts it once, and a tool_result handler can replace
 * it. Through the built binary in RPC mode with the fake model.
 */
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createExtensionFixture, withExtensions } from "../support/extensions.ts";

const fixture = createExtensionFixture();
afterAll(() => fixture.cleanup());

/** A usage of `tokens` input tokens at a cent each, as a tool that asked a model reports it. */
const usage = (tokens: number) => ({
  input: tokens,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: tokens + 1,
  cost: { input: tokens / 100, output: 0, cacheRead: 0, cacheWrite: 0, total: tokens / 100 },
});

const extension = fixture.writeExtension(
  "nested-usage.ts",
  `const usage = ${usage.toString()};
export default function (pi) {
  const schema = { type: "object", properties: {} };
  // Asks "a model" (pretends to): 100 tokens.
  pi.registerTool({ name: "asker", label: "asker", description: "Asks a model.", parameters: schema,
    async execute() { return { content: [{ type: "text", text: "asked" }], details: {}, usage: usage(100) }; } });
  // Calls asker twice and asks a model itself: 7 tokens of its own.
  pi.registerTool({ name: "orchestrator", label: "orchestrator", description: "Calls asker twice.", parameters: schema,
    async execute(_id, _params, signal, _onUpdate, ctx) {
      await ctx.executeTool("asker", {}, { signal });
      await ctx.executeTool("asker", {}, { signal });
      return { content: [{ type: "text", text: "orchestrated" }], details: {}, usage: usage(7) };
    } });
  // A tool_result handler may replace a result's usage.
  pi.on("tool_result", (event) => (event.toolName === "asker" && event.input.patched ? { usage: usage(1000) } : undefined));
}
`,
);

function sessionToolResults(): Record<string, any>[] {
  const root = join(fixture.home.agentDir, "sessions");
  const folder = join(root, readdirSync(root)[0]!);
  const file = join(folder, readdirSync(folder).sort().at(-1)!);
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.type === "message" && entry.message.role === "toolResult")
    .map((entry) => entry.message);
}

test("ctx.executeTool() and codemode scripts add their nested calls' usage to their own result, kept in the session and counted once", async () => {
  const rpc = fixture.start([...withExtensions(extension), "--tools", "codemode,asker,orchestrator"]);
  const turn = async (id: string, name: string, args: Record<string, unknown>) => {
    fixture.server.enqueue({ content: [{ type: "toolCall", id, name, arguments: args }] }, { content: [{ type: "text", text: "done" }] });
    const from = rpc.mark();
    await rpc.request({ type: "prompt", message: `run ${id}` });
    await rpc.waitForEvent("agent_end", undefined, 20_000, from);
    return rpc.ofType("tool_execution_end").find((frame) => frame.toolCallId === id)!;
  };

  const direct = await turn("o1", "orchestrator", {});
  // Its own 7 tokens and two nested askers' 100 each.
  expect(direct.result.usage).toMatchObject({ input: 207, output: 3, totalTokens: 210, cost: { total: 2.07 } });
  // A script that calls orchestrator (depth two) and asker: 207 + 100.
  const script = await turn("c1", "codemode", { code: "await tools.orchestrator({}); await tools.asker({}); return 'ok';" });
  expect(script.result.content.map((block: { text?: string }) => block.text ?? "").join("")).toContain("Script completed");
  expect(script.result.usage).toMatchObject({ input: 307, output: 4, cost: { total: 3.07 } });
  // A tool_result handler's usage replaces the nested call's, and that is what rolls up.
  const patched = await turn("c2", "codemode", { code: "await tools.asker({ patched: true }); return 'ok';" });
  expect(patched.result.usage).toMatchObject({ input: 1000 });

  const results = sessionToolResults();
  expect(results.map((message) => [message.toolName, message.usage?.input])).toEqual([
    ["orchestrator", 207],
    ["codemode", 307],
    ["codemode", 1000],
  ]);
  // Session totals: three turns of two fake replies (10 input tokens each) plus the tools' usage, once.
  const stats = (await rpc.request({ type: "get_session_stats" })).data;
  expect(stats.tokens.input).toBe(6 * 10 + 207 + 307 + 1000);
  expect(await rpc.close()).toBe(0);
}, 60_000);
