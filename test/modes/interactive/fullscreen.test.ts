/**
 * The fullscreen terminal UI (the default; --tui-mode, settings' tuiMode): the
 * alternate screen with the editor fixed on the last lines and the transcript
 * above it, which PageUp/PageDown, Ctrl+Home/End and the mouse wheel scroll;
 * and a terminal given back as it was on every way out.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome } from "../../support/cli.ts";
import { readPng } from "../../support/png.ts";
import { ShellPane } from "./shell-pane.ts";
import { NO_DESKTOP_ENV, pasteBuffer, send, visibleLines, withExtension, withPane } from "./fixture.ts";
import type { XcshPane } from "./tmux.ts";

const FULLSCREEN = ["--tui-mode", "fullscreen"];
const BORDER = /^─{20,}$/;

/** The rows (0-based) of the editor's two border lines. */
const borderRows = (screen: string) => visibleLines(screen).flatMap((line, row) => (BORDER.test(line) ? [row] : []));

/** A long answer: "line-1" … "line-60", one paragraph each. */
function longAnswer(count = 60): string {
  return Array.from({ length: count }, (_, i) => `line-${i + 1}`).join("\n\n");
}

/**
 * A transcript row that holds just `text`. After a scroll the scrollbar shows for a second in the
 * last column (fullscreenScrollbar "auto"): a row may end in it, so a wait need not sit out its fading.
 */
const row = (text: string) => new RegExp(`^ ${text} *[│┃█]?$`, "m");
/** A row as the text on it, the scrollbar's cell left out. */
const rowText = (line: string) => line.replace(/ *[│┃█]$/, "");

const shown = (pane: XcshPane, line: string) => row(line).test(pane.screen());

/** Pixel rows of a screenshot where a horizontal rule crosses most of the text's width. */
function ruleRows(png: Uint8Array): { rules: number[]; lastInk: number } {
  const picture = readPng(png);
  const [br, bg, bb] = picture.pixel(0, 0);
  const ink = (x: number, y: number) => {
    const [r, g, b] = picture.pixel(x, y);
    return Math.abs(r - br) + Math.abs(g - bg) + Math.abs(b - bb) > 60;
  };
  const rules: number[] = [];
  let lastInk = 0;
  for (let y = 0; y < picture.height; y++) {
    let count = 0;
    for (let x = 0; x < picture.width; x++) if (ink(x, y)) count++;
    if (count > 0) lastInk = y;
    if (count > 500) rules.push(y);
  }
  return { rules, lastInk };
}

