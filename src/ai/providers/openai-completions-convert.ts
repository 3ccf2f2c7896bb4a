/**
 * Request side of the Chat Completions provider: turning a provider-neutral Context
 * into the request body the server's dialect accepts. The dialect itself (the compat
 * switches) is decided in openai-completions-compat.ts. Kept free of the SDK at
 * runtime so loading it costs nothing.
 */
import { applySamplingParams, samplingParamsFor } from "./sampling-params.ts";
import type { AssistantMessage, CacheRetention, Context, ImageContent, Model, ModelThinkingLevel, TextContent, ToolResultMessage, UserMessage } from "../types.ts";
import type { ResolvedCompat, ToolCallIdFormat } from "./openai-completions-compat.ts";
import { transformMessages } from "./transform-messages.ts";
import { giveWayToExtensionMarks, MAX_CACHE_BREAKPOINTS, type Marked } from "./anthropic-breakpoints.ts";

// The provider and the tests reach the dialect through the converter, its one request-side entry.
export { detectCompat, type ResolvedCompat, type ThinkingFormat, type ToolCallIdFormat } from "./openai-completions-compat.ts";

// --- wire shapes ------------------------------------------------------------

interface CacheControl {
  type: "ephemeral";
  ttl?: "1h";
}

export type WireContentPart =
  | { type: "text"; text: string; cache_control?: CacheControl }
  | { type: "image_url"; image_url: { url: string } };

export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** The reasoning fields compatible servers stream, in order of preference. */
export const REASONING_FIELDS = ["reasoning_content", "reasoning", "reasoning_text"] as const;
export type ReasoningField = (typeof REASONING_FIELDS)[number];

export interface WireMessage extends Partial<Record<ReasoningField, string>> {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content: string | WireContentPart[] | null;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface WireTool {
  type: "function";
  function: { name: string; description: string; parameters: unknown; strict?: boolean };
  cache_control?: CacheControl;
}

/** The request body. Extra dialect fields (enable_thinking, provider, …) ride along. */
export interface CompletionsPayload {
  model: string;
  messages: WireMessage[];
  stream: true;
  stream_options?: { include_usage: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  tools?: WireTool[];
  tool_choice?: unknown;
  [field: string]: unknown;
}

// --- messages ---------------------------------------------------------------

/** OpenAI accepts ids of at most 40 characters from [A-Za-z0-9_-]; Responses ids are "call|item" pairs. */
export function normalizeToolCallId(id: string): string {
  const base = id.includes("|") ? id.slice(0, id.indexOf("|")) : id;
  return base.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40);
}

/**
 * Mistral accepts exactly nine letters and digits. Its own ids already are; any other id
 * (from another provider earlier in the session) becomes nine characters derived from
 * it, the same for a call and its result.
 */
export function mistralToolCallId(id: string): string {
  if (/^[A-Za-z0-9]{9}$/.test(id)) return id;
  // Two FNV-1a hashes with different seeds, in base 36: 9 characters, stable across runs.
  const hash = (seed: number) => {
    let h = seed;
    for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619) >>> 0;
    return h.toString(36).padStart(7, "0");
  };
  return (hash(2166136261) + hash(84696351)).slice(0, 9);
}

const TOOL_CALL_ID_FORMATS: Readonly<Record<ToolCallIdFormat, (id: string) => string>> = {
  openai: normalizeToolCallId,
  mistral: mistralToolCallId,
};

function imagePart(image: ImageContent): WireContentPart {
  return { type: "image_url", image_url: { url: `data:${image.mimeType};base64,${image.data}` } };
}

function userMessage(message: UserMessage, acceptsImages: boolean): WireMessage {
  if (typeof message.content === "string") return { role: "user", content: message.content };
  const parts: WireContentPart[] = [];
  for (const block of message.content) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (acceptsImages) parts.push(imagePart(block));
  }
  // A message whose images were all dropped would otherwise be empty, which servers reject.
  if (parts.length === 0) parts.push({ type: "text", text: "(image omitted: this model does not accept images)" });
  return { role: "user", content: parts };
}

