/**
 * The `models` global of codemode scripts, through the binary against the fake LLM:
 * listing models by type, classify() over System One (OpenRouter, OpenCode) and OpenAI's
 * Decisions API, generateImages() over OpenRouter, what a provider failure and a
 * malformed call look like to the script, the four-at-a-time limit, and the usage that
 * lands on the codemode result and in the session's cost.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TINY_PNG } from "../support/fake-llm/server.ts";
import { createRpcFixture, type RpcFixture, type RpcProcess } from "../support/rpc-harness.ts";
import { CODEMODE_ARGS, resultText, runScriptPrompt } from "./codemode-support.ts";

let fixture: RpcFixture;
let rpc: RpcProcess;
const TIMEOUT = 30_000;

beforeAll(() => {
  fixture = createRpcFixture();
  const chat = fixture.server.baseUrl("openai-completions");
  // Built-in providers pointed at the fake server with keys; the others have none (and are never asked).
  fixture.home.writeModelsJson({
    providers: {
      fake: { baseUrl: chat, api: "openai-completions", apiKey: "test-key", models: [{ id: "fake-model" }] },
      openrouter: { baseUrl: chat, apiKey: "or-key" },
      openai: { baseUrl: chat, apiKey: "oa-key" },
      typesafe: { baseUrl: chat, apiKey: "ts-key-plain-literal-91" },
    },
  });
  rpc = fixture.start(CODEMODE_ARGS);
});

afterAll(async () => {
  await rpc.close();
  await fixture.cleanup();
});

/** The script's return value, parsed. */
function output(end: Record<string, any>): any {
  const text = resultText(end);
  const start = text.indexOf("Output:\n");
  if (start === -1) throw new Error(`no output in: ${text}`);
  return JSON.parse(text.slice(start + "Output:\n".length).split("\n<console_output>")[0]!);
}

const BOOL_AND_CHOICE = `{
  approved: { type: "bool", instructions: "Does the user approve?", criteria: { true: "Approval", false: "No approval" } },
  mood: { type: "choice", instructions: "How does the user feel?", criteria: { happy: "Satisfied", sad: "Unhappy" } },
  urgency: { type: "score", instructions: "How urgent?", criteria: ["later", "soon", "now"] },
}`;

describe("models: listing", () => {
  test("scripts list classifier and image models by type; only those with credentials are available", async () => {
    const code = `const all = await models.getModelsOfType("classifier");
const available = await models.getAvailableOfType("classifier");
const images = await models.getAvailableOfType("image", "openrouter");
const jev = await models.getModelOfType("classifier", "openrouter", "typesafe/jev-1.14");
const chat = await models.getModelOfType("chat", "fake", "fake-model");
return {
  vercelListed: all.some((m) => m.provider === "vercel-ai-gateway"),
  vercelAvailable: available.some((m) => m.provider === "vercel-ai-gateway"),
  luna: available.find((m) => m.provider === "openai" && m.id === "gpt-6-luna"),
  imageTypes: [...new Set(images.map((m) => m.type))],
  flash: images.some((m) => m.id === "google/gemini-2.5-flash-image"),
  jev: { type: jev.type, input: jev.input, api: jev.api, contextWindow: jev.contextWindow },
  chatType: chat.type,
  missing: (await models.getModelOfType("classifier", "openrouter", "no-such-model")) === undefined,
};`;
    const end = await runScriptPrompt(rpc, fixture.server, "list1", code, TIMEOUT);
    expect(end.isError).toBe(false);
    const seen = output(end);
    expect(seen.vercelListed).toBe(true);
    expect(seen.vercelAvailable).toBe(false);
    expect(seen.luna).toMatchObject({ type: "classifier", provider: "openai", id: "gpt-6-luna", api: "openai-decisions", input: ["text", "image"] });
    expect(seen.imageTypes).toEqual(["image"]);
    expect(seen.flash).toBe(true);
    expect(seen.jev).toEqual({ type: "classifier", input: ["text", "image"], api: "typesafe-system-one", contextWindow: 262144 });
    expect(seen.chatType).toBe("chat");
    expect(seen.missing).toBe(true);
  });

  test("an unknown member names the close ones", async () => {
    const end = await runScriptPrompt(rpc, fixture.server, "list2", "return await models.classifyAll();", TIMEOUT);
    expect(end.isError).toBe(true);
    expect(resultText(end)).toContain("models.classifyAll does not exist. Did you mean models.classify?");
  });
});

