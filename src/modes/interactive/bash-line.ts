/**
 * A `!command` typed in the editor (`!!command`: kept out of the model's context): run
 * through the session's user bash, its output drawn as a bash block in the transcript.
 */
import type { AgentSession } from "../../core/agent-session.ts";
import type { ConversationView } from "./conversation.ts";
import type { Layout } from "./layout.ts";

/** Whether the editor's text runs as a shell command when sent (the editor's border says so as it is typed). */
export const isShellLine = (text: string): boolean => text.trimStart().startsWith("!");

export async function runBashLine(text: string, session: AgentSession, view: { layout: Layout; conversation: ConversationView }): Promise<void> {
  const excluded = text.startsWith("!!");
  const command = text.slice(excluded ? 2 : 1).trim();
  if (!command) return;
  view.layout.showWorking(true);
  try {
    const result = await session.executeBash(command, { excludeFromContext: excluded });
    const message = { role: "bashExecution" as const, command, output: result.output, exitCode: result.exitCode, cancelled: result.cancelled, truncated: result.truncated, timestamp: Date.now(), excludeFromContext: excluded };
    view.conversation.handle({ type: "message_start", message });
  } finally {
    if (!session.isStreaming) view.layout.showWorking(false);
  }
}
