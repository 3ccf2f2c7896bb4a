/**
 * Permissions and session modes over ACP: a changing tool is asked about before
 * it runs; a rejection means it never runs; "always" is remembered for the
 * session; acceptEdits, plan and bypass change who is asked; a client that goes
 * away while asked leaves nothing running and the process exits cleanly.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAcpFixture, type AcpFixture } from "./support/acp-harness.ts";

let fixture: AcpFixture;
let fileCount = 0;

beforeAll(async () => {
  fixture = await createAcpFixture();
});
afterEach(() => fixture.fake.server.clearScript());
afterAll(() => fixture.cleanup());

/** A fresh file name in the project, and a bash command that creates it. */
function marker(): { path: string; command: string } {
  const path = join(fixture.cwd, `marker-${++fileCount}`);
  return { path, command: `touch ${path}` };
}

const bashCall = (command: string, id?: string) => ({ content: [{ type: "toolCall" as const, ...(id ? { id } : {}), name: "bash", arguments: { command } }] });
const done = { content: [{ type: "text" as const, text: "done" }] };

describe("asking before changing tools", () => {
  test("a rejected bash call does not run; the model is told the user rejected it", async () => {
    const client = fixture.spawn({ permission: () => "reject_once" });
    const { sessionId } = await client.start(fixture.cwd);
    const { path, command } = marker();
    fixture.fake.server.enqueue(bashCall(command, "call_rejected"), done);
    const before = fixture.fake.server.requests.length;
    expect((await client.prompt(sessionId, "make the marker")).stopReason).toBe("end_turn");
    expect(client.permissionRequests).toHaveLength(1);
    const asked = client.permissionRequests[0];
    expect(asked.toolCall).toMatchObject({ toolCallId: "call_rejected", kind: "execute" });
    expect(asked.options.map((option) => option.kind)).toEqual(["allow_once", "allow_always", "reject_once", "reject_always"]);
    expect(existsSync(path)).toBe(false);
    const final = client.ofKind(sessionId, "tool_call_update").filter((update) => update.toolCallId === "call_rejected").at(-1);
    expect(final?.status).toBe("failed");
    expect(JSON.stringify(fixture.fake.server.requests[before + 1].body.messages)).toContain("rejected");
    await client.close();
  });

  test("a write shows the new content as a diff when asked, and lands on disk once allowed", async () => {
    const client = fixture.spawn({ permission: () => "allow_once" });
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue({ content: [{ type: "toolCall", id: "call_write", name: "write", arguments: { path: "new.txt", content: "fresh\n" } }] }, done);
    await client.prompt(sessionId, "write it");
    expect(client.permissionRequests[0].toolCall.content).toEqual([{ type: "diff", path: join(fixture.cwd, "new.txt"), oldText: null, newText: "fresh\n" }]);
    expect(readFileSync(join(fixture.cwd, "new.txt"), "utf8")).toBe("fresh\n");
    const final = client.ofKind(sessionId, "tool_call_update").filter((update) => update.toolCallId === "call_write").at(-1);
    expect(final?.status).toBe("completed");
    expect(final?.content).toEqual([{ type: "diff", path: join(fixture.cwd, "new.txt"), oldText: null, newText: "fresh\n" }]);
    await client.close();
  });

  test("allow always is asked once: the second bash call of the session runs without asking", async () => {
    const client = fixture.spawn({ permission: () => "allow_always" });
    const { sessionId } = await client.start(fixture.cwd);
    const first = marker();
    const second = marker();
    fixture.fake.server.enqueue(bashCall(first.command), done, bashCall(second.command), done);
    await client.prompt(sessionId, "first");
    await client.prompt(sessionId, "second");
    expect(existsSync(first.path)).toBe(true);
    expect(existsSync(second.path)).toBe(true);
    expect(client.permissionRequests).toHaveLength(1);
    await client.close();
  });

  test("reject always refuses every later call of that tool without asking again", async () => {
    const client = fixture.spawn({ permission: () => "reject_always" });
    const { sessionId } = await client.start(fixture.cwd);
    const first = marker();
    const second = marker();
    fixture.fake.server.enqueue(bashCall(first.command), done, bashCall(second.command), done);
    await client.prompt(sessionId, "first");
    await client.prompt(sessionId, "second");
    expect(existsSync(first.path) || existsSync(second.path)).toBe(false);
    expect(client.permissionRequests).toHaveLength(1);
    await client.close();
  });

  test("a client that goes away while asked: the tool never runs and xcsh exits with 0", async () => {
    let asked!: () => void;
    const askedPromise = new Promise<void>((resolve) => (asked = resolve));
    const client = fixture.spawn({
      permission: () => {
        asked();
        return new Promise(() => {}); // never answered
      },
    });
    const { sessionId } = await client.start(fixture.cwd);
    const { path, command } = marker();
    fixture.fake.server.enqueue(bashCall(command), done);
    void client.prompt(sessionId, "go").catch(() => {});
    await askedPromise;
    expect(await client.close()).toBe(0);
    expect(existsSync(path)).toBe(false);
  });
});

