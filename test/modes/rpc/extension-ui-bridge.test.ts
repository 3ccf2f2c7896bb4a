/**
 * ctx.ui in RPC mode, driven as a host would: every frame the bridge writes
 * is recorded as the JSON a host reads, and answers are fed back as the host
 * would send them. What an extension sees is the value its dialog resolves to.
 */
import { describe, expect, test } from "bun:test";
import { RpcExtensionUI } from "../../../src/modes/rpc/extension-ui-bridge.ts";
import { dialogResponse, isDialog, isExtensionUiRequest } from "../../../src/modes/rpc/rpc-client-extension-ui.ts";

type Frame = Record<string, any>;

function host(options?: { emitTitle?: boolean }) {
  const frames: Frame[] = [];
  // What reaches the host is JSON: undefined fields vanish.
  const ui = new RpcExtensionUI((frame) => frames.push(JSON.parse(JSON.stringify(frame))), options);
  const last = () => frames[frames.length - 1];
  const answer = (fields: object) => ui.handleResponse({ type: "extension_ui_response", id: last().id, ...fields });
  return { ui, frames, last, answer };
}

const request = (fields: object) => ({ type: "extension_ui_request", id: expect.any(String), ...fields });

describe("dialogs", () => {
  test("select writes a request and resolves to the chosen option", async () => {
    const { ui, last, answer } = host();
    const choice = ui.select("Allow?", ["Allow", "Block"], { timeout: 10_000 });
    expect(last()).toEqual(request({ method: "select", title: "Allow?", options: ["Allow", "Block"], timeout: 10_000 }));
    expect(ui.pendingCount).toBe(1);
    expect(answer({ value: "Block" })).toBe(true);
    expect(await choice).toBe("Block");
    expect(ui.pendingCount).toBe(0);
  });

  test("confirm resolves to the host's confirmed", async () => {
    const { ui, last, answer } = host();
    const yes = ui.confirm("Clear?", "All messages will be lost.");
    expect(last()).toEqual(request({ method: "confirm", title: "Clear?", message: "All messages will be lost." }));
    answer({ confirmed: true });
    expect(await yes).toBe(true);

    const no = ui.confirm("Clear?", "Again?");
    answer({ confirmed: false });
    expect(await no).toBe(false);
  });

  test("input and editor resolve to the text, an empty one included", async () => {
    const { ui, last, answer } = host();
    const typed = ui.input("Branch name", "feature/...");
    expect(last()).toEqual(request({ method: "input", title: "Branch name", placeholder: "feature/..." }));
    answer({ value: "" });
    expect(await typed).toBe("");

    const edited = ui.editor("Edit", "Line 1\nLine 2");
    expect(last()).toEqual(request({ method: "editor", title: "Edit", prefill: "Line 1\nLine 2" }));
    answer({ value: "Line 1\nLine 2\nLine 3" });
    expect(await edited).toBe("Line 1\nLine 2\nLine 3");
  });

  test("input and editor without placeholder or prefill send neither", () => {
    const { ui, frames } = host();
    void ui.input("Name");
    void ui.editor("Notes");
    expect(frames).toEqual([request({ method: "input", title: "Name" }), request({ method: "editor", title: "Notes" })]);
  });

  test("each request has its own id and answers reach the right dialog", async () => {
    const { ui, frames } = host();
    const first = ui.input("First");
    const second = ui.input("Second");
    expect(frames[0].id).not.toBe(frames[1].id);
    ui.handleResponse({ type: "extension_ui_response", id: frames[1].id, value: "two" });
    ui.handleResponse({ type: "extension_ui_response", id: frames[0].id, value: "one" });
    expect(await Promise.all([first, second])).toEqual(["one", "two"]);
  });

  test("a cancel resolves each dialog to its default, whatever else it carries", async () => {
    const { ui, answer } = host();
    const results: Promise<unknown>[] = [];
    for (const ask of [() => ui.select("S", ["A"]), () => ui.confirm("C", "m"), () => ui.input("I"), () => ui.editor("E")]) {
      results.push(ask());
      answer({ cancelled: true, value: "A", confirmed: true });
    }
    expect(await Promise.all(results)).toEqual([undefined, false, undefined, undefined]);
    expect(ui.pendingCount).toBe(0);
  });

  test("the requestId alias (seed 004) answers a dialog too", async () => {
    const { ui, last } = host();
    const typed = ui.input("Name");
    expect(ui.handleResponse({ type: "extension_ui_response", requestId: last().id, value: "Ada" })).toBe(true);
    expect(await typed).toBe("Ada");
  });

  test("the host client's helpers recognise every dialog request, and their answers are accepted", async () => {
    const { ui, frames } = host();
    const asked = [ui.select("S", ["Allow", "Block"]), ui.confirm("C", "m"), ui.input("I"), ui.editor("E", "x")];
    const answers = ["Allow", true, "typed", "edited"];
    frames.forEach((frame, index) => {
      expect(isExtensionUiRequest(frame)).toBe(true);
      if (!isExtensionUiRequest(frame) || !isDialog(frame)) throw new Error(`not a dialog: ${JSON.stringify(frame)}`);
      ui.handleResponse(dialogResponse(frame, answers[index]));
    });
    expect(await Promise.all(asked)).toEqual(["Allow", true, "typed", "edited"]);
  });
});

