/**
 * Keys that arrive together (SSH latency, a busy machine, automation) while a
 * completion list is open: what was typed is what is submitted, and Enter on
 * an open list takes what the typed text selects — never a suggestion the
 * list computed for fewer keys. Each test sends the later keys in one write.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { withPane } from "./fixture.ts";

const sentTexts = (requests: { body: unknown }[]) => requests.map((request) => JSON.stringify(request.body));

describe("keys that arrive together", () => {
  test("`/` then `model` + Enter in one write opens the model list; nothing reaches the model", async () => {
    await withPane(async ({ fake, pane }) => {
      pane.type("/");
      await pane.waitFor("Switch the model");
      pane.type("model\r");
      await pane.waitFor("Select a model");
      pane.keys("Escape");
      await Bun.sleep(300);
      expect(pane.screen()).not.toContain("modemodel");
      expect(fake.server.requests.length).toBe(0);
    });
  });

  test("`/` then `tre` + Enter in one write runs /tree, the command the typed text selects", async () => {
    await withPane(async ({ fake, pane }) => {
      pane.type("/");
      await pane.waitFor("Switch the model");
      pane.type("tre\r");
      // /tree on a session with no messages says so.
      const screen = await pane.waitFor("The session is empty");
      expect(screen).not.toContain("trmodel");
      await Bun.sleep(300);
      expect(fake.server.requests.length).toBe(0);
    });
  });

  test("`see @` then `hel` + Enter in one write completes to the file `hel` selects", async () => {
    await withPane(
      async ({ fake, pane }) => {
        pane.type("see @");
        await pane.waitFor("hello.txt");
        pane.type("hel\r");
        await pane.waitFor("see @hello.txt");
        const screen = pane.screen();
        expect(screen).not.toContain("@he@");
        expect(fake.server.requests.length).toBe(0);
      },
      { before: (_fake, project) => writeFileSync(join(project, "hello.txt"), "hi\n") },
    );
  });
});
