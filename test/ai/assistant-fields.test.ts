/**
 * The fields pi 1.6.0 puts on an assistant message beyond the seed's, as an editor sees
 * them over RPC and as the session file keeps them: `rawStopReason` (the provider's own
 * stop reason), `usage.reasoning` (reasoning tokens among the output, where the API counts
 * them) and `cost.totalFromProvider` (true when `cost.total` is what the provider billed:
 * OpenRouter's `usage.cost`). Each API's stream is served verbatim by the fake LLM server.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { makeTestHome, type TestHome } from "../support/cli.ts";
import { startFakeLlm, type FakeApi, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { startRpc, type Frame, type RpcProcess } from "../support/rpc-harness.ts";

const WAIT = 30_000;

interface Rig {
  server: FakeLlmServer;
  home: TestHome;
  rpc: RpcProcess;
}
const rigs: Rig[] = [];

afterEach(async () => {
  for (const rig of rigs.splice(0)) {
    rig.rpc.kill();
    await rig.rpc.proc.exited;
    await rig.server.close();
    rig.home.cleanup();
  }
});

/** xcsh over RPC with one provider (named `provider`) of `api` at the fake server. */
function rig(api: FakeApi, provider = "fake", model: Record<string, unknown> = {}): Rig {
  const server = startFakeLlm();
  const home = makeTestHome();
  home.writeModelsJson({ providers: { [provider]: { baseUrl: server.baseUrl(api), api, apiKey: "test-key-value", models: [{ id: "m", ...model }] } } });
  const cwd = `${home.home}/project`;
  Bun.spawnSync(["mkdir", "-p", cwd]);
  const rpc = startRpc({ env: home.env, cwd, args: ["--model", `${provider}/m`] });
  const made = { server, home, rpc };
  rigs.push(made);
  return made;
}

/** Prompts and returns the assistant message of message_end, and the same message as the session file keeps it. */
async function answer(target: Rig): Promise<{ frame: Frame; stored: Frame }> {
  const from = target.rpc.mark();
  await target.rpc.request({ type: "prompt", message: "hi" }, WAIT);
  const end = await target.rpc.waitForEvent("message_end", (frame) => frame.message.role === "assistant", WAIT, from);
  await target.rpc.waitForEvent("agent_end", () => true, WAIT, from);
  const state = await target.rpc.request({ type: "get_state" }, WAIT);
  const lines = readFileSync(state.data.sessionFile, "utf8").trim().split("\n").map((line) => JSON.parse(line));
  const stored = lines.filter((entry) => entry.type === "message" && entry.message.role === "assistant").at(-1)!.message;
  return { frame: end.message, stored };
}

const sse = (events: [string | undefined, unknown][]) =>
  events.map(([event, data]) => `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`).join("");

const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ id: "gen-1", object: "chat.completion.chunk", created: 1, model: "m", choices, ...extra });

/** A Chat Completions answer whose usage counts reasoning tokens, with `usageExtra` beside them (OpenRouter's billing fields). */
function completionsBody(usageExtra: Record<string, unknown>): string {
  return sse([
    [undefined, chunk([{ index: 0, delta: { role: "assistant", content: "Hi" }, finish_reason: null }])],
    [undefined, chunk([{ index: 0, delta: {}, finish_reason: "stop" }])],
    [undefined, chunk([], { usage: { prompt_tokens: 100, completion_tokens: 40, total_tokens: 140, completion_tokens_details: { reasoning_tokens: 25 }, ...usageExtra } })],
    [undefined, "[DONE]"],
  ]);
}

