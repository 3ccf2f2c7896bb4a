/**
 * Listing sessions reads each file's head and tail, never the whole file (#27).
 * The proof is observable: most sessions here are 1 GiB files whose middle is a
 * hole of NUL bytes (sparse: no disk is used). A listing that read them whole
 * would read gigabytes of garbage and take far longer than the bounds below;
 * reading heads and tails, ACP session/list still shows each session's name,
 * first message and last activity, and `--session <id prefix>` finds the one
 * small session among them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { createAcpFixture, type AcpFixture } from "../modes/acp/support/acp-harness.ts";
import { ensureBinary } from "../support/cli.ts";
import { startRpc } from "../support/rpc-harness.ts";

const GIANTS = 12;
const HOLE_BYTES = 1024 ** 3;
const STARTED = Date.parse("2026-03-01T10:00:00.000Z");

let fixture: AcpFixture;
let sessionDir: string;

const giantId = (index: number) => `9${index.toString(16).padStart(7, "0")}-0000-4000-8000-000000000000`;
const smallId = "5a11c0de-0000-4000-8000-000000000001";

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

function message(id: string, parentId: string | null, at: number, body: Record<string, unknown>): string {
  return line({ type: "message", id, parentId, timestamp: new Date(at).toISOString(), message: { ...body, timestamp: at } });
}

/** The first user message of giant `index`; one is longer than a first read of the head. */
function firstMessageOf(index: number): string {
  return index === 5 ? `Long task: ${"describe the parser ".repeat(4_000)}` : `Giant task ${index}: look at the parser`;
}

/** A 1 GiB session: header and first turn, a hole of NUL bytes, then the last turn (and a name for even ones). */
function writeGiant(index: number): void {
  const at = STARTED + index * 60_000;
  const head =
    line({ type: "session", version: 3, id: giantId(index), timestamp: new Date(at).toISOString(), cwd: fixture.cwd }) +
    message("00000001", null, at, { role: "user", content: firstMessageOf(index) });
  const lastAt = at + 3_600_000;
  const tail =
    "\n" +
    (index % 2 === 0 ? line({ type: "session_info", id: "00000002", parentId: "00000001", timestamp: new Date(lastAt).toISOString(), name: `giant-${index}` }) : "") +
    message("00000003", "00000001", lastAt, { role: "assistant", content: [{ type: "text", text: `Finished giant ${index}` }], api: "openai-completions", provider: "fake", model: "m", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop" });
  const fd = openSync(join(sessionDir, `2026-03-01T10-00-00-000Z_${giantId(index)}.jsonl`), "w");
  try {
    writeSync(fd, head, 0);
    writeSync(fd, tail, HOLE_BYTES);
  } finally {
    closeSync(fd);
  }
}

beforeAll(async () => {
  fixture = await createAcpFixture();
  sessionDir = join(fixture.cwd, "..", "history");
  mkdirSync(sessionDir, { recursive: true });
  for (let index = 0; index < GIANTS; index++) writeGiant(index);
  writeFileSync(
    join(sessionDir, `2026-03-02T10-00-00-000Z_${smallId}.jsonl`),
    line({ type: "session", version: 3, id: smallId, timestamp: new Date(STARTED).toISOString(), cwd: fixture.cwd }) +
      message("00000001", null, STARTED + 1_000, { role: "user", content: "The small one" }),
  );
});
afterAll(() => fixture.cleanup());

describe("listing many large sessions", () => {
  test("ACP session/list over 12 GiB of sessions shows every name, first message and last activity, fast", async () => {
    const client = fixture.spawn({ args: ["--session-dir", sessionDir] });
    await client.initialize();
    const started = performance.now();
    const listed = await client.agent.request("session/list", { cwd: fixture.cwd });
    const elapsed = performance.now() - started;
    // Reading the files whole would mean 12 GiB of reads; heads and tails are a few hundred KB.
    expect(elapsed).toBeLessThan(3_000);
    expect(listed.sessions).toHaveLength(GIANTS + 1);
    for (let index = 0; index < GIANTS; index++) {
      const info = listed.sessions.find((session) => session.sessionId === giantId(index));
      expect(info?.title).toBe(index % 2 === 0 ? `giant-${index}` : firstMessageOf(index).slice(0, 100));
      // The last message, 1 GiB into the file, is the session's last activity.
      expect(info?.updatedAt).toBe(new Date(STARTED + index * 60_000 + 3_600_000).toISOString());
    }
    expect(listed.sessions.find((session) => session.sessionId === smallId)?.title).toBe("The small one");
    // Newest activity first.
    expect(listed.sessions[0].sessionId).toBe(giantId(GIANTS - 1));
  });

  test("--session <id prefix> finds the small session among the giants; a shared prefix is ambiguous", async () => {
    const started = performance.now();
    const rpc = startRpc({ env: fixture.env, cwd: fixture.cwd, args: ["--model", "fake/m", "--session-dir", sessionDir, "--session", smallId.slice(0, 6)] });
    try {
      const state = await rpc.request({ type: "get_state" }, 10_000);
      expect(state.data.sessionId).toBe(smallId);
      expect(performance.now() - started).toBeLessThan(5_000);
      rpc.proc.stdin.end();
      expect(await rpc.proc.exited).toBe(0);
    } finally {
      rpc.proc.kill(); // a listing that reads whole files would still be at it
    }

    // Every giant's id starts with "9": the prefix names no one session, and the error says so.
    const ambiguous = Bun.spawnSync([ensureBinary(), "--mode", "rpc", "--session-dir", sessionDir, "--session", "9"], { env: fixture.env, cwd: fixture.cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe", timeout: 10_000 });
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr.toString()).toContain(`ambiguous (${GIANTS} sessions start with it)`);
  });
});
