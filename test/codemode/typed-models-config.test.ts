/**
 * Classifier and image models a person or an extension defines (pi 1.6.0): models.json
 * entries with `type: "classifier"` run over a built-in API (System One here, against the
 * fake server), and `pi.registerProvider` models with their own `classifiers` / `images`
 * implementations keyed by `api`. Codemode's `models` global lists and runs both; none of
 * them is a chat model (`--list-models`, set_model).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../support/cli.ts";
import { createRpcFixture, type RpcFixture, type RpcProcess } from "../support/rpc-harness.ts";
import { CODEMODE_ARGS, resultText, runScriptPrompt } from "./codemode-support.ts";

let fixture: RpcFixture;
let rpc: RpcProcess;
let extension: string;
const TIMEOUT = 30_000;

/** The extension's provider: a classifier that says yes to every bool question, and an image model that echoes the prompt. */
const MEDIA_EXTENSION = `export default function (pi) {
  pi.registerProvider("media", {
    apiKey: "media-key",
    baseUrl: "http://127.0.0.1:9/never-called",
    models: [
      { type: "classifier", id: "judge", name: "Judge", api: "media-classifier", input: ["text"], contextWindow: 4000 },
      { type: "image", id: "painter", api: "media-images", input: ["text"], output: ["image"] },
    ],
    classifiers: {
      "media-classifier": {
        classify: async (model, context, options) => ({
          api: model.api, provider: model.provider, model: model.id, stopReason: "stop", timestamp: Date.now(),
          answers: Object.fromEntries(Object.keys(context.questions).map((id) => [id, { type: "bool", probability: 0.9 }])),
          key: options.apiKey,
        }),
      },
    },
    images: {
      "media-images": {
        generateImages: async (model, context) => ({
          api: model.api, provider: model.provider, model: model.id, stopReason: "stop", timestamp: Date.now(),
          output: [{ type: "text", text: "painted: " + context.input[0].text }],
        }),
      },
    },
  });
}
`;

beforeAll(() => {
  fixture = createRpcFixture();
  const chat = fixture.server.baseUrl("openai-completions");
  fixture.home.writeModelsJson({
    providers: {
      fake: { baseUrl: chat, api: "openai-completions", apiKey: "test-key", models: [{ id: "fake-model" }] },
      // A person's own System One service: a classifier in models.json.
      "my-sys": { baseUrl: chat, apiKey: "my-key", models: [{ id: "my-jev", type: "classifier", api: "typesafe-system-one", input: ["text"], contextWindow: 8000 }] },
    },
  });
  extension = join(fixture.home.home, "media.ts");
  writeFileSync(extension, MEDIA_EXTENSION);
  rpc = fixture.start([...CODEMODE_ARGS, "-e", extension]);
});

afterAll(async () => {
  await rpc.close();
  await fixture.cleanup();
});

function output(end: Record<string, any>): any {
  const text = resultText(end);
  const start = text.indexOf("Output:\n");
  if (start === -1) throw new Error(`no output in: ${text}`);
  return JSON.parse(text.slice(start + "Output:\n".length).split("\n<console_output>")[0]!);
}

const QUESTION = `{ ok: { type: "bool", instructions: "Is it fine?", criteria: { true: "Fine", false: "Not fine" } } }`;

describe("classifier and image models from models.json and registerProvider", () => {
  test("scripts list them by type and run them: the extension's implementations, and System One for models.json's", async () => {
    const before = fixture.server.typedRequests.length;
    const code = `const classifiers = await models.getAvailableOfType("classifier");
const images = await models.getAvailableOfType("image", "media");
const judged = await models.classify({ provider: "media", id: "judge" }, { state: { text: "hello" }, questions: ${QUESTION} });
const painted = await models.generateImages({ provider: "media", id: "painter" }, { input: [{ type: "text", text: "a fox" }] });
const mine = await models.classify({ provider: "my-sys", id: "my-jev" }, { state: { text: "hello" }, questions: ${QUESTION} });
const wrong = await models.getModelOfType("chat", "media", "judge");
return {
  listed: classifiers.filter((m) => m.provider === "media" || m.provider === "my-sys").map((m) => [m.provider + "/" + m.id, m.api, m.contextWindow]),
  images: images.map((m) => [m.id, m.type, m.output]),
  judged: [judged.stopReason, judged.answers.ok, judged.key],
  painted: [painted.stopReason, painted.output],
  mine: [mine.stopReason, mine.answers.ok, mine.errorMessage],
  chat: wrong === undefined,
};`;
    const end = await runScriptPrompt(rpc, fixture.server, "t1", code, TIMEOUT);
    expect(end.isError).toBe(false);
    const seen = output(end);
    expect(seen.listed).toEqual([
      ["my-sys/my-jev", "typesafe-system-one", 8000],
      ["media/judge", "media-classifier", 4000],
    ]);
    expect(seen.images).toEqual([["painter", "image", ["image"]]]);
    expect(seen.judged).toEqual(["stop", { type: "bool", probability: 0.9 }, "media-key"]);
    expect(seen.painted).toEqual(["stop", [{ type: "text", text: "painted: a fox" }]]);
    expect(seen.mine[0]).toBe("stop");
    expect(seen.mine[1]).toEqual({ type: "bool", probability: 0.8 });
    expect(seen.chat).toBe(true);
    // Only the models.json classifier went over the wire, to the person's endpoint with their key.
    const sent = fixture.server.typedRequests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.api).toBe("system-one");
    expect(sent[0]!.headers.authorization).toBe("Bearer my-key");
    expect(sent[0]!.body.model).toBe("my-jev");
  }, 40_000);

  test("--list-models lists them apart from the chat models, with their type and key; set_model refuses them", async () => {
    const response = await rpc.request({ type: "set_model", provider: "media", modelId: "judge" });
    expect(response.success).toBe(false);
    expect(response.error).toContain("media/judge is a classifier model: it cannot chat");
    const listed = await runXcsh(["--list-models", "-e", extension], { env: fixture.home.env, cwd: fixture.cwd });
    expect(listed.exitCode).toBe(0);
    const [chat, typed] = listed.stdout.split("Classifier and image models");
    expect(chat).toContain("fake-model");
    expect(chat).not.toContain("my-jev");
    expect(chat).not.toMatch(/media\s+judge/);
    expect(typed).toMatch(/my-sys\s+my-jev\s+classifier\s+8K\s+no\s+yes/);
    expect(typed).toMatch(/media\s+judge\s+classifier\s+4K\s+no\s+yes/);
    expect(typed).toMatch(/media\s+painter\s+image\s+-\s+no\s+yes/);
  });

  test("a models.json classifier must name an API that runs classifiers", async () => {
    const home = createRpcFixture();
    try {
      home.home.writeModelsJson({ providers: { bad: { baseUrl: "http://127.0.0.1:9/v1", apiKey: "k", models: [{ id: "c", type: "classifier", api: "openai-completions" }] } } });
      const result = await runXcsh(["--list-models"], { env: home.home.env, cwd: home.cwd });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain("a classifier model names the API that runs it: one of typesafe-system-one, openai-decisions");
    } finally {
      await home.cleanup();
    }
  });
});