describe("fullscreen terminal UI", () => {
  test("draws on the alternate screen: the header on top, the editor and footer on the last lines", async () => {
    await withPane(
      async ({ pane }) => {
        expect(pane.format("#{alternate_on}")).toBe("1");
        const screen = pane.screen();
        const lines = visibleLines(screen);
        expect(lines[0]).toMatch(/xcsh \d+\.\d+\.\d+/);
        // Editor borders, then the cwd and the model's footer on the last two rows.
        expect(borderRows(screen)).toEqual([19, 21]);
        expect(lines[23]).toContain("fake/m");
        // Mouse reporting (SGR) is on for the wheel.
        expect(pane.format("#{mouse_sgr_flag}")).toBe("1");

        // The same as a person sees it: a screenshot whose rules sit at the bottom of the text.
        const dir = mkdtempSync(join(tmpdir(), "xcsh-shot-"));
        try {
          writeFileSync(join(dir, "screen.ans"), pane.screen({ escapes: true }));
          const made = Bun.spawnSync(["bun", "scripts/pane-to-png.ts", join(dir, "screen.ans"), join(dir, "screen.png")], { cwd: join(import.meta.dir, "../../.."), stderr: "pipe" });
          expect(made.exitCode).toBe(0);
          const { rules, lastInk } = ruleRows(new Uint8Array(await Bun.file(join(dir, "screen.png")).arrayBuffer()));
          // 24 rows of 16.8px under an 8px margin: the rules are on rows 19 and 21, the last ink on row 23.
          const row = (y: number) => Math.floor((y - 8) / 16.8);
          expect([...new Set(rules.map(row))]).toEqual([19, 21]);
          expect(row(lastInk)).toBe(23);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
      { args: FULLSCREEN, width: 80, height: 24 },
    );
  }, 60_000);

  test("the transcript scrolls: PageUp shows earlier lines, new output and Ctrl+End return to the bottom", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: longAnswer() }] });
        send(pane, "many");
        await pane.waitFor(row("line-60"));
        // The editor stays put while the answer scrolls above it.
        expect(borderRows(pane.screen())).toEqual([19, 21]);
        expect(shown(pane, "line-40")).toBe(false);

        pane.keys("PageUp");
        await pane.waitFor(row("line-45"));
        expect(shown(pane, "line-60")).toBe(false);
        pane.keys("PageUp");
        await pane.waitFor(row("line-37"));
        pane.keys("PageDown");
        await pane.waitFor(row("line-52"));

        // Ctrl+Home: the top; Ctrl+End: back to the end.
        pane.keys("C-Home");
        await pane.waitFor(row("line-1"));
        expect(borderRows(pane.screen())).toEqual([19, 21]);
        pane.keys("C-End");
        await pane.waitFor(row("line-60"));

        // A prompt sent when scrolled up brings the view back to the end, where its answer appears.
        fake.server.enqueue({ content: [{ type: "text", text: "second-answer" }] });
        pane.keys("PageUp");
        await pane.waitFor((screen) => !row("line-60").test(screen));
        send(pane, "again");
        await pane.waitFor("second-answer");
      },
      { args: FULLSCREEN, width: 80, height: 24 },
    );
  }, 60_000);

  test("Ctrl+Up and Ctrl+Down jump between the prompts sent", async () => {
    await withPane(
      async ({ fake, pane }) => {
        for (const [index, name] of ["first", "second"].entries()) {
          fake.server.enqueue({ content: [{ type: "text", text: longAnswer(20) }] });
          send(pane, `${name}-prompt`);
          await pane.waitFor((screen) => fake.server.requests.length === index + 1 && row("line-20").test(screen) && !/Working/.test(screen));
        }
        const topLine = () => rowText(visibleLines(pane.screen())[0]!).trim();
        pane.keys("C-Up");
        await pane.waitFor(() => topLine() === "second-prompt");
        pane.keys("C-Up");
        await pane.waitFor(() => topLine() === "first-prompt");
        pane.keys("C-Down");
        await pane.waitFor(() => topLine() === "second-prompt");
        // The marks never reach the terminal: the pane shows no stray text.
        expect(pane.screen()).not.toContain("133;A");
      },
      { args: FULLSCREEN, width: 80, height: 24 },
    );
  }, 60_000);

  test("an open list owns PageUp/PageDown: /settings and /model move their selection while the transcript stays put", async () => {
    const models = Array.from({ length: 30 }, (_, i) => ({ id: `model-${String(i).padStart(2, "0")}` }));
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: longAnswer() }] });
        send(pane, "many");
        await pane.waitFor(row("line-60"));
        // /settings: a list in the editor's place; its count says which row is selected.
        send(pane, "/settings");
        await pane.waitFor(/\(1\/\d+\)/);
        pane.keys("PageDown");
        const paged = await pane.waitFor((screen) => /\((\d+)\/\d+\)/.exec(screen)?.[1] !== "1");
        expect(Number(/\((\d+)\/\d+\)/.exec(paged)![1])).toBeGreaterThan(4);
        // The transcript did not move: no "more below" label.
        expect(paged).not.toContain("more below");
        pane.keys("PageUp");
        await pane.waitFor(/\(1\/\d+\)/);
        pane.keys("Escape");
        await pane.waitFor((screen) => !/\(\d+\/\d+\)/.test(screen));
        // /model: a dialog over the screen; PageDown moves a page down its list.
        send(pane, "/model");
        await pane.waitFor("Select a model");
        pane.keys("PageDown");
        const moved = await pane.waitFor(/→ fake\/model-(?!00)\d\d/);
        expect(moved).not.toContain("more below");
        pane.keys("Enter");
        await pane.waitFor((screen) => !screen.includes("Select a model") && /fake\/model-(?!00)\d\d\s*$/m.test(screen));
        // With no list open, PageUp scrolls the transcript again.
        pane.keys("PageUp");
        await pane.waitFor("more below");
      },
      { args: FULLSCREEN, width: 80, height: 24, models },
    );
  }, 60_000);

  test("Ctrl+Shift+F searches the transcript: the view goes to each match, Escape closes the search", async () => {
    await withPane(
      async ({ fake, pane }) => {
        const lines = Array.from({ length: 60 }, (_, i) => (i === 4 ? "needle-one" : i === 30 ? "needle-two" : `line-${i + 1}`));
        fake.server.enqueue({ content: [{ type: "text", text: lines.join("\n\n") }] });
        send(pane, "many");
        await pane.waitFor(row("line-60"));
        expect(pane.screen()).not.toContain("needle");
        // Ctrl+Shift+F as a terminal with the kitty keyboard protocol reports it (CSI 102;6u).
        pane.type("\x1b[102;6u");
        pane.type("needle");
        // The view goes to the first match; Enter goes on to the next one.
        await pane.waitFor((screen) => /1\/2/.test(screen) && /^ needle-one\b/m.test(screen) && !/^ needle-two\b/m.test(screen));
        pane.keys("Enter");
        await pane.waitFor((screen) => /2\/2/.test(screen) && /^ needle-two\b/m.test(screen) && !/^ needle-one\b/m.test(screen));
        pane.keys("Escape");
        await pane.waitFor((screen) => !/\d\/2/.test(screen));
        // The editor has the keys again.
        pane.type("typed after");
        await pane.waitFor("typed after");
      },
      { args: FULLSCREEN, width: 80, height: 24 },
    );
  }, 60_000);

  test("the mouse wheel scrolls by fullscreenWheelScrollLines", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: longAnswer() }] });
        send(pane, "many");
        await pane.waitFor(row("line-60"));
        // Two wheel-up notches of 10 rows each (SGR mouse report, button 64): 20 rows = 10 paragraphs.
        pane.type("\x1b[<64;10;5M\x1b[<64;10;5M");
        // line-51 … line-60 went below: line-41 is on top (line-50, on the last row, is under the "more below" label).
        await pane.waitFor((screen) => rowText(visibleLines(screen)[0]!) === " line-41" && row("line-49").test(screen) && !/^ line-5\d\b/m.test(screen));
        // Wheel down (button 65) twice returns to the end.
        pane.type("\x1b[<65;10;5M\x1b[<65;10;5M");
        await pane.waitFor(row("line-60"));
      },
      {
        args: FULLSCREEN,
        width: 80,
        height: 24,
        before: (fake) => writeFileSync(join(fake.home.agentDir, "settings.json"), JSON.stringify({ fullscreenWheelScrollLines: 10 })),
      },
    );
  }, 60_000);

  /** Drags the left button across `text` where it is on screen (SGR mouse reports, 1-based), and lets go. */
  function dragAcross(pane: XcshPane, text: string): void {
    const lines = visibleLines(pane.screen());
    const row = lines.findIndex((line) => line.includes(text));
    expect(row).toBeGreaterThanOrEqual(0);
    const from = lines[row]!.indexOf(text) + 1;
    const to = from + text.length - 1;
    const y = row + 1;
    pane.type(`\x1b[<0;${from};${y}M`);
    pane.type(`\x1b[<32;${from + 3};${y}M\x1b[<32;${to};${y}M`);
    pane.type(`\x1b[<0;${to};${y}m`);
  }

  test("dragging the mouse selects transcript text; letting go copies it through OSC 52 (tmux takes it as a paste buffer)", async () => {
    await withPane(
      async ({ fake, pane }) => {
        pane.tmux(["set-option", "-g", "set-clipboard", "on"]);
        fake.server.enqueue({ content: [{ type: "text", text: "Before it. alpha-bravo-charlie and after." }] });
        send(pane, "say it");
        await pane.waitFor("alpha-bravo-charlie");
        dragAcross(pane, "alpha-bravo-charlie");
        await pane.waitFor("Copied!");
        expect(await pasteBuffer(pane)).toBe("alpha-bravo-charlie");
        // The selection stays on screen in reverse video until the next click.
        expect(pane.screen({ escapes: true })).toMatch(/\x1b\[[0-9;]*7m[^\n]*alpha/);
      },
      { args: FULLSCREEN, width: 80, height: 24, env: NO_DESKTOP_ENV },
    );
  }, 60_000);

  test("with a desktop (DISPLAY), a selection goes to the clipboard program, and not to the terminal", async () => {
    const bin = mkdtempSync(join(tmpdir(), "xcsh-bin-"));
    const clip = join(bin, "clip.txt");
    try {
      // A stand-in xclip that keeps what it is given.
      writeFileSync(join(bin, "xclip"), `#!/bin/sh\ncat > '${clip}'\n`, { mode: 0o755 });
      await withPane(
        async ({ fake, pane }) => {
          pane.tmux(["set-option", "-g", "set-clipboard", "on"]);
          fake.server.enqueue({ content: [{ type: "text", text: "Pick delta-echo-foxtrot from this." }] });
          send(pane, "say it");
          await pane.waitFor("delta-echo-foxtrot");
          dragAcross(pane, "delta-echo-foxtrot");
          await pane.waitFor("Copied!");
          expect(readFileSync(clip, "utf8")).toBe("delta-echo-foxtrot");
          expect(await pasteBuffer(pane, 500)).toBe("");
        },
        { args: FULLSCREEN, width: 80, height: 24, env: { ...NO_DESKTOP_ENV, DISPLAY: ":99", PATH: `${bin}:${process.env.PATH}` } },
      );
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 60_000);

  test("fullscreenCopyOnSelect false: a drag selects but copies nothing; Ctrl+X copies the selection", async () => {
    await withPane(
      async ({ fake, pane }) => {
        pane.tmux(["set-option", "-g", "set-clipboard", "on"]);
        fake.server.enqueue({ content: [{ type: "text", text: "Leave golf-hotel-india alone." }] });
        send(pane, "say it");
        await pane.waitFor("golf-hotel-india");
        dragAcross(pane, "golf-hotel-india");
        await pane.waitFor((screen) => /\x1b\[[0-9;]*7m[^\n]*golf/.test(pane.screen({ escapes: true })) || screen.includes("Copied!"));
        expect(pane.screen()).not.toContain("Copied!");
        expect(await pasteBuffer(pane, 500)).toBe("");
        // Ctrl+X (app.message.copy) copies the selection, not the whole answer.
        pane.keys("C-x");
        await pane.waitFor("Copied!");
        expect(await pasteBuffer(pane)).toBe("golf-hotel-india");
      },
      {
        args: FULLSCREEN,
        width: 80,
        height: 24,
        env: NO_DESKTOP_ENV,
        before: (fake) => writeFileSync(join(fake.home.agentDir, "settings.json"), JSON.stringify({ fullscreenCopyOnSelect: false })),
      },
    );
  }, 60_000);

  test("a click on a web link opens it with the desktop's opener; other schemes are refused with a reason", async () => {
    const bin = mkdtempSync(join(tmpdir(), "xcsh-bin-"));
    const opened = join(bin, "opened.txt");
    try {
      // A stand-in xdg-open that notes what it was asked to open.
      writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\necho "$1" >> '${opened}'\n`, { mode: 0o755 });
      await withPane(
        async ({ fake, pane }) => {
          fake.server.enqueue({ content: [{ type: "text", text: "Read [the-docs](https://example.com/docs?a=1&b=2) or [a-file](file:///etc/hostname)." }] });
          send(pane, "links please");
          await pane.waitFor("the-docs");
          const click = (text: string) => {
            const lines = visibleLines(pane.screen());
            const row = lines.findIndex((line) => line.includes(text));
            const x = lines[row]!.indexOf(text) + 2;
            pane.type(`\x1b[<0;${x};${row + 1}M\x1b[<0;${x};${row + 1}m`);
          };
          click("the-docs");
          const deadline = Date.now() + 10_000;
          while (Date.now() < deadline && !existsSync(opened)) await Bun.sleep(50);
          expect(readFileSync(opened, "utf8")).toBe("https://example.com/docs?a=1&b=2\n");
          click("a-file");
          await pane.waitFor("Only web and mail links are opened");
          expect(readFileSync(opened, "utf8")).toBe("https://example.com/docs?a=1&b=2\n");
        },
        // PI_HYPERLINKS=1: links as OSC 8 (tmux's detached pane would not say it forwards them).
        { args: FULLSCREEN, width: 80, height: 24, env: { PI_HYPERLINKS: "1", PATH: `${bin}:${process.env.PATH}` } },
      );
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 60_000);

  test("--tui-mode takes fullscreen or regular; anything else is a usage error", () => {
    const run = Bun.spawnSync([ensureBinary(), "--tui-mode", "bogus", "--provider", "faux", "-p", "hi"], { stdout: "pipe", stderr: "pipe" });
    expect(run.exitCode).toBe(2);
    expect(run.stderr.toString()).toContain('Unknown TUI mode "bogus" (use fullscreen or regular)');
  });

  test.skipIf(process.platform !== "linux")("fullscreen is the default and hides the shell's screen; regular draws below the shell's output and leaves the conversation in it", async () => {
    const fake = await makeFakeModelHome([{ id: "m" }]);
    const project = mkdtempSync(join(tmpdir(), "xcsh-proj-"));
    const shell = new ShellPane(fake.home.env, project);
    // The footer's last line (the command line typed also ends in "fake/m").
    const footerShown = (screen: string) => /^ctx .*fake\/m\s*$/m.test(screen);
    const footerShownAfter = (command: string) => (screen: string) => footerShown(screen.slice(screen.lastIndexOf(command)));
    const altScreen = () => shell.tmux(["display-message", "-p", "-t", "main", "#{alternate_on}"]).trim();
    try {
      await shell.waitFor((screen) => screen.includes("shell$"));
      shell.type("echo shell-said-this");
      shell.keys("Enter");
      await shell.waitFor((screen) => /^shell-said-this$/m.test(screen));
      // No flag, no setting: fullscreen, and the shell's output is not on the screen meanwhile.
      shell.type(`${ensureBinary()} --model fake/m`);
      shell.keys("Enter");
      await shell.waitFor(footerShown);
      expect(altScreen()).toBe("1");
      expect(shell.screen()).not.toContain("shell-said-this");
      shell.type("/quit");
      shell.keys("Enter");
      await shell.waitFor((screen) => /shell\$\s*$/.test(screen.trimEnd()) && screen.includes("shell-said-this"));
      // Regular: drawn inline under the shell's output, which stays; the conversation stays after quitting.
      fake.server.enqueue({ content: [{ type: "text", text: "inline-answer" }] });
      shell.type(`${ensureBinary()} --model fake/m --tui-mode regular`);
      shell.keys("Enter");
      // (The fullscreen run printed its screen, footer included, on leaving: look below this command.)
      await shell.waitFor(footerShownAfter("--tui-mode regular"));
      expect(altScreen()).toBe("0");
      expect(shell.screen()).toContain("shell-said-this");
      shell.type("hello");
      shell.keys("Enter");
      await shell.waitFor((screen) => screen.includes("inline-answer"));
      shell.type("/quit");
      shell.keys("Enter");
      const after = await shell.waitFor((screen) => /shell\$\s*$/.test(screen.trimEnd()));
      expect(after.indexOf("shell-said-this")).toBeLessThan(after.indexOf("inline-answer"));
    } finally {
      shell.kill();
      await fake.cleanup();
      rmSync(project, { recursive: true, force: true });
    }
  }, 60_000);

  test("tuiMode in settings picks the layout; --tui-mode regular overrides it", async () => {
    const settings = (fake: { home: { agentDir: string } }) => writeFileSync(join(fake.home.agentDir, "settings.json"), JSON.stringify({ tuiMode: "fullscreen" }));
    await withPane(async ({ pane }) => expect(pane.format("#{alternate_on}")).toBe("1"), { width: 80, height: 24, before: settings });
    await withPane(async ({ pane }) => expect(pane.format("#{alternate_on}")).toBe("0"), { args: ["--tui-mode", "regular"], width: 80, height: 24, before: settings });
    // The other way round: a setting asks for regular, the flag for fullscreen.
    const regular = (fake: { home: { agentDir: string } }) => writeFileSync(join(fake.home.agentDir, "settings.json"), JSON.stringify({ tuiMode: "regular" }));
    await withPane(async ({ pane }) => expect(pane.format("#{alternate_on}")).toBe("0"), { width: 80, height: 24, before: regular });
    await withPane(async ({ pane }) => expect(pane.format("#{alternate_on}")).toBe("1"), { args: FULLSCREEN, width: 80, height: 24, before: regular });
  }, 60_000);

  /** The pane is back to a normal terminal: main screen, cursor shown, no mouse reporting, modes as before. */
  async function expectRestored(pane: XcshPane): Promise<void> {
    await pane.waitFor("xcsh exited");
    expect(pane.format("#{alternate_on}")).toBe("0");
    expect(pane.format("#{cursor_flag}")).toBe("1");
    expect(pane.format("#{mouse_any_flag}")).toBe("0");
    expect(pane.format("#{mouse_sgr_flag}")).toBe("0");
    expect(pane.sttyAfter()).toBe(pane.sttyBefore());
  }

  test("Ctrl+C twice leaves the alternate screen and gives the terminal back", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "kept-in-history" }] });
        send(pane, "hello");
        await pane.waitFor("kept-in-history");
        pane.keys("C-c");
        pane.keys("C-c");
        expect(await pane.waitForExit()).toBe(0);
        await expectRestored(pane);
        // The transcript is printed on the main screen as it leaves (fullscreenExitOutput: transcript).
        expect(pane.tmux(["capture-pane", "-p", "-S", "-100", "-t", "main"])).toContain("kept-in-history");
      },
      { args: FULLSCREEN, width: 80, height: 24 },
    );
  }, 60_000);

  test('fullscreenExitOutput "resume-hint" leaves only the resume hint on the main screen', async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "not-kept" }] });
        send(pane, "hello");
        await pane.waitFor("not-kept");
        pane.keys("C-c");
        pane.keys("C-c");
        expect(await pane.waitForExit()).toBe(0);
        await expectRestored(pane);
        const history = pane.tmux(["capture-pane", "-p", "-S", "-100", "-t", "main"]);
        expect(history).toContain("To resume this session:");
        expect(history).not.toContain("not-kept");
      },
      {
        args: FULLSCREEN,
        width: 80,
        height: 24,
        before: (fake) => writeFileSync(join(fake.home.agentDir, "settings.json"), JSON.stringify({ fullscreenExitOutput: "resume-hint" })),
      },
    );
  }, 60_000);

  test("SIGTERM leaves the alternate screen and gives the terminal back", async () => {
    await withPane(
      async ({ pane }) => {
        const shell = pane.format("#{pane_pid}");
        const child = Bun.spawnSync(["pgrep", "-P", shell]).stdout.toString().trim().split("\n")[0]!;
        expect(child).toMatch(/^\d+$/);
        process.kill(Number(child), "SIGTERM");
        expect(await pane.waitForExit()).toBe(143);
        await expectRestored(pane);
      },
      { args: FULLSCREEN, width: 80, height: 24 },
    );
  }, 60_000);

  test("an extension that ends the process (process.exit) leaves the terminal restored too", async () => {
    const extension = withExtension(`export default function (pi) {
  pi.registerCommand("bye", { description: "Exit hard", handler: async () => { setTimeout(() => process.exit(7), 0); } });
}`);
    await withPane(
      async ({ pane }) => {
        send(pane, "/bye");
        expect(await pane.waitForExit()).toBe(7);
        await expectRestored(pane);
      },
      { ...extension, args: [...extension.args!, ...FULLSCREEN], width: 80, height: 24 },
    );
  }, 60_000);

  test("an uncaught crash leaves the alternate screen, says why, and gives the terminal back", async () => {
    const extension = withExtension(`export default function (pi) {
  pi.registerCommand("boom", { description: "Crash", handler: async () => { setTimeout(() => { throw new Error("kaboom"); }, 0); } });
}`);
    await withPane(
      async ({ pane }) => {
        send(pane, "/boom");
        expect(await pane.waitForExit()).toBe(1);
        await expectRestored(pane);
        expect(pane.screen()).toContain("xcsh: crashed: Error: kaboom");
      },
      { ...extension, args: [...extension.args!, ...FULLSCREEN], width: 80, height: 24 },
    );
  }, 60_000);

  test.skipIf(process.platform !== "linux")("under a shell: Ctrl+Z and fg leave and re-enter the alternate screen; /quit leaves a usable prompt", async () => {
    const fake = await makeFakeModelHome([{ id: "m" }]);
    const project = mkdtempSync(join(tmpdir(), "xcsh-proj-"));
    const shell = new ShellPane(fake.home.env, project);
    const altScreen = () => shell.tmux(["display-message", "-p", "-t", "main", "#{alternate_on}"]).trim();
    try {
      await shell.waitFor((screen) => screen.includes("shell$"));
      shell.type(`${ensureBinary()} --model fake/m --tui-mode fullscreen`);
      shell.keys("Enter");
      await shell.waitFor((screen) => /fake\/m\s*$/.test(screen.trimEnd()));
      expect(altScreen()).toBe("1");
      shell.keys("C-z");
      await shell.waitFor((screen) => /Stopped/.test(screen) && /shell\$\s*$/.test(screen.trimEnd()));
      expect(altScreen()).toBe("0");
      // Suspending does not print the conversation on the shell's screen (only the exit does).
      expect(shell.screen()).not.toMatch(/xcsh \d+\.\d+\.\d+ ·/);
      shell.type("fg");
      shell.keys("Enter");
      await shell.waitFor((screen) => /fake\/m\s*$/.test(screen.trimEnd()));
      expect(altScreen()).toBe("1");
      shell.type("/quit");
      shell.keys("Enter");
      await shell.waitFor((screen) => /shell\$\s*$/.test(screen.trimEnd()));
      expect(altScreen()).toBe("0");
      shell.type("echo prompt-works");
      shell.keys("Enter");
      await shell.waitFor((screen) => /^prompt-works$/m.test(screen));
    } finally {
      shell.kill();
      await fake.cleanup();
      rmSync(project, { recursive: true, force: true });
    }
  }, 60_000);
});
