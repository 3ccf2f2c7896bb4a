/**
 * pi-agent-core's low-level loop functions (`agentLoop`, `agentLoopContinue`,
 * `runAgentLoop`, `runAgentLoopContinue`) on xcsh's own agent loop, and what the
 * `Agent` adapter shares with them: the default stream function (xcsh's provider
 * layer, replaceable with `setDefaultStreamFn`), the fallback to the keys xcsh has
 * configured, and the reading of a pi 0.8x transcript, whose leading `system`
 * message carries the prompt that xcsh's loop keeps beside the messages.
 */
import { runAgentLoop as runCoreLoop, type AgentLoopConfig } from "../../agent/agent-loop.ts";
import { convertToLlm as defaultConvertToLlm } from "../../agent/messages.ts";
import type { AgentContext, AgentEvent, AgentMessage, AgentTool, StreamFn } from "../../agent/types.ts";
import { EventStream } from "../../ai/event-stream.ts";
import { streamSimple } from "../../ai/stream.ts";
import type { Message, Model, ModelThinkingLevel, SimpleStreamOptions, ThinkingLevel, ToolResultMessage } from "../../ai/types.ts";
import { hostApiKey, hostHeaders, hostProviderEnv } from "../host-credentials.ts";

// --- the default stream function ----------------------------------------------------

let defaultStreamFn: StreamFn | undefined;

/** pi's hook for hosts: the stream function used when an Agent or loop is given none. */
export function setDefaultStreamFn(streamFn: StreamFn | undefined): void {
  if (streamFn !== undefined && typeof streamFn !== "function") throw new TypeError("setDefaultStreamFn expects a function or undefined");
  defaultStreamFn = streamFn;
}

/** The stream function an agent without its own uses: xcsh's providers unless an extension set another. */
export function currentDefaultStreamFn(): StreamFn {
  return defaultStreamFn ?? streamSimple;
}

// --- credentials --------------------------------------------------------------------

type GetApiKey = (provider: string) => Promise<string | undefined> | string | undefined;

/**
 * The extension's key source first, then an explicit `apiKey`, then the key xcsh has
 * configured for the provider. pi's contract says a key source must not throw; one
 * that does is treated as having no key, so the request still goes out.
 */
export function withHostKeys(getApiKey: GetApiKey | undefined, explicitKey?: string): (provider: string) => Promise<string | undefined> {
  return async (provider) => {
    let key: string | undefined;
    try {
      key = (await getApiKey?.(provider)) ?? undefined;
    } catch {
      key = undefined;
    }
    return key ?? explicitKey ?? (await hostApiKey(provider));
  };
}

// --- transcripts ------------------------------------------------------------------------

interface TextBlock {
  type: string;
  text?: string;
}

/** The text of a pi 0.8x system message: its content, then its named sections. */
function systemMessageText(message: { content?: unknown; sections?: unknown }): string {
  const content = message.content;
  const base = typeof content === "string"
    ? content
    : Array.isArray(content)
      ? (content as TextBlock[]).filter((block) => block?.type === "text").map((block) => block.text ?? "").join("\n")
      : "";
  const sections = message.sections && typeof message.sections === "object" ? Object.values(message.sections as Record<string, unknown>) : [];
  return [base, ...sections.filter((section): section is string => typeof section === "string")].filter(Boolean).join("\n\n");
}

/**
 * A transcript as xcsh's loop takes it: a leading pi 0.8x `system` message becomes the
 * system prompt (unless one is given), and the other messages stay as they are (the
 * default `convertToLlm` leaves later system messages out).
 */
export function splitLeadingSystemMessage(messages: readonly AgentMessage[], systemPrompt?: string): { systemPrompt: string; messages: AgentMessage[] } {
  const first = messages[0] as { role?: string } | undefined;
  if (first?.role !== "system") return { systemPrompt: systemPrompt ?? "", messages: [...messages] };
  return { systemPrompt: systemPrompt ?? systemMessageText(first as { content?: unknown }), messages: messages.slice(1) };
}

