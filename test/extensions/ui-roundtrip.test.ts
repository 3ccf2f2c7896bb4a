/**
 * ctx.ui dialogs over RPC with the built binary: the host answers, cancels or
 * lets a dialog time out; an abort while a dialog is open ends the run; and
 * while an extension waits for an answer the host's other commands (get_state,
 * abort) are answered at once.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createExtensionFixture, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
let dialogs: string;
beforeAll(() => {
  fixture = createExtensionFixture();
  dialogs = fixture.writeExtension(
    "dialogs.ts",
    `export default function (pi) {
  pi.registerCommand("ask", { handler: async (args, ctx) => {
    const timeout = args ? Number(args) : undefined;
    const choice = await ctx.ui.select("Pick one", ["red", "green"], { timeout });
    const ok = await ctx.ui.confirm("Sure?", "Really " + choice + "?", { timeout });
    const name = await ctx.ui.input("Name", "type a name", { timeout });
    const text = await ctx.ui.editor("Edit", "prefilled");
    ctx.ui.notify(JSON.stringify({ choice: choice ?? null, ok, name: name ?? null, text: text ?? null }));
  } });
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash") return;
    const ok = await ctx.ui.confirm("Run " + event.input.command + "?", "The model wants to run a command", { signal: ctx.signal });
    if (!ok) return { block: true, reason: "Not confirmed" };
  });
}`,
  );
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const dialog = (rpc: { waitFor: (predicate: (frame: any) => boolean, timeoutMs?: number) => Promise<any> }, method: string) =>
  rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === method);
const result = async (rpc: any) => JSON.parse((await rpc.waitFor((frame: any) => frame.method === "notify")).message);

describe("dialogs over RPC", () => {
  test("the host's answers reach the extension: select, confirm, input, editor", async () => {
    const rpc = fixture.start(withExtensions(dialogs));
    // The command's response comes once its handler has returned (as pi 1.6.0 answers), so not awaited here.
    const asked = rpc.request({ type: "prompt", message: "/ask" });
    const select = await dialog(rpc, "select");
    expect(select).toMatchObject({ title: "Pick one", options: ["red", "green"] });
    rpc.send({ type: "extension_ui_response", id: select.id, value: "green" });
    const confirm = await dialog(rpc, "confirm");
    expect(confirm).toMatchObject({ title: "Sure?", message: "Really green?" });
    rpc.send({ type: "extension_ui_response", id: confirm.id, confirmed: true });
    const input = await dialog(rpc, "input");
    expect(input.placeholder).toBe("type a name");
    rpc.send({ type: "extension_ui_response", id: input.id, value: "Ada" });
    const editor = await dialog(rpc, "editor");
    expect(editor.prefill).toBe("prefilled");
    rpc.send({ type: "extension_ui_response", id: editor.id, value: "edited text" });
    expect(await result(rpc)).toEqual({ choice: "green", ok: true, name: "Ada", text: "edited text" });
    const response = await asked;
    expect(response.data.disposition).toBe("handled");
    // Handled means done: the response follows the last dialog's answer and the command's result.
    expect(rpc.frames.indexOf(response)).toBeGreaterThan(rpc.frames.findIndex((frame: any) => frame.method === "notify"));
    expect(await rpc.close()).toBe(0);
  });

  test("cancelled dialogs resolve to undefined and false; unknown response ids are ignored", async () => {
    const rpc = fixture.start(withExtensions(dialogs));
    const asked = rpc.request({ type: "prompt", message: "/ask" });
    rpc.send({ type: "extension_ui_response", id: "no-such-dialog", value: "red" });
    for (const method of ["select", "confirm", "input", "editor"]) {
      const frame = await dialog(rpc, method);
      rpc.send({ type: "extension_ui_response", id: frame.id, cancelled: true });
    }
    expect(await result(rpc)).toEqual({ choice: null, ok: false, name: null, text: null });
    expect((await asked).data.disposition).toBe("handled");
    expect(rpc.ofType("response").every((frame) => frame.success)).toBe(true);
    expect(await rpc.close()).toBe(0);
  });

  test("a dialog with a timeout resolves by itself and carries the timeout to the host", async () => {
    const rpc = fixture.start(withExtensions(dialogs));
    const asked = rpc.request({ type: "prompt", message: "/ask 150" });
    const select = await dialog(rpc, "select");
    expect(select.timeout).toBe(150);
    // Not answering select, confirm or input: each times out on its own.
    const editor = await dialog(rpc, "editor");
    expect(rpc.ofType("extension_ui_request").map((frame) => frame.method)).toEqual(["select", "confirm", "input", "editor"]);
    rpc.send({ type: "extension_ui_response", id: editor.id, value: "late but fine" });
    expect(await result(rpc)).toEqual({ choice: null, ok: false, name: null, text: "late but fine" });
    expect((await asked).data.disposition).toBe("handled");
    expect(await rpc.close()).toBe(0);
  });

  test("while a dialog waits, get_state is answered; abort ends the run and the dialog resolves to its default", async () => {
    const rpc = fixture.start(withExtensions(dialogs));
    fixture.server.enqueue({ content: [{ type: "toolCall", id: "b1", name: "bash", arguments: { command: "echo hi" } }] });
    await rpc.request({ type: "prompt", message: "run it" });
    const confirm = await dialog(rpc, "confirm");
    expect(confirm.title).toBe("Run echo hi?");
    const state = await rpc.request({ type: "get_state" }, 2_000);
    expect(state.data.isStreaming).toBe(true);
    expect((await rpc.request({ type: "abort" }, 2_000)).success).toBe(true);
    const end = await rpc.waitForEvent("agent_end");
    const toolResult = end.messages.find((message: any) => message.role === "toolResult");
    expect(toolResult.isError).toBe(true);
    // A late answer to the dismissed dialog changes nothing.
    rpc.send({ type: "extension_ui_response", id: confirm.id, confirmed: true });
    expect((await rpc.request({ type: "get_state" })).data.isStreaming).toBe(false);
    expect(await rpc.close()).toBe(0);
  });

  test("stdin closing while a dialog waits ends the process cleanly", async () => {
    const rpc = fixture.start(withExtensions(dialogs));
    // Never answered: the command is still running when stdin closes.
    rpc.send({ type: "prompt", message: "/ask" });
    await dialog(rpc, "select");
    expect(await rpc.close()).toBe(0);
  });
});

describe("fire-and-forget UI requests", () => {
  test("notify, setStatus, setWidget, set_editor_text are sent; setTitle only with PI_RPC_EMIT_TITLE=1", async () => {
    const ext = fixture.writeExtension(
      "status.ts",
      `export default function (pi) {
  pi.registerCommand("paint", { handler: async (_a, ctx) => {
    ctx.ui.setStatus("build", "running");
    ctx.ui.setWidget("todo", ["- one", "- two"], { placement: "belowEditor" });
    ctx.ui.setTitle("xcsh - project");
    ctx.ui.setEditorText("draft");
    ctx.ui.notify("painted", "warning");
  } });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "/paint" });
    await rpc.waitFor((frame) => frame.method === "notify");
    const requests = rpc.ofType("extension_ui_request").map(({ id: _id, ...rest }) => rest);
    expect(requests).toEqual([
      { type: "extension_ui_request", method: "setStatus", statusKey: "build", statusText: "running" },
      { type: "extension_ui_request", method: "setWidget", widgetKey: "todo", widgetLines: ["- one", "- two"], widgetPlacement: "belowEditor" },
      { type: "extension_ui_request", method: "set_editor_text", text: "draft" },
      { type: "extension_ui_request", method: "notify", message: "painted", notifyType: "warning" },
    ]);
    expect(await rpc.close()).toBe(0);

    fixture.home.env.PI_RPC_EMIT_TITLE = "1";
    try {
      const titled = fixture.start(withExtensions(ext));
      await titled.request({ type: "prompt", message: "/paint" });
      await titled.waitFor((frame) => frame.method === "notify");
      expect(titled.ofType("extension_ui_request").find((frame) => frame.method === "setTitle")?.title).toBe("xcsh - project");
      expect(await titled.close()).toBe(0);
    } finally {
      delete fixture.home.env.PI_RPC_EMIT_TITLE;
    }
  });
});
