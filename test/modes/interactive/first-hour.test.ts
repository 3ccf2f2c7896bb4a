/**
 * A newcomer's first hour with the defaults (issue #37): the fullscreen layout and
 * the system theme, in tmux, which answers none of the terminal colour queries. Each
 * test is a stumble found by walking through it: /hotkeys told nothing of the keys
 * that scroll and search the transcript, and wrapped its rows under the key column;
 * /settings named a theme default that is not the one drawn, and showed defaults as
 * changed; with no colour answer
 * the prompt looked like the answer and yellow text could not be read on a white
 * background; a search that found its match at the end left "more below" on the
 * screen with nothing below; copied text came with the transcript's margin; and a `!`
 * line looked like a prompt until it ran.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contrast, type Rgb } from "../../../src/resources/theme-colors.ts";
import { readPng } from "../../support/png.ts";
import { NO_DESKTOP_ENV, pasteBuffer, send, visibleLines, withPane } from "./fixture.ts";
import type { XcshPane } from "./tmux.ts";

/** Ctrl+Shift+F as a terminal with the kitty keyboard protocol reports it (CSI 102;6u). */
const SEARCH_KEY = "\x1b[102;6u";

/** The column where `text` starts on the row that holds `row`, or -1. */
function columnOf(screen: string, row: string, text: string): number {
  const line = visibleLines(screen).find((candidate) => candidate.includes(row));
  return line === undefined ? -1 : line.indexOf(text);
}

/**
 * The pane photographed as a person sees it (scripts/pane-to-png.ts, on a white page
 * with `light`), and the strongest contrast any pixel of `text` makes with the page:
 * how readable that text is.
 */
