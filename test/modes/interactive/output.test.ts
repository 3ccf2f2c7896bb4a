/**
 * Output that could tear the screen: tool results with terminal escape
 * sequences and carriage returns, very long lines, and a narrow terminal.
 * Whatever a tool returns, the screen keeps its shape.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { send, withPane } from "./fixture.ts";

describe("tool output on screen", () => {
  test("escape sequences in a file that is read are shown inert, not run by the terminal", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "toolCall", name: "read", arguments: { path: "weird.txt" } }] }, { content: [{ type: "text", text: "Read it." }] });
        send(pane, "read weird.txt");
        await pane.waitFor("Read it.");
        pane.keys("C-o");
        const screen = await pane.waitFor("after-clear");
        // The header is still there: the clear-screen sequence was not sent to the terminal.
        expect(screen).toMatch(/xcsh \d+\.\d+\.\d+/);
        expect(screen).toContain("first-line");
        // A carriage return leaves what a terminal would show: the last write.
        expect(screen).toContain("progress 100%");
        expect(screen).not.toContain("progress 10%");
        // No colour from the file leaks out (its red is gone).
        expect(pane.screen({ escapes: true })).not.toContain("\x1b[31m");
      },
      {
        height: 40,
        before: (_fake, project) => writeFileSync(join(project, "weird.txt"), "first-line\n\x1b[31mred\x1b[0m\nbefore\x1b[2J\x1b[Hafter-clear\nprogress 10%\rprogress 100%\nbell\x07here\n"),
      },
    );
  });

  test("a tool line longer than the terminal is wrapped or cut, never wider than the screen", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: "printf '%0500d\\n' 7; seq 1 200" } }] }, { content: [{ type: "text", text: "Long done." }] });
        send(pane, "long");
        await pane.waitFor("Long done.");
        const width = (screen: string) => Math.max(...screen.split("\n").map((line) => line.trimEnd().length));
        expect(width(pane.screen())).toBeLessThanOrEqual(60);
        expect(pane.screen()).toContain("more lines (ctrl+o to expand)");
        pane.keys("C-o");
        await pane.waitFor(/^\s+200$/m);
        expect(width(pane.screen())).toBeLessThanOrEqual(60);
        pane.resize(40, 20);
        await pane.waitFor((screen) => width(screen) <= 40 && screen.includes("Long done."));
      },
      { width: 60, height: 30 },
    );
  });

  test("escape sequences in the model's answer are shown inert too", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "answer-start \x1b[31mred\x1b[0m \x1b[2J\x1b[Hanswer-end" }] });
      send(pane, "say something odd");
      const screen = await pane.waitFor("answer-end");
      // The clear-screen sequence did not reach the terminal: the header and the prompt are still shown.
      expect(screen).toMatch(/xcsh \d+\.\d+\.\d+/);
      expect(screen).toContain("say something odd");
      expect(screen).toContain("answer-start");
      expect(pane.screen({ escapes: true })).not.toContain("\x1b[31m");
    });
  });
});
