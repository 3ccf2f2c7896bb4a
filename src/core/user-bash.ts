/**
 * The person's own commands (RPC `bash`, `!cmd`): one at a time, through extensions'
 * `user_bash` hook, with settings' shell and prefix. The output reaches the model with
 * the next prompt; a command finished while the agent works is held until it is idle.
 */
import type { AgentMessage } from "../agent/types.ts";
import type { Settings } from "../config/settings.ts";
import type { BashOperations } from "../tools/bash-operations.ts";
import { bashExecutionMessage, executeBash, type BashResult } from "./bash-executor.ts";
import type { SessionHooks } from "./session-hooks.ts";

export interface UserBashHost {
  readonly cwd: string;
  readonly settings: Settings;
  readonly hooks: SessionHooks | undefined;
  readonly isStreaming: boolean;
  recordMessage(message: AgentMessage): void;
}

export class UserBash {
  private controller: AbortController | undefined;
  private pending: AgentMessage[] = [];

  constructor(private readonly host: UserBashHost) {}

  get isRunning(): boolean {
    return this.controller !== undefined;
  }

  async run(command: string, options: { excludeFromContext?: boolean; onChunk?: (text: string) => void } = {}): Promise<BashResult> {
    if (this.controller) throw new Error("A command is already running. Abort it first (abort_bash).");
    const controller = new AbortController();
    this.controller = controller;
    try {
      const { host } = this;
      const intercepted = host.hooks ? await host.hooks.userBash(command, options.excludeFromContext === true) : undefined;
      const result: BashResult =
        intercepted?.result ??
        (await executeBash(command, {
          cwd: host.cwd,
          signal: controller.signal,
          operations: intercepted?.operations as BashOperations | undefined,
          onChunk: options.onChunk,
          shellPath: host.settings.shellPath,
          commandPrefix: host.settings.shellCommandPrefix,
        }));
      const message = bashExecutionMessage(command, result, options.excludeFromContext);
      if (host.isStreaming) this.pending.push(message);
      else host.recordMessage(message);
      return result;
    } finally {
      this.controller = undefined;
    }
  }

  abort(): void {
    this.controller?.abort();
  }

  /** Records the commands held while the agent worked. */
  flushPending(): void {
    for (const message of this.pending.splice(0)) this.host.recordMessage(message);
  }
}
