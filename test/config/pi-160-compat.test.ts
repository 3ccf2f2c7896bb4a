/**
 * pi 1.x's models.json fields through the built binary, read off the request bodies the
 * fake LLM records: compat `requiresToolsWithToolHistory`, `requiresNonNullAssistantContent`,
 * `promptCacheKeyMode` (Chat Completions and Responses), and the model fields
 * `samplingParams` / `samplingParamsByThinkingLevel`, `supportsMaxOutputTokens`; the keys for features
 * xcsh does not have (message threads, `promptCache`…) load and are
 * named once as not applied. A bad value is an error naming the field.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm } from "../support/fake-llm/server.ts";
import { ensureBinary, makeTestHome, runXcsh } from "../support/cli.ts";

ensureBinary();
const home = makeTestHome();
const server = startFakeLlm();
afterAll(async () => {
  await server.close();
  home.cleanup();
});
beforeEach(() => server.clearScript());

const completions = server.baseUrl("openai-completions");
const responses = server.baseUrl("openai-responses");

function provider(api: string, baseUrl: string, model: Record<string, unknown>, compat?: Record<string, unknown>) {
  home.writeModelsJson({ providers: { p: { baseUrl, api, apiKey: "k", ...(compat ? { compat } : {}), models: [{ id: "m", ...model }] } } });
}

let count = 0;
function project(): string {
  const cwd = join(home.home, `p${++count}`);
  mkdirSync(cwd, { recursive: true });
  return cwd;
}

const run = (args: string[], cwd: string) => runXcsh(["-p", "--model", "p/m", ...args], { env: home.env, cwd });
const body = () => server.requests.at(-1)!.body as Record<string, any>;

/** A session with one tool call in it, then a follow-up run without tools: the second request's body. */
async function followUpWithoutTools(): Promise<Record<string, any>> {
  const cwd = project();
  server.enqueue(
    { content: [{ type: "toolCall", id: "c1", name: "ls", arguments: {} }] },
    { content: [{ type: "text", text: "listed" }] },
    { content: [{ type: "text", text: "again" }] },
  );
  expect((await run(["list the files"], cwd)).exitCode).toBe(0);
  expect((await run(["--continue", "--no-tools", "and now?"], cwd)).exitCode).toBe(0);
  return body();
}

describe("Chat Completions compat", () => {
  test("requiresToolsWithToolHistory sends tools: [] and requiresNonNullAssistantContent content: \"\"", async () => {
    provider("openai-completions", completions, {});
    const plain = await followUpWithoutTools();
    expect(plain.tools).toBeUndefined();
    expect(plain.messages.find((m: any) => m.tool_calls).content).toBeNull();

    provider("openai-completions", completions, {}, { requiresToolsWithToolHistory: true, requiresNonNullAssistantContent: true });
    const strict = await followUpWithoutTools();
    expect(strict.tools).toEqual([]);
    expect(strict.messages.find((m: any) => m.tool_calls).content).toBe("");
  });

  test("promptCacheKeyMode: enabled sends prompt_cache_key to any host, auto only to OpenAI's", async () => {
    provider("openai-completions", completions, {});
    server.enqueue({ content: [{ type: "text", text: "a" }] });
    await run(["--no-session", "hi"], project());
    expect(body().prompt_cache_key).toBeUndefined();
    provider("openai-completions", completions, { compat: { promptCacheKeyMode: "enabled" } });
    server.enqueue({ content: [{ type: "text", text: "b" }] });
    await run(["--no-session", "hi"], project());
    expect(typeof body().prompt_cache_key).toBe("string");
  });

  test("samplingParams, with the thinking level's entry merged over them", async () => {
    const sampling = {
      reasoning: true,
      samplingParams: { temperature: 1.0, top_p: 0.95 },
      samplingParamsByThinkingLevel: { off: { temperature: 0.7, top_p: 0.8 }, high: { top_k: 20 } },
    };
    provider("openai-completions", completions, sampling);
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] }, { content: [{ type: "text", text: "c" }] });
    await run(["--no-session", "--thinking", "high", "hi"], project());
    expect([body().temperature, body().top_p, body().top_k]).toEqual([1.0, 0.95, 20]);
    await run(["--no-session", "--thinking", "off", "hi"], project());
    expect([body().temperature, body().top_p, body().top_k]).toEqual([0.7, 0.8, undefined]);
    await run(["--no-session", "--thinking", "low", "hi"], project());
    expect([body().temperature, body().top_p, body().top_k]).toEqual([1.0, 0.95, undefined]);
  });
});