describe("models.classify", () => {
  test("System One on OpenRouter: answers by question id, the provider's key, bool sent as noul, usage on the result and in the session cost", async () => {
    const before = fixture.server.typedRequests.length;
    const statsBefore = (await rpc.request({ type: "get_session_stats" })).data;
    const code = `const jev = await models.getModelOfType("classifier", "openrouter", "typesafe/jev-1.14");
const result = await models.classify(jev, { state: { message: "The change works, thanks." }, questions: ${BOOL_AND_CHOICE} });
return result;`;
    const end = await runScriptPrompt(rpc, fixture.server, "c1", code, TIMEOUT);
    expect(end.isError).toBe(false);
    const result = output(end);
    expect(result).toMatchObject({ provider: "openrouter", model: "typesafe/jev-1.14", stopReason: "stop" });
    expect(result.answers.approved).toEqual({ type: "bool", probability: 0.8 });
    expect(result.answers.mood).toMatchObject({ type: "choice", choice: "happy", confidence: 0.7 });
    expect(result.answers.urgency).toEqual({ type: "score", score: 2, confidence: 0.6 });
    // 1000 input tokens at $0.042 per million.
    expect(result.usage.cost.total).toBeCloseTo(0.000042, 10);

    const [request] = fixture.server.typedRequests.slice(before);
    expect(request!.api).toBe("system-one");
    expect(request!.path).toBe("/v1/systemone");
    expect(request!.headers.authorization).toBe("Bearer or-key");
    expect(request!.body.model).toBe("typesafe/jev-1.14");
    expect(request!.body.state).toEqual({ message: "The change works, thanks." });
    expect(request!.body.questions.approved.type).toBe("noul");

    // The codemode result carries the usage, and the session's cost counts it.
    expect(end.result.usage.cost.total).toBeCloseTo(0.000042, 10);
    expect(end.result.details.modelCalls).toEqual([{ operation: "classify", provider: "openrouter", model: "typesafe/jev-1.14", stopReason: "stop", cost: 0.000042 }]);
    const statsAfter = (await rpc.request({ type: "get_session_stats" })).data;
    expect(statsAfter.cost - statsBefore.cost).toBeCloseTo(0.000042, 10);
  });

  test("images go in the service's own form: data URLs before the state on OpenRouter, input_image parts on OpenAI Decisions", async () => {
    const before = fixture.server.typedRequests.length;
    const code = `const photo = { type: "image", data: "${TINY_PNG}", mimeType: "image/png" };
const question = { broken: { type: "bool", instructions: "Is the layout broken?", criteria: { true: "Overlapping elements", false: "Clean layout" } } };
const a = await models.classify({ provider: "openrouter", id: "typesafe/jev-1.14" }, { state: { task: "Settings" }, images: [photo], questions: question });
const b = await models.classify({ provider: "openai", id: "gpt-6-luna" }, { state: { task: "Settings" }, images: [photo], questions: question });
return [a.answers, b.answers, b.stopReason];`;
    const end = await runScriptPrompt(rpc, fixture.server, "c2", code, TIMEOUT);
    expect(end.isError).toBe(false);
    expect(output(end)).toEqual([{ broken: { type: "bool", probability: 0.8 } }, { broken: { type: "bool", probability: 0.8 } }, "stop"]);
    const [openrouter, openai] = fixture.server.typedRequests.slice(before);
    expect(openrouter!.body.state).toEqual([{ type: "image_url", image_url: { url: `data:image/png;base64,${TINY_PNG}` } }, { task: "Settings" }]);
    expect(openrouter!.body.assets).toBeUndefined();
    expect(openai!.api).toBe("decisions");
    expect(openai!.path).toBe("/v1/decisions");
    expect(openai!.headers.authorization).toBe("Bearer oa-key");
    expect(openai!.body.input).toEqual([
      { role: "user", content: [{ type: "input_text", text: '{"task":"Settings"}' }, { type: "input_image", image_url: `data:image/png;base64,${TINY_PNG}` }] },
    ]);
    expect(openai!.body.questions).toEqual([{ type: "predicate", name: "broken", instructions: "Is the layout broken?\n\nTrue means: Overlapping elements\nFalse means: Clean layout" }]);
  });

  test("TypeSafe's own API (pi's typesafe/jev-latest): images as named assets with the opt-in header", async () => {
    const before = fixture.server.typedRequests.length;
    const code = `const jev = await models.getModelOfType("classifier", "typesafe", "jev-latest");
const r = await models.classify(jev, { state: { task: "Settings" }, images: [{ type: "image", data: "${TINY_PNG}", mimeType: "image/png" }], questions: { ok: { type: "bool", instructions: "ok?", criteria: { true: "yes", false: "no" } } } });
return [jev.name, r.stopReason, r.answers.ok, r.usage.cost.total];`;
    const end = await runScriptPrompt(rpc, fixture.server, "c2b", code, TIMEOUT);
    // TypeSafe's direct model has no catalog price: its tokens cost nothing.
    expect(output(end)).toEqual(["Jev", "stop", { type: "bool", probability: 0.8 }, 0]);
    const [request] = fixture.server.typedRequests.slice(before);
    expect(request!.path).toBe("/v1/systemone");
    expect(request!.headers.authorization).toBe("Bearer ts-key-plain-literal-91");
    expect(request!.headers["typesafe-danger-zone-images"]).toBe("true");
    expect(request!.body.state).toEqual(["<image-1>", { task: "Settings" }]);
    expect(request!.body.assets).toEqual({ "<image-1>": { type: "image", format: "png", data_base64: TINY_PNG } });
  });

  test("a provider failure is a result with stopReason error, not a thrown error", async () => {
    fixture.server.enqueueTyped({ status: 401, body: { error: { message: "Invalid API key" } } });
    const code = `const r = await models.classify({ provider: "openrouter", id: "typesafe/jev-1.13" }, { state: { x: 1 }, questions: { ok: { type: "bool", instructions: "ok?", criteria: { true: "yes", false: "no" } } } });
return { stopReason: r.stopReason, errorMessage: r.errorMessage, answers: r.answers };`;
    const end = await runScriptPrompt(rpc, fixture.server, "c3", code, TIMEOUT);
    expect(end.isError).toBe(false);
    const result = output(end);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain("401");
    expect(result.errorMessage).toContain("Invalid API key");
    expect(result.answers).toEqual({});
    expect(fixture.server.typedRequests.at(-1)!.path).toBe("/v1/systemone");
    // A 401 is not tried again.
    expect(fixture.server.typedRequests.filter((request) => request.body?.state?.x === 1).length).toBe(1);
  });

  test("the key a service echoes in its error never reaches the script (so neither the model nor the session file)", async () => {
    fixture.server.enqueueTyped((request) => ({ status: 401, body: { error: { message: `key ${request.headers.authorization} is revoked` } } }));
    const code = `const r = await models.classify({ provider: "typesafe", id: "jev-latest" }, { state: { leak: 1 }, questions: { ok: { type: "bool", instructions: "ok?", criteria: { true: "yes", false: "no" } } } });
return r.errorMessage;`;
    const end = await runScriptPrompt(rpc, fixture.server, "c3k", code, TIMEOUT);
    expect(fixture.server.typedRequests.at(-1)!.headers.authorization).toBe("Bearer ts-key-plain-literal-91");
    expect(resultText(end)).toContain("key Bearer [redacted] is revoked");
    expect(JSON.stringify(end)).not.toContain("ts-key-plain-literal-91");
  });

  test("a busy service is asked again; a refusal is not", async () => {
    const before = fixture.server.typedRequests.length;
    fixture.server.enqueueTyped({ status: 503, body: { error: { message: "overloaded" } } });
    const code = `const q = { ok: { type: "bool", instructions: "ok?", criteria: { true: "yes", false: "no" } } };
const r = await models.classify({ provider: "openrouter", id: "typesafe/jev-1.14" }, { state: {}, questions: q });
return [r.stopReason, r.answers.ok];`;
    const end = await runScriptPrompt(rpc, fixture.server, "c3b", code, TIMEOUT);
    expect(output(end)).toEqual(["stop", { type: "bool", probability: 0.8 }]);
    expect(fixture.server.typedRequests.length - before).toBe(2);
  });

  test("images for a text-only classifier are an error result; nothing is sent", async () => {
    const before = fixture.server.typedRequests.length;
    const code = `const r = await models.classify({ provider: "openrouter", id: "respan/span-01-lite:free" }, { state: {}, images: [{ type: "image", data: "${TINY_PNG}", mimeType: "image/png" }], questions: { ok: { type: "bool", instructions: "ok?", criteria: { true: "yes", false: "no" } } } });
return [r.stopReason, r.errorMessage];`;
    const end = await runScriptPrompt(rpc, fixture.server, "c4", code, TIMEOUT);
    expect(output(end)).toEqual(["error", "openrouter/respan/span-01-lite:free does not take images: its input is text only"]);
    expect(fixture.server.typedRequests.length).toBe(before);
  });

  test("a malformed call, a chat model and an unknown model reject with what to do", async () => {
    const code = `const tries = [
  () => models.classify({ provider: "openrouter", id: "typesafe/jev-1.14" }, { state: {}, questions: { q: { type: "maybe", instructions: "?" } } }),
  () => models.classify({ provider: "fake", id: "fake-model" }, { state: {}, questions: { q: { type: "bool", instructions: "?", criteria: { true: "y", false: "n" } } } }),
  () => models.classify({ provider: "openrouter", id: "nope" }, { state: {}, questions: { q: { type: "bool", instructions: "?", criteria: { true: "y", false: "n" } } } }),
  () => models.generateImages({ provider: "openrouter", id: "typesafe/jev-1.14" }, { input: [{ type: "text", text: "a fox" }] }),
];
const messages = [];
for (const attempt of tries) { try { await attempt(); messages.push("resolved"); } catch (error) { messages.push(error.message); } }
return messages;`;
    const end = await runScriptPrompt(rpc, fixture.server, "c5", code, TIMEOUT);
    const [malformed, chat, unknown, wrongType] = output(end);
    expect(malformed).toContain('question "q" has type "maybe"');
    expect(malformed).toContain("Expected models.classify(model, { state");
    expect(chat).toContain("fake/fake-model is a chat model; chat models are listed but cannot run from scripts");
    expect(unknown).toContain('openrouter/nope is not a known classifier model. models.getAvailableOfType("classifier")');
    expect(wrongType).toContain("openrouter/typesafe/jev-1.14 is a classifier model, not an image model");
  });

  test("at most four calls of a script run at once; the others wait for a free slot", async () => {
    const before = fixture.server.typedRequests.length;
    for (let index = 0; index < 6; index++) fixture.server.enqueueTyped(() => ({ delayMs: 400, body: { answers: { ok: { type: "noul", noul: 0.5 } }, usage: { input_tokens: 10, output_tokens: 0 } } }));
    const code = `const q = { ok: { type: "bool", instructions: "ok?", criteria: { true: "yes", false: "no" } } };
const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => models.classify({ provider: "openrouter", id: "typesafe/jev-1.14" }, { state: { n }, questions: q })));
return results.map((r) => r.answers.ok.probability);`;
    const end = await runScriptPrompt(rpc, fixture.server, "c6", code, TIMEOUT);
    expect(output(end)).toEqual([0.5, 0.5, 0.5, 0.5, 0.5, 0.5]);
    const received = fixture.server.typedRequests.slice(before).map((request) => request.receivedAt);
    expect(received.length).toBe(6);
    // The fifth request waits until one of the first four has been answered (each takes 400 ms).
    expect(received[4]! - received[0]!).toBeGreaterThanOrEqual(350);
    expect(end.result.details.modelCalls.length).toBe(6);
  });
});

