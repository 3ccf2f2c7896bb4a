/**
 * Commands the user runs themselves (RPC `bash`, `!cmd`): the output is kept,
 * tail-truncated like the bash tool's, with the full text in a temp file when
 * it is long, and the result becomes a bashExecution message for the next prompt.
 */
import type { BashExecutionMessage } from "../agent/messages.ts";
import { createLocalBashOperations, type BashOperations } from "../tools/bash-operations.ts";
import { OutputCollector } from "../tools/output-collector.ts";

export interface BashResult {
  output: string;
  /** undefined when the command was killed. */
  exitCode: number | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
}

export interface ExecuteBashOptions {
  cwd: string;
  signal?: AbortSignal;
  operations?: BashOperations;
  onChunk?: (text: string) => void;
  /** settings.json's shellPath: the shell for the local operations. */
  shellPath?: string;
  /** settings.json's shellCommandPrefix: run on its own line before the command (the message keeps the command as typed). */
  commandPrefix?: string;
}

export async function executeBash(command: string, options: ExecuteBashOptions): Promise<BashResult> {
  const operations = options.operations ?? createLocalBashOperations({ shellPath: options.shellPath });
  const collector = new OutputCollector({ tempFilePrefix: "xcsh-user-bash-" });
  const run = options.commandPrefix ? `${options.commandPrefix}\n${command}` : command;
  let exitCode: number | null = null;
  try {
    const result = await operations.exec(run, options.cwd, {
      signal: options.signal,
      onData: (data) => {
        collector.push(data);
        options.onChunk?.(data.toString("utf8"));
      },
    });
    exitCode = result.exitCode;
  } catch (error) {
    if (!options.signal?.aborted) collector.push(Buffer.from(`\n${(error as Error).message}\n`));
  }
  collector.finish();
  const view = collector.snapshot();
  const cancelled = options.signal?.aborted === true;
  return {
    output: view.text,
    exitCode: cancelled || exitCode === null ? undefined : exitCode,
    cancelled,
    truncated: view.truncation !== undefined,
    ...(view.fullOutputPath ? { fullOutputPath: view.fullOutputPath } : {}),
  };
}

export function bashExecutionMessage(command: string, result: BashResult, excludeFromContext = false): BashExecutionMessage {
  return {
    role: "bashExecution",
    command,
    output: result.output,
    exitCode: result.exitCode,
    cancelled: result.cancelled,
    truncated: result.truncated,
    ...(result.fullOutputPath ? { fullOutputPath: result.fullOutputPath } : {}),
    timestamp: Date.now(),
    ...(excludeFromContext ? { excludeFromContext: true } : {}),
  };
}
