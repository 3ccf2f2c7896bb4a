/**
 * pi 0.87.1's prompt and session arguments in the terminal UI (the built binary in a
 * tmux pane): the command line's messages are sent in turn with the @files in the
 * first, and -r opens the session picker before anything else.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../support/cli.ts";
import { withPane } from "../modes/interactive/fixture.ts";

describe("interactive session from the command line", () => {
  test("each message is sent in turn, the @file's text with the first", async () => {
    await withPane(
      async ({ fake, pane }) => {
        await pane.waitFor("Second answer.");
        expect(pane.screen()).toContain("First answer.");
        const users = fake.server.requests.map((request) =>
          request.body.messages.filter((message: any) => message.role === "user").map((message: any) => JSON.stringify(message.content)),
        );
        expect(users).toHaveLength(2);
        expect(users[0]).toHaveLength(1);
        expect(users[0][0]).toContain("<file name=");
        expect(users[0][0]).toContain("the note says hello");
        expect(users[0][0]).toContain("read it");
        expect(users[1]).toHaveLength(2);
        expect(users[1][1]).toContain("and answer");
      },
      {
        args: ["read it", "@note.txt", "and answer"],
        before: (fake, project) => {
          writeFileSync(join(project, "note.txt"), "the note says hello\n");
          fake.server.enqueue({ content: [{ type: "text", text: "First answer." }] }, { content: [{ type: "text", text: "Second answer." }] });
        },
      },
    );
  });

  test("--mode text on a terminal is still the interactive session, as in pi", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "Typed answer." }] });
        pane.type("hello");
        pane.keys("Enter");
        await pane.waitFor("Typed answer.");
      },
      { args: ["--mode", "text"] },
    );
  });

  test("-r opens the session picker at start; the session picked is resumed", async () => {
    await withPane(
      async ({ pane }) => {
        await pane.waitFor("Resume");
        expect(pane.screen()).toContain("the word is kumquat");
        pane.keys("Enter");
        const screen = await pane.waitFor("Noted.");
        expect(screen).toContain("the word is kumquat");
      },
      {
        args: ["-r"],
        before: async (fake, project) => {
          fake.server.enqueue({ content: [{ type: "text", text: "Noted." }] });
          const result = await runXcsh(["-p", "the word is kumquat", "--model", "fake/m"], { env: fake.home.env, cwd: project });
          expect(result.exitCode).toBe(0);
        },
      },
    );
  });
});
