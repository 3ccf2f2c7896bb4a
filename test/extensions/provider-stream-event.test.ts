/**
 * pi 1.6.0's `provider_stream_event`: an extension hears each event of the provider's
 * stream as parsed, before it becomes message updates, with the provider, API and model
 * id, for every API xcsh speaks. Through the built binary (RPC mode) against the fake LLM
 * server of each API; a throwing handler is reported and the answer is unchanged.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { FakeApi } from "../support/fake-llm/script.ts";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

const EXTENSION = `export default function (pi) {
  const seen = [];
  pi.on("provider_stream_event", (event) => {
    seen.push({ provider: event.provider, api: event.api, model: event.model, text: JSON.stringify(event.data) });
    if (process.env.THROW_IN_STREAM_HANDLER) throw new Error("handler broke");
  });
  pi.on("agent_end", (_event, ctx) => {
    ctx.ui.notify(JSON.stringify({ count: seen.length, first: seen[0], all: seen.map((item) => item.text).join("\\n") }), "info");
  });
}`;

async function streamOf(api: FakeApi): Promise<{ report: any; answer: string; errors: any[] }> {
  fixture = createExtensionFixture({ api });
  const ext = fixture.writeExtension("stream.ts", EXTENSION);
  fixture.server.enqueue({ content: [{ type: "text", text: "STREAMED-ANSWER" }] });
  const rpc = fixture.start(withExtensions(ext));
  await rpc.request({ type: "prompt", message: "hi" });
  await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify", 20_000);
  const report = JSON.parse(notices(rpc).at(-1)!);
  const end = rpc.frames.find((frame) => frame.type === "message_end" && frame.message.role === "assistant");
  const answer = end!.message.content.map((block: any) => block.text ?? "").join("");
  const errors = rpc.frames.filter((frame) => frame.type === "extension_error");
  expect(await rpc.close()).toBe(0);
  return { report, answer, errors };
}

describe("provider_stream_event", () => {
  for (const api of ["openai-completions", "anthropic-messages", "openai-responses", "google-generative-ai"] as const) {
    test(`${api}: each parsed stream event reaches the handler, with provider, api and model`, async () => {
      const { report, answer } = await streamOf(api);
      expect(answer).toBe("STREAMED-ANSWER");
      expect(report.count).toBeGreaterThan(1);
      expect(report.first).toMatchObject({ provider: "fake", api, model: "fake-model" });
      // The answer's text is in the raw events, in the pieces the server sent.
      expect(report.all).toContain("STREAMED");
      expect(report.all).toContain("-ANSWER");
    }, 60_000);
  }

  test("a handler that throws is reported as an extension error; the answer is unchanged", async () => {
    process.env.THROW_IN_STREAM_HANDLER = "1";
    try {
      const { report, answer, errors } = await streamOf("openai-completions");
      expect(answer).toBe("STREAMED-ANSWER");
      expect(report.count).toBeGreaterThan(1);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors[0]).toMatchObject({ event: "provider_stream_event", error: "handler broke" });
    } finally {
      delete process.env.THROW_IN_STREAM_HANDLER;
    }
  }, 60_000);
});
