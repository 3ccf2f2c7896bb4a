/**
 * Turns a provider-neutral Context into the body of an Anthropic Messages
 * request: system prompt, messages (with tool results grouped the way the API
 * wants them), tools and prompt-cache breakpoints. Only SDK *types* are used
 * here, so this module costs nothing at load time.
 */
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  ImageBlockParam,
  MessageParam,
  TextBlockParam,
  Tool as AnthropicTool,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import type {
  AssistantMessage,
  CacheRetention,
  Context,
  ImageContent,
  Model,
  TextContent,
  Tool,
  ToolResultMessage,
  UserMessage,
} from "../types.ts";
import { transformMessages } from "./transform-messages.ts";

/** Anthropic's rule for tool_use ids. */
const TOOL_ID_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_TOOL_ID_LENGTH = 64;

/** Stable 32-bit FNV-1a hash, in base 36: keeps shortened ids distinct. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}

/**
 * Makes a tool-call id from another API (e.g. OpenAI Responses' `call_…|fc_…`)
 * acceptable to Anthropic. Pure and deterministic, because it is applied to the
 * call and to its result separately and both must come out the same.
 */
export function normalizeAnthropicToolCallId(id: string): string {
  if (TOOL_ID_PATTERN.test(id)) return id;
  // Replacing or cutting characters could make two ids equal ("a|b" and "a.b");
  // a hash of the original keeps them apart.
  const suffix = `_${shortHash(id)}`;
  const head = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_TOOL_ID_LENGTH - suffix.length);
  return (head || "toolu") + suffix;
}

export function cacheControlFor(model: Model, retention: CacheRetention | undefined): CacheControlEphemeral | undefined {
  const effective = retention ?? "short";
  if (effective === "none") return undefined;
  if (effective === "long" && model.compat?.supportsLongCacheRetention !== false) return { type: "ephemeral", ttl: "1h" };
  return { type: "ephemeral" };
}

// --- content ------------------------------------------------------------

type UserContentBlock = TextBlockParam | ImageBlockParam;
type AnthropicImageType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";
const IMAGE_TYPES: readonly string[] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

function imageBlock(image: ImageContent, model: Model): UserContentBlock {
  // A text-only model would reject the request outright; tell it an image was there instead.
  if (!model.input.includes("image")) return { type: "text", text: "(image omitted: this model does not accept images)" };
  if (!IMAGE_TYPES.includes(image.mimeType)) return { type: "text", text: `(image omitted: unsupported type ${image.mimeType})` };
  return { type: "image", source: { type: "base64", media_type: image.mimeType as AnthropicImageType, data: image.data } };
}

/** Text and images as Anthropic blocks; empty text is dropped (the API rejects it). */
function contentBlocks(content: string | (TextContent | ImageContent)[], model: Model): UserContentBlock[] {
  if (typeof content === "string") return content.trim() ? [{ type: "text", text: content }] : [];
  const blocks: UserContentBlock[] = [];
  for (const part of content) {
    if (part.type === "text") {
      if (part.text.trim()) blocks.push({ type: "text", text: part.text });
    } else {
      blocks.push(imageBlock(part, model));
    }
  }
  return blocks;
}

function assistantBlocks(message: AssistantMessage, allowEmptySignature: boolean): ContentBlockParam[] {
  const blocks: ContentBlockParam[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text.trim()) blocks.push({ type: "text", text: block.text });
    } else if (block.type === "thinking") {
      if (block.redacted) {
        if (block.thinkingSignature) blocks.push({ type: "redacted_thinking", data: block.thinkingSignature });
      } else if (block.thinkingSignature) {
        blocks.push({ type: "thinking", thinking: block.thinking, signature: block.thinkingSignature });
      } else if (block.thinking.trim()) {
        // Unsigned thinking is rejected by Anthropic: keep what was said as plain text. Some
        // compatible servers send and take empty signatures (compat.allowEmptySignature).
        blocks.push(allowEmptySignature ? { type: "thinking", thinking: block.thinking, signature: "" } : { type: "text", text: block.thinking });
      }
    } else {
      blocks.push({ type: "tool_use", id: block.id, name: block.name, input: block.arguments ?? {} });
    }
  }
  return blocks;
}

