/**
 * An MCP server's tools and prompts, seen by a model and a host through the built
 * binary: the user's mcp.json declares the test server (a real SDK server spawned
 * by xcsh over stdio), the fake model calls its tools, and what reaches the fake
 * server — the tool list, the tool results with their text and image — shows it worked.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome } from "../support/cli.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";
import { bodyText, offeredTools, PNG_BASE64, readEvents, stdioServer, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
// A model that takes images: the tool result's picture is sent to it.
const fixture = await makeFakeModelHome([{ id: "m", input: ["text", "image"] }]);
const { home, server } = fixture;
const events = join(home.home, "events.log");
writeMcpJson(join(home.agentDir, "mcp.json"), { t: stdioServer(events, { MCP_NAME: "t" }) });
const started: RpcProcess[] = [];
afterAll(async () => {
  for (const rpc of started) rpc.kill();
  await fixture.cleanup();
});
beforeEach(() => server.clearScript());

function start(args: string[] = []): RpcProcess {
  const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--model", "fake/m", "--no-session", ...args] });
  started.push(rpc);
  return rpc;
}

async function runPrompt(rpc: RpcProcess, message: string): Promise<void> {
  const from = rpc.mark();
  const response = await rpc.request({ type: "prompt", message });
  expect(response.success).toBe(true);
  await rpc.waitForEvent("agent_end", () => true, 20_000, from);
}

describe("MCP tools", () => {
  test("the model calls an MCP tool and its text and image reach the model in the tool result", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "c1", name: "mcp__t__picture", arguments: {} }] },
      { content: [{ type: "text", text: "I see a red pixel" }] },
    );
    const rpc = start();
    await runPrompt(rpc, "show me the picture");
    const [first, second] = server.requests.slice(-2);
    expect(offeredTools(first)).toEqual(expect.arrayContaining(["mcp__t__echo", "mcp__t__picture", "read", "bash"]));
    const echo = first.body.tools.find((tool: any) => tool.function.name === "mcp__t__echo");
    expect(echo.function.parameters.properties.text.type).toBe("string");
    expect(echo.function.description).toBe("Echoes the text back");
    expect(bodyText(second)).toContain("here is a red pixel");
    expect(bodyText(second)).toContain(PNG_BASE64);
    const end = rpc.ofType("tool_execution_end").at(-1)!;
    expect(end.isError).toBe(false);
    expect(end.result.content.map((block: any) => block.type)).toEqual(["text", "image"]);
    expect(await rpc.close()).toBe(0);
  }, 30_000);

  test("structured content, resource links, embedded resources and errors become readable results", async () => {
    server.enqueue(
      {
        content: [
          { type: "toolCall", id: "s1", name: "mcp__t__structured", arguments: {} },
          { type: "toolCall", id: "l1", name: "mcp__t__link", arguments: {} },
          { type: "toolCall", id: "f1", name: "mcp__t__fail", arguments: {} },
          { type: "toolCall", id: "e1", name: "mcp__t__echo", arguments: { text: 7 } },
        ],
      },
      { content: [{ type: "text", text: "ok" }] },
    );
    const rpc = start();
    await runPrompt(rpc, "try them all");
    const ends = new Map(rpc.ofType("tool_execution_end").map((frame) => [frame.toolCallId, frame]));
    expect(ends.get("s1")!.result.content[0].text).toContain('"answer": 42');
    expect(ends.get("s1")!.result.details.structuredContent).toEqual({ answer: 42, unit: "widgets" });
    const link = ends.get("l1")!.result.content.map((block: any) => block.text).join("\n");
    expect(link).toContain("[resource link: guide <file:///docs/guide.md> (text/markdown)] The guide");
    expect(link).toContain("embedded note text");
    expect(ends.get("f1")!.isError).toBe(true);
    expect(ends.get("f1")!.result.content[0].text).toContain("the widget is broken");
    // Arguments are checked against the server's schema before anything is sent to it.
    expect(ends.get("e1")!.isError).toBe(true);
    expect(ends.get("e1")!.result.content[0].text).toContain('Invalid arguments for tool "mcp__t__echo"');
    const results = bodyText(server.requests.at(-1)!);
    expect(results).toContain("the widget is broken");
    expect(await rpc.close()).toBe(0);
  }, 30_000);

  test("a long result is cut like other tools' output, the whole of it kept in a file the model is told of", async () => {
    server.enqueue({ content: [{ type: "toolCall", id: "b1", name: "mcp__t__big", arguments: {} }] }, { content: [{ type: "text", text: "ok" }] });
    const rpc = start();
    await runPrompt(rpc, "say a lot");
    const text = rpc.ofType("tool_execution_end").at(-1)!.result.content.map((block: any) => block.text).join("\n");
    expect(text).toContain("line 2000\n");
    expect(text).not.toContain("line 2001");
    const notice = /\[Output truncated: showing the first 2000 of 3000 lines\. Full output \(read it with offset\/limit\): (\S+)\]/.exec(text);
    expect(notice).not.toBeNull();
    expect(await Bun.file(notice![1]).text()).toContain("line 3000");
    expect(await rpc.close()).toBe(0);
  }, 30_000);

  test("--tools and --exclude-tools pick MCP tools by name like built-in and extension ones", async () => {
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
    const one = start(["--tools", "read,mcp__t__echo"]);
    await runPrompt(one, "hello");
    expect(offeredTools(server.requests.at(-1)!).sort()).toEqual(["mcp__t__echo", "read"]);
    expect(await one.close()).toBe(0);
    const most = start(["--exclude-tools", "mcp__t__picture"]);
    await runPrompt(most, "hello");
    const offered = offeredTools(server.requests.at(-1)!);
    expect(offered).toContain("mcp__t__echo");
    expect(offered).not.toContain("mcp__t__picture");
    expect(await most.close()).toBe(0);
  }, 30_000);

  test("a tools/list_changed notification adds the new tool for the next model call", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "g1", name: "mcp__t__grow", arguments: {} }] },
      { content: [{ type: "toolCall", id: "x1", name: "mcp__t__extra", arguments: {} }] },
      { content: [{ type: "text", text: "grown" }] },
    );
    const rpc = start();
    await runPrompt(rpc, "grow a tool");
    const requests = server.requests.slice(-3);
    expect(offeredTools(requests[0])).not.toContain("mcp__t__extra");
    expect(offeredTools(requests[1])).toContain("mcp__t__extra");
    expect(bodyText(requests[2])).toContain("extra ran");
    expect(await rpc.close()).toBe(0);
  }, 30_000);
});

describe("MCP prompts", () => {
  test("get_commands lists the server's prompts, and /mcp__t__review runs one as the user's message", async () => {
    server.enqueue({ content: [{ type: "text", text: "reviewed" }] });
    const rpc = start();
    // The first prompt waits for servers still connecting; get_commands does not, so ask once it is up.
    await runPrompt(rpc, "/mcp__t__review the parser");
    expect(bodyText(server.requests.at(-1)!)).toContain("Please review the parser carefully (from t).");
    expect(bodyText(server.requests.at(-1)!)).not.toContain("/mcp__t__review");
    const commands = (await rpc.request({ type: "get_commands" })).data.commands;
    const review = commands.find((command: any) => command.name === "mcp__t__review");
    expect(review).toMatchObject({ source: "prompt", sourceInfo: { source: "mcp", scope: "user" } });
    expect(review.description).toContain("Review a topic");
    expect(await rpc.close()).toBe(0);
  }, 30_000);

  test("a prompt missing its required argument is reported as a notice, and nothing reaches the model", async () => {
    const rpc = start();
    const before = server.requests.length;
    const from = rpc.mark();
    expect((await rpc.request({ type: "prompt", message: "/mcp__t__review" })).success).toBe(true);
    const notice = await rpc.waitForEvent("notice", (frame) => String(frame.message).includes("mcp__t__review"), 15_000, from);
    expect(notice.message).toContain('needs "topic"');
    expect(server.requests.length).toBe(before);
    expect(await rpc.close()).toBe(0);
    expect(readEvents(events).some((line) => line.startsWith("start "))).toBe(true);
  }, 30_000);
});
