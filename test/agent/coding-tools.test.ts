/**
 * All seven built-in tools driven through the agent loop, as the model would
 * call them, on a real temporary project.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../../src/agent/agent.ts";
import type { AgentEvent } from "../../src/agent/types.ts";
import type { Model } from "../../src/ai/types.ts";
import { createAllTools } from "../../src/tools/index.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";

let server: FakeLlmServer;
let project: string;

beforeAll(() => {
  server = startFakeLlm();
  project = mkdtempSync(join(tmpdir(), "xcsh-tools-loop-"));
});
afterAll(async () => {
  await server.close();
  rmSync(project, { recursive: true, force: true });
});

const call = (name: string, args: Record<string, unknown>) => ({ type: "toolCall" as const, name, arguments: args });

test("write, read, edit, ls, find, grep and bash all work through the loop", async () => {
  const model: Model = {
    id: "gpt-fake",
    name: "fake",
    api: "openai-responses",
    provider: "fake",
    baseUrl: server.baseUrl("openai-responses"),
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 100_000,
    maxTokens: 1000,
  };
  server.enqueue(
    { content: [call("write", { path: "src/app.ts", content: "export const answer = 41;\n" })] },
    { content: [call("read", { path: "src/app.ts" }), call("ls", { path: "src" })] },
    { content: [call("edit", { path: "src/app.ts", edits: [{ oldText: "41", newText: "42" }] })] },
    { content: [call("find", { pattern: "*.ts" }), call("grep", { pattern: "answer = 42" })] },
    { content: [call("bash", { command: "cat src/app.ts && exit 3" })] },
    { content: [{ type: "text", text: "All done." }] },
  );
  const before = server.requests.length;
  const tools = Object.values(createAllTools(project));
  const agent = new Agent({ initialState: { model, tools }, getApiKey: () => "key" });
  const ends: Extract<AgentEvent, { type: "tool_execution_end" }>[] = [];
  agent.subscribe((event) => {
    if (event.type === "tool_execution_end") ends.push(event);
  });
  await agent.prompt("exercise the tools");

  const textOf = (name: string) => ends.find((end) => end.toolName === name)!.result.content[0].text as string;
  expect(ends.map((end) => end.toolName).sort()).toEqual(["bash", "edit", "find", "grep", "ls", "read", "write"]);
  expect(readFileSync(join(project, "src/app.ts"), "utf8")).toBe("export const answer = 42;\n");
  expect(textOf("read")).toContain("answer = 41");
  expect(textOf("ls")).toContain("app.ts");
  expect(textOf("find")).toContain("src/app.ts");
  expect(textOf("grep")).toContain("src/app.ts:1:");
  // A failing command is an error result that still shows the output.
  const bash = ends.find((end) => end.toolName === "bash")!;
  expect(bash.isError).toBe(true);
  expect(textOf("bash")).toContain("answer = 42");
  expect(textOf("bash")).toContain("code 3");
  expect(ends.filter((end) => end.toolName !== "bash").every((end) => !end.isError)).toBe(true);
  // The model received every result; the final request carries the bash failure.
  expect(server.requests.length - before).toBe(6);
  expect(JSON.stringify(server.requests.at(-1)!.body.input)).toContain("code 3");
  expect((agent.state.messages.at(-1) as any).content[0].text).toBe("All done.");
});
