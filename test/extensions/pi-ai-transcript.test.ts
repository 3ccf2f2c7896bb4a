/**
 * pi-ai 0.8x's transcript shape inside an extension, through the built binary:
 * a context whose leading `system` message carries the prompt and tools reaches
 * the model (via xcsh's providers) as the system prompt and tool list, and the
 * transcript and retry helpers return what pi 0.8x's documented rules say.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterAll(() => fixture.cleanup());

describe("pi-ai transcripts", () => {
  test("complete() with a normalized transcript sends its system prompt and tools; the helpers replay system messages", async () => {
    const ext = fixture.writeExtension(
      "transcript.ts",
      `import { complete, normalizeContext, getCurrentSystemPrompt, getCurrentTools, getToolStateChanges, retryDelayMs, isRetryableAssistantError, contentText, Type } from "@earendil-works/pi-ai";
export default function (pi) {
  pi.registerCommand("ask", {
    handler: async (_args, ctx) => {
      const lookup = { name: "lookup", description: "Look a word up", parameters: Type.Object({ word: Type.String() }) };
      const context = normalizeContext({ systemPrompt: "You answer in one word.", tools: [lookup], messages: [{ role: "user", content: "Capital of France?", timestamp: Date.now() }] });
      const key = await ctx.modelRegistry.getApiKeyForProvider(ctx.model.provider);
      const answer = await complete(ctx.model, context, { apiKey: key });
      const later = [
        ...context.messages,
        { role: "system", content: "Be brief.", sections: { style: "<style>plain</style>" }, toolsRemoved: [{ name: "lookup" }], timestamp: 2 },
      ];
      ctx.ui.notify(JSON.stringify({
        first: context.messages[0].role,
        answer: contentText(answer.content),
        prompt: getCurrentSystemPrompt(later),
        tools: getCurrentTools(later).map((tool) => tool.name),
        changes: getToolStateChanges([lookup], []),
        delays: [retryDelayMs({ baseDelayMs: 1000 }, 1), retryDelayMs({ baseDelayMs: 1000 }, 3), retryDelayMs({ baseDelayMs: 1000, maxAgentDelayMs: 2500 }, 3)],
        retryable: [
          isRetryableAssistantError({ role: "assistant", stopReason: "error", errorMessage: "529 Overloaded", content: [], usage: {} }),
          isRetryableAssistantError({ role: "assistant", stopReason: "stop", content: [], usage: {} }),
        ],
      }), "info");
    },
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue({ content: [{ type: "text", text: "Paris." }] });
    await rpc.request({ type: "prompt", message: "/ask" });
    await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify", 10_000);
    const report = JSON.parse(notices(rpc)[0]!);
    const request = fixture.server.requests[before]!;

    expect(report.first).toBe("system");
    expect(report.answer).toBe("Paris.");
    expect(request.body.messages[0]).toMatchObject({ role: "system", content: "You answer in one word." });
    expect(request.body.messages.filter((message: any) => message.role === "system")).toHaveLength(1);
    expect(request.body.messages[1]).toMatchObject({ role: "user" });
    expect(request.body.tools.map((tool: any) => tool.function.name)).toEqual(["lookup"]);
    expect(report.prompt).toBe("You answer in one word.\n\nBe brief.\n\n<style>plain</style>");
    expect(report.tools).toEqual([]);
    expect(report.changes).toEqual({ toolsAdded: [], toolsRemoved: [{ name: "lookup" }] });
    expect(report.delays).toEqual([1000, 4000, 2500]);
    expect(report.retryable).toEqual([true, false]);
    expect(await rpc.close()).toBe(0);
  });
});
