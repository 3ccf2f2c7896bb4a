/**
 * The agent loop: ask the model, run the tools it calls, feed the results back,
 * and repeat until it answers without tools and no queued message is waiting.
 * Emits the event sequence of seed 000; knows nothing of files or sessions.
 */
import { asAgentLoopRequest } from "./loop-requests.ts";
import { streamSimple } from "../ai/stream.ts";
import type { AssistantMessage, Message, Model, SimpleStreamOptions, Tool, ToolResultMessage } from "../ai/types.ts";
import { failedAssistantMessage } from "../ai/usage.ts";
import { executeToolCalls, type ToolExecutionConfig } from "./tool-execution.ts";
import type { AgentContext, AgentEvent, AgentMessage, StreamFn } from "./types.ts";

export interface AgentLoopConfig extends SimpleStreamOptions, ToolExecutionConfig {
  model: Model;
  /** Turns the agent's messages into what the LLM accepts (drops or converts custom roles). */
  convertToLlm: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  /** Rewrites the message list before each LLM call (pruning, injected context). */
  transformContext?: (messages: AgentMessage[], signal?: AbortSignal) => Promise<AgentMessage[]>;
  /**
   * Last look at one call's request, after transformContext: may replace its system
   * prompt and messages for this call only (the transcript keeps its own).
   */
  transformRequest?: (request: AgentRequest, signal?: AbortSignal) => Promise<AgentRequest>;
  /**
   * The headers of one call, complete (model, options, getHeaders), before it is sent;
   * a null value removes that header, including one the provider's SDK would add.
   */
  transformHeaders?: (headers: ProviderHeaders, signal?: AbortSignal) => Promise<ProviderHeaders>;
  /**
   * Called when a turn is complete, before its turn_end event; `{continue: true}` asks for
   * one more model request even when the turn made no tool calls. Ignored for failed turns.
   */
  finishTurn?: (turn: { message: AssistantMessage; toolResults: ToolResultMessage[] }, signal?: AbortSignal) => Promise<TurnDecision | void>;
  /** A key per call, for short-lived credentials. */
  getApiKey?: (provider: string) => Promise<string | undefined> | string | undefined;
  /** Request headers per call (values may come from commands, resolved at request time). */
  getHeaders?: (provider: string) => Promise<Record<string, string> | undefined> | Record<string, string> | undefined;
  /** The provider's own configuration variables per call (auth.json's `env`), over the options' `env`. */
  getProviderEnv?: (provider: string) => Record<string, string> | undefined;
  /** Steering messages due now (after a turn's tool calls). */
  getSteeringMessages?: () => Promise<AgentMessage[]> | AgentMessage[];
  /** Follow-up messages due now (when the agent would stop). */
  getFollowUpMessages?: () => Promise<AgentMessage[]> | AgentMessage[];
  /** Return true to end the run after the current turn. */
  shouldStopAfterTurn?: (turn: { message: AssistantMessage; toolResults: ToolResultMessage[] }) => boolean | Promise<boolean>;
  streamFn?: StreamFn;
}

type Emit = (event: AgentEvent) => Promise<void>;

/** What one model call is given besides the tools. */
export interface AgentRequest {
  systemPrompt: string;
  messages: AgentMessage[];
}

/** Request headers where null means "do not send this header" (the provider SDKs drop such headers). */
export type ProviderHeaders = Record<string, string | null>;

export interface TurnDecision {
  continue?: boolean;
}

/**
 * Runs from the given new messages (may be empty to continue the transcript)
 * and returns every message the run added. `context.messages` grows as the run
 * goes, so a caller sees the transcript as it stands at any event.
 */
export async function runAgentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  emit: Emit,
  signal?: AbortSignal,
): Promise<AgentMessage[]> {
  const added: AgentMessage[] = [];
  const deliver = async (messages: AgentMessage[]) => {
    for (const message of messages) {
      context.messages.push(message);
      added.push(message);
      await emit({ type: "message_start", message });
      const end = { type: "message_end" as const, message };
      await emit(end);
      // A listener may finalize the message differently (an extension's message_end); keep its version.
      if (end.message !== message) {
        context.messages[context.messages.lastIndexOf(message)] = end.message;
        added[added.length - 1] = end.message;
      }
    }
  };

  await emit({ type: "agent_start" });
  let incoming = prompts;

  while (true) {
    await emit({ type: "turn_start" });
    await deliver(incoming);
    incoming = [];

    const assistant = await streamAssistantMessage(context, config, emit, signal);
    context.messages.push(assistant);
    added.push(assistant);

    if (assistant.stopReason === "error" || assistant.stopReason === "aborted") {
      // A failed turn still reaches its boundary, but nothing may continue from it here.
      await config.finishTurn?.({ message: assistant, toolResults: [] }, signal);
      await emit({ type: "turn_end", message: assistant, toolResults: [] });
      break;
    }

    const hasToolCalls = assistant.content.some((block) => block.type === "toolCall");
    let toolResults: ToolResultMessage[] = [];
    let terminate = false;
    if (hasToolCalls) {
      const batch = await executeToolCalls(assistant, context, config, signal, emit);
      toolResults = batch.results;
      terminate = batch.terminate;
      await deliver(toolResults);
    }
    const decision = await config.finishTurn?.({ message: assistant, toolResults }, signal);
    await emit({ type: "turn_end", message: assistant, toolResults });

    if (signal?.aborted) break;
    if (await config.shouldStopAfterTurn?.({ message: assistant, toolResults })) break;

    const steering = (await config.getSteeringMessages?.()) ?? [];
    if (steering.length > 0) {
      incoming = steering;
      continue;
    }
    if ((hasToolCalls && !terminate) || decision?.continue === true) continue;

    const followUps = (await config.getFollowUpMessages?.()) ?? [];
    if (followUps.length > 0) {
      incoming = followUps;
      continue;
    }
    break;
  }

  await emit({ type: "agent_end", messages: added });
  return added;
}

