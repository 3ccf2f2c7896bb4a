/**
 * How a conversation becomes a Converse request: turns alternate (tool results and the
 * user's next words share a user turn), tool-call ids from other APIs are made
 * acceptable to Bedrock the same way on the call and its result, images travel as
 * base64 blobs, empty text is left out, and thinking goes only to Claude.
 */
import { describe, expect, test } from "bun:test";
import { buildConverseRequest } from "../../src/ai/providers/bedrock/convert.ts";
import type { AssistantMessage, Context, Model } from "../../src/ai/types.ts";
import { getModels } from "../../src/ai/models.ts";
import { emptyUsage } from "../../src/ai/usage.ts";

const model = (id: string): Model => ({
  id,
  name: id,
  api: "bedrock-converse-stream",
  provider: "amazon-bedrock",
  baseUrl: "https://bedrock-runtime.us-east-1.amazonaws.com",
  reasoning: true,
  input: ["text", "image"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 200_000,
  maxTokens: 8192,
});
/** Claude as the catalog describes it: what it takes is data (compat), not its name. */
const CLAUDE: Model = { ...model("us.anthropic.claude-sonnet-4-20250514-v1:0"), compat: { supportsCachePoints: true, supportsBudgetThinking: true } };
const NOVA = model("amazon.nova-pro-v1:0");

function foreignCall(id: string): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "toolCall", id, name: "read", arguments: { path: "a" } }],
    api: "openai-responses",
    provider: "openai",
    model: "gpt-5",
    usage: emptyUsage(),
    stopReason: "toolUse",
    timestamp: 0,
  };
}

describe("Converse requests", () => {
  test("tool results and the next user words share one user turn; foreign ids are normalized on both sides", () => {
    const context: Context = {
      messages: [
        { role: "user", content: "look", timestamp: 0 },
        foreignCall("call_1|fc_abc"),
        { role: "toolResult", toolCallId: "call_1|fc_abc", toolName: "read", content: [{ type: "text", text: "file text" }], isError: false, timestamp: 0 },
        { role: "user", content: "and now?", timestamp: 0 },
      ],
    };
    const { messages } = buildConverseRequest(NOVA, context, { maxTokens: 100 });
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    const toolUseId = (messages[1].content[0] as any).toolUse.toolUseId;
    expect(toolUseId).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(messages[2].content).toEqual([
      { toolResult: { toolUseId, content: [{ text: "file text" }], status: "success" } },
      { text: "and now?" },
    ]);
  });

  test("images are base64 blobs with their format; empty text is dropped; an empty error result still says something", () => {
    const context: Context = {
      messages: [
        { role: "user", content: [{ type: "text", text: "" }, { type: "image", data: "aGVsbG8=", mimeType: "image/png" }], timestamp: 0 },
        foreignCall("t1"),
        { role: "toolResult", toolCallId: "t1", toolName: "read", content: [], isError: true, timestamp: 0 },
      ],
    };
    const { messages } = buildConverseRequest(NOVA, context, { maxTokens: 100 });
    expect(messages[0].content).toEqual([{ image: { format: "png", source: { bytes: "aGVsbG8=" } } }]);
    expect((messages[2].content[0] as any).toolResult).toMatchObject({ status: "error", content: [{ text: "(error)" }] });
  });

  test("thinking and cache points are Claude's; other models get the temperature instead", () => {
    const context: Context = { systemPrompt: "sys", messages: [{ role: "user", content: "hi", timestamp: 0 }] };
    const claude = buildConverseRequest(CLAUDE, context, { maxTokens: 8192, thinkingBudget: 2048, temperature: 0.5 });
    expect(claude.additionalModelRequestFields).toEqual({ thinking: { type: "enabled", budget_tokens: 2048 } });
    expect(claude.inferenceConfig).toEqual({ maxTokens: 8192 });
    expect(claude.system).toEqual([{ text: "sys" }, { cachePoint: { type: "default" } }]);
    const nova = buildConverseRequest(NOVA, context, { maxTokens: 8192, thinkingBudget: 2048, temperature: 0.5 });
    expect(nova.additionalModelRequestFields).toBeUndefined();
    expect(nova.inferenceConfig).toEqual({ maxTokens: 8192, temperature: 0.5 });
    expect(nova.system).toEqual([{ text: "sys" }]);
    const uncached = buildConverseRequest(CLAUDE, context, { maxTokens: 8192, cacheRetention: "none" });
    expect(JSON.stringify(uncached)).not.toContain("cachePoint");
    // A name alone decides nothing: a Claude-named model without the switches gets neither.
    const bare = buildConverseRequest(model("us.anthropic.claude-house-v1:0"), context, { maxTokens: 8192, thinkingBudget: 2048, temperature: 0.5 });
    expect(bare.additionalModelRequestFields).toBeUndefined();
    expect(JSON.stringify(bare)).not.toContain("cachePoint");
  });

  test("the catalog gives every Claude on Bedrock both switches, and no other model either", () => {
    const models = getModels("amazon-bedrock");
    const claude = models.filter((entry) => /(^|[.:/])anthropic\.claude/.test(entry.id));
    expect(claude.length).toBeGreaterThan(10);
    for (const entry of claude) expect(entry.compat).toMatchObject({ supportsCachePoints: true, supportsBudgetThinking: true });
    for (const entry of models.filter((other) => !claude.includes(other))) {
      expect(entry.compat?.supportsCachePoints).toBeUndefined();
      expect(entry.compat?.supportsBudgetThinking).toBeUndefined();
    }
  });
});
