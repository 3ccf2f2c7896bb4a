/**
 * The terminal shows a compaction made in several requests as it goes: a
 * session far larger than the model's window, /compact, and the line says
 * which part is being summarized before the compaction line appears.
 */
import { describe, expect, test } from "bun:test";
import type { RecordedRequest } from "../support/fake-llm/server.ts";
import { send, withPane } from "../modes/interactive/fixture.ts";
import { fileContent, writeSession } from "./compaction/big-session.ts";

const CONTEXT_WINDOW = 8000;
const isSummaryRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("handover note");

describe("compaction progress in the terminal", () => {
  test("/compact of a session over the window shows 'Summarizing part N of M' while it runs", async () => {
    let sessionFile = "";
    await withPane(
      async ({ fake, pane }) => {
        fake.server.limits = { contextWindow: CONTEXT_WINDOW };
        let summaries = 0;
        // Each summary takes a moment, so the progress line can be seen.
        const step = (request: RecordedRequest) =>
          isSummaryRequest(request)
            ? { delayMs: 250, content: [{ type: "text" as const, text: `SUMMARY-${++summaries}` }] }
            : { content: [{ type: "text" as const, text: "not a summary request" }] };
        fake.server.enqueue(...Array.from({ length: 40 }, () => step));
        send(pane, "/compact");
        const screen = await pane.waitFor(/✻ Summarizing part 2 of \d+…/);
        const parts = Number(/Summarizing part 2 of (\d+)/.exec(screen)![1]);
        expect(parts).toBeGreaterThanOrEqual(3);
        await pane.waitFor(/✻ Compacted \d+/);
        // One status line replaced as parts go by, not one line per part.
        expect(pane.screen().match(/Summarizing part/g)?.length ?? 0).toBeLessThanOrEqual(1);
        expect(fake.server.requests.filter((request) => request.refused)).toEqual([]);
      },
      {
        models: [{ id: "m", contextWindow: CONTEXT_WINDOW, maxTokens: 2048 }],
        before: (_fake, project) => {
          sessionFile = writeSession(project, "big", 30, fileContent);
        },
        get args() {
          return ["--session", sessionFile];
        },
      },
    );
  });
});
