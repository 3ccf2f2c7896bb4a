/**
 * The interactive session as a person uses it: the built binary in a tmux
 * pane, talking to the fake LLM server; keys go in, the screen is read back.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeFakeModelHome, runXcsh } from "../../support/cli.ts";
import { MODELS, send, withPane } from "./fixture.ts";
import { XcshPane } from "./tmux.ts";

describe("interactive mode", () => {
  test("a typed prompt gets its answer streamed as markdown, under a header naming version, model and directory", async () => {
    await withPane(async ({ fake, pane, project }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "# Plan\n\nUse **three** steps:\n\n```ts\nconst answer = 42;\n```\n" }], chunkSize: 4, chunkDelayMs: 5 });
      const header = pane.screen();
      expect(header).toMatch(/xcsh \d+\.\d+\.\d+/);
      expect(header).toContain(project.split("/").pop()!);
      send(pane, "make a plan");
      const screen = await pane.waitFor("const answer = 42;");
      expect(screen).toContain("make a plan");
      expect(screen).toContain("Plan");
      expect(screen).toContain("Use three steps:");
      // Markdown syntax is rendered, not shown raw.
      expect(screen).not.toContain("**three**");
      expect(fake.server.requests.at(-1)!.body.messages.at(-1).content).toContain("make a plan");
    });
  });

  test("a tool call shows as one line, and an edit as a coloured diff", async () => {
    await withPane(
      async ({ fake, pane, project }) => {
        fake.server.enqueue(
          { content: [{ type: "toolCall", name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "beta", newText: "BETA" }] } }] },
          { content: [{ type: "text", text: "Edited." }] },
        );
        send(pane, "capitalise beta");
        const screen = await pane.waitFor("Edited.");
        expect(screen).toContain("edit notes.txt");
        expect(screen).toMatch(/-\s*2 beta/);
        expect(screen).toMatch(/\+\s*2 BETA/);
        expect(readFileSync(join(project, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
        // Added and removed lines are coloured differently.
        const coloured = pane.screen({ escapes: true });
        const colourOf = (marker: RegExp) => coloured.split("\n").find((line) => marker.test(line.replace(/\x1b\[[0-9;]*m/g, "")))?.match(/\x1b\[38;5;(\d+)m/)?.[1];
        expect(colourOf(/^\s*-\s*2 beta/)).toBeDefined();
        expect(colourOf(/^\s*-\s*2 beta/)).not.toBe(colourOf(/^\s*\+\s*2 BETA/));
      },
      { before: (_fake, project) => writeFileSync(join(project, "notes.txt"), "alpha\nbeta\ngamma\n") },
    );
  });

  test("Esc aborts a running sleep, and the session takes the next prompt", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: "sleep 30" } }] });
      send(pane, "wait a while");
      await pane.waitFor("$ sleep 30");
      await pane.waitFor("esc to abort");
      const started = Date.now();
      pane.keys("Escape");
      await pane.waitFor(/Aborted|aborted/);
      expect(Date.now() - started).toBeLessThan(5000);
      fake.server.enqueue({ content: [{ type: "text", text: "Back again." }] });
      send(pane, "are you there");
      await pane.waitFor("Back again.");
    });
  });

  test("Enter while the answer streams queues a steer, shown as pending, then delivered", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue(
        { content: [{ type: "text", text: "Counting slowly: one two three four five six seven eight nine ten." }], chunkSize: 2, chunkDelayMs: 60 },
        { content: [{ type: "text", text: "Turning left now." }] },
      );
      send(pane, "count");
      await pane.waitFor("Counting");
      send(pane, "go left");
      await pane.waitFor("steer: go left");
      await pane.waitFor("Turning left now.", 20_000);
      const lastRequest = fake.server.requests.at(-1)!.body.messages;
      expect(JSON.stringify(lastRequest.at(-1))).toContain("go left");
      // The pending line is gone once delivered.
      expect(pane.screen()).not.toContain("steer: go left");
    });
  });

  test("/model opens a searchable selector and switches the model", async () => {
    await withPane(async ({ fake, pane }) => {
      send(pane, "/model");
      await pane.waitFor("Select a model");
      pane.type("m2");
      await pane.waitFor(/→ fake\/m2/);
      pane.keys("Enter");
      await pane.waitFor("Model: fake/m2");
      fake.server.enqueue({ content: [{ type: "text", text: "Answered by the second model." }] });
      send(pane, "who answers");
      await pane.waitFor("Answered by the second model.");
      expect(fake.server.requests.at(-1)!.model).toBe("m2");
      expect(pane.screen()).toMatch(/fake\/m2\s*$/m);
    });
  });

  test("/resume reopens a session written by -p", async () => {
    await withPane(
      async ({ pane }) => {
        send(pane, "/resume");
        await pane.waitFor("Resume a session");
        expect(pane.screen()).toContain("what is the capital of France");
        pane.keys("Enter");
        const screen = await pane.waitFor("Paris, of course.");
        expect(screen).toContain("what is the capital of France");
      },
      {
        before: async (fake, project) => {
          fake.server.enqueue({ content: [{ type: "text", text: "Paris, of course." }] });
          const result = await runXcsh(["-p", "what is the capital of France", "--model", "fake/m"], { env: fake.home.env, cwd: project });
          expect(result.exitCode).toBe(0);
        },
      },
    );
  });

  test("/tree moves to an earlier answer, and a new prompt there starts another branch", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "First answer." }] }, { content: [{ type: "text", text: "Second answer." }] });
      send(pane, "first question");
      await pane.waitFor("First answer.");
      send(pane, "second question");
      await pane.waitFor("Second answer.");
      send(pane, "/tree");
      await pane.waitFor("Session tree");
      // The list opens on the current position (the second answer); two up is the first answer.
      pane.keys("Up", "Up");
      await pane.waitFor(/→\s+•\s+First answer\./);
      pane.keys("Enter");
      await pane.waitFor("Leave a summary");
      pane.keys("Enter");
      const moved = await pane.waitFor("Moved in the session tree");
      expect(moved).toContain("First answer.");
      expect(moved).not.toContain("second question");
      fake.server.enqueue({ content: [{ type: "text", text: "Another path." }] });
      send(pane, "third question");
      await pane.waitFor("Another path.");
      // The model saw the first exchange and the new question, not the abandoned branch.
      const sent = JSON.stringify(fake.server.requests.at(-1)!.body.messages);
      expect(sent).toContain("first question");
      expect(sent).not.toContain("second question");
      send(pane, "/tree");
      const tree = await pane.waitFor("Session tree");
      expect(tree).toContain("second question");
      expect(tree).toContain("third question");
      pane.keys("Escape");
    });
  });

  test("an extension's confirm dialog is answered with the keyboard, and its widget shows above the editor", async () => {
    await withPane(
      async ({ pane }) => {
        await pane.waitFor("deploy widget: idle");
        send(pane, "/deploy");
        await pane.waitFor("Really deploy to production?");
        pane.keys("Left");
        pane.keys("Right");
        pane.type("y");
        await pane.waitFor("deploy confirmed: true");
        send(pane, "/deploy");
        await pane.waitFor("Really deploy to production?");
        pane.keys("Escape");
        await pane.waitFor("deploy confirmed: false");
      },
      {
        args: ["-e", "deploy.ts"],
        before: (_fake, project) =>
          writeFileSync(
            join(project, "deploy.ts"),
            `export default function (pi) {
  pi.on("session_start", (_event, ctx) => ctx.ui.setWidget("deploy", ["deploy widget: idle"]));
  pi.registerCommand("deploy", {
    description: "Deploy after asking",
    handler: async (_args, ctx) => {
      const ok = await ctx.ui.confirm("Deploy", "Really deploy to production?");
      ctx.ui.notify("deploy confirmed: " + ok, "info");
    },
  });
}
`,
          ),
      },
    );
  });

  // Both layouts: the inline renderer redraws what it drew before, the fullscreen one its whole screen.
  test.each(["fullscreen", "regular"])("%s: resizing the terminal while an answer streams redraws it at the new width without leftovers", async (mode) => {
    await withPane(
      async ({ fake, pane }) => {
        const words = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
        fake.server.enqueue({ content: [{ type: "text", text: `${words}\n\nEND-OF-ANSWER` }], chunkSize: 6, chunkDelayMs: 30 });
        send(pane, "talk");
        await pane.waitFor("word10");
        pane.resize(70, 30);
        const screen = await pane.waitFor("END-OF-ANSWER", 20_000);
        await Bun.sleep(200);
        const final = pane.screen();
        const lines = final.split("\n");
        expect(Math.max(...lines.map((line) => line.trimEnd().length))).toBeLessThanOrEqual(70);
        // Each word once: nothing drawn at the old width is left behind on screen.
        expect(final.match(/word59\b/g)?.length).toBe(1);
        expect(final.match(/END-OF-ANSWER/g)?.length).toBe(1);
        expect(screen).toContain("word59");
      },
      { args: ["--tui-mode", mode], width: 120, height: 40 },
    );
  });

  test.each(["fullscreen", "regular"])("%s: Ctrl+D exits with code 0 and gives the terminal back as it was (settings, cursor, main screen)", async (mode) => {
    await withPane(
      async ({ pane }) => {
        expect(pane.format("#{alternate_on}")).toBe(mode === "fullscreen" ? "1" : "0");
        pane.keys("C-d");
        expect(await pane.waitForExit()).toBe(0);
        expect(pane.sttyAfter()).toBe(pane.sttyBefore());
        expect(pane.format("#{cursor_flag}")).toBe("1");
        expect(pane.format("#{alternate_on}")).toBe("0");
        await pane.waitFor("xcsh exited");
      },
      { args: ["--tui-mode", mode] },
    );
  });

  test("Ctrl+C clears the editor, and twice on an empty editor exits", async () => {
    await withPane(async ({ pane }) => {
      pane.type("draft text");
      await pane.waitFor("draft text");
      pane.keys("C-c");
      await pane.waitFor((screen) => !screen.includes("draft text"));
      pane.keys("C-c");
      pane.keys("C-c");
      expect(await pane.waitForExit()).toBe(0);
      expect(pane.sttyAfter()).toBe(pane.sttyBefore());
    });
  });

  test("Ctrl+C on an empty editor while a run streams aborts the run instead of exiting; the session goes on", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "Counting slowly: one two three four five six seven eight nine ten." }], chunkSize: 2, chunkDelayMs: 80 });
      send(pane, "count");
      await pane.waitFor("Counting");
      pane.keys("C-c");
      await pane.waitFor(/Aborted|aborted/);
      // Later than the double-press window: the session simply goes on.
      await Bun.sleep(1100);
      fake.server.enqueue({ content: [{ type: "text", text: "Still here." }] });
      send(pane, "are you there");
      await pane.waitFor("Still here.");
    });
  });

  test("a prompt typed in an earlier run comes back with ↑ (history is kept per project)", async () => {
    const fake = await makeFakeModelHome(MODELS);
    const project = mkdtempSync(join(tmpdir(), "xcsh-proj-"));
    const panes: XcshPane[] = [];
    try {
      fake.server.enqueue({ content: [{ type: "text", text: "Noted." }] });
      const first = XcshPane.start({ args: ["--model", "fake/m"], env: fake.home.env, cwd: project });
      panes.push(first);
      await first.waitFor("fake/m");
      send(first, "remember this prompt");
      await first.waitFor("Noted.");
      first.keys("C-d");
      await first.waitForExit();
      const second = XcshPane.start({ args: ["--model", "fake/m"], env: fake.home.env, cwd: project });
      panes.push(second);
      await second.waitFor("fake/m");
      second.keys("Up");
      const screen = await second.waitFor("remember this prompt");
      expect(screen).not.toContain("Noted.");
    } finally {
      for (const pane of panes) pane.kill();
      await fake.cleanup();
      rmSync(project, { recursive: true, force: true });
    }
  });

  test("without a terminal and without -p, the clear error stays", async () => {
    const fake = await makeFakeModelHome(MODELS);
    try {
      const result = await runXcsh(["--model", "fake/m"], { env: fake.home.env });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain("No prompt given");
    } finally {
      await fake.cleanup();
    }
  });

  test("!cmd runs a shell command and shows its output in the conversation", async () => {
    await withPane(async ({ pane }) => {
      send(pane, "!echo hello-from-shell");
      // The output line, not the typed command still in the editor.
      const screen = await pane.waitFor(/^ +hello-from-shell$/m);
      expect(screen).toContain("$ echo hello-from-shell");
    });
  });

  test("Alt+Enter while the agent works queues a follow-up, sent after the answer ends", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue(
        { content: [{ type: "text", text: "A slow answer that takes its time to arrive in full." }], chunkSize: 2, chunkDelayMs: 50 },
        { content: [{ type: "text", text: "Follow-up handled." }] },
      );
      send(pane, "start");
      await pane.waitFor("A slow");
      pane.type("and then this");
      pane.keys("M-Enter");
      await pane.waitFor("follow-up: and then this");
      await pane.waitFor("Follow-up handled.", 20_000);
      expect(JSON.stringify(fake.server.requests.at(-1)!.body.messages.at(-1))).toContain("and then this");
    });
  });

  test("with NO_COLOR the screen has no colours", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "Plain **words** here." }] });
        send(pane, "hi");
        await pane.waitFor("Plain words here.");
        expect(pane.screen({ escapes: true })).not.toMatch(/\x1b\[(3|4)8;5;/);
      },
      { env: { NO_COLOR: "1" } },
    );
  });

  test("with TERM=dumb the session runs line by line, without escape sequences", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "A plain answer." }] });
        send(pane, "hello");
        await pane.waitFor("A plain answer.");
        expect(pane.screen({ escapes: true })).not.toContain("\x1b[");
        send(pane, "/quit");
        expect(await pane.waitForExit()).toBe(0);
      },
      { env: { TERM: "dumb" } },
    );
  });
});