/**
 * What one call sends for `messages`: the context transform, then the request transform
 * (which may change the system prompt too), then the conversion for the model. The loop
 * builds each request so; a virtual model's route that compacted the conversation first
 * builds its request again the same way (core/routed-compaction.ts).
 */
export async function buildRequest(
  systemPrompt: string,
  messages: AgentMessage[],
  hooks: Pick<AgentLoopConfig, "transformContext" | "transformRequest" | "convertToLlm">,
  signal: AbortSignal | undefined,
): Promise<{ systemPrompt: string; messages: Message[] }> {
  let request: AgentRequest = { systemPrompt, messages: hooks.transformContext ? await hooks.transformContext(messages, signal) : messages };
  if (hooks.transformRequest) request = await hooks.transformRequest(request, signal);
  return { systemPrompt: request.systemPrompt, messages: await hooks.convertToLlm(request.messages) };
}

/** One LLM call, forwarded as message_start / message_update* / message_end. */
async function streamAssistantMessage(
  context: AgentContext,
  config: AgentLoopConfig,
  emit: Emit,
  signal: AbortSignal | undefined,
): Promise<AssistantMessage> {
  let final: AssistantMessage | undefined;
  let started = false;
  // pi 1.6.0 records how long the response took, request to final message, on the message.
  const requestedAt = performance.now();
  try {
    const request = await buildRequest(context.systemPrompt, context.messages, config, signal);
    const llmMessages = request.messages;
    const tools: Tool[] | undefined = context.tools?.filter((tool) => !tool.undeclared).map(({ name, description, parameters }) => ({ name, description, parameters }));
    const apiKey = (await config.getApiKey?.(config.model.provider)) ?? config.apiKey;
    const headers = await requestHeaders(config, signal);
    const providerEnv = config.getProviderEnv?.(config.model.provider);
    const env = providerEnv ? { ...config.env, ...providerEnv } : config.env;
    const streamFn = config.streamFn ?? streamSimple;
    const events = await asAgentLoopRequest(() =>
      streamFn(
        config.model,
        { systemPrompt: request.systemPrompt, messages: llmMessages, tools: tools?.length ? tools : undefined },
        { ...streamOptionsOf(config), apiKey, headers, ...(env ? { env } : {}), signal },
      ),
    );
    for await (const event of events) {
      if (event.type === "start") {
        started = true;
        await emit({ type: "message_start", message: { ...event.partial } });
      } else if (event.type === "done" || event.type === "error") {
        final = event.type === "done" ? event.message : event.error;
      } else {
        if (!started) {
          started = true;
          await emit({ type: "message_start", message: { ...event.partial, content: [] } });
        }
        await emit({ type: "message_update", message: event.partial, assistantMessageEvent: event });
      }
    }
  } catch (error) {
    // StreamFns must not throw, but a hook or custom stream might: end the turn cleanly.
    final = failedAssistantMessage(config.model, error instanceof Error ? error.message : String(error), signal?.aborted === true);
  }
  final ??= failedAssistantMessage(config.model, signal?.aborted ? "Request was aborted" : "The model stream ended without a result", signal?.aborted === true);
  // The level it was sent with; a virtual model's route has set the physical one already.
  if (final.thinkingLevel === undefined) final = { ...final, thinkingLevel: config.reasoning ?? "off" };
  final = { ...final, ...{ durationMs: Math.round(performance.now() - requestedAt) } };
  if (!started) await emit({ type: "message_start", message: { ...final, content: [] } });
  const end = { type: "message_end" as const, message: final as AgentMessage };
  await emit(end);
  // Listeners may replace the finalized message (same role); the transcript keeps the replacement.
  return end.message.role === "assistant" ? end.message : final;
}

/** The headers of one call: the options', then getHeaders', then what transformHeaders makes of them all. */
async function requestHeaders(config: AgentLoopConfig, signal: AbortSignal | undefined): Promise<Record<string, string> | undefined> {
  const extraHeaders = await config.getHeaders?.(config.model.provider);
  const headers = extraHeaders ? { ...config.headers, ...extraHeaders } : config.headers;
  if (!config.transformHeaders) return headers;
  // The model's own headers are shown too, so a hook can see (and remove) everything sent.
  const transformed = await config.transformHeaders({ ...config.model.headers, ...headers }, signal);
  // Null values travel on to the SDKs, which leave such headers out (their documented "unset").
  return transformed as Record<string, string>;
}

/** The provider options of the loop config, without the loop's own callbacks. */
function streamOptionsOf(config: AgentLoopConfig): SimpleStreamOptions {
  return {
    temperature: config.temperature,
    maxTokens: config.maxTokens,
    reasoning: config.reasoning,
    thinkingBudgets: config.thinkingBudgets,
    cacheRetention: config.cacheRetention,
    sessionId: config.sessionId,
    onPayload: config.onPayload,
    onResponse: config.onResponse,
    onStreamEvent: config.onStreamEvent,
    headers: config.headers,
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
    maxRetryDelayMs: config.maxRetryDelayMs,
    metadata: config.metadata,
  };
}
