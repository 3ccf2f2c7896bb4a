/**
 * The system theme as a function of what the terminal answers (pure; the binary's
 * side is system-theme-terminal.test.ts): every role gets a colour; with a palette
 * each role's hue is its ANSI colour's and body text keeps 4.5:1 on the background
 * and every panel; with a background only, xcsh's own hues; with nothing, ANSI
 * indexes, the terminal's default colours and faint secondary text.
 */
import { describe, expect, test } from "bun:test";
import { contrast, hexToRgb, rgbToOklch, type Rgb } from "../../../src/resources/theme-colors.ts";
import { ALL_TOKENS, BACKGROUND_TOKENS } from "../../../src/resources/theme-json.ts";
import { systemTheme } from "../../../src/modes/interactive/theme/system-theme.ts";

const rgb = hexToRgb;
const ansi = (colors: string[]): Rgb[] => colors.map(rgb);
const DARK_PALETTE = ansi(["#000000", "#cc3333", "#33cc33", "#cccc33", "#3333cc", "#cc33cc", "#33cccc", "#cccccc", "#666666", "#ff5555", "#55ff55", "#ffff55", "#5555ff", "#ff55ff", "#55ffff", "#ffffff"]);
const hueOf = (color: string | number) => rgbToOklch(rgb(String(color))).h;
const hueDistance = (a: number, b: number) => Math.min(Math.abs(a - b), 360 - Math.abs(a - b));

describe("the system theme", () => {
  test("with a palette: every role has a colour, each hue from its ANSI colour, text readable everywhere", () => {
    const background = rgb("#101820");
    const theme = systemTheme({ background, foreground: rgb("#dddddd"), palette: DARK_PALETTE }, "light");
    expect(theme.appearance).toBe("dark");
    for (const token of ALL_TOKENS) expect(theme.colors[token]).toMatch(/^#[0-9a-f]{6}$/);
    expect(hueDistance(hueOf(theme.colors.error), hueOf("#cc3333"))).toBeLessThan(4);
    expect(hueDistance(hueOf(theme.colors.success), hueOf("#33cc33"))).toBeLessThan(4);
    expect(hueDistance(hueOf(theme.colors.mdLink), hueOf("#3333cc"))).toBeLessThan(4);
    expect(hueDistance(hueOf(theme.colors.accent), hueOf("#cc33cc"))).toBeLessThan(4);
    // The reported foreground is used as it is when it is readable.
    expect(theme.colors.text).toBe("#dddddd");
    for (const surface of [background, ...BACKGROUND_TOKENS.map((token) => rgb(String(theme.colors[token])))]) {
      expect(contrast(rgb(String(theme.colors.text)), surface)).toBeGreaterThanOrEqual(4.5);
    }
    expect(contrast(rgb(String(theme.colors.accent)), background)).toBeGreaterThanOrEqual(3);
  });

  test("another palette, another theme: the accent follows the palette's magenta; a light background makes it light and dark text", () => {
    const background = rgb("#fdf6e3");
    const palette = [...DARK_PALETTE];
    palette[5] = rgb("#d07020"); // an orange "magenta"
    const theme = systemTheme({ background, foreground: rgb("#eeeeee"), palette }, "dark");
    expect(theme.appearance).toBe("light");
    expect(hueDistance(hueOf(theme.colors.accent), hueOf("#d07020"))).toBeLessThan(4);
    expect(contrast(rgb(String(theme.colors.accent)), background)).toBeGreaterThanOrEqual(3);
    // A foreground that is unreadable on the background is not used: text is placed instead.
    expect(theme.colors.text).not.toBe("#eeeeee");
    expect(contrast(rgb(String(theme.colors.text)), background)).toBeGreaterThanOrEqual(4.5);
  });

  test("background only: xcsh's own hues placed for it", () => {
    const theme = systemTheme({ background: rgb("#000000") }, "light");
    expect(theme.appearance).toBe("dark");
    expect(hueDistance(hueOf(theme.colors.error), 25)).toBeLessThan(6);
    expect(contrast(rgb(String(theme.colors.text)), rgb("#000000"))).toBeGreaterThanOrEqual(4.5);
  });

  test("nothing reported: ANSI indexes, the default colours, faint secondary text, no panels", () => {
    const theme = systemTheme(undefined, "light");
    expect(theme.appearance).toBe("light");
    expect(theme.colors.error).toBe(1);
    expect(theme.colors.accent).toBe(5);
    expect(theme.colors.text).toBe("");
    expect(theme.colors.userMessageBg).toBe("");
    expect(theme.faint?.has("muted")).toBe(true);
    expect(theme.faint?.has("text")).toBe(false);
  });
});
