/**
 * Whether a model request comes from the agent loop. A virtual model's router is told
 * (pi 1.x's `reason: "direct"` for requests outside the loop: a compaction summary, an
 * extension's own `ctx.modelRegistry.streamSimple()`); the loop marks the synchronous
 * start of each of its requests, which is where a stream function reads it.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const loopRequest = new AsyncLocalStorage<true>();

export function asAgentLoopRequest<T>(start: () => T): T {
  return loopRequest.run(true, start);
}

export function isAgentLoopRequest(): boolean {
  return loopRequest.getStore() === true;
}
