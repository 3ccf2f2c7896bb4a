/**
 * Writing frames to stdout. By default events keep seed 000's shape, in which
 * every message_update repeats the whole partial message — output that grows
 * with the square of a long answer. The lean form (--rpc-lean) sends deltas
 * without the cumulative message; final messages are still sent whole, once,
 * in message_end (and turn_end / agent_end).
 */
import type { AgentSessionEvent } from "../../core/session-events.ts";
import { serializeMessageUpdate } from "./jsonl.ts";
/** The lean form of an event: message_update without `message` and `partial`. */
export function leanEvent(event: AgentSessionEvent): object {
  if (event.type !== "message_update") return event;
  const { partial: _partial, ...delta } = event.assistantMessageEvent as { partial?: unknown } & Record<string, unknown>;
  return { type: "message_update", assistantMessageEvent: delta };
}

/** An event as it goes out: lean or default form; default message_updates serialized cheaply. */
export function eventFrame(event: AgentSessionEvent, lean: boolean): object | string {
  if (lean) return leanEvent(event);
  if (event.type === "message_update") return serializeMessageUpdate(event.message, event.assistantMessageEvent as never);
  return event;
}