describe("answers of the wrong shape count as a cancel", () => {
  test("select accepts only one of the offered options", async () => {
    const { ui, answer } = host();
    const notOffered = ui.select("Pick", ["A", "B"]);
    answer({ value: "C" });
    expect(await notOffered).toBeUndefined();

    const confirmedInstead = ui.select("Pick", ["A", "B"]);
    answer({ confirmed: true });
    expect(await confirmedInstead).toBeUndefined();
  });

  test("confirm needs a boolean; seed 004's boolean value is accepted", async () => {
    const { ui, answer } = host();
    const text = ui.confirm("Sure?", "m");
    answer({ value: "yes" });
    expect(await text).toBe(false);

    const stringConfirmed = ui.confirm("Sure?", "m");
    answer({ confirmed: "true" });
    expect(await stringConfirmed).toBe(false);

    const booleanValue = ui.confirm("Sure?", "m");
    answer({ value: true });
    expect(await booleanValue).toBe(true);
  });

  test("input and editor need a string value", async () => {
    const { ui, answer } = host();
    const number = ui.input("Count");
    answer({ value: 3 });
    expect(await number).toBeUndefined();

    const nothing = ui.editor("Edit", "x");
    answer({});
    expect(await nothing).toBeUndefined();
  });
});

describe("responses that answer nothing", () => {
  test("a response with an unknown id is ignored and the dialog keeps waiting", async () => {
    const { ui, answer } = host();
    const typed = ui.input("Name");
    expect(ui.handleResponse({ type: "extension_ui_response", id: "no-such-dialog", value: "x" })).toBe(false);
    expect(ui.pendingCount).toBe(1);
    answer({ value: "real" });
    expect(await typed).toBe("real");
  });

  test("garbage never throws and settles nothing", () => {
    const { ui, frames } = host();
    void ui.input("Name");
    const id = frames[0].id;
    const garbage: unknown[] = [null, undefined, 0, 42, "text", true, [], [id], { id: {} }, { id: 7 }, { requestId: null }, { type: "extension_ui_response" }, Object.create(null)];
    for (const frame of garbage) expect(ui.handleResponse(frame)).toBe(false);
    expect(ui.pendingCount).toBe(1);
  });

  test("a second answer to the same dialog is ignored", async () => {
    const { ui, answer } = host();
    const typed = ui.input("Name");
    expect(answer({ value: "first" })).toBe(true);
    expect(answer({ value: "second" })).toBe(false);
    expect(await typed).toBe("first");
  });
});

describe("timeout", () => {
  test("an unanswered dialog resolves to its default when its timeout passes, and a late answer is ignored", async () => {
    const { ui, frames, answer } = host();
    const choice = ui.select("Pick", ["A"], { timeout: 30 });
    const confirmed = ui.confirm("Sure?", "m", { timeout: 30 });
    expect(frames.map((frame) => frame.timeout)).toEqual([30, 30]);
    expect(await Promise.all([choice, confirmed])).toEqual([undefined, false]);
    expect(ui.pendingCount).toBe(0);
    expect(answer({ confirmed: true })).toBe(false);
  });

  test("an answer before the timeout wins", async () => {
    const { ui, answer } = host();
    const typed = ui.input("Name", undefined, { timeout: 30 });
    answer({ value: "quick" });
    expect(await typed).toBe("quick");
  });

  test("a timeout that is not a positive number is not sent and never fires", async () => {
    const { ui, frames } = host();
    const asked = [0, -5, Number.NaN, "100"].map((timeout) => ui.input("Name", undefined, { timeout: timeout as number }));
    expect(frames.every((frame) => !("timeout" in frame))).toBe(true);
    await Bun.sleep(5);
    expect(ui.pendingCount).toBe(4);
    for (const frame of frames) ui.handleResponse({ type: "extension_ui_response", id: frame.id, value: "ok" });
    expect(await Promise.all(asked)).toEqual(["ok", "ok", "ok", "ok"]);
  });
});

