/**
 * Themes in the built binary in tmux, read back with their colours
 * (`capture-pane -e`): a pi-format theme file (pi 1.6.0's own among them) from ~/.xcsh/agent/themes, the
 * project's .xcsh/themes or --theme, chosen by settings.theme, --use-theme or
 * /settings, draws the screen in its colours (24-bit where the terminal takes
 * them, the nearest 256-colour index where not); a broken file is one warning
 * naming the file and the bad token, and the built-in palette is drawn;
 * extensions' ctx.ui.theme and getMarkdownTheme() follow the theme drawn.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { okhslColor } from "@earendil-works/pi-tui";
import { BUILTIN_THEME_DOCUMENTS } from "../../../src/resources/builtin-themes.ts";
import { send, withExtension, withPane, type PaneSetup } from "./fixture.ts";
import type { XcshPane } from "./tmux.ts";

/** The theme's accent, as the pane stores it. */
const MAGENTA = "\x1b[38;2;255;0;255m";
/**
 * The default theme's accent: the system theme's, which in tmux (it answers no colour
 * query) is the terminal's own magenta by index.
 */
const DEFAULT_ACCENT = "\x1b[38;5;5m";
/** A terminal that takes 24-bit colour, on a dark background, with colour wanted. */
const TRUECOLOR = { COLORTERM: "truecolor", PI_TRUE_COLOR: "", COLORFGBG: "15;0", NO_COLOR: "" };

