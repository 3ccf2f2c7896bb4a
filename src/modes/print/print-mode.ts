/**
 * Non-interactive runs: `xcsh -p "…"` prints the final answer as text, and
 * `--mode json` prints every event as one JSON line after a session header and
 * ends with one `result` line; `--output-format json` prints only that line.
 * Every outcome — success, failure, a limit, an interrupt — leaves its exit code
 * from run-outcome.ts, and every non-success one line on stderr (docs/headless.md).
 */
import { answerMcpCommand, isMcpCommand } from "../../mcp/session-command.ts";
import type { AssistantMessage } from "../../ai/types.ts";
import type { RunOptions } from "../../core/run-options.ts";
import type { AgentSession } from "../../core/agent-session.ts";
import { UserError } from "../../core/user-error.ts";
import { describeLimit, RunMeter, type RunLimitOptions } from "../../core/run-limits.ts";
import { formatRetryDelay } from "../../core/auto-retry.ts";
import { emptyUsage } from "../../ai/usage.ts";
import { verboseErrorBody } from "../../ai/verbose-error-body.ts";
import { inertText } from "../../tools/inert-text.ts";
import { classifyProviderError, classifyThrown, exitCodeFor, type ResultEnvelope, type RunError, type RunStatus } from "./run-outcome.ts";
import { trackFilesChanged } from "./files-changed.ts";
import { claimStdoutForProtocol } from "../protocol-output.ts";
import { createEventWriter, type WireForm } from "../event-writer.ts";
import { createSessionFromArgs, noteTrustWithoutAsking } from "../session-from-args.ts";
import { readPipedStdin } from "./read-stdin.ts";
import { pickSessionOnTerminal } from "./pick-session.ts";
import type { SessionChoice } from "../../core/create-session.ts";
import { resolve } from "node:path";
import { initialPrompts, readFileArguments, type InitialPrompt } from "../initial-prompts.ts";
import { describeExtensionError, headlessExtensionOptions } from "../headless-extensions.ts";

