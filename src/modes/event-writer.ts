/**
 * Turning session events into frames, in one of three wire forms.
 *
 * The default ("full") form keeps seed 000's shape: every message_update carries the
 * whole partial message, so its output grows with the square of a long answer. The
 * lean form (--rpc-lean) sends each piece of content once: deltas without the
 * cumulative message, final messages whole in their message_end, and turn_end /
 * agent_end without the messages that message_end already carried. The pi form
 * (--rpc-wire pi) is pi 0.87.1's wire: message_update is `{type, usage,
 * assistantMessageEvent}` without `message` or `partial` (toolcall_start naming the
 * call's id and tool), and every other event is left whole.
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

/** How events are written: seed 000's cumulative form, xcsh's lean form, or pi 0.87.1's delta-only form. */
export type WireForm = "full" | "lean" | "pi";
export const WIRE_FORMS: readonly WireForm[] = ["full", "lean", "pi"];

type MessageUpdate = Extract<AgentSessionEvent, { type: "message_update" }>;

/** The update without its `partial` snapshot; toolcall_start also names the call, which the snapshot held. */
function deltaOnly(update: MessageUpdate): Record<string, unknown> {
  const { partial, ...delta } = update.assistantMessageEvent as { partial?: { content?: unknown[] } } & Record<string, unknown>;
  if (delta.type === "toolcall_start") {
    const snapshot = (partial ?? update.message) as { content?: unknown[] } | undefined;
    const block = snapshot?.content?.[delta.contentIndex as number] as { id?: string; name?: string } | undefined;
    if (block) return { ...delta, id: block.id, toolName: block.name };
  }
  return delta;
}

/** The lean form of an event: each message's content goes out once. */
export function leanEvent(event: AgentSessionEvent): object {
  switch (event.type) {
    case "message_update":
      return { type: "message_update", assistantMessageEvent: deltaOnly(event) };
    case "turn_end":
      // The assistant message and the tool results each went out whole in their message_end.
      return { type: "turn_end" };
    case "agent_end":
      return { type: "agent_end" };
    default:
      return event;
  }
}

/** pi 0.87.1's form of an event: message_update carries the delta and the usage so far, nothing cumulative. */
export function piEvent(event: AgentSessionEvent): object {
  if (event.type !== "message_update") return event;
  return { type: "message_update", usage: (event.message as { usage?: unknown }).usage, assistantMessageEvent: deltaOnly(event) };
}

/** An event as it goes out in the given form; default message_updates serialized cheaply. */
export function eventFrame(event: AgentSessionEvent, form: WireForm): object | string {
  if (form === "lean") return leanEvent(event);
  if (form === "pi") return piEvent(event);
  if (event.type === "message_update") return serializeMessageUpdate(event.message, event.assistantMessageEvent as never);
  return event;
}

type Delta = { type: string; contentIndex: number; delta: string };

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
export function createEventWriter(write: (frame: object | string) => void, form: WireForm): (event: AgentSessionEvent) => void {
  let pending: { update: MessageUpdate; delta: string } | undefined;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (!pending) return;
    const { update, delta } = pending;
    pending = undefined;
    const merged = { ...update.assistantMessageEvent, delta } as MessageUpdate["assistantMessageEvent"];
    write(eventFrame({ ...update, assistantMessageEvent: merged }, form));
  };
  return (event) => {
    const delta = mergeableDelta(event);
    if (!delta) {
      flush();
      write(eventFrame(event, form));
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
