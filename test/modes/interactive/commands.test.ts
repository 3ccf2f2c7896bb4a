/**
 * The built-in slash commands as a person uses them in the terminal: each
 * test types the command into the built binary's editor (in tmux, against the
 * fake LLM server) and checks what shows on screen or lands on disk.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedRequest } from "../../support/fake-llm/server.ts";
import { NO_DESKTOP_ENV, send, withExtension, withPane, type Fixture } from "./fixture.ts";
import type { XcshPane } from "./tmux.ts";

/** Two questions answered, so there is something to compact, fork or export. */
async function twoExchanges({ fake, pane }: Fixture): Promise<void> {
  fake.server.enqueue({ content: [{ type: "text", text: "First answer." }] }, { content: [{ type: "text", text: "Second answer." }] });
  send(pane, "first question");
  await pane.waitFor("First answer.");
  send(pane, "second question");
  await pane.waitFor("Second answer.");
}

/** The session id /session reports. */
async function sessionId(pane: XcshPane): Promise<string> {
  const before = pane.screen().match(/Id: \S+/g)?.length ?? 0;
  send(pane, "/session");
  const screen = await pane.waitFor((text) => (text.match(/Id: \S+/g)?.length ?? 0) > before);
  return screen.match(/Id: (\S+)/g)!.at(-1)!.slice(4);
}

const isSummaryRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("handover note");

