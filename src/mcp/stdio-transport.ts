/**
 * The stdio transport of a local MCP server, on Bun.spawn rather than the SDK's
 * StdioClientTransport: the server runs in a process group of its own, tagged, that
 * xcsh tracks like the bash tool's commands (src/tools/tracked-process.ts), so it is
 * killed with everything it started when xcsh exits, and by the watchdog when xcsh is
 * SIGKILLed (the SDK's transport spawns a plain child that would outlive a killed xcsh).
 * Its environment is the one commands get (commandEnvironment: no provider credentials,
 * settings' shellEnv, and under the sandbox no secret-named variables unless the entry let
 * it out), plus the server's own `env`, which may pass a key on purpose. Under xcsh's sandbox it runs sandboxed like a command (the model calls its
 * tools, so a server that writes files would otherwise be a way around the walls), unless
 * its entry says `"sandbox": false`.
 * Messages are newline-delimited JSON-RPC, framed by the SDK's own ReadBuffer, and handed
 * on one at a time with a turn of the event loop between them: the SDK runs notification
 * handlers a microtask later but settles a response at once, so a progress notification
 * read in the same chunk as its call's result would otherwise arrive after the call ended
 * and be dropped. The
 * child is unref'd: a running server never keeps xcsh from exiting. Its stderr is
 * not shown (servers log freely there); the last lines are kept for failure reports.
 */
import type { Subprocess } from "bun";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { commandEnvironment } from "../sandbox/active-policy.ts";
import { sandboxedArgv } from "../sandbox/launcher.ts";
import { protectOwnEnvironment } from "../sandbox/own-process.ts";
import { newCommandTag, PROCESS_TAG_VARIABLE } from "../sandbox/process-sweep.ts";
import { killProcessTree, releaseGroupIfEmpty, trackGroup } from "../tools/tracked-process.ts";
import type { McpStdioSpec } from "./config-schema.ts";
import { within } from "./wait.ts";

/** How much of the server's stderr is kept for reports. */
const STDERR_TAIL_BYTES = 4096;
/** After stdin closes, how long a server gets to exit by itself before its group is killed. */
const EXIT_GRACE_MS = 500;

export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private proc: Subprocess<"pipe", "pipe", "pipe"> | undefined;
  /** Carried in its environment: finds what it started that left its group (process-sweep.ts). */
  private readonly tag = newCommandTag();
  private readonly buffer = new ReadBuffer();
  private stderrText = "";
  private closed = false;
  private closing = false;
  /** The exit code, once the server has exited (null: killed by a signal). */
  exitCode: number | null | undefined;

  constructor(private readonly spec: McpStdioSpec) {}

  /** The last lines the server wrote to stderr, for a report. */
  get stderrTail(): string {
    return this.stderrText.trim();
  }

  async start(): Promise<void> {
    if (this.proc) throw new Error("MCP stdio transport already started");
    protectOwnEnvironment();
    try {
      const program = [this.spec.command, ...this.spec.args];
      // Under the sandbox (docs/security.md) unless its entry says "sandbox": false: the model calls its tools.
      this.proc = Bun.spawn(this.spec.sandboxed ? sandboxedArgv(program, this.spec.cwd) : program, {
        cwd: this.spec.cwd,
        env: { ...commandEnvironment(this.spec.sandboxed), ...this.spec.env, [PROCESS_TAG_VARIABLE]: this.tag },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
        // Its own process group (setsid), so it and its children are killed as one.
        detached: true,
      });
    } catch (error) {
      throw new Error(`cannot start "${this.spec.command}" in ${this.spec.cwd}: ${(error as Error).message}`);
    }
    const proc = this.proc;
    trackGroup(proc.pid);
    proc.unref();
    const streamsDone = Promise.all([this.readStdout(proc.stdout), this.readStderr(proc.stderr)]);
    void proc.exited.then(async (code) => {
      // Its last messages and stderr lines (which explain a crash) are read first, unless a child it left keeps the pipes open.
      await within(streamsDone, 300);
      this.exitCode = proc.signalCode ? null : code;
      // Whatever it started goes with it.
      killProcessTree(proc.pid, this.tag);
      releaseGroupIfEmpty(proc.pid);
      this.finish();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const proc = this.proc;
    if (!proc || this.closed) throw new Error("the MCP server's process is not running");
    proc.stdin.write(serializeMessage(message));
    await proc.stdin.flush();
  }

  /** Closes stdin (the MCP way to ask a stdio server to stop), then kills its group if it lingers. */
  async close(): Promise<void> {
    const proc = this.proc;
    if (!proc || this.closed || this.closing) return;
    this.closing = true;
    try {
      proc.stdin.end();
    } catch {
      // Already gone.
    }
    const exited = (await within(proc.exited, EXIT_GRACE_MS)).done;
    // Children it started may remain in its group even when it exited: the group goes either way.
    killProcessTree(proc.pid, this.tag);
    if (!exited) await within(proc.exited, 1000);
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  private async readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (const chunk of stream) {
        this.buffer.append(Buffer.from(chunk));
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch {
            // A line that is not JSON-RPC (a server logging to stdout): skipped, the next may be fine.
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
          // Let the SDK finish with this one (its handlers run in microtasks) before the next.
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  private async readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of stream) {
        this.stderrText = (this.stderrText + decoder.decode(chunk, { stream: true })).slice(-STDERR_TAIL_BYTES);
      }
    } catch {
      // The pipe broke with the process: what was read is kept.
    }
  }
}
