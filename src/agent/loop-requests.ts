/**
 * What a model request is, for a virtual model's router (pi 1.x's `reason`): one from
 * the agent loop, or "direct" (a compaction summary, an extension's own call); and the
 * first request of an automatic retry, with the failed answer it replaces. The loop
 * marks the synchronous start of each of its requests, which is where a stream
 * function reads it; a retry is marked around the loop's continuation, and only its
 * first request takes it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { AssistantMessage } from "../ai/types.ts";

const loopRequest = new AsyncLocalStorage<true>();
const retryOf = new AsyncLocalStorage<{ failed: AssistantMessage; taken: boolean }>();

export function asAgentLoopRequest<T>(start: () => T): T {
  return loopRequest.run(true, start);
}

/**
 * Runs `work` as no part of the loop's request, though it starts inside one: a compaction
 * the request waits for (core/routed-compaction.ts) asks for its summary as a direct request.
 */
export function outsideAgentLoop<T>(work: () => T): T {
  return loopRequest.exit(() => retryOf.exit(work));
}

export function isAgentLoopRequest(): boolean {
  return loopRequest.getStore() === true;
}

/** Runs `continuation` (the loop resumed after `failed` was taken out) as a retry of it. */
export function asRetryOf<T>(failed: AssistantMessage, continuation: () => T): T {
  return retryOf.run({ failed, taken: false }, continuation);
}

/** The failed answer the current request retries; only the first request of a retry gets it. */
export function takeRetriedFailure(): AssistantMessage | undefined {
  const retry = retryOf.getStore();
  if (!retry || retry.taken) return undefined;
  retry.taken = true;
  return retry.failed;
}
