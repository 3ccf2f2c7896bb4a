/**
 * `ctx.ui.theme` outside a terminal (RPC): it styles nothing, but it still says
 * what it would draw with — the dark appearance and the built-in dark theme's
 * concrete colours — as pi 1.x's does, so an extension that takes colours for
 * an export or an image from `theme.colors` works in every mode.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createExtensionFixture, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterAll(() => fixture.cleanup());

describe("the theme outside a terminal", () => {
  test("over RPC an extension reads appearance and concrete colours, and text stays unstyled", async () => {
    const ext = fixture.writeExtension(
      "theme-probe.ts",
      `export default function (pi) {
  pi.registerCommand("probe-theme", {
    handler: async (_args, ctx) => {
      const theme = ctx.ui.theme;
      ctx.ui.notify(JSON.stringify({ appearance: theme.appearance, accent: theme.colors.accent, text: theme.colors.text, styled: theme.fg("accent", "x") }), "info");
    },
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "/probe-theme" });
    const notice = await rpc.waitFor((frame: any) => frame.method === "notify" && frame.message.startsWith("{"));
    const reported = JSON.parse(notice.message);
    expect(reported.appearance).toBe("dark");
    expect(reported.styled).toBe("x");
    for (const color of [reported.accent, reported.text]) {
      expect(["rgb", "indexed"]).toContain(color.kind);
      if (color.kind === "rgb") for (const channel of [color.r, color.g, color.b]) expect(channel).toBeGreaterThanOrEqual(0);
    }
    // Dark theme: body text is light.
    if (reported.text.kind === "rgb") expect(reported.text.r + reported.text.g + reported.text.b).toBeGreaterThan(382);
    expect(await rpc.close()).toBe(0);
  }, 30_000);
});
