/**
 * Drives `xcsh --mode rpc` the way an editor does: the real binary with piped
 * stdio, a strict JSONL reader on stdout (records end at LF only, never at
 * U+2028/U+2029), requests correlated by id, and waits on frames instead of
 * sleeps. Every frame ever read is kept, so a test can check the whole
 * conversation afterwards (e.g. that no request id was answered twice).
 */
import type { Subprocess } from "bun";
import { ensureBinary, makeTestHome, type TestHome } from "./cli.ts";
import { startFakeLlm, type FakeApi, type FakeLlmServer } from "./fake-llm/server.ts";

/** A frame read from stdout. Frames are arbitrary JSON objects; tests look at their fields. */
export type Frame = Record<string, any>;

export interface RpcResponseFrame extends Frame {
  type: "response";
  command: string;
  success: boolean;
  id?: string;
  data?: any;
  error?: string;
}

export interface StartRpcOptions {
  env: Record<string, string>;
  cwd: string;
  /** Arguments after `--mode rpc`. */
  args?: string[];
}

const DEFAULT_TIMEOUT_MS = 5_000;
const LF = 0x0a;

interface Waiter {
  predicate: (frame: Frame) => boolean;
  resolve: (frame: Frame) => void;
}

export class RpcProcess {
  readonly proc: Subprocess<"pipe", "pipe", "pipe">;
  /** Every frame from stdout, in order. */
  readonly frames: Frame[] = [];
  /** Every stdout record exactly as written (without its LF). */
  readonly rawLines: string[] = [];
  /** Everything the process wrote to stderr so far. */
  stderr = "";
  /** Resolves when stdout has ended. */
  readonly stdoutClosed: Promise<void>;

  private readonly waiters = new Set<Waiter>();
  private nextId = 0;

