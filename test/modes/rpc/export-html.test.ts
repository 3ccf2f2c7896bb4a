/**
 * export_html over RPC: the open session — as it is at that moment, tool calls
 * included — written as one HTML page, answered with its path; a path that
 * cannot be written is a failed response and the process keeps serving.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createRpcFixture, type RpcFixture } from "../../support/rpc-harness.ts";
import { SESSION_ID, writeSessionFixture, XSS } from "../../export/fixture.ts";
import { pageData } from "../../export/page-data.ts";

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture();
});
afterAll(() => fixture.cleanup());

describe("export_html", () => {
  test("writes the open session, with its branches, to the given path", async () => {
    const file = join(fixture.cwd, "tree.jsonl");
    // Recorded in this folder: xcsh runs a session in its recorded working directory (pi 1.6.0).
    const written = writeSessionFixture(file, fixture.cwd);
    const rpc = fixture.start(["--model", "fake/fake-model", "--session", file]);
    const out = join(fixture.cwd, "out", "tree.html");
    const response = await rpc.request({ id: "x1", type: "export_html", outputPath: out });
    expect(response).toMatchObject({ id: "x1", type: "response", command: "export_html", success: true, data: { path: out } });
    const html = readFileSync(out, "utf8");
    const data = pageData(html);
    expect(data.header.id).toBe(SESSION_ID);
    expect(data.leafId).toBe(written.ids.imageAnswer);
    expect(data.entries).toHaveLength(Object.keys(written.ids).length);
    expect(html).not.toContain(XSS);
    expect(await rpc.close()).toBe(0);
  });

  test("a conversation held in the session just now is in the page, tool call and all", async () => {
    const rpc = fixture.start();
    fixture.server.enqueue(
      { content: [{ type: "toolCall", id: "call_echo", name: "bash", arguments: { command: "echo from-the-tool" } }] },
      { content: [{ type: "text", text: "The tool said from-the-tool." }] },
    );
    const from = rpc.mark();
    expect((await rpc.request({ type: "prompt", message: `say hi ${XSS}` })).success).toBe(true);
    await rpc.waitForEvent("agent_end", () => true, 10_000, from);
    const response = await rpc.request({ type: "export_html" });
    expect(response.success).toBe(true);
    const path: string = response.data.path;
    // The default: xcsh-session-<session id>.html in the working directory.
    const state = await rpc.request({ type: "get_state" });
    expect(path).toBe(join(fixture.cwd, `xcsh-session-${state.data.sessionId}.html`));
    const html = readFileSync(path, "utf8");
    const entries = pageData(html).entries as Array<{ type: string; message?: { role: string } }>;
    expect(entries.filter((entry) => entry.type === "message").map((entry) => entry.message!.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(html).toContain("from-the-tool");
    expect(html).not.toContain(XSS);
    expect(await rpc.close()).toBe(0);
  });

  test("an output path that cannot be written is a failed response, and the process goes on", async () => {
    const file = join(fixture.cwd, "again.jsonl");
    writeSessionFixture(file, fixture.cwd);
    const copy = join(fixture.cwd, "copy.jsonl");
    copyFileSync(file, copy);
    const rpc = fixture.start(["--model", "fake/fake-model", "--session", copy]);
    const out = join(file, "not-a-dir", "x.html");
    const response = await rpc.request({ id: "bad", type: "export_html", outputPath: out });
    expect(response).toMatchObject({ id: "bad", command: "export_html", success: false });
    expect(response.error).toBe(`Cannot write ${out}: a part of its path is not a directory`);
    expect(existsSync(out)).toBe(false);
    expect((await rpc.request({ type: "get_state" })).success).toBe(true);
    expect(await rpc.close()).toBe(0);
  });
});
