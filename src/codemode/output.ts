/**
 * A script's result as the model reads it (pi 1.6.0's shape): `Script completed`
 * or `Script failed`, the wall time, then the output — text items in order
 * (headed `==> text N/M <==` when there are several), images, one
 * `<console_output>` block, and for a failure `Script error:` with the error and
 * the calls already made. Output past `max_output_tokens` keeps its start and
 * end; the whole text goes to a temp file the result names.
 */
import type { AgentToolResult, NestedCalls } from "../agent/types.ts";
import type { ImageContent, TextContent } from "../ai/types.ts";
import { newTempFilePath, writeTempFile } from "../tools/temp-files.ts";

export const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;

export type OutputItem = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

export interface CallRecord {
  id: string;
  name: string;
  args: unknown;
  status: "running" | "ok" | "error" | "blocked" | "cancelled";
  durationMs?: number;
}

export interface ScriptOutcome {
  ok: boolean;
  error?: string;
  items: OutputItem[];
  consoleLines: string[];
  calls: CallRecord[];
  wallMs: number;
  maxOutputTokens: number;
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);
const IMAGE_EXTENSIONS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" };

/** The text part of the output: text items, console block, and the failure report. */
function outputText(outcome: ScriptOutcome): string {
  const texts = outcome.items.filter((item): item is Extract<OutputItem, { type: "text" }> => item.type === "text");
  const parts = texts.map((item, index) => (texts.length > 1 ? `==> text ${index + 1}/${texts.length} <==\n${item.text}` : item.text));
  if (outcome.consoleLines.length > 0) parts.push(`<console_output>\n${outcome.consoleLines.join("\n")}\n</console_output>`);
  if (!outcome.ok) {
    const made = outcome.calls.filter((call) => call.status !== "running");
    const summary =
      made.length === 0
        ? "No tool calls were made."
        : `Tool calls made before the failure (they are not undone): ${made.map((call) => `${call.name} (${call.status})`).join(", ")}`;
    parts.push(`Script error:\n${outcome.error ?? "unknown error"}\n\n${summary}`);
  }
  return parts.join("\n");
}

/** Cuts text past the token limit to its start and end, the whole of it kept in a temp file. */
function limit(text: string, maxTokens: number): { text: string; fullOutputPath?: string } {
  const tokens = estimateTokens(text);
  if (tokens <= maxTokens) return { text };
  const path = newTempFilePath("codemode-");
  writeTempFile(path, text);
  const keep = Math.max(maxTokens * 4, 200);
  const head = text.slice(0, Math.floor(keep / 2));
  const tail = text.slice(text.length - Math.floor(keep / 2));
  const omitted = estimateTokens(text) - estimateTokens(head) - estimateTokens(tail);
  const lines = text.split("\n").length;
  return {
    text: `[Output cut to its start and end: about ${tokens} tokens, ${lines} lines in all]\n\n${head}…about ${omitted} tokens left out…${tail}\n\n[Full output: ${path} (read it with offset/limit)]`,
    fullOutputPath: path,
  };
}

export function scriptResult(outcome: ScriptOutcome): AgentToolResult {
  const header = `${outcome.ok ? "Script completed" : "Script failed"}\nWall time ${(outcome.wallMs / 1000).toFixed(1)} seconds\nOutput:\n`;
  const limited = limit(outputText(outcome), outcome.maxOutputTokens);
  const content: (TextContent | ImageContent)[] = [{ type: "text", text: header }];
  if (limited.text) content.push({ type: "text", text: limited.text });
  // Each image is also kept as a file, named before it, so a later turn can copy or move it.
  for (const item of outcome.items) {
    if (item.type !== "image") continue;
    const path = newTempFilePath("codemode-image-", `.${IMAGE_EXTENSIONS[item.mimeType] ?? "img"}`);
    writeTempFile(path, Buffer.from(item.data, "base64"));
    content.push({ type: "text", text: `[Image: ${path}]` }, { type: "image", data: item.data, mimeType: item.mimeType });
  }
  const nestedCalls: NestedCalls = {
    calls: outcome.calls.map((call) => ({
      id: call.id,
      name: call.name,
      status: call.status === "running" ? "cancelled" : call.status,
      arguments: call.args,
      ...(call.durationMs === undefined ? {} : { durationMs: call.durationMs }),
    })),
    complete: true,
  };
  return {
    content,
    details: { calls: detailsCalls(outcome.calls), ...(limited.fullOutputPath ? { fullOutputPath: limited.fullOutputPath } : {}) },
    nestedCalls,
  };
}

/** The calls as the tool's details list them (pi's shape: arguments as JSON text). */
export function detailsCalls(calls: readonly CallRecord[]) {
  return calls.map((call) => ({
    id: call.id,
    name: call.name,
    args: JSON.stringify(call.args),
    status: call.status,
    ...(call.durationMs === undefined ? {} : { durationMs: call.durationMs }),
  }));
}
