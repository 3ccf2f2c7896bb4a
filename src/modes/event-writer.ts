/**
 * Turning session events into frames.
 *
 * The default form keeps seed 000's shape: every message_update carries the whole
 * partial message, so its output grows with the square of a long answer. The lean
 * form (--rpc-lean) sends each piece of content once: deltas without the
 * cumulative message, final messages whole in their message_end, and turn_end /
 * agent_end without the messages that message_end already carried.
 *
 * In both forms, deltas of the same block that arrive within one turn of the event
 * loop go out as one frame whose delta is their concatenation (in the default form
 * with the partial message as it stands then): a frame's envelope costs far more
 * than a typical 5-character delta, and a host that falls behind — the model's
 * chunks piling up in the socket — then receives fewer, larger frames instead of
 * a backlog of copies of the same message.
 */
import type { AgentSessionEvent } from "../core/session-events.ts";
import { serializeMessageUpdate } from "./rpc/jsonl.ts";

/** The lean form of an event: each message's content goes out once. */
export function leanEvent(event: AgentSessionEvent): object {
  switch (event.type) {
    case "message_update": {
      const { partial: _partial, ...delta } = event.assistantMessageEvent as { partial?: unknown } & Record<string, unknown>;
      return { type: "message_update", assistantMessageEvent: delta };
    }
    case "turn_end":
      // The assistant message and the tool results each went out whole in their message_end.
      return { type: "turn_end" };
    case "agent_end":
      return { type: "agent_end" };
    default:
      return event;
  }
}

/** An event as it goes out: lean or default form; default message_updates serialized cheaply. */
export function eventFrame(event: AgentSessionEvent, lean: boolean): object | string {
  if (lean) return leanEvent(event);
  if (event.type === "message_update") return serializeMessageUpdate(event.message, event.assistantMessageEvent as never);
  return event;
}

type Delta = { type: string; contentIndex: number; delta: string };
type MessageUpdate = Extract<AgentSessionEvent, { type: "message_update" }>;

const MERGEABLE = new Set(["text_delta", "thinking_delta", "toolcall_delta"]);

function mergeableDelta(event: AgentSessionEvent): Delta | undefined {
  if (event.type !== "message_update") return undefined;
  const update = event.assistantMessageEvent as unknown as Delta;
  return MERGEABLE.has(update.type) ? update : undefined;
}

/**
 * Writes session events as frames. A delta is held back until the event loop
 * turns over (or a different frame must go first), and deltas of the same block
 * are appended to it; every other frame flushes it first, so order is kept.
 */
export function createEventWriter(write: (frame: object | string) => void, lean: boolean): (event: AgentSessionEvent) => void {
  let pending: { update: MessageUpdate; delta: string } | undefined;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending) return;
    const { update, delta } = pending;
    pending = undefined;
    const merged = { ...update.assistantMessageEvent, delta } as MessageUpdate["assistantMessageEvent"];
    write(eventFrame({ ...update, assistantMessageEvent: merged }, lean));
  };
  return (event) => {
    const delta = mergeableDelta(event);
    if (!delta) {
      flush();
      write(eventFrame(event, lean));
      return;
    }
    const held = pending && (pending.update.assistantMessageEvent as unknown as Delta);
    if (pending && held && held.type === delta.type && held.contentIndex === delta.contentIndex) {
      pending.delta += delta.delta;
      // The latest update: in the default form its partial message is the one to send.
      pending.update = event as MessageUpdate;
    } else {
      flush();
      pending = { update: event as MessageUpdate, delta: delta.delta };
    }
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}
