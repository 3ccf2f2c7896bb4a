/**
 * Context → OpenAI Responses `input` items. Requests are sent with `store: false`,
 * so nothing lives on OpenAI's side between turns: everything the model needs to
 * see again (its reasoning, its message and function-call items) is replayed here
 * from what the previous responses left in the messages' signatures.
 */
import type {
  EasyInputMessage,
  FunctionTool,
  ResponseFunctionToolCall,
  ResponseInputContent,
  ResponseInputItem,
  ResponseOutputMessage,
  ResponseReasoningItem,
} from "openai/resources/responses/responses";
import type { AssistantMessage, Context, ImageContent, Model, TextContent, Tool, ToolResultMessage, UserMessage } from "../types.ts";
import { transformMessages } from "./transform-messages.ts";

/** Call ids and item ids the API accepts: letters, digits, `_` and `-`, at most 64 characters. */
const MAX_ID_LENGTH = 64;

function sanitizeId(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_ID_LENGTH);
}

/**
 * Our tool-call id is `${call_id}|${item_id}`: the API needs the call id to pair a
 * result with its call and the item id to replay the call item itself. Ids from
 * other providers have no item part, or one the API would reject (item ids must
 * start with `fc_`), so only a valid call id is kept for them.
 */
export function normalizeToolCallId(id: string): string {
  const separator = id.indexOf("|");
  if (separator === -1) return sanitizeId(id) || "call";
  const callId = sanitizeId(id.slice(0, separator)) || "call";
  const itemId = id.slice(separator + 1);
  if (!itemId.startsWith("fc_") && !itemId.startsWith(CUSTOM_ITEM_PREFIX)) return callId;
  return `${callId}|${sanitizeId(itemId)}`;
}

/**
 * The parameter of a tool that takes a custom call's free text: its only property, or its
 * only required string property; `input` when the schema says nothing better.
 */
export function customInputParameter(tool: Pick<Tool, "parameters"> | undefined): string {
  const schema = tool?.parameters as { properties?: Record<string, { type?: unknown }>; required?: string[] } | undefined;
  const properties = Object.keys(schema?.properties ?? {});
  if (properties.length === 1) return properties[0];
  const strings = (schema?.required ?? []).filter((name) => schema?.properties?.[name]?.type === "string");
  return strings.length === 1 ? strings[0] : "input";
}

/** Item ids of custom (free-form) tool calls start so; the id says how the call goes back. */
const CUSTOM_ITEM_PREFIX = "ctc_";

/** Our id for a custom tool call: as a function call's, with the item part marking it custom even when the item has no id. */
export function customToolCallId(callId: string, itemId: string | undefined): string {
  return `${callId}|${itemId?.startsWith(CUSTOM_ITEM_PREFIX) ? itemId : CUSTOM_ITEM_PREFIX}`;
}

function isCustomToolCallId(id: string): boolean {
  return splitToolCallId(id).itemId?.startsWith(CUSTOM_ITEM_PREFIX) === true;
}

/** A custom call's raw input from its arguments: the one string they hold. */
function customInput(args: Record<string, any> | undefined): string {
  const values = Object.values(args ?? {});
  return values.length === 1 && typeof values[0] === "string" ? values[0] : JSON.stringify(args ?? {});
}

export function splitToolCallId(id: string): { callId: string; itemId?: string } {
  const [callId, itemId] = id.split("|", 2);
  return itemId ? { callId, itemId } : { callId };
}

function imagePart(image: ImageContent): ResponseInputContent {
  return { type: "input_image", detail: "auto", image_url: `data:${image.mimeType};base64,${image.data}` };
}

function userContent(message: UserMessage, model: Model): ResponseInputContent[] {
  if (typeof message.content === "string") return [{ type: "input_text", text: message.content }];
  const acceptsImages = model.input.includes("image");
  const parts: ResponseInputContent[] = [];
  for (const block of message.content) {
    if (block.type === "text") parts.push({ type: "input_text", text: block.text });
    else if (acceptsImages) parts.push(imagePart(block));
  }
  return parts;
}

function isSameModel(message: AssistantMessage, model: Model): boolean {
  return message.provider === model.provider && message.api === model.api && message.model === model.id;
}

/** The reasoning item a thinking block came from, if it can be sent back. */
function replayableReasoning(signature: string | undefined): ResponseReasoningItem | undefined {
  if (!signature) return undefined;
  try {
    const item = JSON.parse(signature) as Partial<ResponseReasoningItem>;
    // Without the encrypted content a stateless (store: false) request cannot
    // resolve the item, and the API rejects the whole request.
    if (item.type !== "reasoning" || !item.id || !item.encrypted_content) return undefined;
    return { type: "reasoning", id: item.id, summary: item.summary ?? [], encrypted_content: item.encrypted_content };
  } catch {
    return undefined;
  }
}

