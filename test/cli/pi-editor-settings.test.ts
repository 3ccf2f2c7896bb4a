/**
 * pi 1.6.0 settings xcsh applies that it used to call "not applied": `doubleEscapeAction`
 * and `treeFilterMode` (applied all along, wrongly warned about), `editorPaddingX` and
 * `autocompleteMaxVisible` (now applied to the prompt editor), and pi's
 * `sessionShareDestination` / `selfUpdateCommand` (known keys, not typos), and the
 * terminal settings of terminal-settings.test.ts. Driven through
 * the built binary: the warnings on stderr, the editor in tmux.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTestHome, runXcsh } from "../support/cli.ts";
import { withPane } from "../modes/interactive/fixture.ts";

describe("pi's editor and navigation settings", () => {
  test("doubleEscapeAction, treeFilterMode, editorPaddingX, autocompleteMaxVisible and pi's share/update keys start without a warning", async () => {
    const home = makeTestHome();
    const project = mkdtempSync(join(tmpdir(), "xcsh-proj-"));
    try {
      home.writeSettings({
        doubleEscapeAction: "fork",
        treeFilterMode: "user-only",
        editorPaddingX: 2,
        autocompleteMaxVisible: 3,
        sessionShareDestination: "gist",
        selfUpdateCommand: ["npm", "install", "-g", "{installSpec}"],
        showHardwareCursor: true,
        terminal: { trueColor: true, hyperlinks: false, clearOnShrink: true },
        // Still not applied, so still named: the warning is alive in this run.
        outputPad: 0,
      });
      const result = await runXcsh(["--provider", "faux", "-p", "hi"], { env: home.env, cwd: project });
      expect(result.exitCode).toBe(0);
      expect(result.stderr).toContain('settings xcsh accepts but does not apply: "outputPad"');
      for (const key of ["doubleEscapeAction", "treeFilterMode", "editorPaddingX", "autocompleteMaxVisible", "sessionShareDestination", "selfUpdateCommand", "showHardwareCursor", "terminal."]) {
        expect(result.stderr).not.toContain(key);
      }
      expect(result.stderr).not.toContain("unknown key");
    } finally {
      home.cleanup();
      rmSync(project, { recursive: true, force: true });
    }
  });

  test("autocompleteMaxVisible sets how many commands the / list shows; editorPaddingX indents the typed text", async () => {
    const shown = async (settings: Record<string, unknown>) => {
      let rows = 0;
      let indent = -1;
      await withPane(
        async ({ pane }) => {
          pane.type("/");
          // The list ends with its position, "(1/21)"; its rows are those between the editor's lower border and that line.
          const screen = await pane.waitFor((text) => /^\s*\(1\/\d+\)/m.test(text), 30_000);
          const lines = screen.split("\n");
          const position = lines.findIndex((line) => /^\s*\(1\/\d+\)/.test(line));
          const border = lines.slice(0, position).findLastIndex((line) => line.startsWith("────"));
          rows = position - border - 1;
          indent = lines.find((line) => line.trim() === "/")!.indexOf("/");
        },
        { before: (fake) => fake.home.writeSettings(settings) },
      );
      return { rows, indent };
    };
    const defaults = await shown({});
    const set = await shown({ autocompleteMaxVisible: 3, editorPaddingX: 3 });
    expect(defaults.rows).toBe(8);
    expect(set.rows).toBe(3);
    expect(set.indent).toBe(defaults.indent + 2);
  }, 120_000);
});
