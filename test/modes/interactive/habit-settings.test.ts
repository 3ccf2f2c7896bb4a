/**
 * /scoped-models and /settings in the built binary in tmux: choosing the
 * models Ctrl+P cycles (for the session, then saved as enabledModels), and
 * changing a setting (saved to the global settings.json and in effect at
 * once; a broken file is left alone).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NO_DESKTOP_ENV, send, visibleLines, withPane } from "./fixture.ts";

/** The model the footer's last line names. */
const footerModel = (screen: string) => /(fake\/\S+)/.exec(screen.trimEnd().split("\n").at(-1) ?? "")?.[1];

const settingsOf = (agentDir: string) => JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8"));

describe("/scoped-models", () => {
  test("Enter turns a model off for Ctrl+P at once; Ctrl+S saves the choice as enabledModels", async () => {
    await withPane(async ({ fake, pane }) => {
      send(pane, "/scoped-models");
      await pane.waitFor(/→ ✓ fake\/m\b/);
      expect(pane.screen()).toContain("all enabled");
      pane.keys("Enter");
      await pane.waitFor("2/3 enabled (this session; not saved)");
      pane.keys("Escape");
      await pane.waitFor((screen) => !screen.includes("Models for Ctrl+P"));
      // fake/m is out of the cycle: m2, r, m2.
      pane.keys("C-p");
      await pane.waitFor("Model: fake/m2");
      pane.keys("C-p");
      await pane.waitFor("Model: fake/r");
      pane.keys("C-p");
      await pane.waitFor((screen) => screen.includes("Model: fake/m2") && footerModel(screen) === "fake/m2");
      send(pane, "/scoped-models");
      await pane.waitFor("Models for Ctrl+P");
      pane.keys("C-s");
      await pane.waitFor("Saved to");
      expect(settingsOf(fake.home.agentDir).enabledModels).toEqual(["fake/m2", "fake/r"]);
      pane.keys("Escape");
    });
  });
});

describe("/settings", () => {
  test("Enter changes a setting: saved to settings.json and in effect at once (doubleEscapeAction fork: Esc twice opens the fork list)", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "An answer." }] });
        send(pane, "a question to fork from");
        await pane.waitFor("An answer.");
        send(pane, "/settings");
        await pane.waitFor(/→ doubleEscapeAction\s+tree/);
        pane.keys("Enter");
        await pane.waitFor(/→ doubleEscapeAction\s+fork/);
        const saved = settingsOf(fake.home.agentDir);
        expect(saved.doubleEscapeAction).toBe("fork");
        // What was in the file stays.
        expect(saved.quietStartup).toBe(true);
        pane.keys("Escape");
        await pane.waitFor((screen) => !screen.includes("doubleEscapeAction"));
        pane.keys("Escape");
        await Bun.sleep(120);
        pane.keys("Escape");
        await pane.waitFor("Fork from a message");
        pane.keys("Escape");
      },
      { before: (fake) => fake.home.writeSettings({ quietStartup: true }) },
    );
  });

  test("tuiMode is saved for the next start, which then draws inline; fullscreenCopyOnSelect applies at once", async () => {
    await withPane(
      async ({ fake, pane }) => {
        send(pane, "/settings");
        await pane.waitFor(/→ doubleEscapeAction/);
        pane.type("tuiMode");
        await pane.waitFor(/→ tuiMode\s+fullscreen/);
        pane.keys("Enter");
        const screen = await pane.waitFor(/→ tuiMode\s+regular/);
        expect(screen).toContain("tuiMode: regular (from the next start)");
        expect(settingsOf(fake.home.agentDir).tuiMode).toBe("regular");
        // Still fullscreen until then.
        expect(pane.format("#{alternate_on}")).toBe("1");
        // fullscreenCopyOnSelect off: a drag now selects without copying.
        for (let i = 0; i < 7; i++) pane.keys("BSpace");
        pane.type("CopyOnSelect");
        await pane.waitFor(/→ fullscreenCopyOnSelect\s+true/);
        pane.keys("Enter");
        await pane.waitFor(/→ fullscreenCopyOnSelect\s+false/);
        expect(settingsOf(fake.home.agentDir).fullscreenCopyOnSelect).toBe(false);
        pane.keys("Escape");
        pane.tmux(["set-option", "-g", "set-clipboard", "on"]);
        const lines = visibleLines(pane.screen());
        const row = lines.findIndex((line) => /xcsh \d+\.\d+\.\d+/.test(line)) + 1;
        pane.type(`\x1b[<0;2;${row}M\x1b[<32;8;${row}M\x1b[<0;8;${row}m`);
        await Bun.sleep(500);
        expect(pane.screen()).not.toContain("Copied!");
        expect(() => pane.tmux(["show-buffer"])).toThrow();
      },
      { env: NO_DESKTOP_ENV },
    );
    // The next start reads it.
    await withPane(async ({ pane }) => expect(pane.format("#{alternate_on}")).toBe("0"), { before: (fake) => fake.home.writeSettings({ tuiMode: "regular" }) });
  });

  test("a settings.json broken after the start is not overwritten; the list says why", async () => {
    await withPane(async ({ fake, pane }) => {
      send(pane, "/settings");
      await pane.waitFor(/→ doubleEscapeAction/);
      const file = join(fake.home.agentDir, "settings.json");
      writeFileSync(file, '{"doubleEscapeAction": ');
      pane.keys("Enter");
      const screen = await pane.waitFor("Not saved");
      expect(screen.replace(/\s+/g, " ")).toContain("invalid JSON");
      expect(readFileSync(file, "utf8")).toBe('{"doubleEscapeAction": ');
      expect(screen).toMatch(/→ doubleEscapeAction\s+tree/);
      pane.keys("Escape");
    });
  });
});
