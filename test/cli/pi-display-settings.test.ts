/**
 * pi's display settings in the interactive mode, in the built binary in tmux:
 * `hideThinkingBlock: false` shows thinking in full, `quietStartup: true` drops the
 * header; with neither, thinking is folded and the header is drawn (xcsh's defaults).
 * `markdown.codeBlockIndent` prefixes the lines of code blocks.
 */
import { describe, expect, test } from "bun:test";
import { send, withPane } from "../modes/interactive/fixture.ts";

const HINT = "/ commands · @ files";

describe("display settings from a pi settings.json", () => {
  test("hideThinkingBlock false shows the thinking without Ctrl+T; quietStartup hides the header", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "thinking", thinking: "A short reply will do here." }, { type: "text", text: "Hello there." }] });
        send(pane, "hi");
        const screen = await pane.waitFor("Hello there.");
        expect(screen).toContain("A short reply will do here.");
        expect(screen).not.toContain("ctrl+t to show");
        expect(screen).not.toContain(HINT);
      },
      { before: (fake) => fake.home.writeSettings({ hideThinkingBlock: false, quietStartup: true }) },
    );
  });

  test("without them: thinking folded, header drawn", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "thinking", thinking: "A short reply will do here." }, { type: "text", text: "Hello there." }] });
      send(pane, "hi");
      const screen = await pane.waitFor("Hello there.");
      expect(screen).toContain("Thinking… (ctrl+t to show)");
      expect(screen).toContain(HINT);
    });
  });

  test("markdown.codeBlockIndent starts each line of a code block in the answer", async () => {
    let title = "";
    const codeLine = async (settings: Record<string, unknown>) => {
      let line = "";
      await withPane(
        async ({ fake, pane }) => {
          fake.server.enqueue({ content: [{ type: "text", text: "Here:\n\n```\nCODELINE_ONE\n```\n" }] });
          send(pane, "hi");
          const screen = await pane.waitFor("CODELINE_ONE", 30_000);
          line = screen.split("\n").find((text) => text.includes("CODELINE_ONE"))!;
          title = pane.format("#{pane_title}");
        },
        { before: (fake) => fake.home.writeSettings(settings) },
      );
      return line;
    };
    expect(await codeLine({ markdown: { codeBlockIndent: "»» " } })).toContain("»» CODELINE_ONE");
    expect(await codeLine({})).not.toContain("»»");
    // Escape sequences in the setting (a project's file may be hostile) are dropped, the text kept:
    // the terminal's title is not set by it.
    expect(await codeLine({ markdown: { codeBlockIndent: "\x1b]2;PWNED\x07>> " } })).toContain(">> CODELINE_ONE");
    expect(title).not.toContain("PWNED");
  }, 90_000);
});
