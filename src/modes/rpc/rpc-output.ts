/**
 * Writing frames to stdout. By default events keep seed 000's shape, in which
 * every message_update repeats the whole partial message — output that grows
 * with the square of a long answer. The lean form (--rpc-lean) sends deltas
 * without the cumulative message; final messages are still sent whole, once,
 * in message_end (and turn_end / agent_end). In the lean form, deltas of the same
 * block that arrive within one turn of the event loop go out as one frame: a
 * frame's envelope is ~90 bytes, far more than a typical 5-character delta.
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

type Delta = { type: string; contentIndex: number; delta: string };

const MERGEABLE = new Set(["text_delta", "thinking_delta", "toolcall_delta"]);

/**
 * Writes session events as frames. Lean mode holds back a delta until the event
 * loop turns over (or a different frame must go first), appending deltas of the
 * same block to it; every other frame flushes it first, so order is kept.
 */
export function createEventWriter(write: (frame: object | string) => void, lean: boolean): (event: AgentSessionEvent) => void {
  if (!lean) return (event) => write(eventFrame(event, false));
  let pending: Delta | undefined;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending) return;
    const delta = pending;
    pending = undefined;
    write({ type: "message_update", assistantMessageEvent: delta });
  };
  return (event) => {
    const update = event.type === "message_update" ? (event.assistantMessageEvent as unknown as Delta) : undefined;
    if (!update || !MERGEABLE.has(update.type)) {
      flush();
      write(leanEvent(event));
      return;
    }
    if (pending && pending.type === update.type && pending.contentIndex === update.contentIndex) pending.delta += update.delta;
    else {
      flush();
      pending = { type: update.type, contentIndex: update.contentIndex, delta: update.delta };
    }
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}
