/**
 * The coding agent's own message roles (seed 002, "扩展消息类型") and what the
 * LLM sees of them. The LLM knows only user, assistant and toolResult; the
 * others become user messages that say what they are.
 */
import type { ImageContent, Message, TextContent } from "../ai/types.ts";
import type { AgentMessage } from "./types.ts";

/** A shell command the user ran (RPC `bash`, `!cmd`): context for the next prompt. */
export interface BashExecutionMessage {
  role: "bashExecution";
  command: string;
  output: string;
  /** undefined when the command was killed before it exited. */
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  timestamp: number;
  /** `!!cmd`: shown to the user, kept out of the LLM context. */
  excludeFromContext?: boolean;
}

/** A message an extension added to the conversation. */
export interface CustomMessage<T = unknown> {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: T;
  timestamp: number;
}

/** What was learned on a branch the conversation came back from. */
export interface BranchSummaryMessage {
  role: "branchSummary";
  summary: string;
  fromId: string;
  timestamp: number;
}

/** The summary that replaces compacted history. */
export interface CompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  tokensBefore: number;
  timestamp: number;
}

declare module "./types.ts" {
  interface CustomAgentMessages {
    bashExecution: BashExecutionMessage;
    custom: CustomMessage;
    branchSummary: BranchSummaryMessage;
    compactionSummary: CompactionSummaryMessage;
  }
}

export const COMPACTION_SUMMARY_PREFIX = "Earlier parts of this conversation were condensed into the summary below.\n\n<summary>\n";
export const COMPACTION_SUMMARY_SUFFIX = "\n</summary>";
export const BRANCH_SUMMARY_PREFIX = "The conversation returned here from another branch. What happened on that branch:\n\n<summary>\n";
export const BRANCH_SUMMARY_SUFFIX = "\n</summary>";

export function bashExecutionToText(message: BashExecutionMessage): string {
  let text = `Ran \`${message.command}\`\n`;
  text += message.output ? `\`\`\`\n${message.output.replace(/\n$/, "")}\n\`\`\`` : "(no output)";
  if (message.cancelled) text += "\n\n(command cancelled)";
  else if (message.exitCode !== undefined && message.exitCode !== null && message.exitCode !== 0) {
    text += `\n\nCommand exited with code ${message.exitCode}`;
  }
  if (message.truncated && message.fullOutputPath) text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`;
  return text;
}

const toTimestamp = (iso: string) => new Date(iso).getTime();

export function createCompactionSummaryMessage(summary: string, tokensBefore: number, timestamp: string): CompactionSummaryMessage {
  return { role: "compactionSummary", summary, tokensBefore, timestamp: toTimestamp(timestamp) };
}

export function createBranchSummaryMessage(summary: string, fromId: string, timestamp: string): BranchSummaryMessage {
  return { role: "branchSummary", summary, fromId, timestamp: toTimestamp(timestamp) };
}

export function createCustomMessage(
  customType: string,
  content: string | (TextContent | ImageContent)[],
  display: boolean,
  details: unknown,
  timestamp: string,
): CustomMessage {
  return { role: "custom", customType, content, display, details, timestamp: toTimestamp(timestamp) };
}

const userText = (text: string, timestamp: number): Message => ({ role: "user", content: [{ type: "text", text }], timestamp });

export function convertToLlm(messages: AgentMessage[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
      case "assistant":
      case "toolResult":
        out.push(message);
        break;
      case "bashExecution":
        if (!message.excludeFromContext) out.push(userText(bashExecutionToText(message), message.timestamp));
        break;
      case "custom":
        out.push({
          role: "user",
          content: typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content,
          timestamp: message.timestamp,
        });
        break;
      case "compactionSummary":
        out.push(userText(COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX, message.timestamp));
        break;
      case "branchSummary":
        out.push(userText(BRANCH_SUMMARY_PREFIX + message.summary + BRANCH_SUMMARY_SUFFIX, message.timestamp));
        break;
      default:
        // Roles the LLM has no use for (UI notes) are left out.
        break;
    }
  }
  return out;
}