function joinedText(blocks: (TextContent | ImageContent)[]): string {
  return blocks
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

function assistantMessage(message: AssistantMessage, compat: ResolvedCompat, reasoningOn: boolean): WireMessage | undefined {
  const texts: string[] = [];
  const thoughts: string[] = [];
  let reasoningField: ReasoningField = "reasoning_content";
  const toolCalls: WireToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text) texts.push(block.text);
    } else if (block.type === "thinking") {
      // Only this model's own thinking is still a thinking block (transformMessages made the rest text).
      if (block.redacted || !block.thinking) continue;
      if (compat.requiresThinkingAsText) texts.push(block.thinking);
      else thoughts.push(block.thinking);
      // The signature is the field the server streamed it in; send it back the same way.
      const field = REASONING_FIELDS.find((name) => name === block.thinkingSignature);
      if (field) reasoningField = field;
    } else {
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: JSON.stringify(block.arguments ?? {}) },
      });
    }
  }
  const wire: WireMessage = { role: "assistant", content: texts.length > 0 ? texts.join("\n\n") : compat.requiresNonNullAssistantContent ? "" : null };
  if (toolCalls.length > 0) wire.tool_calls = toolCalls;
  // Servers that need it get the reasoning back (empty when there was none); OpenAI rejects the field.
  if (compat.requiresReasoningContentOnAssistantMessages && (thoughts.length > 0 || reasoningOn)) {
    wire[reasoningField] = thoughts.join("\n\n");
  }
  if (!wire.content && !wire.tool_calls) return undefined;
  return wire;
}

function toolMessage(message: ToolResultMessage, compat: ResolvedCompat, acceptsImages: boolean): WireMessage {
  const text = joinedText(message.content);
  const hasImages = acceptsImages && message.content.some((block) => block.type === "image");
  const wire: WireMessage = {
    role: "tool",
    tool_call_id: message.toolCallId,
    // Tool messages carry text only; images follow in a user message.
    content: text || (hasImages ? "(image attached below)" : "(no output)"),
  };
  if (compat.requiresToolResultName) wire.name = message.toolName;
  return wire;
}

/** The messages array: system prompt, then the conversation in the dialect's shape. */
export function convertMessages(model: Model, context: Context, compat: ResolvedCompat, reasoningOn: boolean): WireMessage[] {
  const out: WireMessage[] = [];
  if (context.systemPrompt) {
    const role = model.reasoning && compat.supportsDeveloperRole ? "developer" : "system";
    out.push({ role, content: context.systemPrompt });
  }
  const acceptsImages = model.input.includes("image");
  let pendingImages: ImageContent[] = [];

  const push = (message: WireMessage) => {
    const previous = out[out.length - 1];
    // Some servers refuse a user turn straight after tool results.
    if (message.role === "user" && previous?.role === "tool" && compat.requiresAssistantAfterToolResult) {
      out.push({ role: "assistant", content: "I have processed the tool results." });
    }
    out.push(message);
  };
  // Tool messages must directly follow their assistant message, so images wait for the run to end.
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    const parts: WireContentPart[] = [{ type: "text", text: "Images returned by the tool calls above:" }];
    for (const image of pendingImages) parts.push(imagePart(image));
    pendingImages = [];
    push({ role: "user", content: parts });
  };

  const normalize = TOOL_CALL_ID_FORMATS[compat.toolCallIdFormat] ?? normalizeToolCallId;
  for (const message of transformMessages(context.messages, model, { normalizeToolCallId: normalize })) {
    if (message.role === "toolResult") {
      push(toolMessage(message, compat, acceptsImages));
      if (acceptsImages) pendingImages.push(...message.content.filter((b): b is ImageContent => b.type === "image"));
      continue;
    }
    flushImages();
    if (message.role === "user") {
      push(userMessage(message, acceptsImages));
    } else {
      const wire = assistantMessage(message, compat, reasoningOn);
      if (wire) push(wire);
    }
  }
  flushImages();
  return out;
}

// --- prompt caching -----------------------------------------------------------

/**
 * Anthropic-style cache breakpoints for a Chat Completions gateway (OpenRouter): the system
 * prompt, the last tool, and the last two user turns — as anthropic-convert.ts marks them, so a
 * tool loop reads the previous request's whole prompt from the cache. A turn is a user message
 * or a run of tool results (the gateway makes one Anthropic user turn of consecutive tool
 * messages, and of the user message carrying their images). OpenRouter takes `cache_control`
 * on a message's text parts (a tool message's content may be text parts too) and allows four
 * breakpoints: these are at most four.
 */
function addCacheControl(payload: CompletionsPayload, marker: CacheControl): void {
  const mark = (message: WireMessage): boolean => {
    if (typeof message.content === "string") {
      if (!message.content) return false;
      message.content = [{ type: "text", text: message.content, cache_control: marker }];
      return true;
    }
    const parts = message.content ?? [];
    for (let i = parts.length - 1; i >= 0; i--) {
      const part = parts[i];
      if (part.type === "text") {
        part.cache_control = marker;
        return true;
      }
    }
    return false;
  };
  const system = payload.messages.find((m) => m.role === "system" || m.role === "developer");
  if (system) mark(system);
  const lastTool = payload.tools?.[payload.tools.length - 1];
  if (lastTool) lastTool.cache_control = marker;
  let turns = 0;
  let markedThisTurn = false;
  for (let i = payload.messages.length - 1; i >= 0 && turns < 2; i--) {
    const message = payload.messages[i];
    if (message.role !== "user" && message.role !== "tool") {
      // An assistant (or system) message ends the turn below it.
      if (markedThisTurn) turns++;
      markedThisTurn = false;
      continue;
    }
    if (!markedThisTurn) markedThisTurn = mark(message);
  }
}

