/**
 * The agent's own hook points, given to extensions: the request of each model
 * call (context, context_with_system, before_provider_request,
 * before_provider_headers, after_provider_response, provider_stream_event), each tool call
 * (tool_call, tool_result) and each turn's end (turn_end, which may add
 * entries and ask for one more request). Installed once per runtime
 * generation; each hook replaces the previous generation's.
 */
import type { AgentMessage } from "../agent/types.ts";
import type { TextContent } from "../ai/types.ts";
import type { ExtensionRunner } from "../extensions/runner.ts";
import type { SystemPromptMessage } from "../extensions/events.ts";
import type { AgentSession } from "./agent-session.ts";
import type { SessionBoundaries } from "./session-boundary.ts";

export function installAgentHooks(session: AgentSession, runner: ExtensionRunner, boundaries: SessionBoundaries, turnIndex: () => number): void {
  const agent = session.agent;
  agent.transformContext = async (transcript) => {
    const messages = session.sessionManager.applyContextEdits(transcript); // edits appended since the last request (appendContextEdit)
    if (!runner.hasHandlers("context")) return messages;
    // Handlers get a deep copy: what they change shapes this request only, never the transcript.
    return runner.emit("context", { type: "context", messages: structuredClone(messages) });
  };
  agent.transformRequest = async (request) => {
    if (!runner.hasHandlers("context_with_system")) return request;
    const system: SystemPromptMessage = { role: "system", content: request.systemPrompt };
    const messages = await runner.emit("context_with_system", { type: "context_with_system", messages: [system, ...structuredClone(request.messages)] });
    return splitSystemMessages(messages);
  };
  agent.transformHeaders = async (headers) => {
    if (!runner.hasHandlers("before_provider_headers")) return headers;
    // Handlers change the object in place (null removes a header); what they return is ignored.
    const event = { type: "before_provider_headers" as const, headers: { ...headers } };
    await runner.emit("before_provider_headers", event);
    // A handler that replaced the object with something else has nothing usable to say.
    return cleanHeaders(typeof event.headers === "object" && event.headers !== null ? event.headers : headers);
  };
  agent.streamOptions.onPayload = async (payload, model) => {
    if (!runner.hasHandlers("before_provider_request")) return undefined;
    const replaced = await runner.emit("before_provider_request", { type: "before_provider_request", payload, model });
    return replaced === payload ? undefined : replaced;
  };
  agent.streamOptions.onResponse = async (response, model) => {
    if (runner.hasHandlers("after_provider_response")) {
      await runner.emit("after_provider_response", { type: "after_provider_response", status: response.status, headers: response.headers, model });
    }
  };
  // Not async: with no listener nothing is returned, so the stream awaits nothing per event.
  agent.streamOptions.onStreamEvent = (data, model) => {
    if (!runner.hasHandlers("provider_stream_event")) return undefined;
    return runner.emit("provider_stream_event", { type: "provider_stream_event", provider: model.provider, api: model.api, model: model.id, data }).then(() => {});
  };
  agent.finishTurn = async ({ message, toolResults }) => ({ continue: await boundaries.turnEnd(turnIndex(), message, toolResults) });
  agent.beforeToolCall = async ({ toolCall, args, parentToolCallId }) => {
    if (!runner.hasHandlers("tool_call")) return undefined;
    // `input` is the very object the tool receives, so in-place changes reach it (seed 003).
    return runner.emit("tool_call", {
      type: "tool_call",
      toolName: toolCall.name,
      toolCallId: toolCall.id,
      ...(parentToolCallId === undefined ? {} : { parentToolCallId }),
      input: args as Record<string, any>,
    });
  };
  agent.afterToolCall = async ({ toolCall, args, result, isError, parentToolCallId }) => {
    if (!runner.hasHandlers("tool_result")) return undefined;
    const outcome = await runner.emit("tool_result", {
      type: "tool_result",
      toolName: toolCall.name,
      toolCallId: toolCall.id,
      ...(parentToolCallId === undefined ? {} : { parentToolCallId }),
      input: args as Record<string, any>,
      content: result.content,
      details: result.details,
      ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
      isError,
      ...(result.usage ? { usage: result.usage } : {}),
    });
    if (!outcome.changed) return undefined;
    return {
      content: outcome.content,
      details: outcome.details,
      isError: outcome.isError,
      ...(outcome.usage ? { usage: outcome.usage } : {}),
      ...(outcome.structuredChanged ? { structuredContent: outcome.structuredContent } : {}),
    };
  };
}

/**
 * context_with_system's result as a request: a leading system message's text is the call's
 * system prompt (none when the handlers removed it), the other messages are its messages.
 * System messages further on (pi's, kept in a resumed pi session) stay transcript messages,
 * which are never sent, as without the event.
 */
export function splitSystemMessages(messages: (AgentMessage | SystemPromptMessage)[]): { systemPrompt: string; messages: AgentMessage[] } {
  const [first, ...rest] = messages.filter((message) => typeof message === "object" && message !== null);
  if (first?.role !== "system") return { systemPrompt: "", messages: first ? [first as AgentMessage, ...(rest as AgentMessage[])] : [] };
  const content = (first as SystemPromptMessage).content;
  const systemPrompt = typeof content === "string" ? content : content.flatMap((block: TextContent) => (block?.type === "text" ? [block.text] : [])).join("\n");
  return { systemPrompt, messages: rest as AgentMessage[] };
}

/** Header values are strings; null (remove) is kept for the SDKs; anything else a handler set is made a string. */
function cleanHeaders(headers: Record<string, unknown>): Record<string, string | null> {
  const clean: Record<string, string | null> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    clean[name] = value === null ? null : String(value);
  }
  return clean;
}
