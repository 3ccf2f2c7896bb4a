/**
 * A run whose automatic retries gave up, reopened with `xcsh -c`: the transcript shows the
 * run as the live one ended — the prompt and one error that says how many retries it took —
 * not one error line per attempt; and the next prompt's request does not carry the failed
 * attempts. A retry that succeeded shows only the answer. Live, the screen folds the same
 * way: a failed attempt shows (with its retry notice) only until the next attempt starts.
 */
import { describe, expect, test } from "bun:test";
import { send, visibleLines, withPane } from "./fixture.ts";
import { XcshPane } from "./tmux.ts";

const rateLimited = { type: "error" as const, status: 429, message: "rate limited" };

/** Lines of the screen that hold `text`. */
function linesWith(screen: string, text: string): string[] {
  return visibleLines(screen).filter((line) => line.includes(text));
}

/** The transcript from the line that holds `prompt` through the line that holds `last`, blank lines left out. */
function transcriptBetween(screen: string, prompt: string, last: string): string[] {
  const lines = visibleLines(screen);
  const from = lines.findIndex((line) => line.includes(prompt));
  const to = lines.findLastIndex((line) => line.includes(last));
  return lines.slice(from, to + 1).filter((line) => line.trim() !== "");
}

const serverError = { type: "error" as const, status: 500, message: "upstream-broke" };

describe("the live view of automatic retries", () => {
  test("a failed attempt is shown while its retry waits, then folds away when the next attempt answers", async () => {
    await withPane(
      async ({ fake, project, pane }) => {
        fake.server.enqueue(serverError, serverError, { content: [{ type: "text", text: "answer-at-last" }] });
        send(pane, "live-question");
        // The wait before the first retry is long enough to be seen: the error and the notice are there.
        const waiting = await pane.waitFor((screen) => screen.includes("Retrying in") && screen.includes("✗"), 30_000);
        expect(linesWith(waiting, "upstream-broke").some((line) => line.includes("✗"))).toBe(true);
        const live = await pane.waitFor("answer-at-last", 60_000);
        expect(linesWith(live, "upstream-broke")).toEqual([]);
        expect(linesWith(live, "Retrying")).toEqual([]);
        const liveTranscript = transcriptBetween(live, "live-question", "answer-at-last");
        pane.kill();

        const again = XcshPane.start({ args: ["--model", "fake/m", "-c"], env: fake.home.env, cwd: project });
        try {
          const resumed = await again.waitFor("answer-at-last", 30_000);
          expect(transcriptBetween(resumed, "live-question", "answer-at-last")).toEqual(liveTranscript);
        } finally {
          again.kill();
        }
      },
      // Each wait a second (capped, so the second is not doubled): long enough to be seen, short enough to sit through twice.
      { before: (fake) => fake.home.writeSettings({ retry: { baseDelayMs: 1000, maxAgentDelayMs: 1000 } }) },
    );
  });

  test("the working line stays through the retry's wait, counting it down, and is the usual one again once the attempt streams", async () => {
    await withPane(
      async ({ fake, pane }) => {
        // The retried attempt begins its answer, then holds: the screen while it streams can be read.
        const streaming = { content: [{ type: "text" as const, text: "attempt-streaming and then a good deal more text" }], chunkSize: 20, stallAfterEvents: 5 };
        fake.server.enqueue(serverError, streaming);
        send(pane, "waiting-question");
        const countdown = /Retrying in (\d+) s \(attempt 1 of 3\)… \(esc to cancel\)/;
        const first = await pane.waitFor((screen) => countdown.test(screen), 30_000);
        const startedAt = Number(countdown.exec(first)![1]);
        expect(startedAt).toBeLessThanOrEqual(4);
        // A second later it says less.
        await pane.waitFor((screen) => Number(countdown.exec(screen)?.[1] ?? startedAt) < startedAt, 30_000);
        const answering = await pane.waitFor("attempt-streaming", 60_000);
        expect(answering).toContain("Working… (esc to abort)");
        expect(answering).not.toContain("esc to cancel");
        pane.keys("Escape");
        await pane.waitFor((screen) => !screen.includes("Working…"), 30_000);
      },
      { before: (fake) => fake.home.writeSettings({ retry: { baseDelayMs: 4000 } }) },
    );
  });

  test("a retry cancelled in its wait (Esc) leaves the failed attempt without the retry notice, as the resumed session shows it", async () => {
    await withPane(
      async ({ fake, project, pane }) => {
        fake.server.enqueue(serverError, serverError);
        send(pane, "cancelled-question");
        await pane.waitFor("Retrying in", 30_000);
        pane.keys("Escape");
        // The working line goes too: nothing is running any more.
        const live = await pane.waitFor((screen) => !screen.includes("Retrying") && !screen.includes("Aborting…") && !screen.includes("(esc to"), 30_000);
        const errors = linesWith(live, "upstream-broke");
        expect(errors).toHaveLength(1);
        expect(errors[0]).toContain("✗");
        expect(errors[0]).not.toContain("(after");
        // Only the first attempt was sent.
        expect(fake.server.pending()).toBe(1);
        const liveTranscript = transcriptBetween(live, "cancelled-question", "upstream-broke");
        pane.kill();

        const again = XcshPane.start({ args: ["--model", "fake/m", "-c"], env: fake.home.env, cwd: project });
        try {
          const resumed = await again.waitFor("upstream-broke", 30_000);
          expect(transcriptBetween(resumed, "cancelled-question", "upstream-broke")).toEqual(liveTranscript);
        } finally {
          again.kill();
        }
      },
      { before: (fake) => fake.home.writeSettings({ retry: { baseDelayMs: 60_000 } }) },
    );
  });

  test("retries that gave up leave one error with the number of retries, as the resumed session shows it", async () => {
    await withPane(
      async ({ fake, project, pane }) => {
        fake.server.enqueue(serverError, serverError, serverError, serverError);
        send(pane, "doomed-question");
        const live = await pane.waitFor("(after 3 retries)", 30_000);
        expect(fake.server.pending()).toBe(0);
        const errors = linesWith(live, "upstream-broke");
        expect(errors).toHaveLength(1);
        expect(errors[0]).toContain("✗");
        expect(linesWith(live, "Retrying")).toEqual([]);
        const liveTranscript = transcriptBetween(live, "doomed-question", "(after 3 retries)");
        pane.kill();

        const again = XcshPane.start({ args: ["--model", "fake/m", "-c"], env: fake.home.env, cwd: project });
        try {
          const resumed = await again.waitFor("(after 3 retries)", 30_000);
          expect(transcriptBetween(resumed, "doomed-question", "(after 3 retries)")).toEqual(liveTranscript);
        } finally {
          again.kill();
        }
      },
      { before: (fake) => fake.home.writeSettings({ retry: { baseDelayMs: 10 } }) },
    );
  });
});

describe("a resumed session after automatic retries", () => {
  test("retries that gave up come back as one error with the number of retries", async () => {
    await withPane(
      async ({ fake, project, pane }) => {
        fake.server.enqueue(rateLimited, rateLimited, rateLimited, rateLimited);
        send(pane, "first-question");
        await pane.waitFor("(after 3 retries)", 30_000);
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
