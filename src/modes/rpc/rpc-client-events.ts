/**
 * Which stdout frames are session events. The list is checked against
 * AgentSessionEvent at compile time, so a new event type fails the typecheck
 * here instead of being silently dropped by RpcClient.onEvent.
 */
import type { AgentSessionEvent } from "../../core/session-events.ts";

const SESSION_EVENT_TYPES = [
  "agent_start",
  "agent_end",
  "turn_start",
  "turn_end",
  "message_start",
  "message_update",
  "message_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
  "queue_update",
  "compaction_start",
  "compaction_end",
  "auto_compaction_start",
  "auto_compaction_end",
  "auto_retry_start",
  "auto_retry_end",
  "summarization_retry_scheduled",
  "summarization_retry_attempt_start",
  "summarization_retry_finished",
  "agent_settled",
  "bash_execution_update",
  "session_info_changed",
  "thinking_level_changed",
  "entry_appended",
] as const satisfies readonly AgentSessionEvent["type"][];

type Unlisted = Exclude<AgentSessionEvent["type"], (typeof SESSION_EVENT_TYPES)[number]>;
// A compile error here means an event type is missing from SESSION_EVENT_TYPES.
const everyEventListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyEventListed;

const KNOWN = new Set<string>(SESSION_EVENT_TYPES);

export function isSessionEvent(frame: { type?: unknown }): frame is AgentSessionEvent {
  return typeof frame.type === "string" && KNOWN.has(frame.type);
}
