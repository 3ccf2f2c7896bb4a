/**
 * MCP tools are tools like the others for extensions: pi.getAllTools() lists them
 * (with `sourceInfo.source: "mcp"` and their server's namespace), pi.setActiveTools() switches them off and on,
 * and a /reload of the extensions leaves them in place. A codemode script reaches a
 * server's codemode tools even when an extension switched every MCP tool off (pi's rule:
 * scripts do not depend on the active set).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createExtensionFixture, notices, withExtensions } from "../support/extensions.ts";
import { offeredTools, stdioServer, writeMcpJson } from "./support/mcp-fixture.ts";

const fixture = createExtensionFixture();
afterAll(() => fixture.cleanup());
writeMcpJson(join(fixture.home.agentDir, "mcp.json"), { t: stdioServer(join(fixture.home.home, "events.log")) });

const extension = fixture.writeExtension(
  "tools.ts",
  `export default function (pi) {
  pi.registerCommand("mcp-tools", {
    handler: async (_args, ctx) => {
      const mcp = pi.getAllTools().filter((tool) => tool.name.startsWith("mcp__"));
      ctx.ui.notify("all: " + mcp.map((tool) => tool.name + "=" + tool.sourceInfo.source).join(","), "info");
      const echo = mcp.find((tool) => tool.name === "mcp__t__echo");
      ctx.ui.notify("namespace: " + JSON.stringify(echo && echo.namespace), "info");
      ctx.ui.notify("active: " + pi.getActiveTools().filter((name) => name.startsWith("mcp__")).join(","), "info");
    },
  });
  pi.registerCommand("reload-now", { handler: async (_args, ctx) => { await ctx.reload(); } });
  pi.on("session_start", (event, ctx) => ctx.ui.notify("session_start " + event.reason, "info"));
  pi.registerCommand("mcp-off", {
    handler: async () => pi.setActiveTools(pi.getActiveTools().filter((name) => !name.startsWith("mcp__"))),
  });
  pi.registerCommand("echo-off", {
    handler: async () => pi.setActiveTools(pi.getActiveTools().filter((name) => name !== "mcp__t__echo")),
  });
}
`,
);

describe("MCP tools and extensions", () => {
  test("getAllTools lists them, setActiveTools switches one off, and they survive a reload", async () => {
    const rpc = fixture.start(withExtensions(extension));
    fixture.server.enqueue({ content: [{ type: "text", text: "ready" }] }, { content: [{ type: "text", text: "again" }] });
    // The first prompt waits for the servers still connecting.
    let from = rpc.mark();
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_end", () => true, 15_000, from);

    await rpc.request({ type: "prompt", message: "/mcp-tools" });
    await rpc.waitFor(() => notices(rpc).some((line) => line.startsWith("active: ")), 5_000);
    const all = notices(rpc).find((line) => line.startsWith("all: "))!;
    expect(all).toContain("mcp__t__echo=mcp");
    expect(all).toContain("mcp__t__picture=mcp");
    // pi 1.6.0: an MCP tool's group is its server, `mcp__<server>`, found by the server's own name too.
    const namespace = JSON.parse(notices(rpc).find((line) => line.startsWith("namespace: "))!.slice("namespace: ".length));
    expect(namespace).toMatchObject({ name: "mcp__t", aliases: ["t"] });
    expect(notices(rpc).find((line) => line.startsWith("active: "))).toContain("mcp__t__echo");

    await rpc.request({ type: "prompt", message: "/echo-off" });
    await rpc.request({ type: "prompt", message: "/reload-now" });
    await rpc.waitFor(() => notices(rpc).includes("session_start reload"), 10_000);
    from = rpc.mark();
    await rpc.request({ type: "prompt", message: "and now" });
    await rpc.waitForEvent("agent_end", () => true, 15_000, from);
    const offered = offeredTools(fixture.server.requests.at(-1)!);
    expect(offered).not.toContain("mcp__t__echo");
    expect(offered).toContain("mcp__t__picture");
    expect(await rpc.close()).toBe(0);
  }, 40_000);

  test("a script still calls a codemode tool after an extension switched every MCP tool off", async () => {
    const file = join(fixture.home.home, "codemode-mcp.json");
    writeMcpJson(file, { c: { ...stdioServer(join(fixture.home.home, "c.log"), { MCP_NAME: "c" }), exposure: "codemode" } });
    const rpc = fixture.start([...withExtensions(extension), "--no-mcp", "--mcp-config", file]);
    // A first script waits for the server (the first prompt does not: its tools are not declared).
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "k0", name: "codemode", arguments: { code: "return ALL_TOOLS.map((tool) => tool.name).join(',');" } }] },
      { content: [{ type: "text", text: "ready" }] },
    );
    let from = rpc.mark();
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_end", () => true, 15_000, from);
    const listed = rpc.ofType("tool_execution_end").find((frame) => frame.toolCallId === "k0")!;
    expect(listed.result.content.map((block: any) => block.text).join("\n")).toContain("mcp__c__echo");
    await rpc.request({ type: "prompt", message: "/mcp-off" });
    await rpc.request({ type: "prompt", message: "/mcp-tools" });
    await rpc.waitFor(() => notices(rpc).some((line) => line.startsWith("active: ")), 5_000);
    expect(notices(rpc).find((line) => line.startsWith("active: "))).toBe("active: ");
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "k1", name: "codemode", arguments: { code: "return await tools.mcp__c__echo({ text: 'still reachable' });" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    from = rpc.mark();
    await rpc.request({ type: "prompt", message: "call it" });
    await rpc.waitForEvent("agent_end", () => true, 15_000, from);
    const end = rpc.ofType("tool_execution_end").find((frame) => frame.toolCallId === "k1")!;
    expect(end.isError).toBe(false);
    expect(end.result.content.map((block: any) => block.text).join("\n")).toContain("c echo: still reachable");
    expect(await rpc.close()).toBe(0);
  }, 40_000);
});