/**
 * An extension's `before_provider_request` may add `cache_control` marks of its own beside
 * xcsh's four, and a fifth is refused. Then xcsh's user-turn marks give way, the earlier
 * turn's first (as anthropic-breakpoints.ts does for Anthropic), so the extension's stand.
 * Only for a payload in the Anthropic cache format; anything else is left as it is.
 */
export function fitCompletionsCacheBreakpoints(payload: unknown): void {
  const body = payload as Partial<CompletionsPayload> | undefined;
  if (!body || !Array.isArray(body.messages)) return;
  const isMarked = (value: unknown) => typeof value === "object" && value !== null && (value as { cache_control?: unknown }).cache_control != null;
  const partsOf = (message: WireMessage) => (Array.isArray(message?.content) ? message.content : []);
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const markCount = tools.filter(isMarked).length + body.messages.flatMap(partsOf).filter(isMarked).length;
  if (markCount <= MAX_CACHE_BREAKPOINTS) return;
  // The last marked text part of each of the last two user turns, latest first: where xcsh marks.
  const turnMarks: Marked[] = [];
  let inTurn = false;
  for (let i = body.messages.length - 1; i >= 0 && turnMarks.length < 2; i--) {
    const message = body.messages[i];
    if (message?.role !== "user" && message?.role !== "tool") {
      inTurn = false;
      continue;
    }
    if (inTurn) continue;
    const mark = partsOf(message).filter(isMarked).at(-1);
    if (mark) {
      turnMarks.push(mark as Marked);
      inTurn = true;
    }
  }
  giveWayToExtensionMarks(markCount, turnMarks);
}

// --- reasoning ----------------------------------------------------------------

/** The thinking choice of one request, as the dialects' fields need it. */
interface ThinkingChoice {
  /** The provider value for the chosen level; undefined when thinking is off. */
  effort: string | undefined;
  /** The value the model's thinkingLevelMap gives for "off", when it names one. */
  offValue: string | undefined;
  /** The level's token budget, for `{"$var": "thinking.budget"}`. */
  budget: number | undefined;
}

/**
 * A chat-template field list (compat.chatTemplateArgs / chatTemplateKwargs) for this
 * request: plain values as they are; `{"$var": "thinking.enabled"}` whether thinking is
 * on, `"thinking.budget"` the token budget, any other `$var` the effort (or the off
 * value); `omitWhenOff` leaves a field out while thinking is off. Undefined when empty.
 */
function chatTemplateValues(template: Record<string, unknown> | undefined, choice: ThinkingChoice): Record<string, unknown> | undefined {
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(template ?? {})) {
    let resolved: unknown = value;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const spec = value as { $var?: unknown; omitWhenOff?: unknown };
      const on = choice.effort !== undefined;
      if (!on && spec.omitWhenOff) continue;
      if (spec.$var === "thinking.enabled") resolved = on;
      else if (spec.$var === "thinking.budget") resolved = on ? choice.budget : undefined;
      else resolved = choice.effort ?? choice.offValue;
    }
    if (resolved !== undefined) values[key] = resolved;
  }
  return Object.keys(values).length > 0 ? values : undefined;
}

/** Puts the reasoning choice into the dialect's fields. */
function applyReasoning(payload: CompletionsPayload, model: Model, compat: ResolvedCompat, choice: ThinkingChoice): void {
  if (!model.reasoning) return;
  const { effort, offValue } = choice;
  const on = effort !== undefined;
  switch (compat.thinkingFormat) {
    case "openai":
      // A model that reasons by default may name the value that turns it off.
      if (compat.supportsReasoningEffort && (effort ?? offValue)) payload.reasoning_effort = effort ?? offValue;
      break;
    case "openrouter":
      if (effort ?? offValue) payload.reasoning = { effort: effort ?? offValue };
      break;
    case "deepseek":
      payload.thinking = { type: on ? "enabled" : "disabled" };
      if (on && compat.supportsReasoningEffort) payload.reasoning_effort = effort;
      break;
    case "zai":
    case "qwen":
      payload.enable_thinking = on;
      break;
    case "qwen-chat-template":
      payload.chat_template_kwargs = { enable_thinking: on };
      break;
    case "together":
      payload.reasoning = { enabled: on };
      if (on && compat.supportsReasoningEffort) payload.reasoning_effort = effort;
      break;
    case "baseten": {
      const args = chatTemplateValues(compat.chatTemplateArgs, choice);
      if (args) payload.chat_template_args = args;
      if (compat.supportsReasoningEffort && (effort ?? offValue)) payload.reasoning_effort = effort ?? offValue;
      break;
    }
    case "chat-template": {
      const kwargs = chatTemplateValues(compat.chatTemplateKwargs, choice);
      if (kwargs) payload.chat_template_kwargs = kwargs;
      break;
    }
    case "string-thinking":
      // Thinking is one top-level string; off is the model's off value, "none" when it names none (null: not sent).
      if (on) payload.thinking = effort;
      else if (model.thinkingLevelMap?.off !== null) payload.thinking = offValue ?? "none";
      break;
    case "ant-ling":
      // Only a level the model's map names has an effort here.
      if (on) payload.reasoning = { effort };
      break;
  }
}

