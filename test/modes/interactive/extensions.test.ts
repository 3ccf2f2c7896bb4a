/**
 * What extensions draw and bind in the terminal: shortcuts, message and tool
 * renderers, custom components, themes, a replacement editor, completion
 * providers and command-argument completion. Each test loads a small `-e`
 * extension into the built binary in tmux and looks at the screen.
 */
import { describe, expect, test } from "bun:test";
import { send, withExtension, withPane } from "./fixture.ts";

describe("extensions in the terminal", () => {
  test("a registerShortcut key runs its handler from the editor", async () => {
    await withPane(
      async ({ pane }) => {
        pane.type("draft");
        pane.keys("C-g");
        await pane.waitFor("shortcut ran with: draft");
      },
      withExtension(`export default function (pi) {
  pi.registerShortcut("ctrl+g", { description: "Say what is typed", handler: (ctx) => ctx.ui.notify("shortcut ran with: " + ctx.ui.getEditorText(), "info") });
}
`),
    );
  });

  test("registerMessageRenderer draws the extension's messages", async () => {
    await withPane(
      async ({ pane }) => {
        send(pane, "/note");
        const screen = await pane.waitFor("NOTE>> remember the milk");
        expect(screen).not.toContain("[memo]");
      },
      withExtension(`import { Text } from "@earendil-works/pi-tui";
export default function (pi) {
  pi.registerMessageRenderer("memo", (message) => new Text("NOTE>> " + message.content, 1, 0));
  pi.registerCommand("note", { description: "Leave a note", handler: async () => pi.sendMessage({ customType: "memo", content: "remember the milk", display: true }) });
}
`),
    );
  });

  test("a tool's renderCall and renderResult draw its call and result", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "toolCall", name: "weather", arguments: { city: "Oslo" } }] }, { content: [{ type: "text", text: "Done checking." }] });
        send(pane, "weather please");
        const screen = await pane.waitFor("Done checking.");
        expect(screen).toContain("☂ forecast for Oslo");
        expect(screen).toContain("→ drizzle, 7°");
      },
      withExtension(`import { Text } from "@earendil-works/pi-tui";
import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "weather",
    label: "Weather",
    description: "The weather in a city",
    parameters: Type.Object({ city: Type.String() }),
    execute: async (_id, params) => ({ content: [{ type: "text", text: "drizzle, 7°" }], details: {} }),
    renderCall: (args, theme) => new Text("☂ forecast for " + args.city, 1, 0),
    renderResult: (result) => new Text("→ " + result.content[0].text, 1, 0),
  });
}
`),
    );
  });

  test("ctx.ui.custom() shows a component that takes the keys until it is done", async () => {
    await withPane(
      async ({ pane }) => {
        send(pane, "/pick");
        await pane.waitFor("Press y or n");
        pane.type("y");
        const screen = await pane.waitFor("picked: yes");
        expect(screen).not.toContain("Press y or n");
        // The editor is back and takes text again.
        pane.type("after");
        await pane.waitFor(/after/);
      },
      withExtension(`import { Text } from "@earendil-works/pi-tui";
export default function (pi) {
  pi.registerCommand("pick", {
    description: "Ask y/n",
    handler: async (_args, ctx) => {
      const answer = await ctx.ui.custom((tui, theme, keybindings, done) => {
        const text = new Text("Press y or n", 1, 1);
        text.handleInput = (data) => { if (data === "y") done("yes"); if (data === "n") done("no"); };
        return text;
      });
      ctx.ui.notify("picked: " + answer, "info");
    },
  });
}
`),
    );
  });

  test('setTheme("light") redraws in the light palette', async () => {
    await withPane(
      async ({ pane }) => {
        // The header's first line: the same text, drawn in another palette.
        const header = () => pane.screen({ escapes: true }).split("\n")[0]!;
        const dark = header();
        send(pane, "/light");
        await pane.waitFor("theme set: true");
        await pane.waitFor(() => header() !== dark);
        expect(header().replace(/\x1b\[[0-9;]*m/g, "")).toBe(dark.replace(/\x1b\[[0-9;]*m/g, ""));
        send(pane, "/light bogus");
        await pane.waitFor("theme set: false");
      },
      withExtension(`export default function (pi) {
  pi.registerCommand("light", { description: "Light theme", handler: async (args, ctx) => ctx.ui.notify("theme set: " + ctx.ui.setTheme(args.trim() || "light").success, "info") });
}
`),
    );
  });
});
