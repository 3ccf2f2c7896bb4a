/**
 * A run whose automatic retries gave up, reopened with `xcsh -c`: the transcript shows the
 * run as the live one ended — the prompt and one error that says how many retries it took —
 * not one error line per attempt; and the next prompt's request does not carry the failed
 * attempts. A retry that succeeded shows only the answer.
 */
import { describe, expect, test } from "bun:test";
import { send, visibleLines, withPane } from "./fixture.ts";
import { XcshPane } from "./tmux.ts";

const rateLimited = { type: "error" as const, status: 429, message: "rate limited" };

/** Lines of the screen that hold `text`. */
function linesWith(screen: string, text: string): string[] {
  return visibleLines(screen).filter((line) => line.includes(text));
}

describe("a resumed session after automatic retries", () => {
  test("retries that gave up come back as one error with the number of retries", async () => {
    await withPane(
      async ({ fake, project, pane }) => {
        fake.server.enqueue(rateLimited, rateLimited, rateLimited, rateLimited);
        send(pane, "first-question");
        await pane.waitFor("Retries gave up", 30_000);
        expect(fake.server.pending()).toBe(0);
        pane.kill();

        const again = XcshPane.start({ args: ["--model", "fake/m", "-c"], env: fake.home.env, cwd: project });
        try {
          const screen = await again.waitFor("first-question", 30_000);
          await again.waitFor("fake/m", 30_000);
          const errors = linesWith(again.screen(), "rate limited");
          expect(errors).toHaveLength(1);
          expect(errors[0]).toContain("(after 3 retries)");
          expect(screen.indexOf("first-question")).toBeLessThan(again.screen().indexOf("(after 3 retries)"));

          fake.server.enqueue({ content: [{ type: "text", text: "second-answer" }] });
          const before = fake.server.requests.length;
          send(again, "second-question");
          await again.waitFor("second-answer", 30_000);
          // The model is asked with both prompts and nothing of the four failed attempts.
          const messages = fake.server.requests[before]!.body.messages as { role: string }[];
          expect(messages.map((message) => message.role).filter((role) => role !== "system")).toEqual(["user", "user"]);
          expect(JSON.stringify(messages)).toContain("first-question");
          expect(JSON.stringify(messages)).not.toContain("rate limited");
        } finally {
          again.kill();
        }
      },
      { before: (fake) => fake.home.writeSettings({ retry: { baseDelayMs: 10 } }) },
    );
  });

  test("a retry that succeeded comes back as its answer alone", async () => {
    await withPane(
      async ({ fake, project, pane }) => {
        fake.server.enqueue(rateLimited, { content: [{ type: "text", text: "answer-after-retry" }] });
        send(pane, "a-question");
        await pane.waitFor("answer-after-retry", 30_000);
        pane.kill();

        const again = XcshPane.start({ args: ["--model", "fake/m", "-c"], env: fake.home.env, cwd: project });
        try {
          await again.waitFor("answer-after-retry", 30_000);
          await again.waitFor("fake/m", 30_000);
          expect(linesWith(again.screen(), "rate limited")).toEqual([]);
        } finally {
          again.kill();
        }
      },
      { before: (fake) => fake.home.writeSettings({ retry: { baseDelayMs: 10 } }) },
    );
  });
});
