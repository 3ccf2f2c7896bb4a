/**
 * Non-interactive runs: `xcsh -p "…"` prints the final answer as text, and
 * `--mode json` prints every event as one JSON line after a session header.
 * Failures leave one line on stderr and a non-zero exit code.
 */
import type { AssistantMessage } from "../../ai/types.ts";
import type { CliArgs } from "../../cli/args.ts";
import type { AgentSession } from "../../core/agent-session.ts";
import { UserError } from "../../core/user-error.ts";
import { claimStdoutForProtocol } from "../protocol-output.ts";
import { createSessionFromArgs } from "../session-from-args.ts";
import { readPipedStdin } from "./read-stdin.ts";
import { describeExtensionError, headlessExtensionOptions } from "../headless-extensions.ts";

async function collectPrompt(args: CliArgs): Promise<string> {
  const fromArgs = args.messages.join(" ").trim();
  const piped = await readPipedStdin();
  // Piped text is the material, the argument says what to do with it.
  const prompt = [fromArgs, piped?.trimEnd()].filter(Boolean).join("\n\n");
  if (!prompt) {
    throw new UserError('No prompt given. Pass it as xcsh -p "your prompt", or pipe it: echo "your prompt" | xcsh -p', 2);
  }
  return prompt;
}

function textOf(message: AssistantMessage): string {
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("");
}

/**
 * Text output. Without tools the answer streams as it arrives; with tools only
 * the final answer goes to stdout (the model's remarks between tool calls are
 * not the answer), and tool activity is shown on stderr when it is a terminal.
 */
function attachTextOutput(session: AgentSession, streamLive: boolean, out: (text: string) => void): void {
  const showProgress = process.stderr.isTTY === true;
  session.subscribe((event) => {
    if (streamLive && event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
      out(event.assistantMessageEvent.delta);
    } else if (showProgress && event.type === "tool_execution_start") {
      const args = JSON.stringify(event.args);
      process.stderr.write(`· ${event.toolName} ${args.length > 120 ? args.slice(0, 117) + "..." : args}\n`);
    } else if (event.type === "auto_retry_start") {
      process.stderr.write(`xcsh: ${event.errorMessage} — retrying in ${Math.round(event.delayMs / 1000)}s (attempt ${event.attempt} of ${event.maxAttempts})\n`);
    } else if (event.type === "compaction_start" && event.reason !== "manual") {
      process.stderr.write("xcsh: the context is full; summarizing earlier messages…\n");
    }
  });
}

/** The session header first (as pi's json mode), then every event. */
function attachJsonOutput(session: AgentSession, write: (frame: unknown) => void): void {
  write(session.sessionManager.getHeader());
  session.subscribe((event) => write(event));
}

export async function runPrintMode(args: CliArgs, format: "text" | "json", hostApi: () => Promise<Record<string, unknown>>): Promise<number> {
  // stdout carries the answer (or the event stream) only: whatever else prints there — an
  // extension's console.log included — goes to stderr.
  const out = claimStdoutForProtocol();
  const write = format === "json" ? out : undefined;
  // Extension errors before the session exists are kept and written after the header, so the header stays first.
  const early: object[] = [];
  let headerWritten = false;
  const created = await createSessionFromArgs(args, {
    extensions: headlessExtensionOptions(format === "json" ? "json" : "print", hostApi, (report) => {
      if (!write) process.stderr.write(describeExtensionError(report));
      else if (headerWritten) write({ type: "extension_error", ...report });
      else early.push({ type: "extension_error", ...report });
    }),
  });
  const { session, extensions } = created;
  // Extension flags are parsed now, so the prompt is what is left of the command line.
  const prompt = await collectPrompt(created.args);
  const streamLive = session.agent.state.tools.length === 0;
  if (write) {
    attachJsonOutput(session, write);
    headerWritten = true;
    for (const frame of early.splice(0)) write(frame);
  } else attachTextOutput(session, streamLive, out);

  // A signal aborts the run (killing running commands) and sets the conventional exit code.
  let interruptedBy: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    interruptedBy ??= signal;
    void session.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const messagesBefore = session.messages.length;
  try {
    await session.prompt(prompt, { source: "interactive" });
    await session.waitForIdle();
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await extensions?.shutdown();
  }

  const added = session.messages.slice(messagesBefore);
  const final = added.findLast((message): message is AssistantMessage => message.role === "assistant");
  if (interruptedBy) {
    process.stderr.write(`xcsh: interrupted (${interruptedBy})\n`);
    return interruptedBy === "SIGTERM" ? 143 : 130;
  }
  if (format === "text" && final) {
    const answer = textOf(final);
    if (!streamLive) out(answer);
    if (answer && !answer.endsWith("\n")) out("\n");
  }
  // An extension command or input handler took the prompt: nothing was asked of the model.
  if (!final && added.length === 0) return 0;
  if (!final || final.stopReason === "error") {
    process.stderr.write(`xcsh: ${session.model.provider}/${session.model.id}: ${final?.errorMessage ?? "the run ended without an answer"}\n`);
    return 1;
  }
  if (final.stopReason === "aborted") {
    process.stderr.write("xcsh: interrupted\n");
    return 130;
  }
  return 0;
}
