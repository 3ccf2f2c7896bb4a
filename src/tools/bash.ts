/**
 * The `bash` tool: runs a shell command, streams its output as updates, and
 * returns the tail of that output. The full output of a long run is kept in a
 * temp file that the model is pointed to. Commands get xcsh's environment without
 * its credentials, and run under the sandbox when one is on (src/sandbox/).
 */
import { statSync } from "node:fs";
import type { Static } from "typebox";
import { Type } from "../schema/type.ts";
import type { AgentToolResult, AgentToolUpdateCallback } from "../agent/types.ts";
import { commandEnvironment } from "../sandbox/active-policy.ts";
import { createLocalBashOperations, type BashOperations } from "./bash-operations.ts";
import { OutputCollector, type OutputSnapshot } from "./output-collector.ts";
import { withSessionEnvironment, type ShellSessionContext } from "./session-environment.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, type TruncationResult } from "./truncate.ts";
import type { CodingTool } from "./types.ts";

export { createLocalBashOperations, type BashOperations } from "./bash-operations.ts";

const bashSchema = Type.Object({
  command: Type.String({ description: "Bash command to execute" }),
  timeout: Type.Optional(Type.Number({ description: "Timeout in seconds (optional, no default timeout)" })),
});

export type BashToolInput = Static<typeof bashSchema>;

export interface BashToolDetails {
  truncation?: TruncationResult;
  fullOutputPath?: string;
}

export interface BashSpawnContext {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface BashToolOptions {
  /** Where commands run; the local shell by default. */
  operations?: BashOperations;
  /** Prepended to every command on its own line, e.g. `shopt -s expand_aliases`. */
  commandPrefix?: string;
  /** Shell for the default local operations. */
  shellPath?: string;
  /**
   * Give commands the current session as PI_* / XCSH_* variables (session-environment.ts).
   * Default true; false also removes inherited ones. They are in place before spawnHook runs.
   */
  exposeSessionEnvironment?: boolean;
  /**
   * The session, asked when each command starts. Without it, the context a host passes
   * as execute's fifth argument serves (an extension's tool gets its ExtensionContext).
   */
  sessionContext?: () => ShellSessionContext | undefined;
  /** Rewrites the command, working directory or environment just before running. */
  spawnHook?: (context: BashSpawnContext) => BashSpawnContext;
}

/** Chatty commands would otherwise flood clients with one update per chunk. */
const UPDATE_INTERVAL_MS = 100;

function truncationNotice(truncation: TruncationResult, fullOutputPath: string | undefined): string {
  const where = fullOutputPath ? `Full output: ${fullOutputPath}` : "Full output unavailable";
  if (truncation.lastLinePartial) {
    return `[Output truncated: showing the last ${formatSize(truncation.outputBytes)} of the final line; ${truncation.totalLines} lines, ${formatSize(truncation.totalBytes)} in all. ${where}]`;
  }
  const limit = truncation.truncatedBy === "bytes" ? ` (${formatSize(truncation.maxBytes)} limit)` : "";
  return `[Output truncated: showing the last ${truncation.outputLines} of ${truncation.totalLines} lines${limit}. ${where}]`;
}

/** The text the model sees: the output's tail and, when cut, where the rest is. */
function renderOutput(snapshot: OutputSnapshot): string {
  const output = snapshot.text.replace(/\n$/, "");
  if (!snapshot.truncation) return output;
  return `${output}\n\n${truncationNotice(snapshot.truncation, snapshot.fullOutputPath)}`;
}

function detailsOf(snapshot: OutputSnapshot): BashToolDetails | undefined {
  if (!snapshot.truncation && !snapshot.fullOutputPath) return undefined;
  return {
    ...(snapshot.truncation ? { truncation: snapshot.truncation } : {}),
    ...(snapshot.fullOutputPath ? { fullOutputPath: snapshot.fullOutputPath } : {}),
  };
}

/** Limit of `structuredContent.output` (pi 1.6.0's): programs that read it decide how much reaches the model. */
const STRUCTURED_OUTPUT_MAX_BYTES = 1024 * 1024;

/**
 * pi 1.6.0's machine-readable bash result, for hosts and programs rather than the model:
 * the whole output as the command wrote it (from the temp file when the model's copy was
 * cut, up to 1 MiB), its exit code and how long it ran.
 */
async function structuredResult(snapshot: OutputSnapshot, exitCode: number, startedAt: number): Promise<Record<string, unknown>> {
  let output = snapshot.text;
  let truncated = false;
  if (snapshot.fullOutputPath) {
    const file = Bun.file(snapshot.fullOutputPath);
    const size = file.size;
    const whole = await file.slice(0, STRUCTURED_OUTPUT_MAX_BYTES).text().catch(() => undefined);
    if (whole !== undefined) {
      output = whole;
      truncated = size > STRUCTURED_OUTPUT_MAX_BYTES;
    } else truncated = snapshot.truncation !== undefined;
  }
  return {
    output,
    truncated,
    ...(truncated && snapshot.fullOutputPath ? { full_output_path: snapshot.fullOutputPath } : {}),
    exit_code: exitCode,
    wall_time_seconds: Math.round((Date.now() - startedAt) / 100) / 10,
  };
}

/** An error whose message is the output so far followed by what went wrong. */
function failure(snapshot: OutputSnapshot, reason: string): Error {
  const output = renderOutput(snapshot);
  return new Error(output ? `${output}\n\n${reason}` : reason);
}

/** Sends the accumulated output at most every UPDATE_INTERVAL_MS, and always the last state. */
function createUpdateThrottle(collector: OutputCollector, onUpdate: AgentToolUpdateCallback<BashToolDetails> | undefined) {
  let lastSentAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let pending = false;

  const send = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    pending = false;
    lastSentAt = Date.now();
    const snapshot = collector.snapshot();
    onUpdate?.({ content: [{ type: "text", text: renderOutput(snapshot) }], details: detailsOf(snapshot) ?? {} });
  };

