/**
 * A custom tool call's free text as the `toolcall_delta` events carry it: whatever the text
 * holds (quotes, backslashes, line breaks, characters outside ASCII), the deltas join into the
 * JSON of the arguments the call ends with. The recorded stream in
 * test/ai/recorded-streams-custom-tool.test.ts holds none of these characters.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stream } from "../../../src/ai/providers/openai-responses.ts";
import type { Context, Model, ToolCall } from "../../../src/ai/types.ts";
import { startFakeLlm, type FakeLlmServer } from "../../support/fake-llm/server.ts";
import { collectStream } from "../../support/stream-helpers.ts";

let server: FakeLlmServer;
beforeAll(() => {
  server = startFakeLlm();
});
afterAll(async () => {
  await server.close();
});

const model = (): Model => ({
  id: "gpt-test",
  name: "GPT Test",
  api: "openai-responses",
  provider: "openai",
  baseUrl: server.baseUrl("openai-responses"),
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100_000,
  maxTokens: 1_000,
});

const context: Context = {
  messages: [{ role: "user", content: "Patch it.", timestamp: 1 }],
  tools: [{ name: "apply_patch", description: "Apply a patch", parameters: { type: "object", properties: { patch: { type: "string" } }, required: ["patch"] } as never }],
};

/** A response with one custom call: its input in `pieces`, then the finished item stating `finalInput`. */
function customCallStream(pieces: string[], finalInput = pieces.join("")): string {
  const item = { type: "custom_tool_call", id: "ctc_1", call_id: "call_1", name: "apply_patch", input: "" };
  const events = [
    { type: "response.created", sequence_number: 0, response: { id: "resp_1", model: "gpt-test", status: "in_progress", output: [] } },
    { type: "response.output_item.added", sequence_number: 1, output_index: 0, item },
    ...pieces.map((delta, at) => ({ type: "response.custom_tool_call_input.delta", sequence_number: 2 + at, output_index: 0, item_id: "ctc_1", delta })),
    { type: "response.output_item.done", sequence_number: 90, output_index: 0, item: { ...item, input: finalInput, status: "completed" } },
    { type: "response.completed", sequence_number: 91, response: { id: "resp_1", model: "gpt-test", status: "completed", output: [], usage: { input_tokens: 5, output_tokens: 7 } } },
  ];
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
}

async function run(body: string) {
  server.enqueue({ type: "raw", body });
  const { events, message } = await collectStream(stream(model(), context, { apiKey: "k" }));
  const deltas = events.flatMap((event) => (event.type === "toolcall_delta" ? [event.delta] : []));
  return { deltas, call: message.content.find((block): block is ToolCall => block.type === "toolCall")! };
}

describe("a custom tool call's input as toolcall_delta events", () => {
  test("text with quotes, backslashes, line breaks and non-ASCII characters joins into the arguments' JSON", async () => {
    const pieces = ['*** Begin Patch\n+const s = "a\\b";', "\r\n\t+// é ✓ 😀", "\n*** End Patch"];
    const { deltas, call } = await run(customCallStream(pieces));
    expect(call.arguments).toEqual({ patch: pieces.join("") });
    expect(deltas.length).toBe(pieces.length + 1);
    expect(JSON.parse(deltas.join(""))).toEqual(call.arguments);
  });

  test("a call with no text still ends its deltas as whole JSON", async () => {
    const { deltas, call } = await run(customCallStream([]));
    expect(call.arguments).toEqual({ patch: "" });
    expect(JSON.parse(deltas.join(""))).toEqual({ patch: "" });
  });

  test("a finished item stating other text than was streamed: the call takes the finished text, the deltas stay valid JSON", async () => {
    const { deltas, call } = await run(customCallStream(["first draft"], "the real input"));
    expect(call.arguments).toEqual({ patch: "the real input" });
    expect(() => JSON.parse(deltas.join(""))).not.toThrow();
  });
});