describe("session modes", () => {
  test("set_mode is announced with current_mode_update; an unknown mode is an invalid-params error listing the modes", async () => {
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    await client.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    await client.waitFor(() => client.ofKind(sessionId, "current_mode_update").find((update) => update.currentModeId === "plan"), "current_mode_update");
    const error = await client.agent.request("session/set_mode", { sessionId, modeId: "yolo" }).catch((failure) => failure);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain("acceptEdits");
    await client.close();
  });

  test("plan mode refuses bash and write without asking; reading still works", async () => {
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    await client.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    writeFileSync(join(fixture.cwd, "readable.txt"), "plain\n");
    const { path, command } = marker();
    fixture.fake.server.enqueue(
      {
        content: [
          { type: "toolCall", id: "call_bash", name: "bash", arguments: { command } },
          { type: "toolCall", id: "call_write", name: "write", arguments: { path: "plan.txt", content: "x" } },
          { type: "toolCall", id: "call_read", name: "read", arguments: { path: "readable.txt" } },
        ],
      },
      done,
    );
    await client.prompt(sessionId, "plan it");
    expect(client.permissionRequests).toHaveLength(0);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(join(fixture.cwd, "plan.txt"))).toBe(false);
    const status = (id: string) => client.ofKind(sessionId, "tool_call_update").filter((update) => update.toolCallId === id).at(-1)?.status;
    expect(status("call_bash")).toBe("failed");
    expect(status("call_write")).toBe("failed");
    expect(status("call_read")).toBe("completed");
    await client.close();
  });

  test("acceptEdits writes without asking but still asks before bash", async () => {
    const client = fixture.spawn({ permission: () => "reject_once" });
    const { sessionId } = await client.start(fixture.cwd);
    await client.agent.request("session/set_config_option", { sessionId, configId: "mode", value: "acceptEdits" });
    const { path, command } = marker();
    fixture.fake.server.enqueue(
      { content: [{ type: "toolCall", name: "write", arguments: { path: "accepted.txt", content: "ok" } }] },
      bashCall(command),
      done,
    );
    await client.prompt(sessionId, "edit and run");
    expect(readFileSync(join(fixture.cwd, "accepted.txt"), "utf8")).toBe("ok");
    expect(client.permissionRequests.map((request) => request.toolCall.kind)).toEqual(["execute"]);
    expect(existsSync(path)).toBe(false);
    await client.close();
  });

  test("bypass never asks", async () => {
    const client = fixture.spawn({ permission: () => "reject_once" });
    const { sessionId } = await client.start(fixture.cwd);
    await client.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    const { path, command } = marker();
    fixture.fake.server.enqueue(bashCall(command), done);
    await client.prompt(sessionId, "run");
    expect(client.permissionRequests).toHaveLength(0);
    expect(existsSync(path)).toBe(true);
    await client.close();
  });
});

describe("extension tools", () => {
  /** An extension with two tools that each leave a marker file: one says it changes things, one does not. */
  function toolsExtension(): { path: string; marked: string; unmarked: string } {
    const dir = join(fixture.cwd, "..", "ext-tools");
    mkdirSync(dir, { recursive: true });
    const marked = join(dir, "marked-ran");
    const unmarked = join(dir, "unmarked-ran");
    const path = join(dir, "tools.ts");
    writeFileSync(
      path,
      `import { writeFileSync } from "node:fs";
export default function (pi) {
  const tool = (name, file, changesState) => pi.registerTool({
    name, description: name, parameters: { type: "object", properties: {} }, changesState,
    async execute() { writeFileSync(${JSON.stringify(dir)} + "/" + file, "ran"); return { content: [{ type: "text", text: "ok" }] }; },
  });
  tool("deploy", "marked-ran", true);
  tool("lookup", "unmarked-ran", undefined);
}
`,
    );
    return { path, marked, unmarked };
  }

  test("a tool marked changesState is asked about and refused in plan mode; an unmarked one just runs", async () => {
    const ext = toolsExtension();
    const call = (name: string) => ({ content: [{ type: "toolCall" as const, name, arguments: {} }] });
    const client = fixture.spawn({ permission: () => "reject_once", args: ["-e", ext.path] });
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue(call("deploy"), done, call("lookup"), done);
    await client.prompt(sessionId, "deploy");
    expect(client.permissionRequests.map((request) => request.toolCall.title ?? "")).toHaveLength(1);
    expect(existsSync(ext.marked)).toBe(false);
    await client.prompt(sessionId, "look up");
    expect(client.permissionRequests).toHaveLength(1);
    expect(existsSync(ext.unmarked)).toBe(true);

    await client.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    fixture.fake.server.enqueue(call("deploy"), done);
    const before = fixture.fake.server.requests.length;
    await client.prompt(sessionId, "deploy again");
    expect(client.permissionRequests).toHaveLength(1);
    expect(existsSync(ext.marked)).toBe(false);
    expect(JSON.stringify(fixture.fake.server.requests[before + 1].body.messages)).toContain("plan mode");
    await client.close();
  });
});