describe("abort signal", () => {
  test("aborting a waiting dialog resolves it to its default and a late answer is ignored", async () => {
    const { ui, frames, answer } = host();
    const controller = new AbortController();
    const confirmed = ui.confirm("Sure?", "m", { signal: controller.signal });
    expect(frames).toHaveLength(1);
    controller.abort();
    expect(await confirmed).toBe(false);
    expect(ui.pendingCount).toBe(0);
    expect(answer({ confirmed: true })).toBe(false);
    // Nothing new is invented on the wire to dismiss it.
    expect(frames).toHaveLength(1);
  });

  test("an already aborted signal resolves at once and writes nothing", async () => {
    const { ui, frames } = host();
    const signal = AbortSignal.abort();
    expect(await ui.select("Pick", ["A"], { signal })).toBeUndefined();
    expect(await ui.confirm("Sure?", "m", { signal })).toBe(false);
    expect(frames).toEqual([]);
    expect(ui.pendingCount).toBe(0);
  });

  test("an answer before the abort wins", async () => {
    const { ui, answer } = host();
    const controller = new AbortController();
    const typed = ui.input("Name", undefined, { signal: controller.signal });
    answer({ value: "kept" });
    controller.abort();
    expect(await typed).toBe("kept");
  });
});

describe("close", () => {
  test("close resolves every waiting dialog to its default", async () => {
    const { ui } = host();
    const asked = [ui.select("S", ["A"]), ui.confirm("C", "m"), ui.input("I"), ui.editor("E")];
    expect(ui.pendingCount).toBe(4);
    ui.close("The host closed stdin");
    expect(await Promise.all(asked)).toEqual([undefined, false, undefined, undefined]);
    expect(ui.pendingCount).toBe(0);
    expect(ui.closedReason).toBe("The host closed stdin");
  });

  test("after close dialogs resolve at once without a request; notices are still written", async () => {
    const { ui, frames } = host();
    ui.close();
    expect(await ui.input("Name")).toBeUndefined();
    expect(await ui.confirm("Sure?", "m")).toBe(false);
    expect(frames).toEqual([]);
    ui.notify("bye");
    expect(frames).toEqual([request({ method: "notify", message: "bye", notifyType: "info" })]);
  });
});

describe("fire-and-forget requests", () => {
  test("notify, setStatus, setWidget and set_editor_text are written with fresh ids", () => {
    const { ui, frames } = host();
    ui.notify("Command blocked", "warning");
    ui.notify("Plain");
    ui.setStatus("my-ext", "Turn 3 running...");
    ui.setStatus("my-ext", undefined);
    ui.setWidget("my-ext", ["--- My Widget ---", "Line 1"], { placement: "belowEditor" });
    ui.setWidget("my-ext", ["Line"]);
    ui.setWidget("my-ext", undefined);
    ui.setEditorText("prefilled");
    ui.pasteToEditor("pasted");
    expect(frames).toEqual([
      request({ method: "notify", message: "Command blocked", notifyType: "warning" }),
      request({ method: "notify", message: "Plain", notifyType: "info" }),
      request({ method: "setStatus", statusKey: "my-ext", statusText: "Turn 3 running..." }),
      request({ method: "setStatus", statusKey: "my-ext" }),
      request({ method: "setWidget", widgetKey: "my-ext", widgetLines: ["--- My Widget ---", "Line 1"], widgetPlacement: "belowEditor" }),
      request({ method: "setWidget", widgetKey: "my-ext", widgetLines: ["Line"] }),
      request({ method: "setWidget", widgetKey: "my-ext" }),
      request({ method: "set_editor_text", text: "prefilled" }),
      request({ method: "set_editor_text", text: "pasted" }),
    ]);
    expect(new Set(frames.map((frame) => frame.id)).size).toBe(frames.length);
    expect(ui.pendingCount).toBe(0);
  });

  test("a widget component factory writes nothing", () => {
    const { ui, frames } = host();
    ui.setWidget("my-ext", () => ({ render: () => [] }));
    expect(frames).toEqual([]);
  });

  test("setTitle is written only when emitTitle is on (PI_RPC_EMIT_TITLE=1)", () => {
    const quiet = host();
    quiet.ui.setTitle("pi - my project");
    expect(quiet.frames).toEqual([]);

    const loud = host({ emitTitle: true });
    loud.ui.setTitle("pi - my project");
    expect(loud.frames).toEqual([request({ method: "setTitle", title: "pi - my project" })]);
  });

  test("every frame is one the host client recognises as an extension UI request", () => {
    const { ui, frames } = host({ emitTitle: true });
    ui.notify("n");
    ui.setStatus("k", "t");
    ui.setWidget("k", ["l"]);
    ui.setTitle("t");
    ui.setEditorText("e");
    void ui.select("s", ["a"]);
    expect(frames.map((frame) => isExtensionUiRequest(frame))).toEqual([true, true, true, true, true, true]);
    expect(frames.map((frame) => isDialog(frame as never))).toEqual([false, false, false, false, false, true]);
  });
});

