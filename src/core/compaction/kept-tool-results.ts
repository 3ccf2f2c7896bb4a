/**
 * What a compaction keeps of old tool output. The messages kept verbatim after a
 * compaction go out with every later request; a file read or a command's output
 * from an older turn among them (a 25 KB README, say) would be paid for again
 * each time, though the summary already says what it held. So, as the model sees
 * the context (the session file keeps everything), the large tool results kept
 * from before the latest compaction are cut — except those of the latest kept
 * turn, which the next prompt most likely builds on — with a note saying how much
 * was left out and how to see it again:
 * - a `read` result goes out as the note alone. The file is still on disk and one
 *   `read` shows it exactly as it is now; a beginning and end of it would not be
 *   enough to edit it by (edit needs the exact text), and after a later change
 *   they would be out of date. The tool call above the note names the file.
 * - any other output keeps its first and last lines around the note: a command
 *   run again may not print the same, and its end often holds the error.
 * A `read` of a file that a later kept message reads again, edits or writes goes
 * out as a note whatever its size: that copy is a duplicate or out of date.
 *
 * The rule depends only on the messages, so every request sends the same bytes
 * and the provider's prompt cache keeps working. `compaction.trimToolResults:
 * false` turns it off (docs/costs.md).
 */
import type { AgentMessage } from "../../agent/types.ts";

/** Results up to this many characters (~500 tokens) are kept whole. */
export const TRIM_OVER_CHARS = 2000;
const HEAD_CHARS = 1000;
const TAIL_CHARS = 400;

function textOf(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  if (!content.every((block) => block?.type === "text" && typeof block.text === "string")) return undefined;
  return content.map((block) => block.text as string).join("\n");
}

function trimmed(toolName: string, text: string): string {
  if (toolName === "read") {
    const lines = text.split("\n").length;
    return `[${text.length} characters (${lines} lines) of this file left out when the session was compacted; read it again to see them]`;
  }
  const head = text.slice(0, HEAD_CHARS);
  const tail = text.slice(-TAIL_CHARS);
  const omitted = text.slice(HEAD_CHARS, text.length - TAIL_CHARS);
  const lines = omitted.split("\n").length;
  return `${head}\n[… ${omitted.length} characters (${lines} lines) left out here when the session was compacted; run the tool again to see them …]\n${tail}`;
}

const FILE_TOOLS = new Set(["read", "edit", "write"]);
const SUPERSEDED_NOTE = "[this copy of the file was left out when the session was compacted: it was read again or changed later]";

const samePath = (path: unknown) => (typeof path === "string" ? path.replace(/^\.\//, "") : undefined);

/** Ids of the kept `read` calls whose file a later kept call reads, edits or writes. */
function supersededReads(messages: AgentMessage[], from: number, to: number): Set<string> {
  const superseded = new Set<string>();
  const laterPaths = new Set<string>();
  for (let i = to - 1; i >= from; i--) {
    const message = messages[i]!;
    if (message.role !== "assistant") continue;
    for (let j = message.content.length - 1; j >= 0; j--) {
      const block = message.content[j]!;
      if (block.type !== "toolCall" || !FILE_TOOLS.has(block.name)) continue;
      const path = samePath(block.arguments?.path);
      if (path === undefined) continue;
      if (block.name === "read" && laterPaths.has(path)) superseded.add(block.id);
      laterPaths.add(path);
    }
  }
  return superseded;
}

/** The context with old kept tool results trimmed; the same array when nothing changes. */
export function trimKeptToolResults(messages: AgentMessage[]): AgentMessage[] {
  let summaryIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "compactionSummary") {
      summaryIndex = i;
      break;
    }
  }
  if (summaryIndex < 0) return messages;
  const compactedAt = messages[summaryIndex]!.timestamp;
  // The kept messages follow the summary and are older than it.
  let keptEnd = summaryIndex + 1;
  while (keptEnd < messages.length && messages[keptEnd]!.timestamp <= compactedAt) keptEnd++;
  // The latest kept turn begins at the last user-side message that is not a tool result.
  let latestTurn = keptEnd;
  for (let i = keptEnd - 1; i > summaryIndex; i--) {
    const role = messages[i]!.role;
    if (role !== "assistant" && role !== "toolResult") {
      latestTurn = i;
      break;
    }
  }
  const superseded = supersededReads(messages, summaryIndex + 1, keptEnd);
  let out: AgentMessage[] | undefined;
  for (let i = summaryIndex + 1; i < latestTurn; i++) {
    const message = messages[i]!;
    if (message.role !== "toolResult") continue;
    if (superseded.has(message.toolCallId) && !message.isError) {
      out ??= [...messages];
      out[i] = { ...message, content: [{ type: "text", text: SUPERSEDED_NOTE }] };
      continue;
    }
    const text = textOf(message.content);
    if (text === undefined || text.length <= TRIM_OVER_CHARS) continue;
    out ??= [...messages];
    out[i] = { ...message, content: [{ type: "text", text: trimmed(message.toolName, text) }] };
  }
  return out ?? messages;
}