// --- payload ------------------------------------------------------------------

export interface PayloadOptions {
  maxTokens?: number;
  temperature?: number;
  reasoningEffort?: string;
  toolChoice?: unknown;
  cacheRetention?: CacheRetention;
  sessionId?: string;
  /** The effective thinking level, for samplingParamsByThinkingLevel; undefined: the model's samplingParams only. */
  samplingLevel?: ModelThinkingLevel;
  /** Reasoning tokens for the level, sent where the server has a budget field (compat.thinkingTokenBudgetField). */
  thinkingBudget?: number;
}

export function buildPayload(model: Model, context: Context, compat: ResolvedCompat, options: PayloadOptions): CompletionsPayload {
  const reasoningOn = model.reasoning && options.reasoningEffort !== undefined;
  const payload: CompletionsPayload = {
    model: model.id,
    messages: convertMessages(model, context, compat, reasoningOn),
    stream: true,
  };
  if (compat.supportsUsageInStreaming) payload.stream_options = { include_usage: true };
  payload[compat.maxTokensField] = options.maxTokens ?? model.maxTokens;
  if (options.temperature !== undefined) payload.temperature = options.temperature;
  if (context.tools && context.tools.length > 0) {
    payload.tools = context.tools.map((tool) => {
      const wire: WireTool = {
        type: "function",
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      };
      // Strict mode demands schemas tools are not written for; say so explicitly where it is understood.
      if (compat.supportsStrictMode) wire.function.strict = false;
      return wire;
    });
    if (options.toolChoice !== undefined) payload.tool_choice = options.toolChoice;
    if (compat.zaiToolStream) payload.tool_stream = true;
  } else if (compat.requiresToolsWithToolHistory && hasToolHistory(context)) {
    // Some proxies in front of Anthropic refuse tool history in a request that declares no tools.
    payload.tools = [];
  }
  // Ask the service not to keep the conversation.
  if (compat.supportsStore) payload.store = false;
  applyReasoning(payload, model, compat, {
    effort: options.reasoningEffort,
    offValue: typeof model.thinkingLevelMap?.off === "string" ? model.thinkingLevelMap.off : undefined,
    budget: options.thinkingBudget,
  });
  // Reasoning and answer share max_tokens on these servers; the budget keeps room for the answer.
  if (compat.thinkingTokenBudgetField && reasoningOn && options.thinkingBudget !== undefined) payload[compat.thinkingTokenBudgetField] = options.thinkingBudget;
  if (compat.vllmPriority !== undefined) payload.priority = compat.vllmPriority;

  const retention = options.cacheRetention ?? "short";
  const longRetention = retention === "long" && compat.supportsLongCacheRetention;
  if (compat.cacheControlFormat === "anthropic" && retention !== "none") {
    addCacheControl(payload, longRetention ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" });
  }
  const sendKey = compat.promptCacheKeyMode === "enabled" || (compat.promptCacheKeyMode === "auto" && compat.sendsPromptCacheKey);
  if (sendKey && retention !== "none") {
    if (options.sessionId) payload.prompt_cache_key = options.sessionId;
    if (longRetention) payload.prompt_cache_retention = "24h";
  }
  if (compat.openRouterRouting) payload.provider = compat.openRouterRouting;
  if (compat.vercelGatewayRouting) payload.providerOptions = { gateway: compat.vercelGatewayRouting };
  applySamplingParams(payload, samplingParamsFor(model, options.samplingLevel));
  return payload;
}

/** Whether the conversation holds a tool call or a tool result. */
function hasToolHistory(context: Context): boolean {
  return context.messages.some(
    (message) => message.role === "toolResult" || (message.role === "assistant" && message.content.some((block) => block.type === "toolCall")),
  );
}