describe("what needs a terminal degrades", () => {
  test("custom resolves undefined, queries report nothing, setters write nothing", async () => {
    const { ui, frames } = host();
    expect(await ui.custom(() => ({}))).toBeUndefined();
    ui.setWorkingMessage("Thinking");
    ui.setWorkingVisible(false);
    ui.setWorkingIndicator({ frames: ["."] });
    ui.setFooter(() => ({}));
    ui.setHeader(undefined);
    ui.setEditorComponent(() => ({}));
    ui.setToolsExpanded(true);
    ui.addAutocompleteProvider((current) => current);
    let inputs = 0;
    const unsubscribe = ui.onTerminalInput(() => inputs++);
    unsubscribe();
    expect(ui.getEditorText()).toBe("");
    expect(ui.getToolsExpanded()).toBe(false);
    expect(ui.getEditorComponent()).toBeUndefined();
    expect(ui.getAllThemes()).toEqual([]);
    expect(ui.getTheme("dark")).toBeUndefined();
    expect(ui.setTheme("light")).toEqual({ success: false, error: expect.stringContaining("RPC mode") });
    expect(ui.theme.fg("accent", "plain")).toBe("plain");
    expect(inputs).toBe(0);
    expect(frames).toEqual([]);
  });
});

describe("extensions are not type-checked", () => {
  test("odd arguments are coerced to text instead of throwing", async () => {
    const { ui, frames, answer } = host();
    const odd = ui as unknown as Record<string, (...args: unknown[]) => unknown>;
    const choice = odd.select(42, "not-an-array") as Promise<unknown>;
    expect(frames[0]).toEqual(request({ method: "select", title: "42", options: [] }));
    answer({ value: "anything" });
    expect(await choice).toBeUndefined();

    const numbered = odd.select("Pick", [1, 2]) as Promise<unknown>;
    expect(frames[1].options).toEqual(["1", "2"]);
    answer({ value: "2" });
    expect(await numbered).toBe("2");

    odd.notify({ toString: () => "object message" }, "loud");
    expect(frames[2]).toEqual(request({ method: "notify", message: "object message", notifyType: "info" }));
    odd.setWidget("k", "not lines");
    odd.setWidget("k", [1, null], { placement: "sideways" });
    expect(frames[3]).toEqual(request({ method: "setWidget", widgetKey: "k", widgetLines: ["1", ""] }));
    expect(frames).toHaveLength(4);
    // Not wrapped in expect().toThrow: bun awaits a returned promise there, and this one waits for an answer.
    const confirmed = odd.confirm(Symbol("title"), undefined, "not options") as Promise<unknown>;
    expect(frames[4]).toEqual(request({ method: "confirm", title: "Symbol(title)", message: "" }));
    answer({ confirmed: true });
    expect(await confirmed).toBe(true);
  });

  test("a write that throws neither breaks the extension nor leaves a dialog waiting", async () => {
    const ui = new RpcExtensionUI(() => {
      throw new Error("EPIPE");
    });
    expect(() => ui.notify("hello")).not.toThrow();
    expect(await ui.confirm("Sure?", "m")).toBe(false);
    expect(ui.pendingCount).toBe(0);
  });
});
