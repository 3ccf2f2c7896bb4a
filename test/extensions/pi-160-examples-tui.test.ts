/**
 * pi 1.6.0's example extensions that need a real terminal (games, overlays, headers,
 * widgets, replacement editors), unchanged, in the built binary's terminal UI under tmux.
 * Each pane loads several with `-e` from a copy of the reference package's examples,
 * checks that none reports a failure ("✗ Extension … failed"), and looks at one thing
 * each draws. What they register over RPC is checked in pi-160-examples-all.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { send, withPane } from "../modes/interactive/fixture.ts";

const EXAMPLES = join(dirname(Bun.resolveSync("pi-coding-agent-160/package.json", import.meta.dir)), "examples/extensions");
const FAILED = "✗ Extension";

/** Copies the examples into a scratch folder for one pane; returns the `-e` arguments and a cleanup. */
function examples(...names: string[]): { args: string[]; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "pi-examples-tui-"));
  const args = names.flatMap((name) => {
    cpSync(join(EXAMPLES, name), join(dir, name), { recursive: true });
    return ["-e", join(dir, name)];
  });
  return { args, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

async function inPane(names: string[], run: Parameters<typeof withPane>[0], ready?: string): Promise<void> {
  const loaded = examples(...names);
  try {
    await withPane(run, { args: loaded.args, height: 45, ...(ready ? { ready } : {}) });
  } finally {
    loaded.cleanup();
  }
}

describe("pi 1.6.0's terminal examples in the terminal UI", () => {
  test("header, widgets, status line and the games load together; the header, both widgets and the status show", async () => {
    const names = [
      "custom-header.ts",
      "widget-placement.ts",
      "status-line.ts",
      "snake.ts",
      "space-invaders.ts",
      "tic-tac-toe.ts",
      "doom-overlay",
      "overlay-test.ts",
      "overlay-qa-tests.ts",
      "hidden-thinking-label.ts",
      "working-indicator.ts",
      "titlebar-spinner.ts",
      "notify.ts",
      "message-renderer.ts",
      "entry-renderer.ts",
      "qna.ts",
      "question.ts",
      "questionnaire.ts",
      "timed-confirm.ts",
      "interactive-shell.ts",
      "mac-system-theme.ts",
      "custom-footer.ts",
      "github-issue-autocomplete.ts",
    ];
    await inPane(names, async ({ pane }) => {
      const screen = await pane.waitFor((text) => text.includes("Above editor widget") && text.includes("Below editor widget") && text.includes("Ready"), 30_000);
      expect(screen).toContain("shitty coding agent");
      // The widget placed above the editor is above it, the other below.
      expect(screen.indexOf("Above editor widget")).toBeLessThan(screen.indexOf("Below editor widget"));
      expect(screen).not.toContain(FAILED);
    });
  }, 60_000);

  test("an example that cannot load says so in the conversation: gondolin without its dependency installed", async () => {
    await inPane(["gondolin"], async ({ pane }) => {
      const screen = await pane.waitFor(FAILED, 20_000);
      expect(screen).toMatch(/✗ Extension .*gondolin.* failed \(load\)/);
      expect(screen).toContain("@earendil-works/gondolin");
    });
  }, 60_000);

  test("snake: /snake opens the game with its score line; Escape closes it", async () => {
    await inPane(["snake.ts"], async ({ pane }) => {
      send(pane, "/snake");
      await pane.waitFor(/SNAKE.*Score: 0/, 20_000);
      pane.keys("Escape");
      await pane.waitFor((screen) => !/SNAKE.*Score/.test(screen), 20_000);
      expect(pane.screen()).not.toContain(FAILED);
    });
  }, 60_000);

  test("overlay-test: /overlay-test shows its overlay over the session", async () => {
    await inPane(["overlay-test.ts"], async ({ pane }) => {
      send(pane, "/overlay-test");
      const screen = await pane.waitFor("Overlay Test", 20_000);
      expect(screen).not.toContain(FAILED);
    });
  }, 60_000);

  test("modal-editor: the editor it installs shows its mode, and Escape switches to NORMAL", async () => {
    await inPane(["modal-editor.ts"], async ({ pane }) => {
      await pane.waitFor("INSERT", 20_000);
      pane.keys("Escape");
      await pane.waitFor("NORMAL", 20_000);
      expect(pane.screen()).not.toContain(FAILED);
    });
  }, 60_000);

  test("border-status-editor: the model and thinking level move into the editor's bottom border", async () => {
    await inPane(["border-status-editor.ts"], async ({ pane }) => {
      const screen = await pane.waitFor(/─ fake\/m · off ─/, 20_000);
      expect(screen).not.toContain(FAILED);
    }, "fake/m · off");
  }, 60_000);

  test("rainbow-editor: loads and the editor still takes a prompt", async () => {
    await inPane(["rainbow-editor.ts"], async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "Rainbow answered." }] });
      send(pane, "hello");
      const screen = await pane.waitFor("Rainbow answered.", 20_000);
      expect(screen).not.toContain(FAILED);
    });
  }, 60_000);
});