  return {
    /** New output arrived. */
    changed() {
      if (!onUpdate) return;
      pending = true;
      const wait = UPDATE_INTERVAL_MS - (Date.now() - lastSentAt);
      if (wait <= 0) send();
      else timer ??= setTimeout(send, wait);
    },
    /** The command is over: deliver what has not been sent yet. */
    flush() {
      if (pending) send();
      if (timer) clearTimeout(timer);
    },
  };
}

function checkWorkingDirectory(cwd: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDirectory) throw new Error(`Working directory does not exist: ${cwd}. Cannot run the command.`);
}

export function createBashTool(cwd: string, options: BashToolOptions = {}): CodingTool<typeof bashSchema, BashToolDetails | undefined> {
  const operations = options.operations ?? createLocalBashOperations({ shellPath: options.shellPath });
  const usesLocalShell = options.operations === undefined;
  const exposeSession = options.exposeSessionEnvironment !== false;

  return {
    name: "bash",
    label: "bash",
    description:
      `Execute a bash command in the current working directory. Returns stdout and stderr combined. ` +
      `Output is truncated to the last ${DEFAULT_MAX_LINES} lines or ${formatSize(DEFAULT_MAX_BYTES)}, whichever is hit first; ` +
      `when truncated, the full output is saved to a temp file whose path is given, so you can read or grep it. ` +
      `Commands get no input (stdin is closed): pass non-interactive flags (e.g. --yes, --no-pager). ` +
      `Give commands that may run long or hang a timeout in seconds; there is none by default.`,
    promptSnippet: "Execute bash commands (ls, grep, git, builds, tests, …)",
    promptGuidelines: [
      ...(exposeSession ? ["When asked which model, provider or session is running, read the XCSH_* environment variables (XCSH_PROVIDER, XCSH_MODEL, XCSH_REASONING_LEVEL, XCSH_SESSION_ID, XCSH_SESSION_FILE) rather than guessing."] : []),
    ],
    parameters: bashSchema,

    async execute(_toolCallId, params, signal, onUpdate, hostContext?: ShellSessionContext): Promise<AgentToolResult<BashToolDetails | undefined>> {
      if (signal?.aborted) throw new Error("Command aborted");
      const prefixed = options.commandPrefix ? `${options.commandPrefix}\n${params.command}` : params.command;
      const session = exposeSession ? (options.sessionContext?.() ?? hostContext) : undefined;
      // xcsh's environment without its credentials (settings' shellEnv), then the session's variables.
      const base = commandEnvironment();
      let spawn: BashSpawnContext = { command: prefixed, cwd, env: withSessionEnvironment(base, session) };
      if (options.spawnHook) spawn = options.spawnHook(spawn);
      if (usesLocalShell) checkWorkingDirectory(spawn.cwd);

      const timeout = params.timeout !== undefined && params.timeout > 0 ? params.timeout : undefined;
      const collector = new OutputCollector();
      const updates = createUpdateThrottle(collector, onUpdate);
      const startedAt = Date.now();

      let exitCode: number | null;
      try {
        ({ exitCode } = await operations.exec(spawn.command, spawn.cwd, {
          onData: (data) => {
            collector.push(data);
            updates.changed();
          },
          signal,
          timeout,
          env: spawn.env,
        }));
      } catch (error) {
        collector.finish();
        updates.flush();
        if (signal?.aborted) throw failure(collector.snapshot(), "Command aborted");
        // Other backends may report a timeout by rejecting, as `timeout:<seconds>`.
        const message = error instanceof Error ? error.message : String(error);
        if (timeout !== undefined && message.startsWith("timeout:")) {
          throw failure(collector.snapshot(), `Command timed out after ${timeout} seconds`);
        }
        throw failure(collector.snapshot(), `Command failed to run: ${message}`);
      }
      collector.finish();
      updates.flush();
      const snapshot = collector.snapshot();

      if (signal?.aborted) throw failure(snapshot, "Command aborted");
      if (exitCode === null) {
        const ranOutOfTime = timeout !== undefined && Date.now() - startedAt >= timeout * 1000 - 50;
        throw failure(snapshot, ranOutOfTime ? `Command timed out after ${timeout} seconds` : "Command was killed");
      }
      const structuredContent = await structuredResult(snapshot, exitCode, startedAt);
      if (exitCode !== 0) {
        // An error for the model, with the same text a thrown failure gives; the structured result still says what ran.
        return { content: [{ type: "text", text: failure(snapshot, `Command exited with code ${exitCode}`).message }], details: detailsOf(snapshot), structuredContent, isError: true };
      }
      const text = renderOutput(snapshot);
      return { content: [{ type: "text", text: text || "(no output)" }], details: detailsOf(snapshot), structuredContent };
    },
  };
}
