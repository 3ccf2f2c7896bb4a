/**
 * In the terminal: /model refuses a classifier, saying what it is, and /session splits the
 * cost by the model each answer came from once more than one model answered.
 */
import { describe, expect, test } from "bun:test";
import { send, withPane } from "./fixture.ts";

const price = (input: number, output: number) => ({ input, output, cacheRead: 0, cacheWrite: 0 });
const PRICED = [
  { id: "m", contextWindow: 100_000, cost: price(1000, 2000) },
  { id: "m2", contextWindow: 200_000, cost: price(3000, 4000) },
];

describe("typed and routed models in the terminal", () => {
  test("/model with a classifier's id says it is a classifier, and the model stays", async () => {
    await withPane(async ({ pane }) => {
      send(pane, "/model openrouter/typesafe/jev-1.14");
      await pane.waitFor("Not a chat model", 30_000);
      await pane.waitFor("openrouter/typesafe/jev-1.14 is a classifier model: it cannot chat.", 30_000);
      expect(pane.screen()).toContain("fake/m");
    });
  });

  test("/session lists each model's share of the cost after two models answered", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "text", text: "First answer." }] }, { content: [{ type: "text", text: "Second answer." }] });
        send(pane, "first question");
        await pane.waitFor("First answer.", 30_000);
        send(pane, "/model fake/m2");
        await pane.waitFor(/fake\/m2/, 30_000);
        send(pane, "second question");
        await pane.waitFor("Second answer.", 30_000);
        send(pane, "/session");
        // 10 input and 5 output tokens each: $0.02 at m's prices, $0.05 at m2's.
        await pane.waitFor("fake/m: $0.0200", 30_000);
        await pane.waitFor("fake/m2: $0.0500", 30_000);
        expect(pane.screen()).toContain("Cost: $0.0700");
      },
      { models: PRICED },
    );
  });
});