/** A whole theme in pi's format: xcsh's dark one with a magenta accent (and any other colours given). */
function themeDocument(name: string, colors: Record<string, unknown> = {}): Record<string, unknown> {
  const dark = BUILTIN_THEME_DOCUMENTS.dark;
  return { ...dark, name, colors: { ...dark.colors, accent: "#ff00ff", ...colors } };
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

const userTheme = (agentDir: string, file: string, value: unknown) => writeJson(join(agentDir, "themes", file), value);
const header = (pane: XcshPane) => pane.screen({ escapes: true }).split("\n")[0]!;
/** The screen as one line of words (warnings wrap). */
const flat = (screen: string) => screen.replace(/\s+/g, " ");
const lineWith = (pane: XcshPane, text: string) => pane.screen({ escapes: true }).split("\n").find((line) => line.includes(text)) ?? "";

function themed(setup: PaneSetup = {}): PaneSetup {
  return { width: 200, ...setup, env: { ...TRUECOLOR, ...setup.env } };
}

describe("theme files", () => {
  test("a theme in ~/.xcsh/agent/themes chosen by settings.theme draws the header and /settings in its colours", async () => {
    await withPane(
      async ({ pane }) => {
        expect(header(pane)).toContain(`${MAGENTA}xcsh`);
        send(pane, "/settings");
        await pane.waitFor("Settings");
        expect(lineWith(pane, "Settings")).toContain(`${MAGENTA}Settings`);
        pane.keys("Escape");
      },
      themed({
        before: (fake) => {
          userTheme(fake.home.agentDir, "magenta.json", themeDocument("magenta"));
          fake.home.writeSettings({ theme: "magenta" });
        },
      }),
    );
  });

  test("pi 1.6.0's own dark theme file (okhsl() colours, appearance) loads and draws in its colours", async () => {
    // pi's file, read from the installed reference (renamed: "dark" is a built-in name).
    const piDark = JSON.parse(readFileSync(join(import.meta.dir, "../../../node_modules/pi-coding-agent-160/dist/modes/interactive/theme/dark.json"), "utf8"));
    expect(piDark.vars.violet).toBe("okhsl(295 50% 67%)");
    // pi-tui's own OKHSL says what pi draws for its accent.
    const { r, g, b } = okhslColor(295, 0.5, 0.67);
    await withPane(
      async ({ pane }) => {
        expect(header(pane)).toContain(`\x1b[38;2;${r};${g};${b}mxcsh`);
      },
      themed({
        before: (fake) => {
          userTheme(fake.home.agentDir, "pi-dark.json", { ...piDark, name: "pi-dark" });
          fake.home.writeSettings({ theme: "pi-dark" });
        },
      }),
    );
  });

  test("without 24-bit colour, a hex colour is drawn as the nearest of the 256 colours", async () => {
    await withPane(
      async ({ pane }) => {
        expect(header(pane)).toContain("\x1b[38;5;201mxcsh");
        expect(pane.screen({ escapes: true })).not.toContain("38;2;");
      },
      themed({
        env: { COLORTERM: "" },
        before: (fake) => {
          userTheme(fake.home.agentDir, "magenta.json", themeDocument("magenta"));
          fake.home.writeSettings({ theme: "magenta" });
        },
      }),
    );
  });

  test("NO_COLOR drops the theme's colours too", async () => {
    await withPane(
      async ({ pane }) => {
        expect(pane.screen({ escapes: true })).not.toMatch(/\x1b\[[34]8;/);
      },
      themed({
        env: { NO_COLOR: "1" },
        before: (fake) => {
          userTheme(fake.home.agentDir, "magenta.json", themeDocument("magenta"));
          fake.home.writeSettings({ theme: "magenta" });
        },
      }),
    );
  });

  test("--theme <file> loads a theme (as pi: listed, not drawn); --use-theme draws it for this run without touching settings", async () => {
    let file = "";
    const loadOnly: PaneSetup = themed({
      before: (fake, project) => {
        file = join(project, "my-theme.json");
        writeJson(file, themeDocument("mine"));
      },
      args: ["--theme", "my-theme.json"],
    });
    await withPane(async ({ pane }) => {
      expect(header(pane)).toContain(`${DEFAULT_ACCENT}xcsh`);
      send(pane, "/settings");
      await pane.waitFor("Settings");
      pane.type("theme");
      await pane.waitFor(/→ theme/);
      pane.keys("Enter");
      const list = await pane.waitFor("automatic");
      expect(list).toMatch(/\bmine\s+\S*my-theme\.json/);
      pane.keys("Escape");
      await pane.waitFor(/→ theme/);
      pane.keys("Escape");
    }, loadOnly);
    await withPane(
      async ({ fake, pane }) => {
        expect(header(pane)).toContain(`${MAGENTA}xcsh`);
        expect(existsSync(join(fake.home.agentDir, "settings.json"))).toBe(false);
      },
      { ...loadOnly, args: ["--theme", "my-theme.json", "--use-theme", "mine"] },
    );
  });

  test('a "light/dark" pair draws the second theme on a dark terminal; /reload draws a changed theme file', async () => {
    await withPane(
      async ({ fake, pane }) => {
        expect(header(pane)).toContain(`${MAGENTA}xcsh`);
        userTheme(fake.home.agentDir, "magenta.json", themeDocument("magenta", { accent: "#00ff00" }));
        send(pane, "/reload");
        await pane.waitFor(() => header(pane).includes("\x1b[38;2;0;255;0mxcsh"));
      },
      themed({
        args: ["--use-theme", "light/magenta"],
        before: (fake) => userTheme(fake.home.agentDir, "magenta.json", themeDocument("magenta")),
      }),
    );
  });

  test("a project's .xcsh/themes and its settings' theme apply without a trust question (themes are data)", async () => {
    await withPane(
      async ({ pane }) => {
        await pane.waitFor(() => header(pane).includes(`${MAGENTA}xcsh`));
        expect(pane.screen()).not.toMatch(/trust/i);
      },
      themed({
        before: (_fake, project) => {
          writeJson(join(project, ".xcsh", "themes", "house.json"), themeDocument("house"));
          writeJson(join(project, ".xcsh", "settings.json"), { theme: "house" });
        },
      }),
    );
  });

  test("in a project that ships code, its themes wait for its trust: not drawn under the trust question, drawn after yes and /reload", async () => {
    await withPane(
      async ({ pane }) => {
        await pane.waitFor("Trust this project?");
        expect(header(pane)).toContain(`${DEFAULT_ACCENT}xcsh`);
        pane.type("y");
        await pane.waitFor((screen) => !screen.includes("Trust this project?"));
        send(pane, "/reload");
        await pane.waitFor("Reloaded");
        await pane.waitFor(() => header(pane).includes(`${MAGENTA}xcsh`));
      },
      themed({
        before: (_fake, project) => {
          writeJson(join(project, ".xcsh", "themes", "house.json"), themeDocument("house"));
          writeJson(join(project, ".xcsh", "settings.json"), { theme: "house" });
          writeJson(join(project, ".xcsh", "extensions", "noop.ts"), "export default function () {}\n");
        },
      }),
    );
  });

  test("--no-themes leaves the theme files out: the chosen one is said to be missing and the built-in one is drawn", async () => {
    await withPane(
      async ({ pane }) => {
        const screen = flat(await pane.waitFor('Theme "magenta"'));
        expect(screen).toContain('Theme "magenta" (the theme setting) is not used: no theme is named "magenta" (the themes are: system, dark, light). Showing the built-in system theme.');
        expect(header(pane)).toContain(`${DEFAULT_ACCENT}xcsh`);
      },
      themed({
        args: ["--no-themes"],
        before: (fake) => {
          userTheme(fake.home.agentDir, "magenta.json", themeDocument("magenta"));
          fake.home.writeSettings({ theme: "magenta" });
        },
      }),
    );
  });
});

describe("broken theme files", () => {
  test("a hostile repository's theme file: escape sequences in its file name, keys or the theme setting never reach the terminal", async () => {
    await withPane(
      async ({ pane }) => {
        const screen = flat(await pane.waitFor("Showing the built-in system theme"));
        expect(screen).toContain("not a theme colour");
        // The OSC 2 in the key would have set the pane's title.
        expect(pane.tmux(["display-message", "-p", "#{pane_title}"]).trim()).not.toContain("PWNED");
        expect(pane.screen({ escapes: true })).not.toContain("\x1b]");
      },
      themed({
        before: (_fake, project) => {
          writeJson(join(project, ".xcsh", "themes", "evil\x1b]2;PWNED-FILE\x07.json"), themeDocument("evil", { "\x1b]2;PWNED\x07x": "#fff" }));
          writeJson(join(project, ".xcsh", "settings.json"), { theme: "evil" });
        },
      }),
    );
  });

  test("the chosen theme is broken: one warning names the file and each bad token; the built-in palette is drawn and the session works", async () => {
    await withPane(
      async ({ fake, pane }) => {
        const screen = flat(await pane.waitFor("Showing the built-in system theme"));
        const file = join(fake.home.agentDir, "themes", "broken.json");
        expect(screen).toContain(`Theme "broken" (the theme setting) is not used: ${file}: colors.accent: "#zz00ff" is not a colour (a hex colour is #RGB or #RRGGBB); colors.border: "nosuchvar" is neither a colour (#RGB, #RRGGBB, oklch(…), okhsl(…), 0-255, "") nor a name in "vars". Showing the built-in system theme.`);
        // One warning for the file, not two.
        expect(screen.split("broken.json").length - 1).toBe(1);
        expect(header(pane)).toContain(`${DEFAULT_ACCENT}xcsh`);
        expect(pane.screen({ escapes: true })).not.toContain("38;2;255;0;255");
        fake.server.enqueue({ content: [{ type: "text", text: "Still here." }] });
        send(pane, "hello");
        await pane.waitFor("Still here.");
      },
      themed({
        before: (fake) => {
          userTheme(fake.home.agentDir, "broken.json", themeDocument("broken", { accent: "#zz00ff", border: "nosuchvar" }));
          fake.home.writeSettings({ theme: "broken" });
        },
      }),
    );
  });

  test("every unusable file in the themes folder is named with what is wrong, once; good ones still load", async () => {
    await withPane(
      async ({ fake, pane }) => {
        const dir = join(fake.home.agentDir, "themes");
        const screen = flat(await pane.waitFor("truncated.json"));
        expect(screen).toContain(`theme file ${join(dir, "typo.json")} is not used: colors.acent: not a theme colour (did you mean "accent"?)`);
        expect(screen).toContain(`theme file ${join(dir, "circle.json")} is not used: colors.accent: vars refer to each other in a circle (a → b → a)`);
        expect(screen).toContain(`theme file ${join(dir, "oklab.json")} is not used: colors.error: "oklch(60% 0.2)" is not a colour (oklch() takes a lightness, a chroma and a hue: oklch(62% 0.1 200))`);
        expect(screen).toContain(`theme file ${join(dir, "range.json")} is not used: colors.dim: expected "#RGB", "#RRGGBB", "oklch(…)", "okhsl(…)", a 256-colour index 0-255, "" or a name in "vars" (got 300)`);
        expect(screen).toContain(`theme file ${join(dir, "wrong-type.json")} is not used: colors.dim: expected "#RGB", "#RRGGBB", "oklch(…)", "okhsl(…)", a 256-colour index 0-255, "" or a name in "vars" (got true)`);
        expect(screen).toContain(`theme file ${join(dir, "missing.json")} is not used: colors: bashMode is required but missing`);
        expect(screen).toContain(`theme file ${join(dir, "extra.json")} is not used: bogus: not part of a theme file`);
        expect(screen).toContain(`theme file ${join(dir, "list.json")} is not used: expected a JSON object with "name" and "colors"`);
        expect(screen).toContain(`theme "good" at ${join(dir, "second-good.json")} is ignored: ${join(dir, "good.json")} has the same name and comes first`);
        expect(screen).toContain(`theme path ${join(fake.home.home, "nowhere")} does not exist`);
        expect(screen).toContain(`theme file ${join(dir, "slash.json")} is not used: name: "a/b" must not contain "/"`);
        expect(screen).toMatch(new RegExp(`theme file ${join(dir, "truncated.json")} is not used: invalid JSON at line \\d+, column \\d+`));
        expect(screen).toContain(`theme "dark" at ${join(dir, "dark.json")} is ignored: "dark" is a built-in theme`);
        expect(screen).toContain(`theme "system" at ${join(dir, "system.json")} is ignored: "system" is a built-in theme`);
        expect(screen.split("typo.json").length - 1).toBe(1);
        // The good one is drawn.
        expect(header(pane)).toContain(`${MAGENTA}xcsh`);
      },
      themed({
        height: 50,
        before: (fake) => {
          const dark = BUILTIN_THEME_DOCUMENTS.dark;
          const { bashMode: _dropped, ...withoutBashMode } = dark.colors;
          userTheme(fake.home.agentDir, "good.json", themeDocument("good"));
          userTheme(fake.home.agentDir, "typo.json", { ...themeDocument("typo"), colors: { ...themeDocument("typo").colors as object, acent: "#ffffff" } });
          userTheme(fake.home.agentDir, "circle.json", { ...themeDocument("circle", { accent: "a" }), vars: { ...dark.vars, a: "b", b: "a" } });
          userTheme(fake.home.agentDir, "range.json", themeDocument("range", { dim: 300 }));
          userTheme(fake.home.agentDir, "oklab.json", themeDocument("oklab", { error: "oklch(60% 0.2)" }));
          userTheme(fake.home.agentDir, "wrong-type.json", themeDocument("wrong-type", { dim: true }));
          userTheme(fake.home.agentDir, "extra.json", { ...themeDocument("extra"), bogus: 1 });
          userTheme(fake.home.agentDir, "list.json", "[1, 2]");
          userTheme(fake.home.agentDir, "second-good.json", themeDocument("good"));
          userTheme(fake.home.agentDir, "missing.json", { ...dark, name: "missing", colors: withoutBashMode });
          userTheme(fake.home.agentDir, "slash.json", themeDocument("a/b"));
          userTheme(fake.home.agentDir, "truncated.json", JSON.stringify(themeDocument("truncated")).slice(0, 200));
          userTheme(fake.home.agentDir, "dark.json", themeDocument("dark"));
          userTheme(fake.home.agentDir, "system.json", themeDocument("system"));
          fake.home.writeSettings({ theme: "good", themes: ["~/nowhere"] });
        },
      }),
    );
  });
});

describe("choosing a theme in /settings", () => {
  test("moving over a theme previews it, Esc puts the drawn one back, Enter keeps it and saves settings.theme", async () => {
    await withPane(
      async ({ fake, pane }) => {
        expect(header(pane)).toContain(`${DEFAULT_ACCENT}xcsh`);
        send(pane, "/settings");
        await pane.waitFor("Settings");
        pane.type("theme");
        await pane.waitFor(/→ theme/);
        pane.keys("Enter");
        await pane.waitFor(/→ .*system\s+built in/);
        pane.keys("Down");
        await pane.waitFor(/→ .*dark/);
        pane.keys("Down");
        await pane.waitFor(/→ .*light/);
        pane.keys("Down");
        await pane.waitFor(/→ .*magenta/);
        await pane.waitFor(() => header(pane).includes(`${MAGENTA}xcsh`));
        pane.keys("Escape");
        await pane.waitFor(() => header(pane).includes(`${DEFAULT_ACCENT}xcsh`) && pane.screen().includes("Settings"));
        expect(existsSync(join(fake.home.agentDir, "settings.json"))).toBe(false);
        pane.keys("Enter");
        await pane.waitFor(/→ .*system\s+built in/);
        pane.keys("Down", "Down", "Down");
        await pane.waitFor(/→ .*magenta/);
        pane.keys("Enter");
        await pane.waitFor("theme: magenta");
        expect(JSON.parse(readFileSync(join(fake.home.agentDir, "settings.json"), "utf8")).theme).toBe("magenta");
        pane.keys("Escape");
        await pane.waitFor((screen) => !screen.includes("Settings"));
        expect(header(pane)).toContain(`${MAGENTA}xcsh`);
      },
      themed({ before: (fake) => userTheme(fake.home.agentDir, "magenta.json", themeDocument("magenta")) }),
    );
  });
});

describe("a hostile theme name in /settings", () => {
  // A repository's theme file whose name sets the pane's title (OSC 2), clears the screen and
  // sounds the bell: chosen by the project's settings, shown in /settings and its theme list.
  const evilName = "evil\x1b]2;PWNED-NAME\x07\x1b[2J\x9b31m\x07";

  test("the name and its file's path are drawn without their escape sequences in the settings row, the theme list and the saved notice", async () => {
    await withPane(
      async ({ pane }) => {
        send(pane, "/settings");
        await pane.waitFor("Settings");
        pane.type("theme");
        await pane.waitFor(/→ theme\s+evil31m/);
        expect(pane.screen({ escapes: true })).not.toContain("\x1b]");
        pane.keys("Enter");
        // The theme list: the name, and the file's path (its name hostile too) on the right.
        await pane.waitFor(/→ .*evil31m\s+.*themes\/evil\.json/);
        expect(pane.screen({ escapes: true })).not.toContain("\x1b]");
        pane.keys("Enter");
        await pane.waitFor("theme: evil");
        expect(pane.screen()).toContain("Settings");
        expect(pane.tmux(["display-message", "-p", "#{pane_title}"]).trim()).not.toContain("PWNED");
        expect(pane.screen({ escapes: true })).not.toContain("\x1b]");
      },
      themed({
        before: (_fake, project) => {
          writeJson(join(project, ".xcsh", "themes", "evil\x1b]2;PWNED-FILE\x07.json"), themeDocument(evilName));
          writeJson(join(project, ".xcsh", "settings.json"), { theme: evilName });
        },
      }),
    );
  });
});

describe("extensions draw with the theme", () => {
  const extension = `import { getMarkdownTheme } from "xcsh";
export default function (pi) {
  let kept;
  pi.on("session_start", (_event, ctx) => {
    kept = ctx.ui.theme;
    ctx.ui.setWidget("look", [kept.fg("accent", "WIDGET-ACCENT") + " " + getMarkdownTheme().heading("WIDGET-HEADING")]);
  });
  pi.registerCommand("paint", {
    description: "Switch theme and show a kept theme's colour",
    handler: async (args, ctx) => {
      const result = ctx.ui.setTheme(args.trim());
      ctx.ui.notify(kept.fg("success", "KEPT-SUCCESS") + " set " + result.success + (result.error ? ": " + result.error : ""), "info");
    },
  });
}
`;

  test("ctx.ui.theme.fg and getMarkdownTheme() use the theme's colours, and a theme kept by an extension follows setTheme", async () => {
    await withPane(
      async ({ pane }) => {
        await pane.waitFor("WIDGET-ACCENT");
        const widget = lineWith(pane, "WIDGET-ACCENT");
        expect(widget).toContain(`${MAGENTA}WIDGET-ACCENT`);
        // mdHeading #00ffaa, bold.
        expect(widget).toMatch(/\x1b\[38;2;0;255;170m(\x1b\[1m)?WIDGET-HEADING|\x1b\[1m\x1b\[38;2;0;255;170mWIDGET-HEADING/);
        send(pane, "/paint light");
        await pane.waitFor("set true");
        // light's success is 256-colour 28; the magenta theme's was #00ff01.
        expect(lineWith(pane, "KEPT-SUCCESS")).toContain("\x1b[38;5;28mKEPT-SUCCESS");
        expect(header(pane)).toContain("\x1b[38;5;25mxcsh");
        send(pane, "/paint magenta");
        await pane.waitFor(() => pane.screen({ escapes: true }).includes("\x1b[38;2;0;255;1mKEPT-SUCCESS"));
        send(pane, "/paint nosuch");
        const screen = flat(await pane.waitFor("set false"));
        expect(screen).toContain('set false: Theme "nosuch" cannot be used: no theme is named "nosuch"');
      },
      themed({
        ...withExtension(extension),
        before: (fake, project) => {
          withExtension(extension).before!(fake, project);
          userTheme(fake.home.agentDir, "magenta.json", themeDocument("magenta", { mdHeading: "#00ffaa", success: "#00ff01" }));
          fake.home.writeSettings({ theme: "magenta" });
        },
      }),
    );
  });
});
