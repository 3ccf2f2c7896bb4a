/**
 * The calls a codemode script (or an extension tool's executeTool) made, read back from
 * its stored tool result (`nestedCalls`, pi 1.6.0's record), for the modes that draw a
 * resumed session again: the terminal puts them under the script's row, ACP's
 * session/load replays them as tool calls naming the script's call. The field comes from
 * a session file, so anything that is not a well-formed record is left out.
 */
import type { NestedCallRecord } from "../agent/types.ts";

const STATUSES = new Set(["ok", "error", "blocked", "cancelled"]);

function isRecord(value: unknown): value is NestedCallRecord {
  if (!value || typeof value !== "object") return false;
  const record = value as Record<string, unknown>;
  return typeof record.id === "string" && typeof record.name === "string" && STATUSES.has(record.status as string);
}

/** The nested calls kept on a tool result message, oldest first; none when it has no (readable) record. */
export function storedNestedCalls(message: { nestedCalls?: unknown }): NestedCallRecord[] {
  const calls = (message.nestedCalls as { calls?: unknown } | undefined)?.calls;
  return Array.isArray(calls) ? calls.filter(isRecord) : [];
}

/** What a restored nested call shows: its failure, or the status it ended with; a call that ran shows nothing more (its output is not kept). */
export function nestedCallOutcome(record: NestedCallRecord): { text: string; isError: boolean } {
  if (record.status === "ok") return { text: "", isError: false };
  return { text: record.error ?? record.status, isError: true };
}