function toolResultBlock(message: ToolResultMessage, model: Model): ToolResultBlockParam {
  const result: ToolResultBlockParam = { type: "tool_result", tool_use_id: message.toolCallId };
  const content = contentBlocks(message.content, model);
  if (content.length > 0) result.content = content;
  if (message.isError) result.is_error = true;
  return result;
}

// --- messages -------------------------------------------------------------

/**
 * The conversation as Anthropic messages. Consecutive tool results (and a user
 * message typed right after them) share one user turn, tool_result blocks first,
 * as the API requires.
 */
export function convertMessages(context: Context, model: Model): MessageParam[] {
  const messages = transformMessages(context.messages, model, { normalizeToolCallId: normalizeAnthropicToolCallId });
  const out: MessageParam[] = [];

  const pushUser = (blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === "user" && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role: "user", content: blocks });
  };

  for (const message of messages) {
    if (message.role === "user") {
      pushUser(contentBlocks((message as UserMessage).content, model));
    } else if (message.role === "toolResult") {
      pushUser([toolResultBlock(message, model)]);
    } else {
      const blocks = assistantBlocks(message, model.compat?.allowEmptySignature === true);
      // An empty assistant turn is rejected by the API and carries nothing.
      if (blocks.length > 0) out.push({ role: "assistant", content: blocks });
    }
  }
  return out;
}

/**
 * Marks the last block of the last two user messages as cache breakpoints. The last one
 * writes this request's prompt to the cache. The one before ends exactly where the
 * previous request's prompt ended — the entry that request wrote — so this request reads
 * it whatever came between. The service looks for an entry at a breakpoint and at most 20
 * blocks before it; one breakpoint alone misses after a turn of many parallel tool calls
 * (ten reads are twenty blocks) and the whole conversation is written to the cache again.
 * With the tools and the system prompt that is four breakpoints, the most a request takes.
 */
export function markLastUserMessage(messages: MessageParam[], cacheControl: CacheControlEphemeral): void {
  let marked = 0;
  for (let i = messages.length - 1; i >= 0 && marked < 2; i--) {
    const message = messages[i];
    if (message.role !== "user" || !Array.isArray(message.content) || message.content.length === 0) continue;
    const block = message.content[message.content.length - 1];
    // User turns built here only hold text, image and tool_result blocks, which all take a breakpoint.
    if (block.type === "text" || block.type === "image" || block.type === "tool_result") block.cache_control = cacheControl;
    marked++;
  }
}

export function convertSystemPrompt(systemPrompt: string | undefined, cacheControl: CacheControlEphemeral | undefined): TextBlockParam[] | undefined {
  if (!systemPrompt?.trim()) return undefined;
  const block: TextBlockParam = { type: "text", text: systemPrompt };
  if (cacheControl) block.cache_control = cacheControl;
  return [block];
}

/** The tools as Anthropic definitions; `cacheControl` marks the last one as a cache breakpoint. */
export function convertTools(tools: Tool[], model: Model, cacheControl?: CacheControlEphemeral): AnthropicTool[] {
  const eager = model.compat?.supportsEagerToolInputStreaming !== false;
  return tools.map((tool, index) => {
    const converted: AnthropicTool = {
      name: tool.name,
      description: tool.description,
      // A typebox schema is plain JSON Schema with `type: "object"` at the top.
      input_schema: tool.parameters as unknown as AnthropicTool.InputSchema,
    };
    // Streams the arguments as they are generated instead of after validation.
    if (eager) converted.eager_input_streaming = true;
    if (cacheControl && index === tools.length - 1) converted.cache_control = cacheControl;
    return converted;
  });
}
