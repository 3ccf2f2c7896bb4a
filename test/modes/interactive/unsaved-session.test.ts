/**
 * A session that cannot be saved, in the terminal: one visible warning line at
 * start that says how to fix it, then a conversation that works — no error
 * drawn over the screen after each message, no "Working…" left behind.
 * The sessions folder is made unusable by a file in its place, which binds
 * root as much as anyone (permission bits do not).
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { send, withPane } from "./fixture.ts";

describe("a session that cannot be saved", () => {
  test("says so once at start, then answers without errors or a stale Working… line", async () => {
    await withPane(
      async ({ fake, pane }) => {
        await pane.waitFor("sessions cannot be saved");
        const start = pane.screen();
        expect(start).toContain("--session-dir");
        fake.server.enqueue({ content: [{ type: "text", text: "First answer." }] }, { content: [{ type: "text", text: "Second answer." }] });
        send(pane, "first");
        await pane.waitFor("First answer.");
        send(pane, "second");
        await pane.waitFor("Second answer.");
        await Bun.sleep(500);
        const screen = pane.screen();
        expect(screen).not.toContain("event listener failed");
        expect(screen).not.toContain("EEXIST");
        expect(screen).not.toContain("Working");
        expect(screen.split("sessions cannot be saved").length - 1).toBe(1);
      },
      { before: (fakeHome) => writeFileSync(join(fakeHome.home.agentDir, "sessions"), "not a folder\n") },
    );
  });
});