  constructor(options: StartRpcOptions) {
    this.proc = Bun.spawn([ensureBinary(), "--mode", "rpc", ...(options.args ?? [])], {
      env: options.env,
      cwd: options.cwd,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    this.stdoutClosed = this.readStdout();
    void this.readStderr();
  }

  /** Frames other than command responses: events, host_tool_call/cancel, … */
  get events(): Frame[] {
    return this.frames.filter((frame) => frame.type !== "response");
  }

  get responses(): RpcResponseFrame[] {
    return this.frames.filter((frame): frame is RpcResponseFrame => frame.type === "response");
  }

  /** Writes one frame followed by LF; a string is written as it is (for malformed input). */
  send(frame: object | string): void {
    this.write(typeof frame === "string" ? frame : JSON.stringify(frame) + "\n");
  }

  /** Writes raw bytes to stdin. */
  write(data: string | Uint8Array): void {
    this.proc.stdin.write(data);
    void this.proc.stdin.flush();
  }

  /** Sends a command (with a fresh id unless it has one) and resolves with its response. */
  async request(command: Frame, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<RpcResponseFrame> {
    const id = typeof command.id === "string" ? command.id : `req-${++this.nextId}`;
    const response = this.waitForResponse(id, timeoutMs);
    this.send({ ...command, id });
    return response;
  }

  waitForResponse(id: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<RpcResponseFrame> {
    return this.waitFor((frame) => frame.type === "response" && frame.id === id, timeoutMs, `the response to ${id}`) as Promise<RpcResponseFrame>;
  }

  /**
   * The first frame at index `from` or later that matches; frames already read
   * count, so a fast process cannot win a race against the test.
   */
  waitFor(predicate: (frame: Frame) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS, what = "a matching frame", from = 0): Promise<Frame> {
    const seen = this.frames.slice(from).find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        resolve: (frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        const recent = this.frames.slice(-8).map(summarize).join("\n  ");
        reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}. Last frames:\n  ${recent}\nstderr: ${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Waits for an event of the given type (at index `from` or later) that also satisfies `predicate`. */
  waitForEvent(type: string, predicate: (frame: Frame) => boolean = () => true, timeoutMs = DEFAULT_TIMEOUT_MS, from = 0): Promise<Frame> {
    return this.waitFor((frame) => frame.type === type && predicate(frame), timeoutMs, `event ${type}`, from);
  }

  /** The number of frames read so far: pass it as `from` to wait only for later frames. */
  mark(): number {
    return this.frames.length;
  }

  /** Frames of a type, optionally only those at index `from` or later. */
  ofType(type: string, from = 0): Frame[] {
    return this.frames.slice(from).filter((frame) => frame.type === type);
  }

  /** Ends stdin and resolves with the exit code; kills the process if it does not exit in time. */
  async close(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<number> {
    try {
      this.proc.stdin.end();
    } catch {
      // Already closed.
    }
    return this.exitWithin(timeoutMs);
  }

  /** Resolves with the exit code, or rejects (after killing it) if the process outlives the timeout. */
  async exitWithin(timeoutMs: number): Promise<number> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.proc.kill("SIGKILL");
        reject(new Error(`xcsh did not exit within ${timeoutMs} ms. stderr: ${this.stderr.slice(-2000)}`));
      }, timeoutMs);
    });
    try {
      const code = await Promise.race([this.proc.exited, timeout]);
      await this.stdoutClosed;
      return code;
    } finally {
      clearTimeout(timer);
    }
  }

  /** For cleanup after a failed test. */
  kill(): void {
    if (this.proc.exitCode === null) this.proc.kill("SIGKILL");
  }

  private async readStdout(): Promise<void> {
    const decoder = new TextDecoder();
    let pending: Uint8Array[] = [];
    const emit = (bytes: Uint8Array) => {
      let line = decoder.decode(bytes);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      this.rawLines.push(line);
      if (line.length === 0) return;
      let frame: Frame;
      try {
        frame = JSON.parse(line);
      } catch {
        frame = { type: "__unparseable_stdout__", line };
      }
      this.frames.push(frame);
      for (const waiter of [...this.waiters]) {
        if (waiter.predicate(frame)) {
          this.waiters.delete(waiter);
          waiter.resolve(frame);
        }
      }
    };
    for await (const chunk of this.proc.stdout) {
      let start = 0;
      let newline = chunk.indexOf(LF);
      while (newline !== -1) {
        const piece = chunk.subarray(start, newline);
        emit(pending.length === 0 ? piece : concat([...pending, piece]));
        pending = [];
        start = newline + 1;
        newline = chunk.indexOf(LF, start);
      }
      if (start < chunk.length) pending.push(chunk.slice(start));
    }
    if (pending.length > 0) emit(concat(pending));
  }

  private async readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stderr) this.stderr += decoder.decode(chunk, { stream: true });
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.length, 0);
  const joined = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

function summarize(frame: Frame): string {
  const text = JSON.stringify(frame);
  return text.length > 300 ? text.slice(0, 300) + "…" : text;
}

export function startRpc(options: StartRpcOptions): RpcProcess {
  return new RpcProcess(options);
}

/** The response ids seen more than once (each request must be answered exactly once). */
export function duplicateResponseIds(frames: Frame[]): string[] {
  const counts = new Map<string, number>();
  for (const frame of frames) {
    if (frame.type === "response" && typeof frame.id === "string") counts.set(frame.id, (counts.get(frame.id) ?? 0) + 1);
  }
  return [...counts].filter(([, count]) => count > 1).map(([id]) => id);
}

/** Text of a message's text blocks (or its string content). */
export function textOf(message: { content: unknown }): string {
  if (typeof message.content === "string") return message.content;
  if (!Array.isArray(message.content)) return "";
  return message.content
    .filter((block: { type?: string }) => block.type === "text")
    .map((block: { text: string }) => block.text)
    .join("");
}

/** A fake LLM, a private HOME with a models.json pointing at it, and a project directory. */
export interface RpcFixture {
  server: FakeLlmServer;
  home: TestHome;
  /** The working directory for xcsh (inside the private HOME). */
  cwd: string;
  /** Processes started with `start`; `cleanup` kills any left running. */
  start(args?: string[]): RpcProcess;
  cleanup(): Promise<void>;
}

export interface FixtureOptions {
  api?: FakeApi;
  /** Model ids of the provider "fake"; the first is the one used. */
  models?: Array<string | Record<string, unknown>>;
  settings?: Record<string, unknown>;
  /** Also a second provider "other" with these models (for cycle_model / set_model). */
  otherModels?: Array<string | Record<string, unknown>>;
}

/** The default `--model` argument of a fixture. */
export const FAKE_MODEL = "fake/fake-model";

export function createRpcFixture(options: FixtureOptions = {}): RpcFixture {
  ensureBinary();
  const api = options.api ?? "openai-completions";
  const server = startFakeLlm();
  const home = makeTestHome();
  const modelEntries = (list: Array<string | Record<string, unknown>>) => list.map((model) => (typeof model === "string" ? { id: model } : model));
  const providers: Record<string, unknown> = {
    fake: { baseUrl: server.baseUrl(api), api, apiKey: "test-key", models: modelEntries(options.models ?? ["fake-model"]) },
  };
  if (options.otherModels) {
    providers.other = { baseUrl: server.baseUrl(api), api, apiKey: "test-key", models: modelEntries(options.otherModels) };
  }
  home.writeModelsJson({ providers });
  if (options.settings) home.writeSettings(options.settings);
  const cwd = `${home.home}/project`;
  Bun.spawnSync(["mkdir", "-p", cwd]);
  const started: RpcProcess[] = [];
  return {
    server,
    home,
    cwd,
    start(args = ["--model", FAKE_MODEL]) {
      const rpc = startRpc({ env: home.env, cwd, args });
      started.push(rpc);
      return rpc;
    },
    async cleanup() {
      for (const rpc of started) rpc.kill();
      await Promise.all(started.map((rpc) => rpc.proc.exited));
      await server.close();
      home.cleanup();
    },
  };
}
