/**
 * Anthropic takes at most four cache breakpoints in a request and refuses a fifth (400).
 * xcsh sets four (system prompt, last tool, the last two user turns: anthropic-convert.ts);
 * an extension's `before_provider_request` may add its own `cache_control` besides. Then
 * xcsh gives up its least needed one first — the earlier user turn's, which only saves a
 * cache write after a long parallel turn — and then the later ones of its own, so the
 * extension's marks stand and the request still goes through.
 */
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages";

/** The most breakpoints Anthropic accepts in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

export type Marked = { cache_control?: unknown };

/** Every block of the request that carries a breakpoint, in request order (system, tools, messages). */
function markedBlocks(payload: MessageCreateParamsStreaming): Marked[] {
  const blocks: Marked[] = [];
  if (Array.isArray(payload.system)) blocks.push(...payload.system);
  if (Array.isArray(payload.tools)) blocks.push(...(payload.tools as Marked[]));
  for (const message of payload.messages ?? []) if (Array.isArray(message.content)) blocks.push(...(message.content as Marked[]));
  return blocks.filter((block) => block && typeof block === "object" && block.cache_control != null);
}

/** The last block of each user turn that xcsh marked, latest turn first. */
function userTurnMarks(payload: MessageCreateParamsStreaming): Marked[] {
  const marks: Marked[] = [];
  for (const message of [...(payload.messages ?? [])].reverse()) {
    if (message.role !== "user" || !Array.isArray(message.content) || message.content.length === 0) continue;
    const last = message.content[message.content.length - 1] as Marked;
    if (last?.cache_control != null) marks.push(last);
  }
  return marks;
}

/** Drops xcsh's own user-turn breakpoints, the earlier turn's first, until the request has at most four. */
export function fitCacheBreakpoints(payload: MessageCreateParamsStreaming): void {
  giveWayToExtensionMarks(markedBlocks(payload).length, userTurnMarks(payload));
}

/**
 * The rule both payload shapes share (Anthropic's here, OpenRouter's Chat Completions in
 * openai-completions-convert.ts): with more than four marks in all, xcsh's marks on the last
 * two user turns (`latestFirst`) give way, the earlier turn's first.
 */
export function giveWayToExtensionMarks(markCount: number, latestFirst: readonly Marked[]): void {
  let excess = markCount - MAX_CACHE_BREAKPOINTS;
  for (const block of latestFirst.slice(0, 2).reverse()) {
    if (excess <= 0) break;
    delete block.cache_control;
    excess--;
  }
}
