/**
 * Turns a provider-neutral Context into Gemini `contents`, `systemInstruction`
 * and `tools`. Only types come from the SDK, so this module costs nothing to load.
 */
import type { Content, FunctionDeclaration, Part, Tool as GeminiTool } from "@google/genai";
import type { AssistantMessage, Context, ImageContent, Model, TextContent, ToolResultMessage, UserMessage } from "../types.ts";
import { transformMessages } from "./transform-messages.ts";

/**
 * Gemini 2.x often sends function calls without an id, so we make one up. Such
 * ids are ours, not the service's, and are never sent back to it.
 */
const LOCAL_CALL_ID_PREFIX = "gemini_local_";
let localCallCounter = 0;

export function newLocalCallId(): string {
  localCallCounter++;
  return `${LOCAL_CALL_ID_PREFIX}${Date.now().toString(36)}_${localCallCounter}`;
}

function isLocalCallId(id: string): boolean {
  return id.startsWith(LOCAL_CALL_ID_PREFIX);
}

/**
 * Gemini 3 rejects a step whose first function call has no thought signature.
 * Calls made by another model never had one; this is the value the Gemini
 * documentation gives for such injected calls.
 */
const SKIP_SIGNATURE_VALIDATION = "skip_thought_signature_validator";

/**
 * Whether the model thinks by named levels (`thinkingLevel`: Gemini 3 and later, Gemma 4)
 * rather than by a token budget (Gemini 2.5). The catalog says so with the model's
 * thinkingLevelMap: level models map levels to names, budget models to numbers or not at
 * all. The same models demand a thought signature on replayed function calls.
 */
export function thinksByLevel(model: Pick<Model, "thinkingLevelMap">): boolean {
  return Object.values(model.thinkingLevelMap ?? {}).some((value) => typeof value === "string" && /^(minimal|low|medium|high)$/i.test(value));
}

/** Ids of other providers may hold characters or lengths Gemini does not accept. */
function normalizeToolCallId(id: string): string {
  return id.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 64);
}

function imagePart(image: ImageContent): Part {
  return { inlineData: { mimeType: image.mimeType, data: image.data } };
}

function acceptsImages(model: Model): boolean {
  return model.input.includes("image");
}

const IMAGE_OMITTED = "(image omitted: this model does not accept image input)";

function userParts(message: UserMessage, model: Model): Part[] {
  if (typeof message.content === "string") return message.content ? [{ text: message.content }] : [];
  const parts: Part[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text) parts.push({ text: block.text });
    } else {
      parts.push(acceptsImages(model) ? imagePart(block) : { text: IMAGE_OMITTED });
    }
  }
  return parts;
}

/**
 * Model turn parts. Signatures survive only on messages of this very model
 * (transformMessages drops the others), so whatever signature is left is replayed
 * on the part it came with.
 */
function modelParts(message: AssistantMessage, model: Model, sentCallIds: Set<string>): Part[] {
  const parts: Part[] = [];
  const ownMessage = message.api === model.api && message.provider === model.provider && message.model === model.id;
  // The model's own calls go back exactly as they came (in a parallel step only the first is signed).
  let needsInjectedSignature = !ownMessage && thinksByLevel(model);
  for (const block of message.content) {
    if (block.type === "text") {
      if (!block.text && !block.textSignature) continue;
      const part: Part = { text: block.text };
      if (block.textSignature) part.thoughtSignature = block.textSignature;
      parts.push(part);
    } else if (block.type === "thinking") {
      if (!block.thinking && !block.thinkingSignature) continue;
      const part: Part = { text: block.thinking, thought: true };
      if (block.thinkingSignature) part.thoughtSignature = block.thinkingSignature;
      parts.push(part);
    } else {
      const functionCall: NonNullable<Part["functionCall"]> = { name: block.name, args: block.arguments };
      // Only an id the service issued means anything to it.
      if (message.api === model.api && !isLocalCallId(block.id)) {
        functionCall.id = block.id;
        sentCallIds.add(block.id);
      }
      const part: Part = { functionCall };
      if (block.thoughtSignature) part.thoughtSignature = block.thoughtSignature;
      else if (needsInjectedSignature) part.thoughtSignature = SKIP_SIGNATURE_VALIDATION;
      needsInjectedSignature = false;
      parts.push(part);
    }
  }
  return parts;
}

function textOf(blocks: (TextContent | ImageContent)[]): string {
  return blocks
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

/** A tool result: its functionResponse, and its images to send alongside. */
function toolResultParts(message: ToolResultMessage, model: Model, sentCallIds: Set<string>) {
  const images = message.content.filter((block): block is ImageContent => block.type === "image");
  let text = textOf(message.content);
  if (!text) text = images.length > 0 ? "(the result is the attached image)" : "(no output)";
  if (images.length > 0 && !acceptsImages(model)) text += `\n${IMAGE_OMITTED}`;
  const functionResponse: NonNullable<Part["functionResponse"]> = {
    name: message.toolName,
    response: message.isError ? { error: text } : { output: text },
  };
  if (sentCallIds.has(message.toolCallId)) functionResponse.id = message.toolCallId;
  return {
    response: { functionResponse } satisfies Part,
    images: acceptsImages(model) ? images.map(imagePart) : [],
  };
}

/** The conversation as Gemini `contents`: roles `user` and `model`. */
export function convertMessages(model: Model, context: Context): Content[] {
  const messages = transformMessages(context.messages, model, { normalizeToolCallId });
  const contents: Content[] = [];
  const sentCallIds = new Set<string>();
  // The user turn that collects consecutive tool results: all the responses
  // to one model turn belong together, with their images after them.
  let resultTurn: { responses: Part[]; images: Part[] } | undefined;

  const flushResults = () => {
    if (resultTurn) contents.push({ role: "user", parts: [...resultTurn.responses, ...resultTurn.images] });
    resultTurn = undefined;
  };

  for (const message of messages) {
    if (message.role === "toolResult") {
      resultTurn ??= { responses: [], images: [] };
      const { response, images } = toolResultParts(message, model, sentCallIds);
      resultTurn.responses.push(response);
      resultTurn.images.push(...images);
      continue;
    }
    flushResults();
    const parts = message.role === "user" ? userParts(message, model) : modelParts(message, model, sentCallIds);
    // Gemini rejects a turn without parts.
    if (parts.length > 0) contents.push({ role: message.role === "user" ? "user" : "model", parts });
  }
  flushResults();
  return contents;
}

export function convertSystemPrompt(context: Context): Content | undefined {
  return context.systemPrompt ? { parts: [{ text: context.systemPrompt }] } : undefined;
}

/** Tool definitions; a typebox schema is already JSON Schema, which Gemini takes as is. */
export function convertTools(context: Context): GeminiTool[] | undefined {
  if (!context.tools?.length) return undefined;
  const functionDeclarations: FunctionDeclaration[] = context.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parametersJsonSchema: tool.parameters,
  }));
  return [{ functionDeclarations }];
}
