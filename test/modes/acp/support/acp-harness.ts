/**
 * Drives `xcsh --mode acp` as an editor does: the built binary with piped stdio,
 * and the ACP SDK's own client side (`client()` … `connect`) on the other end.
 * The client records every session/update, answers permission requests with a
 * scripted choice, and — when the test offers them — serves fs/* from an
 * in-memory buffer map and terminal/* with real local processes.
 */
import type { Subprocess } from "bun";
import { mkdtempSync, realpathSync } from "node:fs";
import { join } from "node:path";
import {
  client,
  ndJsonStream,
  type ClientConnection,
  type ClientContext,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { ensureBinary, makeFakeModelHome, type FakeModelHome } from "../../../support/cli.ts";

export type PermissionChoice = "allow_once" | "allow_always" | "reject_once" | "reject_always" | "cancelled";

export interface AcpClientOptions {
  /** Offer fs/read_text_file and fs/write_text_file, served from `buffers` (falling back to disk for reads). */
  fs?: boolean;
  /** Offer terminal/*, run as real local processes. */
  terminal?: boolean;
  /** What each permission request is answered with (default: allow once). */
  permission?: (request: RequestPermissionRequest) => PermissionChoice | Promise<PermissionChoice>;
  /** Extra arguments after `--mode acp`. */
  args?: string[];
  env?: Record<string, string>;
}

interface LocalTerminal {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  output: string;
  done: Promise<void>;
}

export class AcpClient {
  readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  readonly connection: ClientConnection;
  readonly updates: SessionNotification[] = [];
  readonly permissionRequests: RequestPermissionRequest[] = [];
  readonly fsReads: string[] = [];
  readonly fsWrites: { path: string; content: string }[] = [];
  /** Editor buffers: what fs/read_text_file answers before looking at the disk, and where writes land. */
  readonly buffers = new Map<string, string>();
  readonly terminals = new Map<string, LocalTerminal>();
  readonly terminalCalls: string[] = [];
  stderr = "";
  private terminalCount = 0;

  constructor(env: Record<string, string>, cwd: string, options: AcpClientOptions = {}) {
    this.proc = Bun.spawn([ensureBinary(), "--mode", "acp", ...(options.args ?? [])], {
      env: { ...env, ...options.env },
      cwd,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const stderr = this.proc.stderr;
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of stderr) this.stderr += decoder.decode(chunk, { stream: true });
    })();
    const stdin = this.proc.stdin;
    const output = new WritableStream<Uint8Array>({
      write(chunk) {
        stdin.write(chunk);
        void stdin.flush();
      },
      close() {
        void stdin.end();
      },
    });
    const app = client({ name: "xcsh-test-client" })
      .onNotification("session/update", ({ params }) => {
        this.updates.push(params);
      })
      .onRequest("session/request_permission", async ({ params }): Promise<RequestPermissionResponse> => {
        this.permissionRequests.push(params);
        const choice = options.permission ? await options.permission(params) : "allow_once";
        return choice === "cancelled" ? { outcome: { outcome: "cancelled" } } : { outcome: { outcome: "selected", optionId: choice } };
      })
      .onRequest("fs/read_text_file", async ({ params }) => {
        this.fsReads.push(params.path);
        const buffered = this.buffers.get(params.path);
        return { content: buffered ?? (await Bun.file(params.path).text()) };
      })
      .onRequest("fs/write_text_file", ({ params }) => {
        this.fsWrites.push({ path: params.path, content: params.content });
        this.buffers.set(params.path, params.content);
        return {};
      })
      .onRequest("terminal/create", ({ params }) => {
        this.terminalCalls.push("create");
        const id = `term-${++this.terminalCount}`;
        const proc = Bun.spawn([params.command, ...(params.args ?? [])], { cwd: params.cwd ?? cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
        const terminal: LocalTerminal = { proc, output: "", done: Promise.resolve() };
        const read = async (stream: ReadableStream<Uint8Array>) => {
          const decoder = new TextDecoder();
          for await (const chunk of stream) terminal.output += decoder.decode(chunk, { stream: true });
        };
        terminal.done = Promise.all([read(proc.stdout), read(proc.stderr), proc.exited]).then(() => {});
        this.terminals.set(id, terminal);
        return { terminalId: id };
      })
      .onRequest("terminal/output", ({ params }) => {
        this.terminalCalls.push("output");
        const terminal = this.terminal(params.terminalId);
        const exitCode = terminal.proc.exitCode;
        return { output: terminal.output, truncated: false, ...(exitCode !== null ? { exitStatus: { exitCode } } : {}) };
      })
      .onRequest("terminal/wait_for_exit", async ({ params }) => {
        this.terminalCalls.push("wait_for_exit");
        const terminal = this.terminal(params.terminalId);
        await terminal.done;
        const signal = terminal.proc.signalCode;
        return { exitCode: signal ? null : terminal.proc.exitCode, signal: signal ? String(signal) : null };
      })
      .onRequest("terminal/kill", ({ params }) => {
        this.terminalCalls.push("kill");
        const terminal = this.terminal(params.terminalId);
        try {
          process.kill(-terminal.proc.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
        return {};
      })
      .onRequest("terminal/release", ({ params }) => {
        this.terminalCalls.push("release");
        this.terminals.get(params.terminalId)?.proc.kill("SIGKILL");
        return {};
      });
    this.connection = app.connect(ndJsonStream(output, this.proc.stdout));
    this.capabilities = { fs: { readTextFile: options.fs === true, writeTextFile: options.fs === true }, terminal: options.terminal === true };
  }

  readonly capabilities: { fs: { readTextFile: boolean; writeTextFile: boolean }; terminal: boolean };

  get agent(): ClientContext {
    return this.connection.agent;
  }

  private terminal(id: string): LocalTerminal {
    const terminal = this.terminals.get(id);
    if (!terminal) throw new Error(`no terminal ${id}`);
    return terminal;
  }

  initialize() {
    return this.agent.request("initialize", { protocolVersion: 1, clientCapabilities: this.capabilities, clientInfo: { name: "test", version: "1" } });
  }

  /** initialize, then session/new in `cwd`; resolves with the new session's response. */
  async start(cwd: string) {
    await this.initialize();
    return this.agent.request("session/new", { cwd, mcpServers: [] });
  }

  prompt(sessionId: string, text: string) {
    return this.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  }

  /** The updates of one session, optionally only those from index `from` of all updates. */
  updatesOf(sessionId: string, from = 0): SessionUpdate[] {
    return this.updates.slice(from).filter((notification) => notification.sessionId === sessionId).map((notification) => notification.update);
  }

  ofKind<K extends SessionUpdate["sessionUpdate"]>(sessionId: string, kind: K, from = 0): Extract<SessionUpdate, { sessionUpdate: K }>[] {
    return this.updatesOf(sessionId, from).filter((update): update is Extract<SessionUpdate, { sessionUpdate: K }> => update.sessionUpdate === kind);
  }

  /** The streamed agent text of a session. */
  agentText(sessionId: string, from = 0): string {
    return this.ofKind(sessionId, "agent_message_chunk", from)
      .map((update) => (update.content.type === "text" ? update.content.text : ""))
      .join("");
  }

  async waitFor<T>(condition: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = condition();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}. stderr: ${this.stderr.slice(-2000)}`);
      await Bun.sleep(20);
    }
  }

  /** Ends stdin and resolves with the exit code; kills the process if it does not exit in time. */
  async close(timeoutMs = 10_000): Promise<number> {
    this.connection.close();
    try {
      void this.proc.stdin.end();
    } catch {
      // Already closed.
    }
    const timer = setTimeout(() => this.proc.kill("SIGKILL"), timeoutMs);
    const code = await this.proc.exited;
    clearTimeout(timer);
    for (const terminal of this.terminals.values()) terminal.proc.kill("SIGKILL");
    return code;
  }
}

export interface AcpFixture {
  fake: FakeModelHome;
  /** A project folder (realpath: macOS /tmp is a symlink). */
  cwd: string;
  env: Record<string, string>;
  spawn(options?: AcpClientOptions): AcpClient;
  cleanup(): Promise<void>;
}

export async function createAcpFixture(models: Record<string, unknown>[] = [{ id: "m", input: ["text", "image"] }]): Promise<AcpFixture> {
  const fake = await makeFakeModelHome(models);
  const cwd = realpathSync(mkdtempSync(join(fake.home.home, "project-")));
  fake.home.writeSettings({ defaultProvider: "fake", defaultModel: "m" });
  const clients: AcpClient[] = [];
  return {
    fake,
    cwd,
    env: fake.home.env,
    spawn(options = {}) {
      const spawned = new AcpClient(fake.home.env, cwd, { ...options, args: ["--model", "fake/m", ...(options.args ?? [])] });
      clients.push(spawned);
      return spawned;
    },
    async cleanup() {
      await Promise.all(clients.map((spawned) => spawned.close().catch(() => 0)));
      await fake.cleanup();
    },
  };
}