/** The command line's prompts: stdin first, then the `@file` contents, then the first message; each further message on its own. */
async function collectPrompts(args: RunOptions, cwd: string, settings: Readonly<Record<string, unknown>>): Promise<InitialPrompt[]> {
  const files = readFileArguments(args.fileArgs, cwd, settings);
  const prompts = initialPrompts(args.messages, files, await readPipedStdin());
  if (prompts.length === 0) {
    throw new UserError('No prompt given. Pass it as xcsh -p "your prompt", or pipe it: echo "your prompt" | xcsh -p', 2);
  }
  return prompts;
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
function attachTextOutput(session: AgentSession, streamLive: () => boolean, out: ((text: string) => void) | undefined, verbose: boolean): void {
  const showProgress = process.stderr.isTTY === true;
  // --verbose: the failed attempt's raw body goes under its retry notice.
  let failedBody: string | undefined;
  session.subscribe((event) => {
    if (event.type === "message_end" && event.message.role === "assistant") failedBody = event.message.stopReason === "error" ? event.message.errorBody : undefined;
    if (out && streamLive() && event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
      out(event.assistantMessageEvent.delta);
    } else if (showProgress && event.type === "tool_execution_start") {
      const args = JSON.stringify(event.args);
      process.stderr.write(`· ${event.toolName} ${args.length > 120 ? args.slice(0, 117) + "..." : args}\n`);
    } else if (event.type === "auto_retry_start") {
      // A provider's (or a proxy's) words reach the terminal without their escape sequences.
      process.stderr.write(`xcsh: ${inertText(event.errorMessage)} — retrying in ${formatRetryDelay(event.delayMs)} (attempt ${event.attempt} of ${event.maxAttempts})\n`);
      if (verbose && failedBody) writeErrorBody(failedBody);
    } else if (event.type === "compaction_start" && event.reason !== "manual") {
      process.stderr.write("xcsh: the context is full; summarizing earlier messages…\n");
    }
  });
}

/** --verbose: the provider's raw error body, credentials redacted, on stderr. */
function writeErrorBody(rawBody: string): void {
  process.stderr.write(`xcsh: response body: ${inertText(verboseErrorBody(rawBody))}\n`);
}

/** The session header first (as pi's json mode), then every event. */
function attachJsonOutput(session: AgentSession, write: (frame: unknown) => void, form: WireForm): void {
  write(session.sessionManager.getHeader());
  // pi's event shape, in RPC's default form unless --rpc-wire says otherwise: deltas of one event-loop turn merged.
  session.subscribe(createEventWriter(write, form));
}

function limitsFrom(args: RunOptions): RunLimitOptions {
  return {
    maxTurns: args.maxTurns,
    maxCostUsd: args.maxCostUsd,
    timeoutMs: args.timeoutSeconds === undefined ? undefined : args.timeoutSeconds * 1000,
    idleTimeoutMs: args.idleTimeoutSeconds === undefined ? undefined : args.idleTimeoutSeconds * 1000,
  };
}

export async function runPrintMode(args: RunOptions, format: "text" | "json", hostApi: () => Promise<Record<string, unknown>>): Promise<number> {
  const startedAt = Date.now();
  // stdout carries the answer (or the event stream) only: whatever else prints there — an
  // extension's console.log included — goes to stderr.
  const out = claimStdoutForProtocol();
  const envelopeOnly = format === "text" && args.outputFormat === "json";
  const writeResult = format === "json" || envelopeOnly ? out : undefined;
  try {
    return await runPrompt(args, format, hostApi, out, writeResult, startedAt);
  } catch (error) {
    // Setup failed (flags, config, model, key): still one stderr line, and the envelope for pipelines.
    const runError = classifyThrown(error);
    const isUserFacing = runError.kind !== "internal";
    process.stderr.write(`xcsh: ${isUserFacing ? runError.message : `internal error: ${runError.message}`}\n`);
    if (!isUserFacing && process.env.XCSH_DEBUG && error instanceof Error && error.stack) process.stderr.write(error.stack + "\n");
    writeResult?.({
      type: "result",
      status: "error",
      stopReason: null,
      turns: 0,
      usage: emptyUsage(),
      costUsd: 0,
      durationMs: Date.now() - startedAt,
      sessionId: null,
      sessionFile: null,
      filesChanged: [],
      error: runError,
    } satisfies ResultEnvelope);
    return exitCodeFor("error", runError);
  }
}

async function runPrompt(
  args: RunOptions,
  format: "text" | "json",
  hostApi: () => Promise<Record<string, unknown>>,
  out: (frame: unknown) => void,
  writeResult: ((frame: unknown) => void) | undefined,
  startedAt: number,
): Promise<number> {
  const write = format === "json" ? out : undefined;
  // Extension errors before the session exists are kept and written after the header, so the header stays first.
  const early: object[] = [];
  let headerWritten = false;
  // -r: the session comes from the person at the terminal. With no one to ask nothing runs, and
  // that is a usage error (exit 2): a script must not take "nothing ran" for success.
  let sessions: SessionChoice | undefined;
  if (args.resume) {
    await noteTrustWithoutAsking(args.trustProject, process.cwd());
    const picked = await pickSessionOnTerminal(process.cwd(), args.sessionDir === undefined ? undefined : resolve(args.sessionDir));
    if (picked.kind === "cancelled") {
      process.stderr.write(`xcsh: --resume: ${picked.reason}, so nothing was run. Name the session with --session <file|id>, or use --continue for the latest.\n`);
      return picked.noTerminal ? 2 : 0;
    }
    sessions = { session: picked.path, sessionDir: args.sessionDir, name: args.name };
  }
  const created = await createSessionFromArgs(args, {
    ...(sessions ? { sessions } : {}),
    extensions: headlessExtensionOptions(format === "json" ? "json" : "print", hostApi, (report) => {
      if (!write) process.stderr.write(describeExtensionError(report));
      else if (headerWritten) write({ type: "extension_error", ...report });
      else early.push({ type: "extension_error", ...report });
    }),
  });
  const { session, extensions } = created;
  // Extension flags are parsed now, so the prompts are what is left of the command line.
  const prompts = await collectPrompts(created.args, session.cwd, session.settings as unknown as Record<string, unknown>);
  // As pi prints it: the answer to the last prompt only, so only that one streams.
  const streamLive = session.agent.state.tools.length === 0;
  let onLastPrompt = prompts.length === 1;
  // With --output-format json the envelope is all of stdout: no answer text.
  const answerOut = writeResult ? undefined : (text: string) => out(text);
  if (write) {
    attachJsonOutput(session, write, args.rpcWire ?? "full");
    headerWritten = true;
    for (const frame of early.splice(0)) write(frame);
  } else attachTextOutput(session, () => streamLive && onLastPrompt, answerOut, args.verbose === true);
  // Only the envelope lists them: a text run walks no work tree.
  const filesChanged = writeResult ? trackFilesChanged(session) : async () => [];
  const limits = limitsFrom(created.args);
  const meter = new RunMeter(session, limits);

  // A signal aborts the run (killing running commands); the session keeps what was written.
  let interruptedBy: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    interruptedBy ??= signal;
    void session.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const messagesBefore = session.messages.length;
  try {
    meter.start();
    // One after another, each once the previous run has ended; a failed answer does not stop
    // the next prompt (as in pi), an interrupt or a reached limit does.
    for (const [index, prompt] of prompts.entries()) {
      if (interruptedBy || meter.reached) break;
      onLastPrompt = index === prompts.length - 1;
      // `/mcp` (unless an extension took the name) prints the servers' state; nothing is asked of the model.
      if (isMcpCommand(prompt.text) && !session.isCommand(prompt.text)) {
        const answer = await answerMcpCommand(session.mcp, prompt.text);
        if (answerOut) answerOut(`${answer.text}\n`);
        else process.stderr.write(`${answer.text}\n`);
        continue;
      }
      await session.prompt(prompt.text, { source: "interactive", ...(prompt.images.length > 0 ? { images: prompt.images } : {}) });
      await session.waitForIdle();
    }
  } finally {
    meter.finish();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await extensions?.shutdown();
    // A server still connecting (or hung) must not hold the process open.
    await session.mcp?.close();
  }

  const added = session.messages.slice(messagesBefore);
  const final = added.findLast((message): message is AssistantMessage => message.role === "assistant");
  let status: RunStatus;
  let error: RunError | undefined;
  if (interruptedBy) {
    status = "interrupted";
    process.stderr.write(`xcsh: interrupted (${interruptedBy})\n`);
  } else if (meter.reached) {
    status = meter.reached;
    process.stderr.write(`xcsh: ${describeLimit(meter.reached, limits)}\n`);
  } else if (!final && added.length === 0) {
    // An extension command or input handler took the prompt: nothing was asked of the model.
    status = "success";
  } else if (!final || final.stopReason === "error") {
    const message = final?.errorMessage ?? "the run ended without an answer";
    error = final ? classifyProviderError(message, final.retryAdvised === true) : { kind: "internal", message, retryable: false };
    status = "error";
    process.stderr.write(`xcsh: ${session.model.provider}/${session.model.id}: ${inertText(message)}\n`);
    if (args.verbose && format === "text" && final?.errorBody) writeErrorBody(final.errorBody);
  } else if (final.stopReason === "aborted") {
    status = "interrupted";
    process.stderr.write("xcsh: interrupted\n");
  } else if (final.stopReason === "length") {
    status = "truncated";
    process.stderr.write(`xcsh: ${session.model.provider}/${session.model.id}: the answer is cut off: the model hit its output token limit (maxTokens).\n`);
  } else status = "success";

  if (answerOut && final) {
    const answer = textOf(final);
    // A cut-off answer is still printed (pi 1.6.0): the partial text is often what the caller needs.
    const printable = status === "success" || status === "truncated";
    if (!streamLive && printable) answerOut(answer);
    if (answer && !answer.endsWith("\n") && (streamLive || printable)) answerOut("\n");
  }
  writeResult?.({
    type: "result",
    status,
    stopReason: final?.stopReason ?? null,
    turns: meter.turns,
    usage: meter.usage,
    costUsd: meter.costUsd,
    durationMs: Date.now() - startedAt,
    sessionId: session.sessionManager.getSessionId(),
    sessionFile: session.sessionManager.getSessionFile() ?? null,
    filesChanged: await filesChanged(),
    ...(error ? { error } : {}),
  } satisfies ResultEnvelope);
  return exitCodeFor(status, error);
}
