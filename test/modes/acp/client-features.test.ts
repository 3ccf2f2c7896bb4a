/**
 * What the ACP client can take over or be told: fs delegation (read sees the
 * editor's unsaved buffer, edit and write land in it, the diff shows old and new
 * text), terminal delegation (bash runs in a client terminal embedded in the tool
 * call), todos as `plan` updates, slash commands advertised and run, and the
 * model chosen through the session's config options.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAcpFixture, type AcpFixture } from "./support/acp-harness.ts";

let fixture: AcpFixture;

beforeAll(async () => {
  fixture = await createAcpFixture([{ id: "m" }, { id: "other" }]);
});
afterEach(() => fixture.fake.server.clearScript());
afterAll(() => fixture.cleanup());

const done = { content: [{ type: "text" as const, text: "done" }] };

describe("fs delegation", () => {
  test("read goes through fs/read_text_file and sees the editor's unsaved buffer, not the disk", async () => {
    const file = join(fixture.cwd, "buffered.ts");
    writeFileSync(file, "on disk\n");
    const client = fixture.spawn({ fs: true });
    client.buffers.set(file, "unsaved edit in the editor\n");
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue({ content: [{ type: "toolCall", id: "call_r", name: "read", arguments: { path: "buffered.ts" } }] }, done);
    const before = fixture.fake.server.requests.length;
    await client.prompt(sessionId, "read it");
    expect(client.fsReads).toContain(file);
    const sent = JSON.stringify(fixture.fake.server.requests[before + 1].body.messages);
    expect(sent).toContain("unsaved edit in the editor");
    expect(sent).not.toContain("on disk");
    await client.close();
  });

  test("edit reads the buffer and writes through fs/write_text_file; the disk is untouched and the diff has the whole old and new text", async () => {
    const file = join(fixture.cwd, "edited.ts");
    writeFileSync(file, "const a = 1;\n");
    const client = fixture.spawn({ fs: true });
    client.buffers.set(file, "const a = 1;\nconst b = 2;\n");
    const { sessionId } = await client.start(fixture.cwd);
    await client.agent.request("session/set_mode", { sessionId, modeId: "acceptEdits" });
    fixture.fake.server.enqueue(
      { content: [{ type: "toolCall", id: "call_e", name: "edit", arguments: { path: "edited.ts", edits: [{ oldText: "const b = 2;", newText: "const b = 3;" }] } }] },
      done,
    );
    await client.prompt(sessionId, "change b");
    expect(client.fsWrites).toEqual([{ path: file, content: "const a = 1;\nconst b = 3;\n" }]);
    expect(readFileSync(file, "utf8")).toBe("const a = 1;\n");
    const final = client.ofKind(sessionId, "tool_call_update").filter((update) => update.toolCallId === "call_e").at(-1);
    expect(final?.status).toBe("completed");
    expect(final?.content).toEqual([{ type: "diff", path: file, oldText: "const a = 1;\nconst b = 2;\n", newText: "const a = 1;\nconst b = 3;\n" }]);
    await client.close();
  });

  test("without fs capabilities the tools use the disk", async () => {
    const file = join(fixture.cwd, "local.txt");
    const client = fixture.spawn({ fs: false });
    const { sessionId } = await client.start(fixture.cwd);
    await client.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    fixture.fake.server.enqueue({ content: [{ type: "toolCall", name: "write", arguments: { path: "local.txt", content: "disk" } }] }, done);
    await client.prompt(sessionId, "write");
    expect(readFileSync(file, "utf8")).toBe("disk");
    expect(client.fsWrites).toHaveLength(0);
    await client.close();
  });
});

describe("terminal delegation", () => {
  test("bash runs through terminal/create … release, the tool call embeds the terminal, and the model gets the output", async () => {
    const client = fixture.spawn({ terminal: true, permission: () => "allow_once" });
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue({ content: [{ type: "toolCall", id: "call_t", name: "bash", arguments: { command: "echo from-the-terminal; pwd" } }] }, done);
    const before = fixture.fake.server.requests.length;
    await client.prompt(sessionId, "run");
    expect(client.terminalCalls).toEqual(["create", "wait_for_exit", "output", "release"]);
    const embedded = client.ofKind(sessionId, "tool_call_update").find((update) => update.toolCallId === "call_t" && update.content?.some((item) => item.type === "terminal"));
    expect(embedded?.content).toEqual([{ type: "terminal", terminalId: "term-1" }]);
    const sent = JSON.stringify(fixture.fake.server.requests[before + 1].body.messages);
    expect(sent).toContain("from-the-terminal");
    expect(sent).toContain(fixture.cwd);
    await client.close();
  });

  test("cancel during a terminal command kills the terminal and answers cancelled", async () => {
    const client = fixture.spawn({ terminal: true, permission: () => "allow_once" });
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: "sleep 30" } }] }, done);
    const prompt = client.prompt(sessionId, "sleep");
    await client.waitFor(() => client.terminalCalls.includes("wait_for_exit"), "the terminal to run");
    await client.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(client.terminalCalls).toContain("kill");
    await client.close();
  });
});

describe("plans, commands and models", () => {
  test("_xcsh/set_todos sends the todos as a plan update", async () => {
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    await client.agent.request("_xcsh/set_todos", { sessionId, phases: [{ name: "Work", tasks: [{ content: "write tests", status: "done" }, "ship it"] }] });
    const plan = await client.waitFor(() => client.ofKind(sessionId, "plan").at(-1), "a plan update");
    expect(plan.entries).toEqual([
      { content: "write tests", priority: "medium", status: "completed" },
      { content: "ship it", priority: "medium", status: "pending" },
    ]);
    const bad = (await client.agent.request("_xcsh/set_todos", { sessionId, phases: "nope" }).catch((failure) => failure)) as { code: number };
    expect(bad.code).toBe(-32602);
    await client.close();
  });

  test("an extension's todo tool updates the plan", async () => {
    const extension = join(fixture.fake.home.home, "todo-extension.ts");
    writeFileSync(
      extension,
      `export default function (pi) {
        pi.registerTool({
          name: "todo_write",
          description: "Set the todo list",
          parameters: { type: "object", properties: { todos: { type: "array" } } },
          async execute(_id, params) {
            return { content: [{ type: "text", text: "saved" }], details: { todos: params.todos } };
          },
        });
      }\n`,
    );
    const client = fixture.spawn({ args: ["-e", extension] });
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue(
      { content: [{ type: "toolCall", name: "todo_write", arguments: { todos: [{ content: "plan the work", status: "in_progress" }] } }] },
      done,
    );
    await client.prompt(sessionId, "plan");
    const plan = await client.waitFor(() => client.ofKind(sessionId, "plan").at(-1), "a plan update");
    expect(plan.entries).toEqual([{ content: "plan the work", priority: "medium", status: "in_progress" }]);
    await client.close();
  });

  test("an extension command is advertised and a prompt starting with /name runs it without asking the model", async () => {
    const extension = join(fixture.fake.home.home, "command-extension.ts");
    const ran = join(fixture.cwd, "command-ran.txt");
    writeFileSync(
      extension,
      `import { writeFileSync } from "node:fs";
      export default function (pi) {
        pi.registerCommand("stamp", {
          description: "Stamp a file",
          handler: async (args) => writeFileSync(${JSON.stringify(ran)}, "args=" + args),
        });
      }\n`,
    );
    const client = fixture.spawn({ args: ["-e", extension] });
    const { sessionId } = await client.start(fixture.cwd);
    const commands = await client.waitFor(() => client.ofKind(sessionId, "available_commands_update").at(-1), "available commands");
    expect(commands.availableCommands).toContainEqual(expect.objectContaining({ name: "stamp", description: "Stamp a file" }));
    const before = fixture.fake.server.requests.length;
    expect((await client.prompt(sessionId, "/stamp now")).stopReason).toBe("end_turn");
    expect(readFileSync(ran, "utf8")).toBe("args=now");
    expect(fixture.fake.server.requests.length).toBe(before);
    await client.close();
  });

  test("prompt templates are advertised as commands, and a prompt starting with /name runs the template", async () => {
    const prompts = join(fixture.cwd, ".xcsh", "prompts");
    mkdirSync(prompts, { recursive: true });
    writeFileSync(join(prompts, "review.md"), "---\ndescription: Review the code\n---\nPlease review $ARGUMENTS carefully.\n");
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    const commands = await client.waitFor(() => client.ofKind(sessionId, "available_commands_update").at(-1), "available commands");
    expect(commands.availableCommands).toContainEqual(expect.objectContaining({ name: "review", description: "Review the code" }));
    fixture.fake.server.enqueue(done);
    const before = fixture.fake.server.requests.length;
    await client.prompt(sessionId, "/review src/main.ts");
    expect(JSON.stringify(fixture.fake.server.requests[before].body.messages)).toContain("Please review src/main.ts carefully.");
    await client.close();
  });

  test("the model config option switches the model the next request uses; an unknown model is an invalid-params error", async () => {
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    const options = await client.agent.request("session/set_config_option", { sessionId, configId: "model", value: "fake/other" });
    expect(options.configOptions.find((option) => option.id === "model")).toMatchObject({ currentValue: "fake/other" });
    fixture.fake.server.enqueue(done);
    const before = fixture.fake.server.requests.length;
    await client.prompt(sessionId, "hi");
    expect(fixture.fake.server.requests[before].model).toBe("other");
    const error = await client.agent.request("session/set_config_option", { sessionId, configId: "model", value: "fake/nope" }).catch((failure) => failure);
    expect(error.code).toBe(-32602);
    expect(existsSync(fixture.cwd)).toBe(true);
    await client.close();
  });
});
