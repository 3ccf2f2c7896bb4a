/**
 * What the LLM sees of the agent's own message roles. The LLM knows only
 * user, assistant and toolResult; a command the user ran themselves becomes
 * a user message saying what ran and what it printed (seed 000, "bash").
 */
import type { ImageContent, Message, TextContent } from "../ai/types.ts";
import type { AgentMessage } from "./types.ts";

/** A shell command the user ran (RPC `bash`, `!cmd`): context for the next prompt. */
export interface BashExecutionMessage {
  role: "bashExecution";
  command: string;
  output: string;
  exitCode: number | null;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string | null;
  timestamp: number;
  /** `!!cmd`: shown to the user, kept out of the LLM context. */
  excludeFromContext?: boolean;
}

/** A message an extension added to the conversation. */
export interface CustomMessage {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: unknown;
  timestamp: number;
}

declare module "./types.ts" {
  interface CustomAgentMessages {
    bashExecution: BashExecutionMessage;
    custom: CustomMessage;
  }
}

export function bashExecutionToText(message: BashExecutionMessage): string {
  let text = `Ran \`${message.command}\`\n`;
  text += message.output ? `\`\`\`\n${message.output.replace(/\n$/, "")}\n\`\`\`` : "(no output)";
  if (message.cancelled) text += "\n\n(command cancelled)";
  else if (message.exitCode !== null && message.exitCode !== 0) text += `\n\nCommand exited with code ${message.exitCode}`;
  if (message.truncated && message.fullOutputPath) text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`;
  return text;
}

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
        if (!message.excludeFromContext) {
          out.push({ role: "user", content: [{ type: "text", text: bashExecutionToText(message) }], timestamp: message.timestamp });
        }
        break;
      case "custom":
        out.push({
          role: "user",
          content: typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content,
          timestamp: message.timestamp,
        });
        break;
      default:
        // Roles the LLM has no use for (UI notes) are left out.
        break;
    }
  }
  return out;
}
