/**
 * The colour forms of pi 1.x theme files, turned into sRGB: "#rgb", "#rrggbb",
 * oklch() and okhsl(), checked against known values (CSS's red in OKLCH, pi 1.6.0's
 * own dark theme), against pi-tui's independent OKHSL code over a grid, and by the
 * properties the forms promise (full OKHSL saturation reaches the gamut's edge; an
 * OKLCH colour outside sRGB keeps its lightness and hue). A theme file written in them
 * loads; a wrong one is one message naming the token.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { okhslColor } from "@earendil-works/pi-tui";
import { contrast, hexToRgb, okhslToRgb, oklchToRgb, parseColorText, rgbToOklch } from "../../src/resources/theme-colors.ts";
import { ThemeFormatError, themeFromJson } from "../../src/resources/theme-json.ts";
import { BUILTIN_THEME_DOCUMENTS } from "../../src/resources/builtin-themes.ts";

const hex = (text: string) => {
  const parsed = parseColorText(text);
  if (!parsed || !("hex" in parsed)) throw new Error(`${text}: ${JSON.stringify(parsed)}`);
  return parsed.hex;
};

describe("colour forms", () => {
  test("#rgb doubles each digit; #rrggbb is kept, in lower case", () => {
    expect(hex("#0af")).toBe("#00aaff");
    expect(hex("#ABCDEF")).toBe("#abcdef");
  });

  test("oklch(): CSS's red, white and black come out exact", () => {
    expect(hex("oklch(62.8% 0.2577 29.23)")).toBe("#ff0000");
    expect(hex("oklch(0.628 0.2577 29.23deg)")).toBe("#ff0000");
    expect(hex("oklch(100% 0 0)")).toBe("#ffffff");
    expect(hex("oklch(0% 0 0)")).toBe("#000000");
  });

  test("oklch() outside sRGB keeps its lightness and hue, with less chroma", () => {
    const { l, c, h } = rgbToOklch(hexToRgb(hex("oklch(70% 0.4 145)")));
    expect(l).toBeCloseTo(0.7, 1);
    expect(Math.abs(h - 145)).toBeLessThan(3);
    expect(c).toBeLessThan(0.4);
    expect(c).toBeGreaterThan(0.15);
  });

  test("okhsl(): pi 1.6.0's dark theme colours, and the grey ramp", () => {
    // Values pi 1.6.0 draws for its dark theme's red and blue vars (pi-tui's okhslColor).
    expect(hex("okhsl(20 72% 67%)")).toBe("#ea7f81");
    expect(hex("okhsl(0 0% 0%)")).toBe("#000000");
    expect(hex("okhsl(0 0% 100%)")).toBe("#ffffff");
    const grey = hexToRgb(hex("okhsl(123 0% 50%)"));
    expect(grey.r).toBe(grey.g);
    expect(grey.g).toBe(grey.b);
  });

  test("okhsl() agrees with pi-tui's own OKHSL within rounding over the whole space", () => {
    for (let h = 0; h < 360; h += 15)
      for (let s = 0; s <= 1; s += 0.125)
        for (let l = 0.05; l < 1; l += 0.1) {
          const ours = okhslToRgb(h, s, l);
          const theirs = okhslColor(h, s, l);
          expect(Math.max(Math.abs(ours.r - theirs.r), Math.abs(ours.g - theirs.g), Math.abs(ours.b - theirs.b))).toBeLessThanOrEqual(1);
        }
  });

  test("okhsl() at full saturation is at the edge of sRGB (a channel at 0 or 255)", () => {
    for (const hue of [0, 60, 120, 200, 280]) {
      const { r, g, b } = okhslToRgb(hue, 1, 0.6);
      expect([r, g, b].some((channel) => channel <= 1 || channel >= 254)).toBe(true);
    }
  });

  test("WCAG contrast: black on white is 21, a colour on itself is 1", () => {
    expect(contrast(hexToRgb("#000000"), hexToRgb("#ffffff"))).toBeCloseTo(21, 5);
    expect(contrast(hexToRgb("#777777"), hexToRgb("#777777"))).toBe(1);
  });

  test("a name is not a colour form (it may be a var); a form written wrong says how to write it", () => {
    expect(parseColorText("primary")).toBeUndefined();
    expect(parseColorText("#12")).toEqual({ error: "a hex colour is #RGB or #RRGGBB" });
    expect(parseColorText("okhsl(250, 60%)")).toEqual({ error: "okhsl() takes a hue, a saturation and a lightness: okhsl(250 60% 55%)" });
    expect(parseColorText("okhsl(250 160% 50%)")).toEqual({ error: "okhsl() saturation and lightness are 0%-100%" });
  });
});

describe("pi 1.x theme files", () => {
  const document = (colors: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const dark = BUILTIN_THEME_DOCUMENTS.dark;
    return { name: "pi1", ...extra, vars: { ...dark.vars, violet: "okhsl(295 50% 67%)", sky: "#0af" }, colors: { ...dark.colors, ...colors } };
  };

  test("appearance, okhsl()/oklch()/#rgb values and vars naming them resolve to sRGB", () => {
    const theme = themeFromJson(document({ accent: "violet", mdLink: "sky", error: "oklch(62.8% 0.2577 29.23)" }, { appearance: "light" }));
    expect(theme.appearance).toBe("light");
    expect(theme.colors.accent).toBe(hex("okhsl(295 50% 67%)"));
    expect(theme.colors.mdLink).toBe("#00aaff");
    expect(theme.colors.error).toBe("#ff0000");
  });

  test("pi 1.6.0's built-in dark.json and light.json load as they are", async () => {
    for (const name of ["dark", "light"]) {
      const file = join(import.meta.dir, "../../node_modules/pi-coding-agent-160/dist/modes/interactive/theme", `${name}.json`);
      const theme = themeFromJson(await Bun.file(file).json(), file);
      expect(theme.appearance).toBe(name as "dark" | "light");
      expect(theme.colors.accent).toMatch(/^#[0-9a-f]{6}$/);
    }
  });

  test("a bad value is one problem naming the token and the form", () => {
    const problems = (json: unknown) => {
      try {
        themeFromJson(json);
      } catch (error) {
        return (error as ThemeFormatError).problems;
      }
      return [];
    };
    expect(problems(document({ accent: "okhsl(295 50%)" }))).toEqual(['colors.accent: "okhsl(295 50%)" is not a colour (okhsl() takes a hue, a saturation and a lightness: okhsl(250 60% 55%))']);
    expect(problems(document({}, { appearance: "dim" }))).toEqual(['appearance: expected "dark" or "light" (got "dim")']);
  });
});

describe("a hostile theme file", () => {
  const digits = "9".repeat(400);

  test("a number too long to be finite is an error, never the colour '#NaNNaNNaN' (which drew as black)", () => {
    expect(parseColorText(`oklch(50% 0.1 ${digits})`)).toEqual({ error: "oklch() numbers must be finite" });
    expect(parseColorText(`okhsl(-${digits} 50% 50%)`)).toEqual({ error: "okhsl() numbers must be finite" });
    expect(parseColorText(`oklch(50% ${digits} 120)`)).toEqual({ error: "oklch() numbers must be finite" });
    // A large but finite hue still turns round the circle.
    expect(parseColorText("okhsl(36250 60% 55%)")).toEqual(parseColorText("okhsl(250 60% 55%)"));
  });

  test("a chain of 20,000 vars resolves in well under a second, and a circle in it is named", () => {
    const dark = BUILTIN_THEME_DOCUMENTS.dark;
    const vars: Record<string, string | number> = { ...dark.vars, v0: "#0af" };
    for (let i = 1; i < 20_000; i++) vars[`v${i}`] = `v${i - 1}`;
    const started = performance.now();
    const theme = themeFromJson({ name: "chain", vars, colors: { ...dark.colors, accent: "v19999", text: "v19999" } });
    expect(theme.colors.accent).toBe("#00aaff");
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(() => themeFromJson({ name: "loop", vars: { ...vars, v0: "v19999" }, colors: { ...dark.colors, accent: "v5" } })).toThrow(/in a circle \(v5 → v4 → v3 → v2 → … → v6 → v5\)$/);
  });
});