function assistantTextItem(block: TextContent, replayId: boolean): ResponseInputItem {
  if (replayId && block.textSignature?.startsWith("msg_")) {
    const message: ResponseOutputMessage = {
      type: "message",
      role: "assistant",
      id: block.textSignature,
      status: "completed",
      content: [{ type: "output_text", text: block.text, annotations: [] }],
    };
    return message;
  }
  const message: EasyInputMessage = { type: "message", role: "assistant", content: block.text };
  return message;
}

function assistantItems(message: AssistantMessage, model: Model): ResponseInputItem[] {
  const own = isSameModel(message, model);
  const reasoning = message.content
    .filter((block) => block.type === "thinking")
    .map((block) => replayableReasoning(block.thinkingSignature));
  // A function-call item whose reasoning item is missing is rejected ("provided
  // without its required reasoning item"), so item ids are only replayed when
  // every reasoning item of the turn is replayed too.
  const replayIds = own && reasoning.every((item) => item !== undefined);

  const items: ResponseInputItem[] = [];
  for (const block of message.content) {
    if (block.type === "thinking") {
      const item = replayableReasoning(block.thinkingSignature);
      if (item) items.push(item);
    } else if (block.type === "text") {
      if (block.text) items.push(assistantTextItem(block, replayIds));
    } else {
      const { callId, itemId } = splitToolCallId(block.id);
      if (isCustomToolCallId(block.id)) {
        // A free-form call goes back as it came: its input is the raw text, not JSON.
        const custom: ResponseInputItem = { type: "custom_tool_call", call_id: callId, name: block.name, input: customInput(block.arguments) };
        if (replayIds && itemId && itemId.length > CUSTOM_ITEM_PREFIX.length) custom.id = itemId;
        items.push(custom);
        continue;
      }
      const call: ResponseFunctionToolCall = {
        type: "function_call",
        call_id: callId,
        name: block.name,
        arguments: JSON.stringify(block.arguments ?? {}),
      };
      if (replayIds && itemId) call.id = itemId;
      items.push(call);
    }
  }
  return items;
}

function toolResultText(message: ToolResultMessage): string {
  const text = message.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
  const hasImages = message.content.some((block) => block.type === "image");
  if (text) return text;
  return hasImages ? "(see the attached image)" : "(no output)";
}

/**
 * Tool results become `function_call_output` items. The output is text only, so
 * the images of a run of consecutive results follow them in one user message.
 */
function toolResultItems(results: ToolResultMessage[], model: Model): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  const images: ResponseInputContent[] = [];
  for (const result of results) {
    const callId = splitToolCallId(result.toolCallId).callId;
    const type = isCustomToolCallId(result.toolCallId) ? "custom_tool_call_output" : "function_call_output";
    items.push({ type, call_id: callId, output: toolResultText(result) });
    if (model.input.includes("image")) {
      for (const block of result.content) if (block.type === "image") images.push(imagePart(block));
    }
  }
  if (images.length > 0) {
    items.push({ type: "message", role: "user", content: [{ type: "input_text", text: "Images returned by the tool:" }, ...images] });
  }
  return items;
}

export function convertInput(context: Context, model: Model): ResponseInputItem[] {
  const messages = transformMessages(context.messages, model, { normalizeToolCallId });
  const items: ResponseInputItem[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === "user") {
      const content = userContent(message, model);
      if (content.length > 0) items.push({ type: "message", role: "user", content });
    } else if (message.role === "assistant") {
      items.push(...assistantItems(message, model));
    } else {
      const run: ToolResultMessage[] = [message];
      while (messages[i + 1]?.role === "toolResult") run.push(messages[++i] as ToolResultMessage);
      items.push(...toolResultItems(run, model));
    }
  }
  return items;
}

/**
 * The tools as function definitions. `strictField` (compat.supportsStrictMode, default
 * true) says the server knows `strict`: then it is sent as false, because strict mode
 * demands every property be required, which ordinary tool schemas are not (and OpenAI
 * takes a missing `strict` as true). A server that refuses the field gets none.
 */
export function convertTools(tools: Tool[], strictField = true): FunctionTool[] {
  return tools.map((tool) => {
    const definition = {
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters as unknown as Record<string, unknown>,
    } as FunctionTool;
    if (strictField) definition.strict = false;
    return definition;
  });
}
