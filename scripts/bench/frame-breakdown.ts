/**
 * `bun scripts/bench/frame-breakdown.ts [--lean]`: one streamed answer (the
 * stream workload's 20 KB in 2 500 deltas), with the bytes of stdout broken
 * down by frame type — to see where the streaming bytes go.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLlm } from "../../test/support/fake-llm/server.ts";
import { ensureBinary } from "../../test/support/cli.ts";
import { prepareAgent, STREAM_MODEL_ARG, xcshSpec } from "./agents.ts";
import { isEvent, isResponse, RpcProcess } from "./rpc-process.ts";
import { startStreamServer } from "./stream-server-process.ts";

const lean = process.argv.includes("--lean");
const homes = mkdtempSync(join(tmpdir(), "xcsh-frames-"));
const server = startFakeLlm();
const streamServer = await startStreamServer();
try {
  const agent = prepareAgent(xcshSpec(ensureBinary()), homes, { fake: server.baseUrl("openai-completions"), "fake-stream": streamServer.baseUrl });
  const args = ["--mode", "rpc", "--no-session", "--no-tools", "--model", STREAM_MODEL_ARG, ...(lean ? ["--rpc-lean"] : [])];
  const rpc = new RpcProcess([...agent.command, ...args], { env: agent.env, cwd: agent.project });
  rpc.send({ id: "ready", type: "get_state" });
  await rpc.waitFor(isResponse("get_state"));
  const before = rpc.frames.length;
  rpc.send({ id: "go", type: "prompt", message: "Tell me a long story." });
  await rpc.waitFor(isEvent("agent_end"), 60_000);
  rpc.closeStdin();
  await rpc.exited;
  const byType = new Map<string, { frames: number; bytes: number }>();
  const typeOf = (type: string | undefined) => type ?? "(untyped)";
  for (const frame of rpc.frames.slice(before)) {
    const entry = byType.get(typeOf(frame.type)) ?? { frames: 0, bytes: 0 };
    entry.frames++;
    entry.bytes += frame.bytes;
    byType.set(typeOf(frame.type), entry);
  }
  let total = 0;
  for (const [type, { frames, bytes }] of byType) {
    total += bytes;
    console.log(`${type.padEnd(22)} ${String(frames).padStart(6)} frames ${String(bytes).padStart(10)} bytes`);
  }
  console.log(`${"total".padEnd(22)} ${" ".repeat(13)} ${String(total).padStart(10)} bytes`);
} finally {
  await server.close();
  await streamServer.close();
  rmSync(homes, { recursive: true, force: true });
}
