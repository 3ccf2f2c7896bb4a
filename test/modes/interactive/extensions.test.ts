/**
 * What extensions draw and bind in the terminal: shortcuts, message, entry and tool
 * renderers, custom components, themes, a replacement editor, completion
 * providers and command-argument completion. Each test loads a small `-e`
 * extension into the built binary in tmux and looks at the screen.
 */
import { describe, expect, test } from "bun:test";
import { send, withExtension, withPane } from "./fixture.ts";
import { XcshPane } from "./tmux.ts";

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

  test("what an extension says in session_start stays on screen: at start, and after /new", async () => {
    await withPane(
      async ({ pane }) => {
        // Drawing the opened session's history must not wipe what its extensions said while it opened.
        await pane.waitFor("hello from session_start (startup)");
        send(pane, "/new");
        await pane.waitFor("hello from session_start (new)");
        expect(pane.screen()).toContain("New session");
      },
      withExtension(`export default function (pi) {
  pi.on("session_start", (event, ctx) => ctx.ui.notify("hello from session_start (" + event.reason + ")", "info"));
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

  test("registerEntryRenderer draws appended entries, and again when the session is continued", async () => {
    const extension = withExtension(`import { Text } from "@earendil-works/pi-tui";
export default function (pi) {
  pi.registerEntryRenderer("status-card", (entry, { expanded }) => new Text("CARD>> " + entry.data.message + (expanded ? " (expanded)" : ""), 1, 0));
  pi.registerCommand("card", { description: "Leave a card", handler: async (args) => pi.appendEntry("status-card", { message: args.trim() }) });
  pi.registerCommand("state", { description: "Keep state", handler: async () => pi.appendEntry("no-renderer", { hidden: true }) });
}
`);
    await withPane(async ({ fake, project, pane }) => {
      send(pane, "/card first card");
      await pane.waitFor("CARD>> first card");
      send(pane, "/state");
      fake.server.enqueue({ content: [{ type: "text", text: "Noted." }] });
      send(pane, "hello");
      const screen = await pane.waitFor("Noted.");
      // An entry is shown, never sent: the model saw only the prompt.
      expect(JSON.stringify(fake.server.requests.at(-1)!.body.messages)).not.toContain("first card");
      expect(screen).not.toContain("hidden");
      pane.keys("C-o");
      await pane.waitFor("CARD>> first card (expanded)");
      pane.kill();

      const again = XcshPane.start({ args: ["--model", "fake/m", "-c", "-e", "ext.ts"], env: fake.home.env, cwd: project });
      try {
        const continued = await again.waitFor("Noted.");
        expect(continued.indexOf("CARD>> first card")).toBeGreaterThanOrEqual(0);
        expect(continued.indexOf("CARD>> first card")).toBeLessThan(continued.indexOf("Noted."));
      } finally {
        again.kill();
      }
    }, extension);
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

  test("registerToolRenderer draws calls to a tool it did not register; its context has durationMs and the user's key names; theme.style() styles", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: "sleep 0.2; echo hi" } }] }, { content: [{ type: "text", text: "Ran it." }] });
        send(pane, "run it");
        const screen = await pane.waitFor("Ran it.");
        expect(screen).toContain("SHELL> sleep 0.2; echo hi");
        expect(screen).toContain("OUT> hi took=timed");
        expect(screen).toContain("ctrl+o to expand");
      },
      withExtension(`import { Text } from "@earendil-works/pi-tui";
export default function (pi) {
  pi.registerToolRenderer((toolName, next) => {
    if (toolName !== "bash") return next();
    return {
      renderCall: (args, theme, context) => new Text(theme.style("SHELL>", { fg: "accent", bold: true }) + " " + args.command, 1, 0),
      renderResult: (result, options, theme, context) =>
        new Text("OUT> " + result.content[0].text.trim() + " took=" + (context.durationMs >= 150 ? "timed" : String(context.durationMs)) + " " + context.keyHint("app.tools.expand", "to expand"), 1, 0),
    };
  });
}
`),
    );
  });

  test("registerMarkdownTransformer changes what is drawn of user and assistant text, never what is sent or stored", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "Step one --> step two" }] });
        send(pane, "from a --> b");
        const screen = await pane.waitFor("Step one → step two [assistant]");
        expect(screen).toContain("from a → b [user]");
        // Display only: the model got the text as typed.
        expect(JSON.stringify(fake.server.requests.at(-1)!.body.messages)).toContain("from a --> b");
      },
      withExtension(`export default function (pi) {
  pi.registerMarkdownTransformer((markdown, { messageType, isStreaming }) => isStreaming ? markdown : markdown.replaceAll("-->", "→") + " [" + messageType + "]");
}
`),
    );
  });

  test("with a virtual model selected, the footer shows the physical model that answered beside it", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "Routed answer." }] });
        send(pane, "hello");
        await pane.waitFor("Routed answer.");
        await pane.waitFor("router/auto → m2");
        expect(fake.server.requests.at(-1)!.body.model).toBe("m2");
      },
      {
        ...withExtension(`export default function (pi) {
  pi.registerVirtualModel({ provider: "router", id: "auto", route: (request, ctx) => ({ model: ctx.modelRegistry.find("fake", "m2") }) });
}
`),
        args: ["-e", "ext.ts", "--model", "router/auto"],
        ready: "router/auto",
      },
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

  test("setEditorComponent draws the extension's editor instead of the built-in one, and the app keys still work", async () => {
    await withPane(
      async ({ fake, pane }) => {
        await pane.waitFor("SHOUTY");
        pane.type("quiet words");
        // The extension's editor upper-cases what is typed.
        await pane.waitFor("QUIET WORDS");
        fake.server.enqueue({ content: [{ type: "text", text: "Heard you." }] });
        pane.keys("Enter");
        await pane.waitFor("Heard you.");
        expect(JSON.stringify(fake.server.requests.at(-1)!.body.messages.at(-1))).toContain("QUIET WORDS");
        // Ctrl+C (an app key) clears it.
        pane.type("draft");
        await pane.waitFor("DRAFT");
        pane.keys("C-c");
        await pane.waitFor((screen) => !screen.includes("DRAFT"));
        // Back to the built-in editor (an extension shortcut): the draft stays.
        pane.type("keep");
        await pane.waitFor("KEEP");
        pane.keys("C-g");
        await pane.waitFor((screen) => !screen.includes("SHOUTY"));
        pane.type(" lower");
        await pane.waitFor("KEEP lower");
      },
      withExtension(`import { CustomEditor } from "@earendil-works/pi-coding-agent";
import { truncateToWidth } from "@earendil-works/pi-tui";
class ShoutyEditor extends CustomEditor {
  handleInput(data) {
    super.handleInput(data.length === 1 ? data.toUpperCase() : data);
  }
  render(width) {
    const lines = super.render(width);
    lines[lines.length - 1] = truncateToWidth(lines[lines.length - 1], width - 7, "") + " SHOUTY";
    return lines;
  }
}
export default function (pi) {
  pi.on("session_start", (_event, ctx) => ctx.ui.setEditorComponent((tui, theme, keybindings) => new ShoutyEditor(tui, theme, keybindings)));
  pi.registerShortcut("ctrl+g", { description: "Default editor", handler: (ctx) => ctx.ui.setEditorComponent(undefined) });
}
`),
    );
  });

  test("addAutocompleteProvider adds completions on top of the built-in ones", async () => {
    await withPane(
      async ({ pane }) => {
        pane.type("see #");
        await pane.waitFor("#2983");
        pane.type("27");
        await pane.waitFor((screen) => screen.includes("#2753") && !screen.includes("#2983"));
        pane.keys("Tab");
        await pane.waitFor(/see #2753/);
        pane.keys("C-c");
        // The built-in command completion is still there.
        pane.type("/hot");
        await pane.waitFor("List the keys");
      },
      withExtension(`export default function (pi) {
  pi.on("session_start", (_event, ctx) => {
    ctx.ui.addAutocompleteProvider((current) => ({
      async getSuggestions(lines, line, col, options) {
        const match = (lines[line] ?? "").slice(0, col).match(/(?:^|[ \\t])#([^\\s#]*)$/);
        if (!match) return current.getSuggestions(lines, line, col, options);
        const issues = [{ value: "#2983", label: "#2983", description: "autocomplete API" }, { value: "#2753", label: "#2753", description: "stale settings" }];
        return { prefix: "#" + match[1], items: issues.filter((issue) => issue.value.startsWith("#" + match[1])) };
      },
      applyCompletion: (...args) => current.applyCompletion(...args),
    }));
  });
}
`),
    );
  });

  test("an extension command's getArgumentCompletions completes its arguments", async () => {
    await withPane(
      async ({ pane }) => {
        pane.type("/deploy ");
        await pane.waitFor((screen) => ["dev", "staging", "prod"].every((env) => new RegExp(`\\b${env}\\b`).test(screen)));
        pane.type("st");
        await pane.waitFor((screen) => screen.includes("staging") && !/\bprod\b/.test(screen));
        pane.keys("Tab");
        await pane.waitFor(/\/deploy staging/);
        pane.keys("Enter");
        await pane.waitFor("deploying: staging");
      },
      withExtension(`export default function (pi) {
  pi.registerCommand("deploy", {
    description: "Deploy somewhere",
    getArgumentCompletions: (prefix) => ["dev", "staging", "prod"].filter((env) => env.startsWith(prefix)).map((env) => ({ value: env, label: env })),
    handler: async (args, ctx) => ctx.ui.notify("deploying: " + args.trim(), "info"),
  });
}
`),
    );
  });

  test("a widget that draws too wide or throws is cut or reported, and the session goes on", async () => {
    await withPane(
      async ({ fake, pane }) => {
        send(pane, "/wide");
        await pane.waitFor("WIDE-START");
        const lines = pane.screen().split("\n");
        expect(Math.max(...lines.map((line) => line.trimEnd().length))).toBeLessThanOrEqual(80);
        send(pane, "/broken");
        await pane.waitFor("failed to draw: widget exploded");
        fake.server.enqueue({ content: [{ type: "text", text: "Still here." }] });
        send(pane, "hello");
        await pane.waitFor("Still here.");
      },
      {
        width: 80,
        ...withExtension(`export default function (pi) {
  pi.registerCommand("wide", { description: "A too wide widget", handler: async (_args, ctx) => ctx.ui.setWidget("wide", () => ({ render: () => ["WIDE-START " + "x".repeat(300)], invalidate() {} })) });
  pi.registerCommand("broken", { description: "A widget that throws", handler: async (_args, ctx) => ctx.ui.setWidget("broken", () => ({ render: () => { throw new Error("widget exploded"); }, invalidate() {} })) });
}
`),
      },
    );
  });
});