describe("rawStopReason and usage.reasoning from each API", () => {
  test("Chat Completions: finish_reason and completion_tokens_details.reasoning_tokens; the catalog estimate is marked as such", async () => {
    const target = rig("openai-completions");
    target.server.enqueue({ type: "raw", body: completionsBody({}) });
    const { frame, stored } = await answer(target);
    for (const message of [frame, stored]) {
      expect(message.stopReason).toBe("stop");
      expect(message.rawStopReason).toBe("stop");
      expect(message.usage.output).toBe(40);
      expect(message.usage.reasoning).toBe(25);
      expect(message.usage.cost.totalFromProvider).toBe(false);
    }
  });

  test("Chat Completions through the fake server's own encoder: a tool call's finish_reason is kept verbatim", async () => {
    const target = rig("openai-completions");
    target.server.enqueue({ content: [{ type: "toolCall", name: "ls", arguments: {} }] }, { content: [{ type: "text", text: "Done." }] });
    const from = target.rpc.mark();
    await target.rpc.request({ type: "prompt", message: "list" }, WAIT);
    await target.rpc.waitForEvent("agent_end", () => true, WAIT, from);
    const answers = target.rpc.ofType("message_end", from).filter((frame) => frame.message.role === "assistant");
    expect(answers.map((frame) => [frame.message.stopReason, frame.message.rawStopReason])).toEqual([
      ["toolUse", "tool_calls"],
      ["stop", "stop"],
    ]);
    // The encoder reports reasoning_tokens: 0, which is a count, not an absence.
    expect(answers[0]!.message.usage.reasoning).toBe(0);
  });

  test("Anthropic: stop_reason, and output_tokens_details.thinking_tokens where the server sends it", async () => {
    const target = rig("anthropic-messages");
    const message = { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } };
    const body = sse([
      ["message_start", { type: "message_start", message }],
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 30, output_tokens_details: { thinking_tokens: 18 } } }],
      ["message_stop", { type: "message_stop" }],
    ]);
    target.server.enqueue({ type: "raw", body });
    const { frame, stored } = await answer(target);
    for (const answered of [frame, stored]) {
      expect(answered.rawStopReason).toBe("end_turn");
      expect(answered.usage.reasoning).toBe(18);
    }
  });

  test("Anthropic without a reasoning count leaves usage.reasoning out", async () => {
    const target = rig("anthropic-messages");
    target.server.enqueue({ content: [{ type: "text", text: "Hi" }] });
    const { frame } = await answer(target);
    expect(frame.rawStopReason).toBe("end_turn");
    expect("reasoning" in frame.usage).toBe(false);
  });

  test("OpenAI Responses: the status with its incomplete reason, and output_tokens_details.reasoning_tokens", async () => {
    const target = rig("openai-responses");
    const item = { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Hi", annotations: [] }] };
    const usage = { input_tokens: 20, input_tokens_details: { cached_tokens: 0 }, output_tokens: 50, output_tokens_details: { reasoning_tokens: 35 }, total_tokens: 70 };
    const body = sse([
      ["response.created", { type: "response.created", sequence_number: 0, response: { id: "resp_1", object: "response", status: "in_progress", model: "m", output: [] } }],
      ["response.output_item.added", { type: "response.output_item.added", sequence_number: 1, output_index: 0, item: { ...item, status: "in_progress", content: [] } }],
      ["response.output_text.delta", { type: "response.output_text.delta", sequence_number: 2, item_id: "msg_1", output_index: 0, content_index: 0, delta: "Hi" }],
      ["response.output_item.done", { type: "response.output_item.done", sequence_number: 3, output_index: 0, item }],
      ["response.incomplete", { type: "response.incomplete", sequence_number: 4, response: { id: "resp_1", object: "response", status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, model: "m", output: [item], usage } }],
    ]);
    target.server.enqueue({ type: "raw", body });
    const { frame, stored } = await answer(target);
    for (const answered of [frame, stored]) {
      expect(answered.stopReason).toBe("length");
      expect(answered.rawStopReason).toBe("incomplete.max_output_tokens");
      expect(answered.usage.reasoning).toBe(35);
    }
  });

  test("Gemini: finishReason, and thoughtsTokenCount (counted in the output too)", async () => {
    const target = rig("google-generative-ai");
    const body = sse([
      [undefined, { candidates: [{ content: { role: "model", parts: [{ text: "Hi" }] }, index: 0 }], modelVersion: "m", responseId: "r1" }],
      [undefined, { candidates: [{ content: { role: "model", parts: [{ text: "!" }] }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 7, totalTokenCount: 22 }, modelVersion: "m", responseId: "r1" }],
    ]);
    target.server.enqueue({ type: "raw", body });
    const { frame, stored } = await answer(target);
    for (const answered of [frame, stored]) {
      expect(answered.rawStopReason).toBe("STOP");
      expect(answered.usage.reasoning).toBe(7);
      expect(answered.usage.output).toBe(12);
    }
  });
});

describe("cost.totalFromProvider: the cost OpenRouter billed", () => {
  const priced = { cost: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0 } };

  test("OpenRouter's usage.cost for a request it paid for becomes cost.total, in frames, the session file and session stats", async () => {
    const target = rig("openai-completions", "openrouter", priced);
    target.server.enqueue({ type: "raw", body: completionsBody({ cost: 0.0123, is_byok: false }) });
    const { frame, stored } = await answer(target);
    for (const message of [frame, stored]) {
      expect(message.usage.cost.total).toBe(0.0123);
      expect(message.usage.cost.totalFromProvider).toBe(true);
      // The per-kind parts stay the catalog's estimate.
      expect(message.usage.cost.input).toBe(0.0001);
      expect(message.usage.cost.output).toBe(0.00008);
    }
    const stats = await target.rpc.request({ type: "get_session_stats" }, WAIT);
    expect(stats.data.cost).toBe(0.0123);
  });

  test("with the user's own upstream key the bill is OpenRouter's fee plus the upstream cost", async () => {
    const target = rig("openai-completions", "openrouter", priced);
    target.server.enqueue({ type: "raw", body: completionsBody({ cost: 0.001, is_byok: true, cost_details: { upstream_inference_cost: 0.02 } }) });
    const { frame } = await answer(target);
    expect(frame.usage.cost.total).toBe(0.021);
    expect(frame.usage.cost.totalFromProvider).toBe(true);
  });

  test("an incomplete report keeps the catalog estimate", async () => {
    const target = rig("openai-completions", "openrouter", priced);
    target.server.enqueue({ type: "raw", body: completionsBody({ cost: 0.001, is_byok: true }) });
    const { frame } = await answer(target);
    expect(frame.usage.cost.total).toBe(0.00018);
    expect(frame.usage.cost.totalFromProvider).toBe(false);
  });

  test("another provider's usage.cost is not taken for a bill", async () => {
    const target = rig("openai-completions", "fake", priced);
    target.server.enqueue({ type: "raw", body: completionsBody({ cost: 5, is_byok: false }) });
    const { frame } = await answer(target);
    expect(frame.usage.cost.total).toBe(0.00018);
    expect(frame.usage.cost.totalFromProvider).toBe(false);
  });
});
