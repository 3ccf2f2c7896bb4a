/**
 * Providers registered by extensions, through the built binary: a custom
 * `streamSimple` API answers prompts (the model is selectable with --model at
 * startup, because factories run before model resolution), an async factory
 * registers models it discovered from a server, and a provider registered from
 * a command is usable at once with set_model.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { runXcsh } from "../support/cli.ts";
import { createExtensionFixture, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

/** A pi-style custom streaming provider that echoes the last user message back, word by word. */
const ECHO_PROVIDER = `import { createAssistantMessageEventStream, type AssistantMessage } from "@mariozechner/pi-ai";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

function streamEcho(model, context, options) {
  const stream = createAssistantMessageEventStream();
  (async () => {
    const output: AssistantMessage = {
      role: "assistant", content: [], api: model.api, provider: model.provider, model: model.id,
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "stop", timestamp: Date.now(),
    };
    try {
      stream.push({ type: "start", partial: output });
      const last = context.messages.filter((m) => m.role === "user").at(-1);
      const text = typeof last.content === "string" ? last.content : last.content.map((c) => c.text ?? "").join("");
      if (text.includes("fail")) throw new Error("echo backend refused");
      output.content.push({ type: "text", text: "" });
      stream.push({ type: "text_start", contentIndex: 0, partial: output });
      for (const word of ("echo: " + text + " (key " + options?.apiKey + ")").split(" ")) {
        output.content[0].text += (output.content[0].text ? " " : "") + word;
        stream.push({ type: "text_delta", contentIndex: 0, delta: word, partial: output });
      }
      stream.push({ type: "text_end", contentIndex: 0, content: output.content[0].text, partial: output });
      stream.push({ type: "done", reason: "stop", message: output });
    } catch (error) {
      output.stopReason = "error";
      output.errorMessage = error.message;
      stream.push({ type: "error", reason: "error", error: output });
    }
    stream.end();
  })();
  return stream;
}

export default function (pi: ExtensionAPI) {
  pi.registerProvider("echo", {
    baseUrl: "http://echo.invalid",
    apiKey: "$ECHO_KEY",
    api: "echo-api",
    models: [{ id: "echo-1", name: "Echo One", reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 200000, maxTokens: 1000 }],
    streamSimple: streamEcho,
  });
}`;

describe("custom providers from extensions", () => {
  test("a streamSimple provider answers a -p prompt chosen with --model; its failure is a clean error", async () => {
    const ext = fixture.writeExtension("echo.ts", ECHO_PROVIDER);
    const env = { ...fixture.home.env, ECHO_KEY: "secret-1" };
    const ok = await runXcsh(["-p", "-e", ext, "--model", "echo/echo-1", "hello there"], { env, cwd: fixture.cwd });
    expect(ok.stderr).toBe("");
    expect(ok.stdout).toBe("echo: hello there (key secret-1)\n");
    expect(ok.exitCode).toBe(0);

    const failed = await runXcsh(["-p", "-e", ext, "--model", "echo/echo-1", "please fail"], { env, cwd: fixture.cwd });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain("echo backend refused");
  });

  test("an async factory registers models it fetched; they serve prompts through the real SDK", async () => {
    const baseUrl = fixture.server.baseUrl("openai-completions");
    const ext = fixture.writeExtension(
      "discovered.ts",
      `export default async function (pi) {
  await new Promise((resolve) => setTimeout(resolve, 20));
  const models = ["served-a", "served-b"].map((id) => ({ id, name: id, reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 32000, maxTokens: 4000 }));
  pi.registerProvider("local", { baseUrl: ${JSON.stringify(baseUrl)}, apiKey: "local-key", api: "openai-completions", models });
}`,
    );
    fixture.server.enqueue({ content: [{ type: "text", text: "served by b" }] });
    const result = await runXcsh(["-p", "-e", ext, "--model", "local/served-b", "hi"], { env: fixture.home.env, cwd: fixture.cwd });
    expect(result.stdout).toBe("served by b\n");
    const request = fixture.server.requests.at(-1)!;
    expect(request.body.model).toBe("served-b");
    expect(request.headers.authorization).toBe("Bearer local-key");
  });

  test("a provider registered from a command is offered at once; unregistering removes it", async () => {
    const ext = fixture.writeExtension(
      "late.ts",
      `${ECHO_PROVIDER.replace("export default function (pi: ExtensionAPI) {", "function register(pi: ExtensionAPI) {")}
export default function (pi) {
  pi.registerCommand("connect", { handler: async () => register(pi) });
  pi.registerCommand("disconnect", { handler: async () => pi.unregisterProvider("echo") });
}`,
    );
    fixture.home.env.ECHO_KEY = "secret-2";
    try {
      const rpc = fixture.start(["-e", ext, "--model", "fake/fake-model"]);
      const ids = async () => (await rpc.request({ type: "get_available_models" })).data.models.map((model: any) => `${model.provider}/${model.id}`);
      expect(await ids()).not.toContain("echo/echo-1");
      await rpc.request({ type: "prompt", message: "/connect" });
      expect(await ids()).toContain("echo/echo-1");
      expect((await rpc.request({ type: "set_model", provider: "echo", modelId: "echo-1" })).success).toBe(true);
      await rpc.request({ type: "prompt", message: "ping" });
      const end = await rpc.waitForEvent("agent_end");
      expect(end.messages.at(-1).content[0].text).toBe("echo: ping (key secret-2)");
      await rpc.request({ type: "set_model", provider: "fake", modelId: "fake-model" });
      await rpc.request({ type: "prompt", message: "/disconnect" });
      expect(await ids()).not.toContain("echo/echo-1");
      expect(await rpc.close()).toBe(0);
    } finally {
      delete fixture.home.env.ECHO_KEY;
    }
  });

  test("--list-models lists the models extensions registered, async factories included", async () => {
    const ext = fixture.writeExtension(
      "listed.ts",
      `export default async function (pi) {
  await new Promise((resolve) => setTimeout(resolve, 10));
  pi.registerProvider("listed", { baseUrl: "http://127.0.0.1:9", apiKey: "k", api: "openai-completions", models: [{ id: "listed-model", contextWindow: 64000 }] });
}`,
    );
    const result = await runXcsh(["--list-models", "listed", "-e", ext], { env: fixture.home.env, cwd: fixture.cwd });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^listed\s+listed-model\s+64K/m);
    const without = await runXcsh(["--list-models", "listed"], { env: fixture.home.env, cwd: fixture.cwd });
    expect(without.exitCode).toBe(1);
  });
});
