/**
 * pi 1.6.0 prints how to come back to a session when its terminal UI quits:
 * "To resume this session:" and `xcsh --session <id>` on a line of its own — and only
 * when there is a saved session (nothing said yet, or --no-session: no line). The
 * printed command, run again, opens that session.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { send, withPane } from "./fixture.ts";

function sessionIds(agentDir: string): string[] {
  const root = join(agentDir, "sessions");
  return readdirSync(root).flatMap((dir) => readdirSync(join(root, dir)).map((file) => /_([0-9a-f-]+)\.jsonl$/.exec(file)![1]!));
}

describe("the resume command on quit", () => {
  test("after a conversation, Ctrl+D prints xcsh --session <id> on its own line", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "Noted." }] });
      send(pane, "remember kumquat");
      await pane.waitFor("Noted.");
      pane.keys("C-d");
      expect(await pane.waitForExit()).toBe(0);
      await pane.waitFor("xcsh exited");
      const [id] = sessionIds(fake.home.agentDir);
      const lines = pane.screen().split("\n").map((line) => line.trimEnd());
      const at = lines.indexOf("To resume this session:");
      expect(at).toBeGreaterThanOrEqual(0);
      expect(lines[at + 1]).toBe(`xcsh --session ${id}`);
    });
  });

  test("nothing to resume (no message yet, or --no-session): no line", async () => {
    await withPane(async ({ pane }) => {
      pane.keys("C-d");
      expect(await pane.waitForExit()).toBe(0);
      await pane.waitFor("xcsh exited");
      expect(pane.screen()).not.toContain("To resume this session");
    });
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "Noted." }] });
        send(pane, "hello");
        await pane.waitFor("Noted.");
        pane.keys("C-d");
        expect(await pane.waitForExit()).toBe(0);
        await pane.waitFor("xcsh exited");
        expect(pane.screen()).not.toContain("To resume this session");
      },
      { args: ["--no-session"] },
    );
  });
});
