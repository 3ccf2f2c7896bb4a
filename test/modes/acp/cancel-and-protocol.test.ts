/**
 * Cancelling and bad input over ACP: session/cancel during a bash call answers
 * the prompt with `cancelled` and leaves no process behind; a cancel with nothing
 * running and a second prompt during a running one are harmless; malformed JSON,
 * unknown methods and wrong param types get JSON-RPC errors while the process
 * keeps serving; closing stdin ends it with code 0.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { ensureBinary } from "../../support/cli.ts";
import { createAcpFixture, type AcpFixture } from "./support/acp-harness.ts";

let fixture: AcpFixture;

beforeAll(async () => {
  fixture = await createAcpFixture();
});
afterEach(() => fixture.fake.server.clearScript());
afterAll(() => fixture.cleanup());

/** Pids of live processes whose command line contains `needle`. */
function processesMatching(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z" && cmdline.includes(needle)) pids.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return pids;
}

describe("session/cancel", () => {
  test("cancel during a bash call answers the prompt with cancelled and kills the command's process tree", async () => {
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    await client.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    const needle = `acp-cancel-${Date.now()}`;
    // A child of the shell that outlives it unless the whole group is killed.
    const command = `(sleep 30; echo ${needle}) & sleep 31 # ${needle}`;
    fixture.fake.server.enqueue({ content: [{ type: "toolCall", id: "call_sleep", name: "bash", arguments: { command } }] }, { content: [{ type: "text", text: "never" }] });
    const prompt = client.prompt(sessionId, "sleep");
    await client.waitFor(() => processesMatching(needle).length > 0, "the command to start");
    await client.waitFor(() => client.ofKind(sessionId, "tool_call_update").some((update) => update.toolCallId === "call_sleep" && update.status === "in_progress"), "in_progress");
    await client.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    await client.waitFor(() => processesMatching(needle).length === 0, "every process of the command to end", 3_000);
    const final = client.ofKind(sessionId, "tool_call_update").filter((update) => update.toolCallId === "call_sleep").at(-1);
    expect(final?.status).toBe("failed");

    // The session serves the next prompt.
    fixture.fake.server.clearScript();
    fixture.fake.server.enqueue({ content: [{ type: "text", text: "back" }] });
    expect((await client.prompt(sessionId, "again")).stopReason).toBe("end_turn");
    await client.close();
  });

  test("cancel during a stalled model stream answers cancelled", async () => {
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue({ content: [{ type: "text", text: "partial answer that stalls" }], chunkSize: 4, stallAfterEvents: 3 });
    const prompt = client.prompt(sessionId, "stall");
    await client.waitFor(() => client.ofKind(sessionId, "agent_message_chunk").length > 0, "the first chunk");
    await client.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    await client.close();
  });

  test("a cancel with nothing running changes nothing; a prompt during a prompt is refused with a clear error", async () => {
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    await client.agent.notify("session/cancel", { sessionId });
    await client.agent.notify("session/cancel", { sessionId: "no-such-session" });
    fixture.fake.server.enqueue({ content: [{ type: "text", text: "slow answer" }], delayMs: 500 });
    const first = client.prompt(sessionId, "first");
    await client.waitFor(() => fixture.fake.server.requests.length > 0, "the model request");
    const second = await client.prompt(sessionId, "second").catch((failure) => failure);
    expect(second.code).toBe(-32600);
    expect(second.message).toContain("already answering");
    expect((await first).stopReason).toBe("end_turn");
    expect(client.agentText(sessionId)).toBe("slow answer");
    await client.close();
  });
});

/** The binary with raw pipes, for messages the SDK's client would never send. */
async function rawSession(lines: string[], options: { initializeFirst?: boolean } = {}): Promise<{ responses: any[]; exitCode: number; stderr: string }> {
  const proc = Bun.spawn([ensureBinary(), "--mode", "acp", "--model", "fake/m"], { env: fixture.env, cwd: fixture.cwd, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const decoder = new TextDecoder();
  let text = "";
  const reader = proc.stdout.getReader();
  const deadline = Date.now() + 10_000;
  const readUntil = async (needle: string) => {
    while (!text.includes(needle) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
  };
  if (options.initializeFirst) {
    // Requests sent before initialize is answered are refused: a client waits for it.
    proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: 1 } }) + "\n");
    await proc.stdin.flush();
    await readUntil('"id":"init"');
  }
  for (const line of lines) proc.stdin.write(line);
  await proc.stdin.flush();
  // Every answer arrives before stdin closes (the last line is a request with id "last").
  await readUntil('"id":"last"');
  await proc.stdin.end();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  const exitCode = await proc.exited;
  const stderr = await new Response(proc.stderr).text();
  return { responses: text.split("\n").filter(Boolean).map((line) => JSON.parse(line)), exitCode, stderr };
}

