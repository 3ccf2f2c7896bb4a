/**
 * The system theme through the built binary, on a terminal that answers the colour
 * queries (test/support/answering-terminal.ts; tmux answers none of them): the
 * colours drawn (24-bit SGR codes in the output) follow the palette the terminal
 * reports and change with another palette; a terminal that answers nothing gets its
 * own ANSI colours by index. Extensions see the theme's `appearance`, concrete
 * `colors` (a "" role as the colour the terminal reported) and `sourceInfo`.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeFakeModelHome } from "../../support/cli.ts";
import { AnsweringTerminal, rgb, stripEscapes, type TerminalPalette } from "../../support/answering-terminal.ts";
import { rgbToOklch } from "../../../src/resources/theme-colors.ts";
import { BUILTIN_THEME_DOCUMENTS } from "../../../src/resources/builtin-themes.ts";

const ANSI = ["#000000", "#cc3333", "#33cc33", "#cccc33", "#3333cc", "#cc33cc", "#33cccc", "#cccccc", "#666666", "#ff5555", "#55ff55", "#ffff55", "#5555ff", "#ff55ff", "#55ffff", "#ffffff"];
/** A dark terminal with a pink-purple magenta. */
const NIGHT: TerminalPalette = { foreground: rgb("#dddddd"), background: rgb("#101820"), ansi: ANSI.map(rgb) };
/** A light terminal whose "magenta" is orange. */
const PAPER: TerminalPalette = { foreground: rgb("#222222"), background: rgb("#fdf6e3"), ansi: ANSI.map((color, index) => rgb(index === 5 ? "#d07020" : color)) };

const TRUECOLOR = { COLORTERM: "truecolor", PI_TRUE_COLOR: "", COLORFGBG: "", NO_COLOR: "" };

interface Run {
  terminal: AnsweringTerminal;
  agentDir: string;
}

async function withTerminal(setup: { palette?: TerminalPalette; args?: string[]; before?: (agentDir: string, project: string) => void }, run: (session: Run) => Promise<void>): Promise<void> {
  const fake = await makeFakeModelHome([{ id: "m" }]);
  const project = mkdtempSync(join(tmpdir(), "xcsh-proj-"));
  let terminal: AnsweringTerminal | undefined;
  try {
    setup.before?.(fake.home.agentDir, project);
    terminal = new AnsweringTerminal({ args: ["--model", "fake/m", ...(setup.args ?? [])], env: { ...fake.home.env, ...TRUECOLOR }, cwd: project, palette: setup.palette });
    await terminal.waitFor("fake/m");
    await run({ terminal, agentDir: fake.home.agentDir });
  } finally {
    await terminal?.close();
    await fake.cleanup();
    rmSync(project, { recursive: true, force: true });
  }
}

/** The 24-bit colour the header's "xcsh" was last drawn in (the accent). */
function headerColor(output: string): { r: number; g: number; b: number } | undefined {
  const last = [...output.matchAll(/\x1b\[38;2;(\d+);(\d+);(\d+)mxcsh/g)].at(-1);
  return last ? { r: Number(last[1]), g: Number(last[2]), b: Number(last[3]) } : undefined;
}

const hueDistance = (a: number, b: number) => Math.min(Math.abs(a - b), 360 - Math.abs(a - b));

describe("the system theme in a terminal that reports its colours", () => {
  test("the system theme follows a terminal palette query: the accent takes the palette's magenta, and changes with another palette", async () => {
    const accents: { r: number; g: number; b: number }[] = [];
    for (const palette of [NIGHT, PAPER]) {
      await withTerminal({ palette }, async ({ terminal }) => {
        await terminal.waitFor((output) => headerColor(output) !== undefined);
        const accent = headerColor(terminal.output)!;
        accents.push(accent);
        expect(hueDistance(rgbToOklch(accent).h, rgbToOklch(palette.ansi[5]!).h)).toBeLessThan(5);
      });
    }
    const [night, paper] = accents as [{ r: number; g: number; b: number }, { r: number; g: number; b: number }];
    expect(paper).not.toEqual(night);
    // Placed for the background: light on the dark terminal, dark on the light one.
    expect(rgbToOklch(night).l).toBeGreaterThan(0.6);
    expect(rgbToOklch(paper).l).toBeLessThan(0.6);
  }, 60_000);

  test("when the terminal switches between dark and light, xcsh asks again and redraws in the new palette", async () => {
    await withTerminal({ palette: NIGHT }, async ({ terminal }) => {
      await terminal.waitFor((output) => headerColor(output) !== undefined);
      const night = headerColor(terminal.output)!;
      terminal.switchPalette(PAPER, "light");
      await terminal.waitFor((output) => {
        const now = headerColor(output);
        return now !== undefined && hueDistance(rgbToOklch(now).h, rgbToOklch(PAPER.ansi[5]!).h) < 5;
      });
      expect(headerColor(terminal.output)).not.toEqual(night);
      expect(rgbToOklch(headerColor(terminal.output)!).l).toBeLessThan(0.6);
    });
  }, 60_000);

  test("a terminal that answers nothing: the accent is its own magenta by index, secondary text faint, no 24-bit colour", async () => {
    await withTerminal({}, async ({ terminal }) => {
      await terminal.waitFor((output) => /\x1b\[38;5;5mxcsh/.test(output));
      expect(terminal.output).not.toContain("38;2;");
      // Secondary text (the header's model) is faint in the terminal's own text colour.
      expect(terminal.output).toContain("\x1b[2mfake/m\x1b[22;39m");
    });
  }, 60_000);

  test('extensions see the appearance and concrete colours; a "" role is the colour the terminal reported', async () => {
    const extension = `export default function (pi) {
  pi.registerCommand("look", { description: "Show the theme", handler: async (args, ctx) => {
    if (args.trim()) ctx.ui.setTheme(args.trim());
    const t = ctx.ui.theme;
    const c = (name) => { const v = t.colors[name]; return v.kind === "rgb" ? [v.r, v.g, v.b].join(",") : "i" + v.index; };
    ctx.ui.notify("LOOK " + t.name + " " + t.appearance + " text=" + c("text") + " bg=" + c("userMessageBg") + " src=" + (t.sourceInfo ? t.sourceInfo.scope + ":" + (t.sourcePath === t.sourceInfo.path) : "none") + " END", "info");
  } });
}
`;
    const plain = { ...BUILTIN_THEME_DOCUMENTS.dark, name: "plain", appearance: undefined, colors: { ...BUILTIN_THEME_DOCUMENTS.dark.colors, text: "", userMessageBg: "" } };
    await withTerminal(
      {
        palette: PAPER,
        args: ["-e", "look.ts"],
        before: (agentDir, project) => {
          writeFileSync(join(project, "look.ts"), extension);
          mkdirSync(join(agentDir, "themes"), { recursive: true });
          writeFileSync(join(agentDir, "themes", "plain.json"), JSON.stringify(plain));
        },
      },
      async ({ terminal }) => {
        terminal.write("/look\r");
        const system = await terminal.waitFor("LOOK system light text=34,34,34 bg=");
        expect(/LOOK system light text=34,34,34 bg=[\d,]+ src=none END/.test(stripEscapes(system))).toBe(true);
        terminal.write("/look plain\r");
        // No appearance declared, text "": the terminal's answers decide; "" is its reported foreground/background.
        await terminal.waitFor("LOOK plain light text=34,34,34 bg=253,246,227 src=user:true END");
      },
    );
  }, 60_000);
});
