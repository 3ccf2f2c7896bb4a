/**
 * An image the provider refuses never bricks the session, through the built
 * binary: the fake server refuses any request carrying an image in the
 * provider's own wording; the turn is sent again once without it (a note in
 * its place), the answer arrives, and no later request — nor a reload of the
 * session — carries the image again. A second refusal ends the turn with the
 * error instead of looping.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { measureRequest } from "../support/fake-llm/limits.ts";
import type { FakeApi, FakeResponse, RecordedRequest } from "../support/fake-llm/server.ts";
import { createRpcFixture, textOf, type RpcFixture, type RpcProcess } from "../support/rpc-harness.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const IMAGE = { type: "image", data: PNG, mimeType: "image/png" };

const WORDING: Record<string, string> = {
  "openai-completions": "You uploaded an unsupported image.",
  "anthropic-messages": "messages.0.content.1.image.source.base64: image exceeds 5 MB maximum",
  "google-generative-ai": "Provided image is not valid.",
};

const fixtures = new Map<string, RpcFixture>();
function fixtureFor(api: FakeApi): RpcFixture {
  let fixture = fixtures.get(api);
  if (!fixture) {
    fixture = createRpcFixture({ api, models: [{ id: "fake-model", input: ["text", "image"] }] });
    fixtures.set(api, fixture);
  }
  return fixture;
}

beforeAll(() => {
  fixtureFor("openai-completions");
});
afterEach(() => {
  for (const fixture of fixtures.values()) {
    fixture.server.clearScript();
    fixture.server.limits = {};
  }
});
afterAll(async () => {
  for (const fixture of fixtures.values()) await fixture.cleanup();
});

const reply = (text: string): FakeResponse => ({ content: [{ type: "text", text }] });
const carriesImage = (request: RecordedRequest) => measureRequest(request.body).hasImage;

async function promptUntilSettled(rpc: RpcProcess, message: string, images?: unknown[]): Promise<number> {
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message, ...(images ? { images } : {}) })).success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 8_000, from);
  return from;
}

function sessionEntries(file: string): any[] {
  return readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line));
}

describe("a refused image", () => {
  for (const api of ["openai-completions", "anthropic-messages", "google-generative-ai"] as FakeApi[]) {
    test(`(${api}) is dropped with a note, the turn is retried once and answered, and later turns never send it`, async () => {
      const fixture = fixtureFor(api);
      fixture.server.limits = { rejectImages: true };
      fixture.server.enqueue(reply("Without the image: it looks like a chart."), reply("Second answer."));
      const rpc = fixture.start();
      const requestsBefore = fixture.server.requests.length;

      const from = await promptUntilSettled(rpc, "what is in this screenshot?", [IMAGE]);
      const requests = fixture.server.requests.slice(requestsBefore);
      expect(requests).toHaveLength(2);
      expect(carriesImage(requests[0])).toBe(true);
      expect(requests[0].refused).toContain(WORDING[api]);
      // The retry: the same prompt, the image replaced by a note giving the provider's reason.
      expect(carriesImage(requests[1])).toBe(false);
      const retried = JSON.stringify(requests[1].body);
      expect(retried).toContain("what is in this screenshot?");
      expect(retried).toContain(`[image removed: the provider rejected it: ${WORDING[api]}`);

      // The client saw the failure announced as retried, one retry, and the answer.
      const firstEnd = rpc.ofType("agent_end", from)[0];
      expect(firstEnd.willRetry).toBe(true);
      expect(rpc.ofType("auto_retry_start", from)).toEqual([expect.objectContaining({ attempt: 1, maxAttempts: 1, delayMs: 0 })]);
      expect(rpc.ofType("auto_retry_end", from)).toEqual([expect.objectContaining({ success: true, attempt: 1 })]);
      expect((await rpc.request({ type: "get_last_assistant_text" })).data.text).toBe("Without the image: it looks like a chart.");

      // The next turn carries no image either.
      await promptUntilSettled(rpc, "and the title?");
      const next = fixture.server.requests.at(-1)!;
      expect(next.refused).toBeUndefined();
      expect(carriesImage(next)).toBe(false);
      expect(JSON.stringify(next.body)).toContain("[image removed: the provider rejected it: ");
      expect((await rpc.request({ type: "get_last_assistant_text" })).data.text).toBe("Second answer.");

      // The session file keeps the image and records the change as pi's context_edit entries.
      const { sessionFile } = (await rpc.request({ type: "get_state" })).data;
      expect(await rpc.close()).toBe(0);
      const entries = sessionEntries(sessionFile);
      const prompt = entries.find((entry) => entry.type === "message" && entry.message.role === "user" && textOf(entry.message).includes("screenshot"));
      expect(JSON.stringify(prompt.message.content)).toContain(PNG);
      const edits = entries.filter((entry) => entry.type === "context_edit");
      expect(edits.map((edit) => edit.targetId)).toContain(prompt.id);
      const failed = entries.find((entry) => entry.type === "message" && entry.message.stopReason === "error");
      expect(edits).toContainEqual(expect.objectContaining({ targetId: failed.id, replacement: null }));

      // Reopened, the session still does not send the image.
      fixture.server.enqueue(reply("Third answer."));
      const reopened = fixture.start(["--model", "fake/fake-model", "--session", sessionFile]);
      await promptUntilSettled(reopened, "one more thing");
      const afterReload = fixture.server.requests.at(-1)!;
      expect(afterReload.refused).toBeUndefined();
      expect(carriesImage(afterReload)).toBe(false);
      expect(await reopened.close()).toBe(0);
    });
  }

  test("an image a tool returned (read of a screenshot) is dropped the same way and the run goes on", async () => {
    const fixture = fixtureFor("openai-completions");
    writeFileSync(`${fixture.cwd}/shot.png`, Buffer.from(PNG, "base64"));
    fixture.server.limits = { rejectImages: true };
    fixture.server.enqueue({ content: [{ type: "toolCall", name: "read", arguments: { path: "shot.png" } }] }, reply("The screenshot could not be seen."));
    const rpc = fixture.start();
    const requestsBefore = fixture.server.requests.length;

    await promptUntilSettled(rpc, "read shot.png and describe it");
    const requests = fixture.server.requests.slice(requestsBefore);
    expect(requests.map((request) => [carriesImage(request), request.refused !== undefined])).toEqual([
      [false, false],
      [true, true],
      [false, false],
    ]);
    expect(JSON.stringify(requests[2].body)).toContain("[image removed: the provider rejected it: You uploaded an unsupported image.");
    expect((await rpc.request({ type: "get_last_assistant_text" })).data.text).toBe("The screenshot could not be seen.");
    expect(await rpc.close()).toBe(0);
  });

  test("a second refusal ends the turn with the provider's error; there is no further retry", async () => {
    const fixture = fixtureFor("openai-completions");
    const refusal: FakeResponse = { type: "error", status: 400, message: "Could not process image" };
    fixture.server.enqueue(refusal, refusal, reply("never asked for"));
    const rpc = fixture.start();
    const requestsBefore = fixture.server.requests.length;

    const from = await promptUntilSettled(rpc, "look at this", [IMAGE]);
    expect(fixture.server.requests.length - requestsBefore).toBe(2);
    const ends = rpc.ofType("agent_end", from);
    expect(ends.map((end) => end.willRetry)).toEqual([true, false]);
    const last = rpc.ofType("message_end", from).filter((frame) => frame.message.role === "assistant").at(-1)!;
    expect(last.message.stopReason).toBe("error");
    expect(last.message.errorMessage).toContain("Could not process image");
    expect(fixture.server.pending()).toBe(1);
    expect(await rpc.close()).toBe(0);
  });

  test("a 400 that is not about an image is not retried", async () => {
    const fixture = fixtureFor("openai-completions");
    fixture.server.enqueue({ type: "error", status: 400, message: "Invalid value for 'temperature'" }, reply("never asked for"));
    const rpc = fixture.start();
    const requestsBefore = fixture.server.requests.length;
    const from = await promptUntilSettled(rpc, "look at this", [IMAGE]);
    expect(fixture.server.requests.length - requestsBefore).toBe(1);
    expect(rpc.ofType("auto_retry_start", from)).toHaveLength(0);
    expect(rpc.ofType("agent_end", from)[0].willRetry).toBe(false);
    expect(await rpc.close()).toBe(0);
  });
});
