import type { AssistantMessage, AssistantMessageEvent } from "../../src/ai/types.ts";

/** Every event of a provider stream, and the final message its done/error event carried. */
export async function collectStream(events: AsyncIterable<AssistantMessageEvent>): Promise<{ events: AssistantMessageEvent[]; message: AssistantMessage }> {
  const seen: AssistantMessageEvent[] = [];
  for await (const event of events) seen.push(event);
  const last = seen.at(-1);
  const message = last?.type === "done" ? last.message : last?.type === "error" ? last.error : undefined;
  if (!message) throw new Error(`the stream ended without done or error (last event: ${last?.type ?? "none"})`);
  return { events: seen, message };
}

/** Polls a condition the test cannot await directly (the server noticing a closed socket). */
export async function waitUntil(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}