describe("Responses compat", () => {
  test("promptCacheKeyMode: disabled leaves prompt_cache_key out; samplingParams apply", async () => {
    provider("openai-responses", responses, { samplingParams: { top_p: 0.5 } });
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
    await run(["--no-session", "hi"], project());
    expect(typeof body().prompt_cache_key).toBe("string");
    expect(body().top_p).toBe(0.5);
    provider("openai-responses", responses, { compat: { promptCacheKeyMode: "disabled" } });
    await run(["--no-session", "hi"], project());
    expect(body().prompt_cache_key).toBeUndefined();
  });
});

describe("pi 1.x keys for features xcsh does not have", () => {
  const anthropic = server.baseUrl("anthropic-messages");

  test("are accepted and named once as not applied (not as unknown keys); values that ask for what xcsh does anyway are not named", async () => {
    home.writeModelsJson({
      providers: {
        p: {
          baseUrl: anthropic,
          api: "anthropic-messages",
          apiKey: "k",
          compat: { supportsMessageThreads: true, supportsMidConvoSystemMessages: false, allowedFallbackModels: [] },
          models: [
            {
              id: "m",
              input: ["text", "image"],
              inputLimits: { maxRequestBytes: 1_000_000, images: { resize: { maxWidth: 1568, maxHeight: 1568, jpegQuality: 75 }, maxPerRequest: 20 } },
              promptCache: { short: 300, long: 3600 },
              compat: { supportsMidConvoToolChanges: true },
            },
          ],
          modelOverrides: { other: { compat: { supportsOpenAIGrammarTools: false } } },
        },
      },
    });
    server.enqueue({ content: [{ type: "text", text: "answered" }] });
    const result = await run(["--no-session", "hi"], project());
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("answered");
    expect(result.stderr).not.toContain("unknown key");
    const lines = result.stderr.split("\n").filter((line) => line.includes("accepts but does not apply"));
    expect(lines).toHaveLength(1);
    const [line] = lines;
    for (const named of ["providers.p.compat.supportsMessageThreads", "models[0].compat.supportsMidConvoToolChanges", "models[0].promptCache"]) {
      expect(line).toContain(named);
    }
    // inputLimits.images.resize is applied (test/tools/read-image-resize.test.ts).
    for (const quiet of ["supportsMidConvoSystemMessages", "allowedFallbackModels", "supportsOpenAIGrammarTools", "maxRequestBytes", "maxPerRequest", "inputLimits.images.resize"]) {
      expect(line).not.toContain(quiet);
    }
    // Not half-applied: the request is an ordinary one, the whole conversation and no thread.
    expect(body().thread).toBeUndefined();
    expect(server.requests.at(-1)!.headers["anthropic-beta"] ?? "").not.toContain("message-threads");
  });

  test("supportsMaxOutputTokens: false leaves max_output_tokens out of a Responses request", async () => {
    provider("openai-responses", responses, {});
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
    await run(["--no-session", "hi"], project());
    expect(typeof body().max_output_tokens).toBe("number");
    provider("openai-responses", responses, { compat: { supportsMaxOutputTokens: false } });
    await run(["--no-session", "hi"], project());
    expect(body().max_output_tokens).toBeUndefined();
  });
});

describe("validation", () => {
  test("a bad promptCacheKeyMode, an unknown thinking level key or a bad inputLimits value is an error naming the field", async () => {
    provider("openai-completions", completions, { compat: { promptCacheKeyMode: "sometimes" } });
    const bad = await run(["--no-session", "hi"], project());
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("promptCacheKeyMode");
    provider("openai-completions", completions, { samplingParamsByThinkingLevel: { extreme: { top_k: 1 } } });
    const level = await run(["--no-session", "hi"], project());
    expect(level.exitCode).toBe(2);
    expect(level.stderr).toContain("samplingParamsByThinkingLevel");
    provider("openai-completions", completions, { inputLimits: { images: { resize: { maxWidth: "big" } } } });
    const limits = await run(["--no-session", "hi"], project());
    expect(limits.exitCode).toBe(2);
    expect(limits.stderr).toContain("models[0].inputLimits.images.resize.maxWidth: expected a whole number");
  });
});
