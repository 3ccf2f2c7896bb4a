/**
 * pi 1.x's `branchSummary` settings on /tree, in the built binary in tmux: `skipPrompt`
 * moves without asking for a summary (and makes none), and `reserveTokens` is the branch
 * summary's own reserve — its request's output limit follows it, not compaction's.
 */
import { describe, expect, test } from "bun:test";
import { send, withPane } from "./fixture.ts";
import type { XcshPane } from "./tmux.ts";
import type { FakeModelHome } from "../../support/cli.ts";

/** Two exchanges, then /tree with the first answer selected and picked. */
async function twoExchangesThenPickFirst(pane: XcshPane, fake: FakeModelHome): Promise<void> {
  fake.server.enqueue({ content: [{ type: "text", text: "First answer." }] }, { content: [{ type: "text", text: "Second answer." }] });
  send(pane, "first question");
  await pane.waitFor("First answer.", 30_000);
  send(pane, "second question");
  await pane.waitFor("Second answer.", 30_000);
  send(pane, "/tree");
  await pane.waitFor("Session tree", 30_000);
  pane.keys("Up", "Up");
  await pane.waitFor(/→\s+•\s+First answer\./);
  pane.keys("Enter");
}

const outputLimit = (body: Record<string, unknown>) => body.max_completion_tokens ?? body.max_tokens;

describe("/tree with branchSummary settings", () => {
  test("skipPrompt: true moves at once, without the summary question and without a summary", async () => {
    await withPane(
      async ({ fake, pane }) => {
        await twoExchangesThenPickFirst(pane, fake);
        const moved = await pane.waitFor("Moved in the session tree", 30_000);
        expect(moved).not.toContain("Leave a summary");
        expect(fake.server.requests).toHaveLength(2);
      },
      { before: (fake) => fake.home.writeSettings({ branchSummary: { skipPrompt: true } }) },
    );
  }, 90_000);

  test("reserveTokens is the branch summary's reserve: the summary request's output limit follows it, not compaction's", async () => {
    await withPane(
      async ({ fake, pane }) => {
        await twoExchangesThenPickFirst(pane, fake);
        await pane.waitFor("Leave a summary", 30_000);
        fake.server.enqueue({ content: [{ type: "text", text: "BRANCH-SUMMARY-TEXT" }] });
        pane.keys("Down");
        await pane.waitFor(/→ Summarize it/);
        pane.keys("Enter");
        await pane.waitFor("Moved in the session tree", 30_000);
        expect(fake.server.requests).toHaveLength(3);
        const summaryRequest = fake.server.requests.at(-1)!.body as Record<string, unknown>;
        expect(JSON.stringify(summaryRequest)).toContain("second question");
        // A summary's output limit is 80% of its reserve: 4000 of 5000 (compaction's reserve would give 20000).
        expect(outputLimit(summaryRequest)).toBe(4000);
      },
      {
        models: [{ id: "m", contextWindow: 100_000, maxTokens: 32_000 }],
        before: (fake) => fake.home.writeSettings({ branchSummary: { reserveTokens: 5000 }, compaction: { reserveTokens: 30_000 } }),
      },
    );
  }, 90_000);
});