async function inkContrast(pane: XcshPane, text: string, light: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "xcsh-shot-"));
  try {
    const screen = pane.screen();
    const lines = visibleLines(screen);
    const row = lines.findIndex((line) => line.includes(text));
    expect(row).toBeGreaterThanOrEqual(0);
    const column = lines[row]!.indexOf(text);
    writeFileSync(join(dir, "screen.ans"), pane.screen({ escapes: true }));
    const made = Bun.spawnSync(["bun", "scripts/pane-to-png.ts", join(dir, "screen.ans"), join(dir, "screen.png"), ...(light ? ["--light"] : [])], { cwd: join(import.meta.dir, "../../.."), stderr: "pipe" });
    expect(made.exitCode).toBe(0);
    const picture = readPng(new Uint8Array(await Bun.file(join(dir, "screen.png")).arrayBuffer()));
    // 8px margin, cells of 8.4 × 16.8 px (14px DejaVu Sans Mono at line height 1.2).
    const [pr, pg, pb] = picture.pixel(0, 0);
    const page: Rgb = { r: pr, g: pg, b: pb };
    let best = 1;
    for (let y = Math.ceil(8 + row * 16.8); y < 8 + (row + 1) * 16.8; y++) {
      for (let x = Math.ceil(8 + column * 8.4); x < 8 + (column + text.length) * 8.4; x++) {
        const [r, g, b] = picture.pixel(x, y);
        best = Math.max(best, contrast({ r, g, b }, page));
      }
    }
    return best;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("a newcomer's first hour: fullscreen and the system theme in tmux", () => {
  test("/hotkeys in fullscreen lists the keys that scroll and search the transcript; a wrapped row continues under its description", async () => {
    await withPane(
      async ({ pane }) => {
        send(pane, "/hotkeys");
        const screen = await pane.waitFor("In the transcript (fullscreen):");
        expect(screen).toMatch(/PageUp \/ PageDown\s+scroll the transcript a page up \/ down/);
        expect(screen).toMatch(/Ctrl\+Home \/ Ctrl\+End\s+its top \/ its end/);
        expect(screen).toMatch(/Ctrl\+↑ \/ Ctrl\+↓\s+the prompt before \/ after/);
        expect(screen).toMatch(/Ctrl\+Shift\+F\s+search it/);
        expect(screen).toMatch(/mouse\s+the wheel scrolls/);
        // Ctrl+X's row is too long for 100 columns: its second line starts where its description does.
        const lines = visibleLines(screen);
        const first = lines.findIndex((line) => /^\s+Ctrl\+X\s/.test(line));
        expect(first).toBeGreaterThanOrEqual(0);
        const description = lines[first]!.indexOf("copy the mouse selection");
        const next = lines[first + 1]!;
        expect(next.length - next.trimStart().length).toBe(description);
      },
      { width: 100, height: 60 },
    );
  }, 60_000);

  test("in tmux without extended keys, a key from keybindings.json opens the search (F3), and /hotkeys shows it", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "find-me here" }] });
        send(pane, "hello");
        await pane.waitFor("find-me here");
        pane.keys("F3");
        await pane.waitFor("Find in transcript");
        pane.type("find-me");
        await pane.waitFor("1/1");
        pane.keys("Escape");
        await pane.waitFor((screen) => !screen.includes("1/1"));
        send(pane, "/hotkeys");
        await pane.waitFor(/Ctrl\+Shift\+F \/ F3\s+search it/);
      },
      { width: 100, height: 60, before: (fake) => writeFileSync(join(fake.home.agentDir, "keybindings.json"), JSON.stringify({ "tui.altScreen.search": ["ctrl+shift+f", "f3"] })) },
    );
  }, 60_000);

  test("/hotkeys in the inline layout leaves the transcript keys out (the terminal scrolls there)", async () => {
    await withPane(
      async ({ pane }) => {
        send(pane, "/hotkeys");
        const screen = await pane.waitFor("hint lines");
        expect(screen).not.toContain("In the transcript");
        expect(screen).not.toContain("Ctrl+Shift+F");
      },
      { args: ["--tui-mode", "regular"], width: 100, height: 60 },
    );
  }, 60_000);

  test("/settings on a fresh home: no value looks changed, the theme reads system (the one drawn), and its list ticks it", async () => {
    await withPane(
      async ({ pane }) => {
        send(pane, "/settings");
        const screen = await pane.waitFor(/^\s*(→\s*)?theme\s/m);
        expect(screen).toMatch(/theme\s+system\s/);
        // A changed value is drawn in the accent colour (ANSI magenta here); nothing is changed yet.
        const accentRow = (name: string) => pane.screen({ escapes: true }).split("\n").find((line) => line.includes(name))!.includes("\x1b[38;5;5m");
        for (const name of ["compaction.enabled", "retry.enabled", "tuiMode", "theme"]) expect(accentRow(name)).toBe(false);
        // Changing one (Enter on the first row) draws it so, once the selection has moved off it.
        pane.keys("Enter");
        await pane.waitFor(/doubleEscapeAction\s+fork/);
        pane.keys("Down");
        await pane.waitFor(/→ treeFilterMode/);
        expect(accentRow("doubleEscapeAction")).toBe(true);
        pane.keys("Up");
        // Up from the first row wraps to the last, the theme row; Enter opens the list.
        await pane.waitFor(/→ doubleEscapeAction/);
        pane.keys("Up");
        await pane.waitFor(/→ theme\s/);
        pane.keys("Enter");
        const list = await pane.waitFor("as the terminal's background");
        expect(list).toMatch(/→ ✓ system/);
      },
      { width: 100, height: 30 },
    );
  }, 60_000);

  test("with no colour answer the prompt is bold, apart from the answer, and headings read on a white background as on a dark one", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "# Heading-here\n\nThe answer-text." }] });
        send(pane, "my-prompt");
        await pane.waitFor("answer-text");
        const escapes = pane.screen({ escapes: true });
        const promptLine = escapes.split("\n").find((line) => line.includes("my-prompt"))!;
        const answerLine = escapes.split("\n").find((line) => line.includes("answer-text"))!;
        expect(promptLine).toMatch(/\x1b\[1m[^\n]*my-prompt/);
        expect(answerLine).not.toMatch(/\x1b\[1m/);
        // The heading's colour stands out from a white page and from a dark one (WCAG 3:1 for large or bold text).
        expect(await inkContrast(pane, "Heading-here", true)).toBeGreaterThanOrEqual(3);
        expect(await inkContrast(pane, "Heading-here", false)).toBeGreaterThanOrEqual(3);
        expect(columnOf(pane.screen(), "Heading-here", "Heading-here")).toBe(1);
      },
      { width: 80, height: 24 },
    );
  }, 60_000);

  test("text dragged over with the mouse is copied without the transcript's margin: code keeps only its own indent", async () => {
    await withPane(
      async ({ fake, pane }) => {
        pane.tmux(["set-option", "-g", "set-clipboard", "on"]);
        fake.server.enqueue({ content: [{ type: "text", text: "first-para here\n\nsecond-para here\n\n```\nif (ready) {\n  go();\n}\n```" }] });
        send(pane, "show me");
        await pane.waitFor("go();");
        const lines = visibleLines(pane.screen());
        const rowOf = (text: string) => lines.findIndex((line) => line.includes(text)) + 1;
        // From the margin left of "if" to the end of "}" (SGR mouse reports, 1-based).
        const drag = (fromRow: number, toRow: number, toColumn: number) => {
          pane.type(`\x1b[<0;1;${fromRow}M`);
          pane.type(`\x1b[<32;3;${fromRow + 1}M\x1b[<32;${toColumn};${toRow}M`);
          pane.type(`\x1b[<0;${toColumn};${toRow}m`);
        };
        drag(rowOf("if (ready)"), rowOf("go();") + 1, 20);
        await pane.waitFor("Copied!");
        expect(await pasteBuffer(pane)).toBe("if (ready) {\n  go();\n}");
        pane.tmux(["delete-buffer"]);
        await pane.waitFor((screen) => !screen.includes("Copied!"));
        // Prose over a blank line: each paragraph starts at its first letter.
        drag(rowOf("first-para"), rowOf("second-para"), 20);
        await pane.waitFor("Copied!");
        expect(await pasteBuffer(pane)).toBe("first-para here\n\nsecond-para here");
      },
      { width: 60, height: 24, env: NO_DESKTOP_ENV },
    );
  }, 60_000);

  test("a line starting with ! draws the editor's border in the shell's colour (bashMode) until it no longer does", async () => {
    await withPane(
      async ({ pane }) => {
        /** The SGR colour the editor's top rule starts with. */
        const borderColour = () => /^(?:\x1b\[[0-9;]*m)*?\x1b\[(38;5;\d+)m─{20}/m.exec(pane.screen({ escapes: true }))?.[1];
        const usual = borderColour();
        expect(usual).toBe("38;5;4");
        pane.type("!ls");
        await pane.waitFor("!ls");
        await pane.waitFor(() => borderColour() === "38;5;2");
        // Ctrl+C clears the editor: the usual border again.
        pane.keys("C-c");
        await pane.waitFor((screen) => !screen.includes("!ls") && borderColour() === usual);
      },
      { width: 60, height: 20 },
    );
  }, 60_000);

  test("the scrollbar takes the theme's scrollbarThumb colour", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: Array.from({ length: 40 }, (_, i) => `row-${i + 1}`).join("\n\n") }] });
        send(pane, "many");
        await pane.waitFor(/^ row-40$/m);
        pane.keys("PageUp");
        // The dark theme's scrollbarThumb (252) is not its muted (245), which the thumb used to take.
        await pane.waitFor(() => pane.screen({ escapes: true }).includes("\x1b[38;5;252m┃"));
      },
      { width: 60, height: 20, env: { COLORTERM: "" }, before: (fake) => writeFileSync(join(fake.home.agentDir, "settings.json"), JSON.stringify({ theme: "dark" })) },
    );
  }, 60_000);

  test("a search whose match is at the end leaves no \"more below\" label; scrolling up brings it", async () => {
    await withPane(
      async ({ fake, pane }) => {
        const text = Array.from({ length: 30 }, (_, i) => `para-${i + 1}`).join("\n\n");
        fake.server.enqueue({ content: [{ type: "text", text }] });
        send(pane, "many");
        await pane.waitFor(/^ para-30$/m);
        pane.type(SEARCH_KEY);
        pane.type("para-30");
        await pane.waitFor("1/1");
        // Drawn after the search moved the view (or did not): the label would be on the last transcript row.
        await pane.waitFor((screen) => /1\/1/.test(screen) && /^ para-30\b/m.test(screen));
        expect(pane.screen()).not.toContain("more below");
        pane.keys("Escape");
        await pane.waitFor((screen) => !/1\/1/.test(screen));
        expect(pane.screen()).not.toContain("more below");
        pane.keys("PageUp");
        await pane.waitFor("more below");
      },
      { width: 60, height: 24 },
    );
  }, 60_000);

  test("the \"more below\" label has its row to itself, not drawn over the middle of a line of text", async () => {
    await withPane(
      async ({ fake, pane }) => {
        // A code block: one line of text on every row, none blank.
        const code = Array.from({ length: 40 }, (_, i) => `code-line-${i + 1} ${"=".repeat(40)}`).join("\n");
        fake.server.enqueue({ content: [{ type: "text", text: "```\n" + code + "\n```" }] });
        send(pane, "code");
        await pane.waitFor("code-line-40");
        pane.keys("PageUp");
        const scrolled = await pane.waitFor("more below");
        const labelRow = visibleLines(scrolled).find((line) => line.includes("more below"))!;
        expect(labelRow.replace(/[│┃█]$/, "").trim()).toBe("↓ more below (Ctrl+End)");
      },
      { width: 60, height: 24 },
    );
  }, 60_000);
});
