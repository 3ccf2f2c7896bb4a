/**
 * A virtual model's route may pick a physical model whose context window is smaller than
 * the conversation (docs/virtual-models.md, pi 1.6.0): then the session is compacted
 * *before* the request is sent, and the request goes to the model the router chose with
 * the compacted context. The route is not asked again.
 *
 * This runs inside the agent loop's request (the virtual stream calls it after routing).
 * The summary is not part of that request: it is asked for as any compaction's is, a
 * `direct` request (pi's reason for "a compaction summary"), which the router routes with
 * no state. The loop holds the session's message array itself, so the compacted messages
 * are put into that same array, and the request is built again from it the way the loop
 * builds it: the extensions' `context` and `context_with_system` hooks see the compacted
 * conversation, and the system prompt is the one they make of it.
 */
import { outsideAgentLoop } from "../agent/loop-requests.ts";
import type { Context, Model } from "../ai/types.ts";
import type { AgentSession } from "./agent-session.ts";
import { estimateContextTokens, shouldCompact } from "./compaction/index.ts";

/** Rough tokens of the system prompt (four characters a token, as the message estimate counts). */
function systemPromptTokens(context: Context): number {
  return Math.ceil((context.systemPrompt?.length ?? 0) / 4);
}

/**
 * The context to send to `physical`: `context` when it fits (or automatic compaction is off,
 * or compaction fails), else the compacted conversation's.
 */
export async function fitContextToRoutedModel(
  session: AgentSession,
  compact: () => Promise<boolean>,
  physical: Model,
  context: Context,
  signal: AbortSignal | undefined,
): Promise<Context> {
  if (!session.autoCompactionEnabled) return context;
  const loopMessages = session.agent.state.messages;
  const tokens = estimateContextTokens(loopMessages).tokens + systemPromptTokens(context);
  if (!shouldCompact(tokens, physical.contextWindow, { ...session.settings.compaction, enabled: true })) return context;
  if (!(await outsideAgentLoop(compact)) || signal?.aborted) return context;
  // The compaction gave the agent a new array; the running loop still holds the old one.
  const compacted = session.agent.state.messages;
  if (compacted !== loopMessages) {
    loopMessages.splice(0, loopMessages.length, ...compacted);
    session.agent.state.messages = loopMessages;
  }
  const request = await session.agent.requestFor(loopMessages, signal);
  return { ...context, systemPrompt: request.systemPrompt, messages: request.messages };
}
