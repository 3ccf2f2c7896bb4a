/**
 * MCP sampling: a server asks the client's model for a completion (`sampling/createMessage`).
 * xcsh answers only after the person said yes in a dialog that names the server, the model
 * and the request's last words, and says what session context goes along: a server could
 * otherwise spend the user's tokens, read the session, or put words in the model's mouth,
 * unseen. Where nobody can be asked (print and json mode: the dialog's default is no) the
 * request is refused. The model is the session's, unless a hint of the server's
 * `modelPreferences` names another available one; `includeContext` adds the results of
 * MCP tool calls made earlier in the session (src/mcp/sampling-preferences.ts decides both).
 */
import { completeSimple } from "../ai/stream.ts";
import type { AssistantMessage, ImageContent, Message, Model, TextContent, Usage } from "../ai/types.ts";
import { emptyUsage } from "../ai/usage.ts";
import type { McpDialogs } from "../mcp/elicitation.ts";
import type { McpSampler, SamplingRequest, SamplingResult } from "../mcp/sampling.ts";
import { pickSamplingModel, samplingContext, type ContextMessage } from "../mcp/sampling-preferences.ts";

export interface SamplingSession {
  readonly model: Model;
  readonly models: { apiKeyFor(model: Model): Promise<string>; availableModels(): Model[] };
  /** The conversation so far: `includeContext` sends MCP tool results from it. */
  readonly messages: readonly ContextMessage[];
}

/** What the dialog quotes of the request: its last message's text, cut to a readable length. */
const QUOTE_CHARS = 400;

type McpBlock = { type: string; text?: string; data?: string; mimeType?: string };

function blocksOf(content: McpBlock | McpBlock[]): McpBlock[] {
  return Array.isArray(content) ? content : [content];
}

function toParts(content: McpBlock | McpBlock[]): (TextContent | ImageContent)[] {
  return blocksOf(content).map((block): TextContent | ImageContent => {
    if (block.type === "text") return { type: "text", text: block.text ?? "" };
    if (block.type === "image" && block.data && block.mimeType) return { type: "image", data: block.data, mimeType: block.mimeType };
    return { type: "text", text: `[${block.type} content left out: xcsh sends only text and images]` };
  });
}

function toMessages(request: SamplingRequest, model: Model): Message[] {
  return request.messages.map((message): Message => {
    if (message.role === "user") return { role: "user", content: toParts(message.content as McpBlock | McpBlock[]), timestamp: Date.now() };
    const text = toParts(message.content as McpBlock | McpBlock[]).flatMap((part) => (part.type === "text" ? [part] : []));
    const assistant: AssistantMessage = { role: "assistant", content: text, api: model.api, provider: model.provider, model: model.id, usage: emptyUsage(), stopReason: "stop", timestamp: Date.now() };
    return assistant;
  });
}

function lastWords(request: SamplingRequest): string {
  const last = request.messages.at(-1);
  const text = last ? blocksOf(last.content as McpBlock | McpBlock[]).map((block) => block.text ?? `[${block.type}]`).join(" ") : "";
  return text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text;
}

export function createMcpSampler(session: SamplingSession, dialogs: McpDialogs | undefined): McpSampler {
  return {
    async sample(server: string, request: SamplingRequest, signal?: AbortSignal): Promise<{ result: SamplingResult; usage?: Usage }> {
      const model = pickSamplingModel(request.modelPreferences, session.model, session.models.availableModels());
      const context = samplingContext(request.includeContext, server, session.messages);
      const sending = [
        `up to ${request.maxTokens} tokens`,
        ...(request.systemPrompt ? ["with its own system prompt"] : []),
        ...(context.results > 0 ? [`with ${context.results} result${context.results === 1 ? "" : "s"} of ${request.includeContext === "thisServer" ? "its" : "MCP servers'"} tool calls in this session`] : []),
      ];
      const question = `${lastWords(request)}\n\n(${sending.join(", ")})`;
      const allowed = dialogs ? await dialogs.confirm(`MCP server "${server}" wants to use the model ${model.provider}/${model.id}`, question) : false;
      if (!allowed) throw new Error(`The user did not allow MCP server "${server}" to use the model (or nobody could be asked).`);
      const systemPrompt = [request.systemPrompt, context.text].filter(Boolean).join("\n\n");
      const answer = await completeSimple(
        model,
        { ...(systemPrompt ? { systemPrompt } : {}), messages: toMessages(request, model) },
        { apiKey: await session.models.apiKeyFor(model), maxTokens: request.maxTokens, signal },
      );
      if (answer.stopReason === "error" || answer.stopReason === "aborted") throw new Error(`The model failed: ${answer.errorMessage ?? answer.stopReason}`);
      const text = answer.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
      const result: SamplingResult = {
        role: "assistant",
        content: { type: "text", text },
        model: `${model.provider}/${model.id}`,
        stopReason: answer.stopReason === "length" ? "maxTokens" : "endTurn",
      };
      return { result, usage: answer.usage };
    },
  };
}
