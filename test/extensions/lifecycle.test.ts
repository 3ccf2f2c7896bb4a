/**
 * The replacement-session lifecycle of seed 003 through the built binary:
 * ctx.newSession / fork / switchSession run setup and withSession against the
 * new session, the old runtime gets session_shutdown before the new one's
 * session_start, captured old objects throw, and ctx.reload() re-reads the
 * extension's file.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());


const HANDOFF = `let instance = 0;
export default function (pi) {
  const me = ++instance;
  pi.on("session_start", (event, ctx) => ctx.ui.notify("start#" + me + " " + event.reason));
  pi.on("session_shutdown", (event, ctx) => ctx.ui.notify("shutdown#" + me + " " + event.reason));
  pi.registerCommand("handoff", { handler: async (_args, ctx) => {
    const oldManager = ctx.sessionManager;
    const oldFile = oldManager.getSessionFile();
    const result = await ctx.newSession({
      parentSession: oldFile,
      setup: async (sm) => { sm.appendMessage({ role: "user", content: [{ type: "text", text: "Context carried over" }], timestamp: Date.now() }); },
      withSession: async (fresh) => {
        let stale = "no error";
        try { pi.setSessionName("x"); } catch (error) { stale = error.message; }
        fresh.ui.notify("withSession new=" + (fresh.sessionManager.getSessionFile() !== oldFile) + " stale=" + stale.slice(0, 40));
        await fresh.sendUserMessage("Continue in the new session");
      },
    });
    ctx.ui.notify("cancelled=" + result.cancelled);
  } });
}`;

describe("session replacement", () => {
  test("newSession: shutdown, a fresh instance's session_start, setup, then withSession; old pi objects are stale", async () => {
    const ext = fixture.writeExtension("handoff.ts", HANDOFF);
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "first" });
    await rpc.waitForEvent("agent_end");
    const oldFile = (await rpc.request({ type: "get_state" })).data.sessionFile;
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "/handoff" });
    await rpc.waitFor((frame) => frame.method === "notify" && frame.message.startsWith("cancelled"));
    expect(notices(rpc)).toEqual([
      "start#1 startup",
      "shutdown#1 new",
      "start#2 new",
      "withSession new=true stale=This extension object belongs to a sessi",
      "cancelled=false",
    ]);
    const state = (await rpc.request({ type: "get_state" })).data;
    expect(state.sessionFile).not.toBe(oldFile);
    // The new session's request carried the setup message and the kickoff prompt.
    const sent = JSON.stringify(fixture.server.requests.slice(before).map((request) => request.body.messages));
    expect(sent).toContain("Context carried over");
    expect(sent).toContain("Continue in the new session");
    expect(sent).not.toContain("first");
    const header = JSON.parse((await Bun.file(state.sessionFile).text()).split("\n")[0]);
    expect(header.parentSession).toBe(oldFile);
    expect(await rpc.close()).toBe(0);
  });

  test("fork and switchSession from a command; the RPC fork response reports cancellation by an extension", async () => {
    const ext = fixture.writeExtension(
      "nav.ts",
      `export default function (pi) {
  pi.registerCommand("fork-first", { handler: async (_a, ctx) => {
    const first = ctx.sessionManager.getBranch().find((e) => e.type === "message" && e.message.role === "user");
    const result = await ctx.fork(first.id, { withSession: async (fresh) => fresh.ui.notify("forked entries=" + fresh.sessionManager.getEntries().length) });
    ctx.ui.notify("fork cancelled=" + result.cancelled);
  } });
  pi.registerCommand("go", { handler: async (args, ctx) => {
    const result = await ctx.switchSession(args, { withSession: async (fresh) => fresh.ui.notify("switched to " + fresh.sessionManager.getSessionFile()) });
    ctx.ui.notify("switch cancelled=" + result.cancelled);
  } });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "one" });
    await rpc.waitForEvent("agent_end");
    const beforePrompt1 = rpc.mark();
    await rpc.request({ type: "prompt", message: "two" });
    await rpc.waitForEvent("agent_end", undefined, undefined, beforePrompt1);
    const original = (await rpc.request({ type: "get_state" })).data.sessionFile;
    await rpc.request({ type: "prompt", message: "/fork-first" });
    await rpc.waitFor((frame) => frame.method === "notify" && frame.message.startsWith("fork cancelled"));
    // Forked before the first message: the session's opening model and thinking level entries come along, as in pi.
    expect(notices(rpc)).toEqual(["forked entries=2", "fork cancelled=false"]);
    await rpc.request({ type: "prompt", message: `/go ${original}` });
    await rpc.waitFor((frame) => frame.method === "notify" && frame.message.startsWith("switch cancelled"));
    expect(notices(rpc).slice(2)).toEqual([`switched to ${original}`, "switch cancelled=false"]);
    expect((await rpc.request({ type: "get_messages" })).data.messages).toHaveLength(4);
    expect(await rpc.close()).toBe(0);
  });
});

describe("reload", () => {
  test("ctx.reload() shuts the runtime down, reads the file again and starts it with reason reload", async () => {
    const path = fixture.writeExtension(
      "reloadable.ts",
      `export default function (pi) {
  pi.on("session_start", (event, ctx) => ctx.ui.notify("v1 start " + event.reason));
  pi.on("session_shutdown", (event, ctx) => ctx.ui.notify("v1 shutdown " + event.reason));
  pi.registerCommand("reload-runtime", { handler: async (_a, ctx) => { await ctx.reload(); } });
  pi.registerCommand("version", { handler: async (_a, ctx) => ctx.ui.notify("version 1") });
}`,
    );
    const rpc = fixture.start(withExtensions(path));
    await rpc.request({ type: "get_state" });
    writeFileSync(
      path,
      `export default function (pi) {
  pi.on("session_start", (event, ctx) => ctx.ui.notify("v2 start " + event.reason));
  pi.on("resources_discover", (event, ctx) => ctx.ui.notify("v2 discover " + event.reason));
  pi.registerCommand("version", { handler: async (_a, ctx) => ctx.ui.notify("version 2") });
}`,
    );
    await rpc.request({ type: "prompt", message: "/reload-runtime" });
    await rpc.waitFor((frame) => frame.method === "notify" && frame.message === "v2 discover reload");
    await rpc.request({ type: "prompt", message: "/version" });
    await rpc.waitFor((frame) => frame.method === "notify" && frame.message.startsWith("version"));
    expect(notices(rpc)).toEqual(["v1 start startup", "v1 shutdown reload", "v2 start reload", "v2 discover reload", "version 2"]);
    expect((await rpc.request({ type: "get_commands" })).data.commands.map((command: any) => command.name)).toEqual(["version"]);
    expect(await rpc.close()).toBe(0);
  });

  test("a provider whose extension no longer registers it is gone after reload", async () => {
    const path = fixture.writeExtension(
      "provider-v1.ts",
      `export default function (pi) {
  pi.registerProvider("temp", { baseUrl: "http://127.0.0.1:9", apiKey: "k", api: "openai-completions", models: [{ id: "temp-1" }] });
  pi.registerCommand("reload-runtime", { handler: async (_a, ctx) => { await ctx.reload(); } });
}`,
    );
    const rpc = fixture.start(withExtensions(path));
    const ids = async () => (await rpc.request({ type: "get_available_models" })).data.models.map((model: any) => `${model.provider}/${model.id}`);
    expect(await ids()).toContain("temp/temp-1");
    writeFileSync(path, `export default function (pi) { pi.on("session_start", (e, ctx) => ctx.ui.notify("v2 " + e.reason)); }`);
    await rpc.request({ type: "prompt", message: "/reload-runtime" });
    await rpc.waitFor((frame) => frame.method === "notify" && frame.message === "v2 reload");
    expect(await ids()).not.toContain("temp/temp-1");
    expect(await rpc.close()).toBe(0);
  });
});