describe("models.generateImages", () => {
  test("OpenRouter image generation returns image blocks that image() shows, with the request's modalities", async () => {
    const before = fixture.server.typedRequests.length;
    const code = `const painter = await models.getModelOfType("image", "openrouter", "google/gemini-2.5-flash-image");
const result = await models.generateImages(painter, { input: [{ type: "text", text: "A red fox in the snow" }] });
if (result.stopReason !== "stop") return result.errorMessage;
for (const block of result.output) if (block.type === "image") image(block); else text(block.text);`;
    const end = await runScriptPrompt(rpc, fixture.server, "g1", code, TIMEOUT);
    expect(end.isError).toBe(false);
    const images = (end.result.content as { type: string; data?: string }[]).filter((block) => block.type === "image");
    expect(images.map((block) => block.data)).toEqual([TINY_PNG]);
    expect(resultText(end)).toContain("A tiny picture.");
    const [request] = fixture.server.typedRequests.slice(before);
    expect(request!.api).toBe("images");
    expect(request!.path).toBe("/v1/chat/completions");
    expect(request!.headers.authorization).toBe("Bearer or-key");
    expect(request!.body).toMatchObject({ model: "google/gemini-2.5-flash-image", stream: false, modalities: ["image", "text"], messages: [{ role: "user", content: [{ type: "text", text: "A red fox in the snow" }] }] });
    // 100 input tokens at $0.3 and 1000 output tokens at $2.5 per million.
    expect(end.result.usage.cost.total).toBeCloseTo(0.00003 + 0.0025, 10);
  });

  test("a script that generates images without showing them gets a note", async () => {
    const code = `const r = await models.generateImages({ provider: "openrouter", id: "black-forest-labs/flux.2-pro" }, { input: [{ type: "text", text: "a fox" }] });
return r.output.length;`;
    const end = await runScriptPrompt(rpc, fixture.server, "g2", code, TIMEOUT);
    expect(resultText(end)).toContain("Note: the script generated 1 image(s) but showed none; pass each image block to image() to see it.");
    expect(fixture.server.typedRequests.at(-1)!.body.modalities).toEqual(["image"]);
  });
});