/** pi's levels include "max"; xcsh's highest is "xhigh". */
export function toCoreThinkingLevel(level: unknown): ModelThinkingLevel {
  if (level === "max") return "xhigh";
  const known: readonly string[] = ["off", "minimal", "low", "medium", "high", "xhigh"];
  return typeof level === "string" && known.includes(level) ? (level as ModelThinkingLevel) : "off";
}

// --- options xcsh does not have ---------------------------------------------------------

/** Hooks of pi's harness that xcsh's loop has no place for; passing one is an error, not a silent no-op. */
const UNSUPPORTED_HOOKS = ["prepareRequest", "prepareNextTurn", "prepareNextTurnWithContext"] as const;

export function rejectUnsupportedHooks(options: object, where: string): void {
  for (const hook of UNSUPPORTED_HOOKS) {
    if ((options as Record<string, unknown>)[hook] !== undefined) {
      throw new Error(`${where}: the "${hook}" option of pi-agent-core is not supported by xcsh`);
    }
  }
}

// --- the loop functions ---------------------------------------------------------------------

type TurnDecision = { action: "continue" | "end" } | void | undefined;

/** pi's loop configuration: a model, converters, hooks and provider options. */
export interface PiLoopConfig extends SimpleStreamOptions {
  model: Model;
  convertToLlm?: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  transformContext?: AgentLoopConfig["transformContext"];
  getApiKey?: GetApiKey;
  getSteeringMessages?: () => Promise<AgentMessage[]>;
  getFollowUpMessages?: () => Promise<AgentMessage[]>;
  toolExecution?: AgentLoopConfig["toolExecution"];
  beforeToolCall?: AgentLoopConfig["beforeToolCall"];
  afterToolCall?: AgentLoopConfig["afterToolCall"];
  finishTurn?: (turn: FinishedTurn, signal?: AbortSignal) => TurnDecision | Promise<TurnDecision>;
}

export interface PiLoopContext {
  systemPrompt?: string;
  messages: AgentMessage[];
  tools?: AgentTool<any>[];
}

export interface FinishedTurn {
  message: AgentMessage;
  toolResults: ToolResultMessage[];
  context: { systemPrompt: string; messages: AgentMessage[]; tools?: AgentTool<any>[] };
  newMessages: AgentMessage[];
}

/**
 * `finishTurn` returning `{ action: "end" }` ends the run after the turn. xcsh's loop
 * cannot force an extra request, so `"continue"` keeps the normal schedule.
 */
export function finishTurnAsStop(
  finishTurn: PiLoopConfig["finishTurn"],
  context: () => FinishedTurn["context"],
  newMessages: () => AgentMessage[],
  signal: () => AbortSignal | undefined,
): AgentLoopConfig["shouldStopAfterTurn"] {
  if (!finishTurn) return undefined;
  return async (turn) => {
    const decision = await finishTurn({ ...turn, context: context(), newMessages: newMessages() }, signal());
    return (decision as { action?: string } | undefined)?.action === "end";
  };
}

function checkLoopArguments(context: PiLoopContext, config: PiLoopConfig, name: string): void {
  if (!context || !Array.isArray(context.messages)) throw new TypeError(`${name}: context.messages must be an array of messages`);
  if (!config || typeof config !== "object") throw new TypeError(`${name}: config must be an object with at least a model`);
  if (!config.model || typeof config.model !== "object") throw new TypeError(`${name}: config.model must be a model (e.g. ctx.model or getModel(…) from pi-ai)`);
  rejectUnsupportedHooks(config, name);
}

type Emit = (event: AgentEvent) => Promise<void> | void;

/**
 * Runs xcsh's loop on a copy of the caller's context (pi leaves the caller's arrays
 * alone) and returns the messages the run added.
 */
