/**
 * `ctx.modelRegistry` as extensions for later pi versions use it: find a model, ask
 * whether it has credentials, and complete a request through the registry, which
 * fills in the configured key. Through the built binary and the fake LLM server.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createExtensionFixture, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterAll(() => fixture.cleanup());

const SUMMARIZER = `
export default function (pi) {
  pi.registerCommand("ask-aside", {
    description: "a side request through the registry",
    handler: async (args, ctx) => {
      const model = ctx.modelRegistry.find("fake", "fake-model");
      const missing = ctx.modelRegistry.find("fake", "no-such-model");
      const auth = await ctx.modelRegistry.getApiKeyAndHeaders(model);
      const response = await ctx.modelRegistry.complete(model, {
        systemPrompt: "Answer briefly.",
        messages: [{ role: "user", content: [{ type: "text", text: args }], timestamp: Date.now() }],
      });
      const text = response.content.filter((block) => block.type === "text").map((block) => block.text).join("");
      ctx.ui.notify(JSON.stringify({ found: model.id, missing: missing === undefined, hasAuth: ctx.modelRegistry.hasConfiguredAuth(model), auth: auth.ok && auth.apiKey, text, thinking: ctx.thinkingLevel }));
    },
  });
}
`;

test("an extension completes a side request through ctx.modelRegistry with the configured key", async () => {
  const path = fixture.writeExtension("aside.ts", SUMMARIZER);
  fixture.server.enqueue({ content: [{ type: "text", text: "A brief aside." }] });
  const rpc = fixture.start(withExtensions(path));
  expect(await rpc.request({ type: "prompt", message: "/ask-aside what is 2+2?" })).toMatchObject({ success: true });
  const notice = await rpc.waitFor((frame) => frame.method === "notify");
  expect(JSON.parse(notice.message)).toEqual({ found: "fake-model", missing: true, hasAuth: true, auth: "test-key", text: "A brief aside.", thinking: "off" });
  const request = fixture.server.requests.at(-1)!;
  expect(request.headers.authorization).toBe("Bearer test-key");
  expect(JSON.stringify(request.body.messages)).toContain("what is 2+2?");
  expect(rpc.ofType("extension_error")).toEqual([]);
  expect(await rpc.close()).toBe(0);
});
