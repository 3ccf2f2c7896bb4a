/**
 * After a compaction the transcript is what the context holds — the summary and the
 * messages kept after it — as in pi: the view does not keep every message of a long
 * session (its memory would grow with history), and what is on screen is what the model
 * will see next.
 */
import { describe, expect, test } from "bun:test";
import { send, withPane } from "./fixture.ts";

describe("the transcript after a compaction", () => {
  test("/compact replaces the summarized messages on screen with the summary; the kept turn stays", async () => {
    await withPane(
      async ({ fake, pane }) => {
        for (const turn of ["ALPHA", "BRAVO", "CHARLIE"]) {
          fake.server.enqueue({ content: [{ type: "text", text: `reply-${turn} ${"x".repeat(400)}` }] });
          send(pane, `question-${turn}`);
          await pane.waitFor(`reply-${turn}`);
        }
        expect(pane.screen()).toContain("question-ALPHA");
        fake.server.enqueue({ content: [{ type: "text", text: "THE-SUMMARY of the earlier turns" }] });
        send(pane, "/compact");
        const screen = await pane.waitFor(/✻ Compacted/);
        expect(screen).not.toContain("question-ALPHA");
        expect(screen).not.toContain("reply-ALPHA");
        expect(screen).not.toContain("question-BRAVO");
        expect(screen).toContain("question-CHARLIE");
        expect(screen).toContain("reply-CHARLIE");
        expect(screen.match(/✻ Compacted/g)?.length).toBe(1);
      },
      {
        before: (fake) => fake.home.writeSettings({ compaction: { keepRecentTokens: 150 } }),
      },
    );
  });
});
