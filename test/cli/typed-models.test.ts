/**
 * Classifier and image models (pi 1.x's model types) as a user meets them outside
 * scripts: --list-models shows them in a table of their own with their type, and every
 * path that picks a chat model (--model, RPC set_model) refuses one, saying what it is.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { createRpcFixture, type RpcFixture } from "../support/rpc-harness.ts";

let home: TestHome;

beforeAll(() => {
  home = makeTestHome();
});

afterAll(() => {
  home.cleanup();
});

describe("--list-models", () => {
  test("lists classifier and image models apart, with their type, input and whether the provider has a key", async () => {
    const result = await runXcsh(["--list-models", "jev"], { env: { ...home.env, OPENROUTER_API_KEY: "or-test" } });
    expect(result.exitCode).toBe(0);
    const [, typed] = result.stdout.split("Classifier and image models (not for chat: codemode scripts run them with models.classify() and models.generateImages()):\n");
    expect(typed).toBeDefined();
    expect(typed).toMatch(/^provider\s+model\s+type\s+context\s+images\s+key$/m);
    expect(typed).toMatch(/^openrouter\s+typesafe\/jev-1\.14\s+classifier\s+262\.1K\s+yes\s+yes$/m);
    expect(typed).toMatch(/^vercel-ai-gateway\s+typesafe-ai\/jev\s+classifier\s+32K\s+no\s+no$/m);
    // The chat table above it keeps its columns; a chat model with "jev" in its id stays there.
    expect(result.stdout).toMatch(/^openrouter\s+typesafe\/jev-router\s+1M\s+128K\s+yes\s+yes\s+yes$/m);
  });

  test("TypeSafe's own classifier is listed with TYPESAFE_API_KEY as its key", async () => {
    const without = await runXcsh(["--list-models", "jev-latest"], { env: home.env });
    expect(without.stdout).toMatch(/^typesafe\s+jev-latest\s+classifier\s+64K\s+yes\s+no$/m);
    const withKey = await runXcsh(["--list-models", "jev-latest"], { env: { ...home.env, TYPESAFE_API_KEY: "ts-test" } });
    expect(withKey.stdout).toMatch(/^typesafe\s+jev-latest\s+classifier\s+64K\s+yes\s+yes$/m);
  });

  test("image models show their type; a search for the type finds them", async () => {
    const result = await runXcsh(["--list-models", "image flux.2-pro"], { env: home.env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^openrouter\s+black-forest-labs\/flux\.2-pro\s+image\s+-\s+yes\s+no$/m);
  });
});

describe("chat-only paths refuse a classifier or image model", () => {
  test("--model names what the model is instead of 'unknown model'", async () => {
    const env = { ...home.env, OPENROUTER_API_KEY: "or-test" };
    const classifier = await runXcsh(["-p", "hi", "--model", "openrouter/typesafe/jev-1.14"], { env });
    expect(classifier.exitCode).toBe(2);
    expect(classifier.stderr).toContain("openrouter/typesafe/jev-1.14 is a classifier model: it cannot chat. Codemode scripts run it with models.classify(); pick a chat model (xcsh --list-models).");
    const image = await runXcsh(["-p", "hi", "--provider", "openrouter", "--model", "black-forest-labs/flux.2-pro"], { env });
    expect(image.exitCode).toBe(2);
    expect(image.stderr).toContain("openrouter/black-forest-labs/flux.2-pro is an image model: it cannot chat. Codemode scripts run it with models.generateImages()");
  });

  describe("RPC set_model", () => {
    let fixture: RpcFixture;
    beforeAll(() => {
      fixture = createRpcFixture();
    });
    afterAll(async () => {
      await fixture.cleanup();
    });

    test("answers success:false saying the model is a classifier; the session keeps its model", async () => {
      // (An id with a chat entry as well, such as openai/gpt-6-luna, is the chat model there.)
      const rpc = fixture.start();
      const response = await rpc.request({ type: "set_model", provider: "openrouter", modelId: "typesafe/jev-1.14" });
      expect(response.success).toBe(false);
      expect(response.error).toBe("openrouter/typesafe/jev-1.14 is a classifier model: it cannot chat. Codemode scripts run it with models.classify(); pick a chat model (xcsh --list-models).");
      const state = await rpc.request({ type: "get_state" });
      expect(state.data.model.id).toBe("fake-model");
      await rpc.close();
    });
  });
});