async function runOnCore(
  prompts: AgentMessage[],
  context: PiLoopContext,
  config: PiLoopConfig,
  emit: Emit,
  signal: AbortSignal | undefined,
  streamFn: StreamFn | undefined,
): Promise<AgentMessage[]> {
  const transcript = splitLeadingSystemMessage(context.messages, context.systemPrompt);
  const working: AgentContext = { systemPrompt: transcript.systemPrompt, messages: transcript.messages, tools: context.tools };
  const startLength = working.messages.length;
  const { model, convertToLlm, getApiKey, finishTurn, getSteeringMessages, getFollowUpMessages, ...providerOptions } = config;
  const coreConfig: AgentLoopConfig = {
    ...providerOptions,
    model,
    reasoning: config.reasoning ? (toCoreThinkingLevel(config.reasoning) as ThinkingLevel) : undefined,
    convertToLlm: convertToLlm ?? defaultConvertToLlm,
    getApiKey: withHostKeys(getApiKey, config.apiKey),
    // xcsh's configured headers (models.json, authHeader) go with xcsh's configured key.
    getHeaders: getApiKey ? undefined : () => hostHeaders(model),
    getProviderEnv: getApiKey ? undefined : hostProviderEnv,
    getSteeringMessages,
    getFollowUpMessages,
    shouldStopAfterTurn: finishTurnAsStop(finishTurn, () => working, () => working.messages.slice(startLength), () => signal),
    streamFn: streamFn ?? currentDefaultStreamFn(),
  };
  return runCoreLoop(prompts, working, coreConfig, async (event) => void (await emit(event)), signal);
}

function checkContinuable(context: PiLoopContext, name: string): void {
  const messages = context.messages.filter((message) => (message as { role?: string }).role !== "system");
  if (messages.length === 0) throw new Error(`${name}: Cannot continue: no messages in context`);
  const last = messages[messages.length - 1]!;
  if (last.role === "assistant") throw new Error(`${name}: Cannot continue from message role: assistant`);
}

export async function runAgentLoop(
  prompts: AgentMessage[],
  context: PiLoopContext,
  config: PiLoopConfig,
  emit: Emit,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): Promise<AgentMessage[]> {
  checkLoopArguments(context, config, "runAgentLoop");
  if (!Array.isArray(prompts)) throw new TypeError("runAgentLoop: prompts must be an array of messages");
  return runOnCore(prompts, context, config, emit, signal, streamFn);
}

export async function runAgentLoopContinue(
  context: PiLoopContext,
  config: PiLoopConfig,
  emit: Emit,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): Promise<AgentMessage[]> {
  checkLoopArguments(context, config, "runAgentLoopContinue");
  checkContinuable(context, "runAgentLoopContinue");
  return runOnCore([], context, config, emit, signal, streamFn);
}

function agentEventStream(): EventStream<AgentEvent, AgentMessage[]> {
  return new EventStream<AgentEvent, AgentMessage[]>(
    (event) => event.type === "agent_end",
    (event) => (event.type === "agent_end" ? event.messages : []),
  );
}

/** Feeds a run's events into a stream; a run that fails ends the stream (and says why on stderr). */
function streamRun(run: (emit: Emit) => Promise<AgentMessage[]>): EventStream<AgentEvent, AgentMessage[]> {
  const stream = agentEventStream();
  run((event) => stream.push(event)).then(
    (messages) => stream.end(messages),
    (error) => {
      process.stderr.write(`xcsh: agent loop failed: ${error instanceof Error ? error.message : String(error)}\n`);
      stream.end([]);
    },
  );
  return stream;
}

/** Starts a run with new prompt messages; its events and final messages come as a stream. */
export function agentLoop(
  prompts: AgentMessage[],
  context: PiLoopContext,
  config: PiLoopConfig,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): EventStream<AgentEvent, AgentMessage[]> {
  checkLoopArguments(context, config, "agentLoop");
  if (!Array.isArray(prompts)) throw new TypeError("agentLoop: prompts must be an array of messages");
  return streamRun((emit) => runOnCore(prompts, context, config, emit, signal, streamFn));
}

/** Runs again from the context as it is (its last message must be a user message or a tool result). */
export function agentLoopContinue(
  context: PiLoopContext,
  config: PiLoopConfig,
  signal?: AbortSignal,
  streamFn?: StreamFn,
): EventStream<AgentEvent, AgentMessage[]> {
  checkLoopArguments(context, config, "agentLoopContinue");
  checkContinuable(context, "agentLoopContinue");
  return streamRun((emit) => runOnCore([], context, config, emit, signal, streamFn));
}
