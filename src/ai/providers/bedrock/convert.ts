/**
 * A provider-neutral Context as the body of a Bedrock Converse request:
 * `system`, `messages` (user / assistant turns, strictly alternating: tool results
 * and the user's next words share one user turn), `toolConfig`, `inferenceConfig`,
 * and Claude's thinking in `additionalModelRequestFields`. JSON blobs (images,
 * redacted reasoning) travel base64, as the REST protocol carries them.
 */
import type { AssistantMessage, CacheRetention, Context, ImageContent, Model, TextContent, ToolResultMessage, UserMessage } from "../../types.ts";
import { normalizeAnthropicToolCallId } from "../anthropic-convert.ts";
import { transformMessages } from "../transform-messages.ts";

type ContentBlock = Record<string, unknown>;
export interface ConverseMessage {
  role: "user" | "assistant";
  content: ContentBlock[];
}

export interface ConverseRequest {
  messages: ConverseMessage[];
  system?: ContentBlock[];
  toolConfig?: { tools: { toolSpec: { name: string; description: string; inputSchema: { json: unknown } } }[] };
  inferenceConfig: { maxTokens: number; temperature?: number };
  additionalModelRequestFields?: Record<string, unknown>;
}

const IMAGE_FORMATS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpeg", "image/jpg": "jpeg", "image/gif": "gif", "image/webp": "webp" };

/** Whether the model takes cachePoint blocks (the catalog says so for Claude; models.json may for others). */
function takesCachePoints(model: Model): boolean {
  return model.compat?.supportsCachePoints === true;
}

/** Whether the model reasons with Anthropic's thinking budget (Claude, by its catalog entry). */
export function thinksByBudget(model: Model): boolean {
  return model.reasoning && model.compat?.supportsBudgetThinking === true;
}

function image(block: ImageContent): ContentBlock {
  const format = IMAGE_FORMATS[block.mimeType.toLowerCase()];
  if (!format) return { text: `(an image of type ${block.mimeType}, which Bedrock cannot take, was left out)` };
  return { image: { format, source: { bytes: block.data } } };
}

/** Bedrock rejects empty text blocks. */
function userContent(content: UserMessage["content"] | ToolResultMessage["content"]): ContentBlock[] {
  if (typeof content === "string") return content ? [{ text: content }] : [];
  return content.flatMap((block: TextContent | ImageContent) => (block.type === "text" ? (block.text ? [{ text: block.text }] : []) : [image(block)]));
}

function assistantContent(message: AssistantMessage): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text) blocks.push({ text: block.text });
    } else if (block.type === "thinking") {
      // transformMessages kept thinking only for this same model; without its signature it cannot go back.
      if (block.redacted && block.thinkingSignature) blocks.push({ reasoningContent: { redactedContent: block.thinkingSignature } });
      else if (block.thinkingSignature) blocks.push({ reasoningContent: { reasoningText: { text: block.thinking, signature: block.thinkingSignature } } });
      else if (block.thinking.trim()) blocks.push({ text: block.thinking });
    } else {
      blocks.push({ toolUse: { toolUseId: block.id, name: block.name, input: block.arguments ?? {} } });
    }
  }
  return blocks;
}

function toolResult(message: ToolResultMessage): ContentBlock {
  const content = userContent(message.content);
  return {
    toolResult: {
      toolUseId: message.toolCallId,
      content: content.length > 0 ? content : [{ text: message.isError ? "(error)" : "(no output)" }],
      status: message.isError ? "error" : "success",
    },
  };
}

/** Appends to the last turn when the role repeats: Converse wants user and assistant to alternate. */
function push(messages: ConverseMessage[], role: ConverseMessage["role"], content: ContentBlock[]): void {
  if (content.length === 0) return;
  const last = messages.at(-1);
  if (last?.role === role) last.content.push(...content);
  else messages.push({ role, content });
}

export function convertMessages(context: Context, model: Model): ConverseMessage[] {
  const messages: ConverseMessage[] = [];
  for (const message of transformMessages(context.messages, model, { normalizeToolCallId: normalizeAnthropicToolCallId })) {
    if (message.role === "user") push(messages, "user", userContent(message.content));
    else if (message.role === "toolResult") push(messages, "user", [toolResult(message)]);
    else push(messages, "assistant", assistantContent(message));
  }
  return messages;
}

export interface ConvertOptions {
  maxTokens: number;
  temperature?: number;
  /** Claude's thinking budget in tokens; absent means no thinking parameters. */
  thinkingBudget?: number;
  cacheRetention?: CacheRetention;
}

export function buildConverseRequest(model: Model, context: Context, options: ConvertOptions): ConverseRequest {
  const request: ConverseRequest = {
    messages: convertMessages(context, model),
    inferenceConfig: { maxTokens: options.maxTokens },
  };
  const caching = takesCachePoints(model) && options.cacheRetention !== "none";
  if (context.systemPrompt) {
    request.system = [{ text: context.systemPrompt }];
    // The system prompt and tools are the same every turn: cache them.
    if (caching) request.system.push({ cachePoint: { type: "default" } });
  }
  if (context.tools?.length) {
    request.toolConfig = {
      tools: context.tools.map((tool) => ({
        toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: JSON.parse(JSON.stringify(tool.parameters)) } },
      })),
    };
  }
  if (options.thinkingBudget !== undefined && thinksByBudget(model)) {
    request.additionalModelRequestFields = { thinking: { type: "enabled", budget_tokens: options.thinkingBudget } };
  } else if (options.temperature !== undefined) {
    // Claude refuses a temperature while thinking.
    request.inferenceConfig.temperature = options.temperature;
  }
  // And the conversation so far: at the last user turn, and at the one before, where the previous
  // request's prompt ended — so this one reads it back even after a turn of many parallel tool
  // calls, which puts it beyond the 20 blocks a cache point looks back (docs/costs.md).
  if (caching) {
    const userTurns = request.messages.filter((message) => message.role === "user");
    for (const message of userTurns.slice(-2)) message.content.push({ cachePoint: { type: "default" } });
  }
  return request;
}
