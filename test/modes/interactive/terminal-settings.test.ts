/**
 * pi's terminal settings in the built binary, in tmux: `showHardwareCursor` shows the
 * terminal's own cursor (tmux's cursor flag), and `terminal.trueColor` picks 24-bit or
 * 256-colour sequences whatever the terminal is detected as, and
 * `terminal.showTerminalProgress` marks a run in the tab (OSC 9;4). tmux keeps colours as
 * it can show them and forwards no OSC 9, so those are read from the raw bytes xcsh
 * writes (pipe-pane).
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { send, withPane } from "./fixture.ts";

/** docs/themes.md's example theme: every colour a hex or oklch() value, so 24-bit colour shows in its sequences. */
const DUSK = `{
  "name": "dusk",
  "appearance": "dark",
  "vars": {
    "ink": "okhsl(60 30% 89%)", "rose": "oklch(72% 0.19 350)", "teal": "#5ce", "lime": "#bae67e",
    "coral": "#f28779", "amber": "#ffd173", "haze": "#8a9199", "dusk": "#5c6773",
    "night": "#3d4451", "panel": "#232834"
  },
  "colors": {
    "accent": "rose", "border": "night", "borderAccent": "rose", "borderMuted": "#2d3340",
    "success": "lime", "error": "coral", "warning": "amber", "muted": "haze", "dim": "dusk",
    "text": "ink", "thinkingText": "haze", "selectedBg": "#2d3340",
    "userMessageBg": "#2a2f3a", "userMessageText": "ink",
    "customMessageBg": "panel", "customMessageText": "ink", "customMessageLabel": "#d4bfff",
    "toolPendingBg": "panel", "toolSuccessBg": "panel", "toolErrorBg": "#3a2329",
    "toolTitle": "amber", "toolOutput": "haze",
    "mdHeading": "rose", "mdLink": "teal", "mdLinkUrl": "dusk", "mdCode": "amber",
    "mdCodeBlock": "ink", "mdCodeBlockBorder": "dusk", "mdQuote": "haze",
    "mdQuoteBorder": "night", "mdHr": "night", "mdListBullet": "rose",
    "toolDiffAdded": "lime", "toolDiffRemoved": "coral", "toolDiffContext": "dusk",
    "syntaxComment": "dusk", "syntaxKeyword": "#ffa759", "syntaxFunction": "amber",
    "syntaxVariable": "ink", "syntaxString": "lime", "syntaxNumber": "#d4bfff",
    "syntaxType": "teal", "syntaxOperator": "#f29e74", "syntaxPunctuation": "haze",
    "thinkingOff": "night", "thinkingMinimal": "dusk", "thinkingLow": "teal",
    "thinkingMedium": "#73d0ff", "thinkingHigh": "#d4bfff", "thinkingXhigh": "rose",
    "bashMode": "lime"
  }
}`;

describe("terminal settings from a pi settings.json", () => {
  test("showHardwareCursor true shows the terminal's cursor; unset it stays hidden", async () => {
    const cursorShown = async (settings: Record<string, unknown>) => {
      let flag = "";
      await withPane(
        async ({ pane }) => {
          pane.type("hello");
          await pane.waitFor("hello", 30_000);
          flag = pane.format("#{cursor_flag}");
        },
        { before: (fake) => fake.home.writeSettings(settings) },
      );
      return flag;
    };
    expect(await cursorShown({})).toBe("0");
    expect(await cursorShown({ showHardwareCursor: true })).toBe("1");
  }, 120_000);

  test("terminal.trueColor true draws 24-bit colours, false 256-colour ones", async () => {
    const drawn = async (trueColor: boolean) => {
      let raw = "";
      await withPane(
        async ({ pane }) => {
          const file = join(pane.dir, "raw.out");
          pane.tmux(["pipe-pane", "-o", "-t", "main", `cat >> '${file}'`]);
          pane.type("/");
          await pane.waitFor(/\(1\/\d+\)/, 30_000);
          const deadline = Date.now() + 10_000;
          while (Date.now() < deadline && !raw.includes("(1/")) {
            await Bun.sleep(50);
            try {
              raw = readFileSync(file, "latin1");
            } catch {
              // Not written yet.
            }
          }
        },
        {
          before: (fake) => {
            mkdirSync(join(fake.home.agentDir, "themes"));
            writeFileSync(join(fake.home.agentDir, "themes", "dusk.json"), DUSK);
            fake.home.writeSettings({ theme: "dusk", terminal: { trueColor } });
          },
        },
      );
      return raw;
    };
    const rgb = await drawn(true);
    expect(rgb).toContain("(1/");
    expect(rgb).toMatch(/\x1b\[38;2;\d+;\d+;\d+m/);
    const indexed = await drawn(false);
    expect(indexed).toContain("(1/");
    expect(indexed).not.toMatch(/\x1b\[38;2;/);
    expect(indexed).toMatch(/\x1b\[38;5;\d+m/);
  }, 120_000);

  test("terminal.showTerminalProgress marks the run busy in the tab and clears it after; unset, nothing is sent", async () => {
    const progressOf = async (settings: Record<string, unknown>) => {
      let raw = "";
      await withPane(
        async ({ fake, pane }) => {
          const file = join(pane.dir, "raw.out");
          pane.tmux(["pipe-pane", "-o", "-t", "main", `cat >> '${file}'`]);
          fake.server.enqueue({ delayMs: 300, content: [{ type: "text", text: "PROGRESS-DONE" }] });
          send(pane, "hi");
          await pane.waitFor("PROGRESS-DONE", 30_000);
          const deadline = Date.now() + 5_000;
          while (Date.now() < deadline) {
            await Bun.sleep(100);
            raw = readFileSync(file, "latin1");
            if (raw.includes("\x1b]9;4;0")) break;
          }
        },
        { before: (fake) => fake.home.writeSettings(settings) },
      );
      return raw;
    };
    const shown = await progressOf({ terminal: { showTerminalProgress: true } });
    const busy = shown.indexOf("\x1b]9;4;3");
    expect(busy).toBeGreaterThanOrEqual(0);
    expect(shown.indexOf("\x1b]9;4;0", busy)).toBeGreaterThan(busy);
    expect(await progressOf({})).not.toContain("\x1b]9;4;");
  }, 120_000);
});
