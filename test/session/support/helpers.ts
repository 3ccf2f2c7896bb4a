/**
 * Shared pieces for session tests: a throwaway folder per test and small
 * message builders with realistic shapes.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AssistantMessage, ToolResultMessage, UserMessage } from "../../../src/ai/types.ts";

export interface TempDir {
  path: string;
  join(...parts: string[]): string;
  cleanup(): void;
}

export function makeTempDir(prefix = "xcsh-session-"): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    join: (...parts) => join(path, ...parts),
    cleanup: () => rmSync(path, { recursive: true, force: true }),
  };
}

let clock = 1_700_000_000_000;
const nextTimestamp = () => (clock += 1000);

export function userMessage(text: string): UserMessage {
  return { role: "user", content: text, timestamp: nextTimestamp() };
}

export function assistantMessage(text: string, provider = "anthropic", model = "claude-sonnet-4-5"): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider,
    model,
    usage: {
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: nextTimestamp(),
  };
}

export function toolResultMessage(text: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: "call_1",
    toolName: "bash",
    content: [{ type: "text", text }],
    isError: false,
    timestamp: nextTimestamp(),
  };
}

/** The parsed lines of a file, for checking what is really on disk. */
export function readJsonLines(file: string): Array<Record<string, unknown>> {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

/** The text of a message in a built context, whatever its role, for compact assertions. */
export function describeMessage(message: { role: string } & Record<string, any>): string {
  switch (message.role) {
    case "compactionSummary":
      return `compactionSummary: ${message.summary}`;
    case "branchSummary":
      return `branchSummary: ${message.summary}`;
    case "custom":
    case "user": {
      const content = message.content;
      const text = typeof content === "string" ? content : content.map((block: { text?: string }) => block.text ?? "").join("");
      return `${message.role}: ${text}`;
    }
    case "assistant":
    case "toolResult":
      return `${message.role}: ${message.content.map((block: { text?: string }) => block.text ?? "").join("")}`;
    default:
      return message.role;
  }
}
