/**
 * ctx.ui in print and json mode: nobody can answer, so an extension that asks
 * gets the default at once and one that displays something is not disturbed.
 */
import { describe, expect, test } from "bun:test";
import { createHeadlessUI, plainTheme } from "../../src/extensions/ui-headless.ts";

describe("headless extension UI", () => {
  test("every dialog resolves to its default at once", async () => {
    const ui = createHeadlessUI();
    const controller = new AbortController();
    expect(await ui.select("Pick", ["A", "B"])).toBeUndefined();
    expect(await ui.confirm("Sure?", "Really?", { timeout: 60_000 })).toBe(false);
    expect(await ui.input("Name", "placeholder", { signal: controller.signal })).toBeUndefined();
    expect(await ui.editor("Edit", "prefill")).toBeUndefined();
    expect(await ui.custom(() => ({}))).toBeUndefined();
  });

  test("display calls do nothing and queries report an empty UI", () => {
    const ui = createHeadlessUI();
    ui.notify("hello", "warning");
    ui.setStatus("ext", "busy");
    ui.setWidget("ext", ["line"], { placement: "belowEditor" });
    ui.setTitle("title");
    ui.setEditorText("text");
    ui.pasteToEditor("pasted");
    ui.setToolsExpanded(true);
    expect(ui.getEditorText()).toBe("");
    expect(ui.getToolsExpanded()).toBe(false);
    expect(ui.getEditorComponent()).toBeUndefined();
    expect(ui.getAllThemes()).toEqual([]);
    expect(ui.getTheme("dark")).toBeUndefined();
  });

  test("setTheme fails with a reason instead of throwing", () => {
    const result = createHeadlessUI().setTheme("light");
    expect(result.success).toBe(false);
    expect(result.error).toContain("no interactive UI");
  });

  test("onTerminalInput never calls the handler and returns an unsubscribe", () => {
    let calls = 0;
    const unsubscribe = createHeadlessUI().onTerminalInput(() => calls++);
    expect(typeof unsubscribe).toBe("function");
    unsubscribe();
    expect(calls).toBe(0);
  });

  test("the plain theme returns text unstyled", () => {
    const ui = createHeadlessUI();
    expect(ui.theme).toBe(plainTheme);
    expect(plainTheme.fg("accent", "a")).toBe("a");
    expect(plainTheme.bg("selectedBg", "b")).toBe("b");
    for (const style of ["bold", "italic", "underline", "strikethrough", "inverse"] as const) {
      expect(plainTheme[style]("text")).toBe("text");
    }
  });
});
