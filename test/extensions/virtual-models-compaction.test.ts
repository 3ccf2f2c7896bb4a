/**
 * pi 1.6.0 (docs/virtual-models.md): when a virtual model's route picks a physical model
 * whose context window is too small for the conversation, the session is compacted
 * before the request is sent, and the request goes to the model the router chose, with
 * the compacted context. Through the binary: a router sends the first question to a big
 * model and the second to a small one. The summary is a `direct` request (pi's reason for
 * "a compaction summary"), and the request sent after it is built as the loop builds every
 * request: the extensions' context_with_system hook sees the compacted conversation.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createExtensionFixture } from "../support/extensions.ts";

const MODELS = [
  { id: "fake-big", contextWindow: 200_000, maxTokens: 8_000 },
  { id: "fake-small", contextWindow: 4_000, maxTokens: 1_000 },
  { id: "fake-summarizer", contextWindow: 200_000, maxTokens: 8_000 },
];
const fixture = createExtensionFixture({ models: MODELS, settings: { compaction: { keepRecentTokens: 100 } } });
afterAll(() => fixture.cleanup());

const ROUTER = `export default function (pi) {
  pi.registerVirtualModel({
    provider: "router",
    id: "auto",
    route(request, ctx) {
      const last = request.messages.at(-1);
      const text = last && last.role === "user" ? JSON.stringify(last.content) : "";
      // A summary (reason "direct") goes to a model of its own, so the test sees which reason it had.
      const id = request.reason === "direct" ? "fake-summarizer" : request.reason === "user" && text.includes("SMALL") ? "fake-small" : "fake-big";
      return { model: ctx.modelRegistry.find("fake", id) };
    },
  });
  // Each request's last look: a marker on the system prompt, and a note that counts the messages it was given.
  pi.on("context_with_system", (event) => {
    const [system, ...rest] = event.messages;
    const marked = { ...system, content: system.content + " HOOK-MARK" };
    const note = { role: "user", content: "HOOK-SAW-" + rest.length + "-MESSAGES", timestamp: Date.now() };
    // Before the last message, so the router still reads the user's question last.
    return { messages: [marked, ...rest.slice(0, -1), note, ...rest.slice(-1)] };
  });
}`;

const LONG = "LONG-HISTORY " + "words of an earlier conversation ".repeat(250);

describe("a route to a model whose window is too small", () => {
  test("the conversation is compacted first, then the routed model gets the compacted context", async () => {
    const ext = fixture.writeExtension("router.ts", ROUTER);
    const rpc = fixture.start(["-e", ext, "--model", "router/auto"]);
    // The big model's answer reports the context it was given: more than the small model holds.
    fixture.server.enqueue({ content: [{ type: "text", text: "Read it all." }], usage: { input: 6_000, output: 20 } });
    let from = rpc.mark();
    await rpc.request({ type: "prompt", message: LONG });
    await rpc.waitForEvent("agent_end", () => true, 15_000, from);
    expect(fixture.server.requests.at(-1)!.model).toBe("fake-big");

    fixture.server.enqueue({ content: [{ type: "text", text: "SUMMARY-OF-EARLIER" }] }, { content: [{ type: "text", text: "Small answer." }] });
    from = rpc.mark();
    const before = fixture.server.requests.length;
    await rpc.request({ type: "prompt", message: "a SMALL question" });
    await rpc.waitForEvent("agent_end", () => true, 20_000, from);

    const sent = fixture.server.requests.slice(before);
    // The summary went through the router as a direct request, then the routed request.
    expect(sent.map((request) => request.model)).toEqual(["fake-summarizer", "fake-small"]);
    const small = JSON.stringify(sent[1]!.body);
    expect(small).not.toContain("LONG-HISTORY");
    expect(small).toContain("SUMMARY-OF-EARLIER");
    expect(small).toContain("a SMALL question");
    // The hook ran on the compacted conversation (the summary and the question), once: one marker, its note.
    expect(small.split("HOOK-MARK")).toHaveLength(2);
    expect(small).toContain("HOOK-SAW-2-MESSAGES");
    const compaction = rpc.ofType("compaction_end").filter((frame) => rpc.frames.indexOf(frame) >= from);
    expect(compaction).toHaveLength(1);
    expect(compaction[0]!.result).toBeTruthy();
    const answer = rpc.ofType("message_end").filter((frame) => frame.message.role === "assistant").at(-1)!;
    expect(answer.message.model).toBe("fake-small");
    expect(answer.message.content[0].text).toBe("Small answer.");
    // The session keeps the compaction: what comes next starts from it.
    const state = await rpc.request({ type: "get_messages" });
    expect(JSON.stringify(state.data.messages)).not.toContain("LONG-HISTORY");
    expect(await rpc.close()).toBe(0);
  }, 40_000);
});
