/**
 * Virtual models under a provider that also has physical models (virtual-models.md):
 * `fake/auto` is listed beside `fake/fake-model` and `fake/fake-big` instead of replacing
 * them, routes to either, and each answer is priced by the physical model it went to; the
 * context window shown is the declared one before the first answer, then that of the
 * physical model that answered last.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createExtensionFixture, notices, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
const price = (input: number, output: number) => ({ input, output, cacheRead: 0, cacheWrite: 0 });

const MODELS = [
  { id: "fake-model", contextWindow: 100_000, maxTokens: 8_000, cost: price(1, 2) },
  { id: "fake-big", contextWindow: 400_000, maxTokens: 32_000, cost: price(10, 20) },
];

beforeAll(() => {
  fixture = createExtensionFixture({ models: MODELS });
});
afterEach(() => fixture.server.clearScript());

describe("a router that asks a classifier (ctx.modelRegistry.classify)", () => {
  test("the classifier runs with its provider's key before the route is chosen", async () => {
    const chat = fixture.server.baseUrl("openai-completions");
    fixture.home.writeModelsJson({
      providers: {
        fake: { baseUrl: chat, api: "openai-completions", apiKey: "test-key", models: MODELS },
        openrouter: { baseUrl: chat, apiKey: "or-key" },
      },
    });
    const ext = fixture.writeExtension(
      "classifying-router.ts",
      `export default function (pi) {
  pi.registerVirtualModel({
    provider: "fake",
    id: "smart",
    async route(request, ctx) {
      const jev = ctx.modelRegistry.findOfType("classifier", "openrouter", "typesafe/jev-1.14");
      const result = await ctx.modelRegistry.classify(jev, { state: { turns: request.messages.length }, questions: { hard: { type: "bool", instructions: "Is this hard?", criteria: { true: "hard", false: "easy" } } } });
      const id = result.answers.hard.probability > 0.5 ? "fake-big" : "fake-model";
      ctx.ui.notify("classified " + result.stopReason + " " + result.answers.hard.probability + " -> " + id);
      return { model: ctx.modelRegistry.find("fake", id) };
    },
  });
}`,
    );
    const before = fixture.server.typedRequests.length;
    fixture.server.enqueue({ content: [{ type: "text", text: "Done." }] });
    const rpc = fixture.start(["-e", ext, "--model", "fake/smart"]);
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_end");
    expect(notices(rpc)).toEqual(["classified stop 0.8 -> fake-big"]);
    const [classified] = fixture.server.typedRequests.slice(before);
    expect(classified!.headers.authorization).toBe("Bearer or-key");
    expect(classified!.body.model).toBe("typesafe/jev-1.14");
    expect(fixture.server.requests.at(-1)!.model).toBe("fake-big");
    expect(await rpc.close()).toBe(0);
  });
});
afterAll(() => fixture.cleanup());

const ROUTER = `export default function (pi) {
  pi.registerVirtualModel({
    provider: "fake",
    id: "auto",
    name: "Auto",
    contextWindow: 50000,
    route(request, ctx) {
      const last = request.messages.filter((m) => m.role === "user").at(-1);
      const text = typeof last.content === "string" ? last.content : last.content.map((c) => c.text ?? "").join("");
      const id = text.includes("big") ? "fake-big" : "fake-model";
      ctx.ui.notify("routed " + request.reason + " to " + id);
      return { model: ctx.modelRegistry.find("fake", id) };
    },
  });
}`;

describe("a virtual model under a provider with physical models", () => {
  test("is listed beside the physical models, routes to each, and every answer is priced by its physical model", async () => {
    const ext = fixture.writeExtension("layered-router.ts", ROUTER);
    fixture.server.enqueue({ content: [{ type: "text", text: "Small answer." }] }, { content: [{ type: "text", text: "Big answer." }] });
    const rpc = fixture.start(["-e", ext, "--model", "fake/auto"]);

    const available = (await rpc.request({ type: "get_available_models" })).data.models.filter((model: { provider: string }) => model.provider === "fake");
    expect(available.map((model: { id: string }) => model.id)).toEqual(["fake-model", "fake-big", "auto"]);
    const state = (await rpc.request({ type: "get_state" })).data;
    expect([state.model.provider, state.model.id]).toEqual(["fake", "auto"]);
    // Before any answer: the limits the virtual model declared.
    expect((await rpc.request({ type: "get_session_stats" })).data.contextUsage.contextWindow).toBe(50_000);

    await rpc.request({ type: "prompt", message: "a small question" });
    await rpc.waitForEvent("agent_end");
    const afterSmall = (await rpc.request({ type: "get_session_stats" })).data;
    expect(afterSmall.contextUsage.contextWindow).toBe(100_000);

    const from = rpc.mark();
    await rpc.request({ type: "prompt", message: "a big question" });
    await rpc.waitForEvent("agent_end", () => true, 15_000, from);
    const stats = (await rpc.request({ type: "get_session_stats" })).data;
    expect(stats.contextUsage.contextWindow).toBe(400_000);

    // The fake server reports 10 input and 5 output tokens per answer.
    expect(stats.costByModel).toEqual({ "fake/fake-model": (10 * 1 + 5 * 2) / 1e6, "fake/fake-big": (10 * 10 + 5 * 20) / 1e6 });
    expect(stats.cost).toBeCloseTo(0.00022, 10);
    const answers = (await rpc.request({ type: "get_messages" })).data.messages.filter((message: { role: string }) => message.role === "assistant");
    expect(answers.map((message: { provider: string; model: string }) => `${message.provider}/${message.model}`)).toEqual(["fake/fake-model", "fake/fake-big"]);
    expect(fixture.server.requests.slice(-2).map((request) => request.model)).toEqual(["fake-model", "fake-big"]);
    expect(notices(rpc)).toEqual(["routed user to fake-model", "routed user to fake-big"]);
    // The selection is still the virtual model.
    expect((await rpc.request({ type: "get_state" })).data.model.id).toBe("auto");
    expect(await rpc.close()).toBe(0);
  });

  test("pi.unregisterVirtualModel removes it and leaves the physical models; pi.unregisterProvider does not remove it", async () => {
    const ext = fixture.writeExtension(
      "layered-toggle.ts",
      `export default function (pi) {
  const define = () => pi.registerVirtualModel({ provider: "fake", id: "auto", route: (request, ctx) => ({ model: ctx.modelRegistry.find("fake", "fake-model") }) });
  define();
  pi.registerCommand("drop-virtual", { handler: async () => pi.unregisterVirtualModel("fake", "auto") });
  pi.registerCommand("drop-provider", { handler: async () => pi.unregisterProvider("fake") });
}`,
    );
    const rpc = fixture.start(["-e", ext, "--model", "fake/fake-model"]);
    const ids = async () => (await rpc.request({ type: "get_available_models" })).data.models.filter((model: { provider: string }) => model.provider === "fake").map((model: { id: string }) => model.id);
    expect(await ids()).toEqual(["fake-model", "fake-big", "auto"]);
    await rpc.request({ type: "prompt", message: "/drop-provider" });
    expect(await ids()).toEqual(["fake-model", "fake-big", "auto"]);
    await rpc.request({ type: "prompt", message: "/drop-virtual" });
    expect(await ids()).toEqual(["fake-model", "fake-big"]);
    expect(rpc.ofType("extension_error")).toEqual([]);
    expect(await rpc.close()).toBe(0);
  });
});