describe("built-in commands", () => {
  test("/compact asks the model for a summary and shows it as a compaction line", async () => {
    await withPane(async (fixture) => {
      const { fake, pane } = fixture;
      await twoExchanges(fixture);
      const summary = (request: RecordedRequest) => ({ content: [{ type: "text" as const, text: isSummaryRequest(request) ? "SUMMARY: two questions were asked." : "not a summary request" }] });
      fake.server.enqueue(summary, summary);
      send(pane, "/compact the questions");
      await pane.waitFor(/✻ Compacted \d+ tokens summarized/);
      const requests = fake.server.requests.filter(isSummaryRequest);
      expect(requests.length).toBeGreaterThan(0);
      expect(JSON.stringify(requests[0]!.body)).toContain("first question");
      expect(JSON.stringify(requests[0]!.body)).toContain("the questions");
      // The summary itself is folded; Ctrl+O shows it.
      pane.keys("C-o");
      await pane.waitFor("SUMMARY: two questions were asked.");
      // The next prompt goes to the model with the summary in place of the early history.
      // One summary call, or two when a turn is split: the spare step goes.
      fake.server.clearScript();
      fake.server.enqueue({ content: [{ type: "text", text: "After compaction." }] });
      send(pane, "third question");
      await pane.waitFor("After compaction.");
      expect(JSON.stringify(fake.server.requests.at(-1)!.body.messages)).toContain("SUMMARY: two questions were asked.");
    });
  });

  test("/fork starts a new session from an earlier message, with that message back in the editor", async () => {
    await withPane(async (fixture) => {
      const { fake, pane } = fixture;
      await twoExchanges(fixture);
      const before = await sessionId(pane);
      send(pane, "/fork");
      await pane.waitFor("Fork from a message");
      // Newest first: the second question is selected.
      await pane.waitFor(/→ second question/);
      pane.keys("Enter");
      const screen = await pane.waitFor("Forked into a new session");
      expect(screen).toContain("First answer.");
      expect(screen).not.toContain("Second answer.");
      // Gone from the conversation, the forked message waits in the editor.
      expect(screen.split("\n").filter((line) => line.includes("second question")).length).toBe(1);
      pane.keys("C-c");
      await pane.waitFor((text) => !text.includes("second question"));
      const after = await sessionId(pane);
      expect(after).not.toBe(before);
      fake.server.enqueue({ content: [{ type: "text", text: "Forked answer." }] });
      send(pane, "another take");
      await pane.waitFor("Forked answer.");
      const sent = JSON.stringify(fake.server.requests.at(-1)!.body.messages);
      expect(sent).toContain("first question");
      expect(sent).not.toContain("second question");
    });
  });

  test("/clone copies the conversation into a new session", async () => {
    await withPane(async (fixture) => {
      const { fake, pane } = fixture;
      await twoExchanges(fixture);
      const before = await sessionId(pane);
      send(pane, "/clone");
      const screen = await pane.waitFor("Cloned into a new session");
      expect(screen).toContain("First answer.");
      expect(screen).toContain("Second answer.");
      const after = await sessionId(pane);
      expect(after).not.toBe(before);
      expect(pane.screen()).toContain("Messages: 2 user, 2 assistant");
      fake.server.enqueue({ content: [{ type: "text", text: "Still remembered." }] });
      send(pane, "third question");
      await pane.waitFor("Still remembered.");
      expect(JSON.stringify(fake.server.requests.at(-1)!.body.messages)).toContain("second question");
    });
  });

  test("/export writes the conversation as an HTML file", async () => {
    await withPane(async (fixture) => {
      const { pane, project } = fixture;
      await twoExchanges(fixture);
      send(pane, "/export chat.html");
      await pane.waitFor("Exported to");
      const file = join(project, "chat.html");
      expect(existsSync(file)).toBe(true);
      const html = readFileSync(file, "utf8");
      expect(html).toContain("<html");
      const decoded = html + Buffer.from(html.match(/[A-Za-z0-9+/=]{200,}/g)?.join("") ?? "", "base64").toString("utf8");
      expect(decoded).toContain("first question");
      expect(decoded).toContain("Second answer.");
    });
  });

  test("/copy puts the last answer on the clipboard through OSC 52 (tmux takes it as a paste buffer)", async () => {
    await withPane(
      async (fixture) => {
        const { fake, pane } = fixture;
        pane.tmux(["set-option", "-g", "set-clipboard", "on"]);
        fake.server.enqueue({ content: [{ type: "text", text: "Copy **me**, über alles." }] });
        send(pane, "say something");
        await pane.waitFor("Copy me, über alles.");
        send(pane, "/copy");
        await pane.waitFor("Copied the last answer");
        const deadline = Date.now() + 5000;
        let buffer = "";
        while (Date.now() < deadline) {
          try {
            buffer = pane.tmux(["show-buffer"]);
          } catch {
            buffer = "";
          }
          if (buffer) break;
          await Bun.sleep(50);
        }
        // The raw markdown, as the model wrote it.
        expect(buffer).toBe("Copy **me**, über alles.");
        // Ctrl+X (app.message.copy) does the same with no selection on screen.
        pane.tmux(["delete-buffer"]);
        pane.keys("C-x");
        await pane.waitFor((screen) => screen.split("Copied the last answer").length === 3);
        expect(pane.tmux(["show-buffer"])).toBe("Copy **me**, über alles.");
      },
      { env: NO_DESKTOP_ENV },
    );
  });

  test("/copy drops escape sequences from the answer: an ESC[201~ in it would end a shell's bracketed paste and run what follows", async () => {
    await withPane(
      async ({ fake, pane }) => {
        pane.tmux(["set-option", "-g", "set-clipboard", "on"]);
        fake.server.enqueue({ content: [{ type: "text", text: "Run `ls`\x1b[201~\nrm -rf ~/stuff\x07 done." }] });
        send(pane, "say something");
        await pane.waitFor("done.");
        send(pane, "/copy");
        await pane.waitFor("Copied the last answer");
        const deadline = Date.now() + 5000;
        let buffer = "";
        while (Date.now() < deadline && !buffer) {
          try {
            buffer = pane.tmux(["show-buffer"]);
          } catch {
            await Bun.sleep(50);
          }
        }
        expect(buffer).toBe("Run `ls`[201~\nrm -rf ~/stuff done.");
      },
      { env: NO_DESKTOP_ENV },
    );
  });

  test("/reload picks up a changed extension", async () => {
    const source = (word: string) => `export default function (pi) {
  pi.registerCommand("greet", { description: "Say hello", handler: async (_args, ctx) => ctx.ui.notify("greeting: ${word}", "info") });
}
`;
    await withPane(
      async ({ pane, project }) => {
        send(pane, "/greet");
        await pane.waitFor("greeting: hello");
        writeFileSync(join(project, "ext.ts"), source("bonjour"));
        send(pane, "/reload");
        await pane.waitFor("Reloaded extensions");
        send(pane, "/greet");
        await pane.waitFor("greeting: bonjour");
      },
      withExtension(source("hello")),
    );
  });

  test("/hotkeys lists the keys", async () => {
    // Tall enough for the whole list: in fullscreen it also lists the transcript's keys (first-hour.test.ts).
    await withPane(
      async ({ pane }) => {
        send(pane, "/hotkeys");
        const screen = await pane.waitFor("Keys");
        expect(screen).toMatch(/Esc\s+abort the run/);
        expect(screen).toMatch(/Ctrl\+T\s+show thinking/);
        expect(screen).toMatch(/Alt\+Enter\s+/);
      },
      { height: 60 },
    );
  });
});