describe("malformed messages", () => {
  test("bad JSON, an array, an unknown method and wrong param types each get a JSON-RPC error; the process serves on and exits 0 at EOF", async () => {
    const initialize = (id: string | number) => JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion: 1 } }) + "\n";
    const { responses, exitCode } = await rawSession([
      "{ this is not json\n",
      "[1, 2]\n",
      initialize(1),
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/teleport", params: {} }) + "\n",
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd: 42 } }) + "\n",
      JSON.stringify({ jsonrpc: "2.0", id: 4, method: "session/prompt", params: { sessionId: "x", prompt: "not a list" } }) + "\n",
      initialize("last"),
    ], { initializeFirst: true });
    const byId = (id: unknown) => responses.find((response) => response.id === id);
    expect(responses.find((response) => response.id === null && response.error?.code === -32700)).toBeDefined();
    expect(responses.find((response) => response.id === null && response.error?.code === -32600)).toBeDefined();
    expect(byId(1).result.protocolVersion).toBe(1);
    expect(byId(2).error.code).toBe(-32601);
    expect(byId(3).error.code).toBe(-32602);
    expect(byId(4).error.code).toBe(-32602);
    expect(byId("last").result.protocolVersion).toBe(1);
    expect(exitCode).toBe(0);
  });

  test("a request before initialize is refused and stdout carries nothing but JSON-RPC", async () => {
    const { responses, exitCode } = await rawSession([
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: fixture.cwd, mcpServers: [] } }) + "\n",
      JSON.stringify({ jsonrpc: "2.0", id: "last", method: "initialize", params: { protocolVersion: 1 } }) + "\n",
    ]);
    expect(responses.every((response) => response.jsonrpc === "2.0")).toBe(true);
    expect(responses.find((response) => response.id === 1).error.code).toBe(-32600);
    expect(exitCode).toBe(0);
  });
});

describe("stdin closing right after the last request", () => {
  test("every request is still answered: initialize, session/new, and a prompt (cancelled, as its client is gone)", async () => {
    fixture.fake.server.enqueue({ content: [{ type: "text", text: "slow answer" }], delayMs: 2_000 });
    const proc = Bun.spawn([ensureBinary(), "--mode", "acp", "--model", "fake/m"], { env: fixture.env, cwd: fixture.cwd, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const send = (message: object) => proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
    const out = new LineReader(proc.stdout);
    send({ id: 1, method: "initialize", params: { protocolVersion: 1 } });
    await proc.stdin.flush();
    expect(await out.lineWith('"id":1')).toContain('"protocolVersion":1');
    send({ id: 2, method: "session/new", params: { cwd: fixture.cwd, mcpServers: [] } });
    await proc.stdin.flush();
    const created = JSON.parse(await out.lineWith('"id":2'));
    // The prompt goes out and stdin closes at once, while the model is still thinking.
    send({ id: 3, method: "session/prompt", params: { sessionId: created.result.sessionId, prompt: [{ type: "text", text: "hi" }] } });
    await proc.stdin.end();
    const answered = JSON.parse(await out.lineWith('"id":3'));
    expect(answered.result?.stopReason).toBe("cancelled");
    expect(await proc.exited).toBe(0);
  });

  test("a single initialize followed by EOF is answered", async () => {
    const proc = Bun.spawn([ensureBinary(), "--mode", "acp", "--model", "fake/m"], { env: fixture.env, cwd: fixture.cwd, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    proc.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: "only", method: "initialize", params: { protocolVersion: 1 } }) + "\n");
    await proc.stdin.end();
    const text = await new Response(proc.stdout).text();
    expect(text).toContain('"id":"only"');
    expect(await proc.exited).toBe(0);
  });
});

/** Lines of a byte stream, read as far as asked. */
class LineReader {
  private text = "";
  private readonly reader: { read(): Promise<{ value?: Uint8Array; done: boolean }> };
  private readonly decoder = new TextDecoder();
  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }
  async lineWith(needle: string, timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.text.split("\n").find((candidate) => candidate.includes(needle));
      if (line) return line;
      if (Date.now() > deadline) throw new Error(`no line with ${needle}; got ${this.text.slice(-500)}`);
      const { value, done } = await this.reader.read();
      if (done) throw new Error(`stdout ended before ${needle}; got ${this.text.slice(-500)}`);
      this.text += this.decoder.decode(value, { stream: true });
    }
  }
}
