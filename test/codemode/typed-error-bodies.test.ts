/**
 * A classifier or image service that refuses with an enormous or endless body, through the
 * binary: the script gets its error promptly, as one line of the service's words with the
 * key redacted and no control characters — only the body's first 8 KiB is read. The huge
 * body comes from the fake LLM server; the endless one from a server of this file, whose
 * body never ends (a read of the whole body would never return).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createRpcFixture, type RpcFixture, type RpcProcess } from "../support/rpc-harness.ts";
import { CODEMODE_ARGS, resultText, runScriptPrompt } from "./codemode-support.ts";

const TIMEOUT = 30_000;
const KEY = "ts-key-plain-literal-77";

let fixture: RpcFixture;
let rpc: RpcProcess;
let endless: ReturnType<typeof Bun.serve>;
/** Bytes the endless server sent before the client let go. */
let endlessBytesSent = 0;

beforeAll(() => {
  endless = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch() {
      const chunk = new TextEncoder().encode(`${'{"error":{"message":"flood'.padEnd(1024, "x")}`);
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await Bun.sleep(1);
          endlessBytesSent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      return new Response(body, { status: 400, headers: { "content-type": "application/json" } });
    },
  });
  fixture = createRpcFixture();
  const chat = fixture.server.baseUrl("openai-completions");
  fixture.home.writeModelsJson({
    providers: {
      fake: { baseUrl: chat, api: "openai-completions", apiKey: "test-key", models: [{ id: "fake-model" }] },
      typesafe: { baseUrl: chat, apiKey: KEY },
      openrouter: { baseUrl: `http://127.0.0.1:${endless.port}/v1`, apiKey: "or-key-endless-1234" },
    },
  });
  rpc = fixture.start(CODEMODE_ARGS);
});

afterAll(async () => {
  await rpc.close();
  await fixture.cleanup();
  endless.stop(true);
});

/** The script's return value, parsed. */
function output(end: Record<string, any>): any {
  const text = resultText(end);
  const start = text.indexOf("Output:\n");
  if (start === -1) throw new Error(`no output in: ${text}`);
  return JSON.parse(text.slice(start + "Output:\n".length).split("\n<console_output>")[0]!);
}

const QUESTION = `{ ok: { type: "bool", instructions: "ok?", criteria: { true: "yes", false: "no" } } }`;

describe("a typed service's refusal with a body past reason", () => {
  test("a 4 MB error body: the script gets one short line of the service's message, the key redacted, no control characters", async () => {
    fixture.server.enqueueTyped((request) => ({
      status: 401,
      body: { error: { message: `key ${request.headers.authorization} is revoked\n\x1b]2;PWNED\x07second line\r\n${"z".repeat(4 * 1024 * 1024)}` } },
    }));
    const code = `const r = await models.classify({ provider: "typesafe", id: "jev-latest" }, { state: { huge: 1 }, questions: ${QUESTION} });
return [r.stopReason, r.errorMessage];`;
    const end = await runScriptPrompt(rpc, fixture.server, "huge1", code, TIMEOUT);
    const [stopReason, message] = output(end) as [string, string];
    expect(stopReason).toBe("error");
    expect(message).toStartWith("System One API error (401): key Bearer [redacted] is revoked ]2;PWNED second line zzz");
    expect(message).not.toMatch(/[\n\r\x00-\x1f\x7f-\x9f]/);
    expect(message.length).toBeLessThan(400);
    expect(JSON.stringify(end)).not.toContain(KEY);
  });

  test("an error body that never ends: the call fails at once with the message as far as it came, reading no more than the start", async () => {
    const code = `const r = await models.classify({ provider: "openrouter", id: "typesafe/jev-1.14" }, { state: { endless: 1 }, questions: ${QUESTION} });
return [r.stopReason, r.errorMessage];`;
    const end = await runScriptPrompt(rpc, fixture.server, "endless1", code, TIMEOUT);
    const [stopReason, message] = output(end) as [string, string];
    expect(stopReason).toBe("error");
    expect(message).toStartWith("System One API error (400): floodxxx");
    expect(message.length).toBeLessThan(400);
    // What was sent past the first 8 KiB is what was in flight when the client let go, not an endless read.
    expect(endlessBytesSent).toBeLessThan(1024 * 1024);
  });
});
