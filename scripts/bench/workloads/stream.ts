/**
 * A streamed answer: 20 KB of text in 2 500 deltas from the fake server. Wall
 * time from sending `prompt` to the `agent_end` event (the agent already
 * started), and the bytes the agent wrote to stdout for it, in the default event
 * form and in xcsh's lean form. Then a streamed tool call: a `write` of 200 KB
 * whose arguments arrive in 2 500 deltas, which costs quadratic time when each
 * delta re-parses the arguments so far. The server runs in its own process
 * (stream-server.ts); its time to stream the same answer to a bare HTTP client
 * is the floor both agents are measured against.
 */
import { STREAM_MODEL_ARG, type Agent } from "../agents.ts";
import { isEvent, isResponse, RpcProcess } from "../rpc-process.ts";
import { ANSWER_CHARS, TOOL_CALL_PROMPT } from "../stream-answer.ts";
import { formatMs, median } from "../stats.ts";
import { medians, runsFor, sampleRounds, type BenchContext, type ResultRow, type Samples, type Workload } from "../types.ts";

export const STREAM_OVERHEAD_BUDGET_MS = 150;

interface StreamSample {
  ms: number;
  bytes: number;
  updates: number;
}

type StreamCase = "answer" | "write";

async function streamOnce(agent: Agent, lean: boolean, what: StreamCase = "answer"): Promise<StreamSample> {
  const tools = what === "write" ? ["--tools", "write"] : ["--no-tools"];
  const args = ["--mode", "rpc", "--no-session", ...tools, "--model", STREAM_MODEL_ARG, ...(lean ? ["--rpc-lean"] : [])];
  const rpc = new RpcProcess([...agent.command, ...args], { env: agent.env, cwd: agent.project });
  try {
    rpc.send({ id: "ready", type: "get_state" });
    await rpc.waitFor(isResponse("get_state"));
    const framesBefore = rpc.frames.length;
    const started = performance.now();
    rpc.send({ id: "go", type: "prompt", message: what === "write" ? TOOL_CALL_PROMPT : "Tell me a long story." });
    const end = await rpc.waitFor(isEvent("agent_end"), 60_000);
    const frames = rpc.frames.slice(framesBefore);
    rpc.closeStdin();
    await rpc.exited;
    return {
      ms: end.at - started,
      bytes: frames.reduce((sum, frame) => sum + frame.bytes, 0),
      updates: frames.filter((frame) => frame.type === "message_update").length,
    };
  } catch (error) {
    rpc.kill();
    throw error;
  }
}

/** The stream server sending the same answer to a client that only reads it. */
async function serverOnce(baseUrl: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "bench-model", stream: true, messages: [{ role: "user", content: "Tell me a long story." }] }),
  });
  for await (const _ of response.body as ReadableStream<Uint8Array>) {
    // Drain only: the time to the last byte is what is measured.
  }
  return performance.now() - started;
}

export const stream: Workload = {
  name: "Streamed answer: 20 KB in 2 500 deltas",
  id: "stream",
  runs: 7,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const runs = runsFor(context, this.runs);
    const serverTimes: number[] = [];
    for (let i = 0; i <= runs; i++) {
      const ms = await serverOnce(context.streamBaseUrl);
      if (i > 0) serverTimes.push(ms);
    }
    const serverMs = median(serverTimes);
    const full = await sampleRounds(context.agents, runs, (agent) => streamOnce(agent, false));
    const leanAgents = context.agents.filter((agent) => agent.supportsLean);
    const lean = await sampleRounds(leanAgents, runs, (agent) => streamOnce(agent, true));

    const writeFull = await sampleRounds(context.agents, runs, (agent) => streamOnce(agent, false, "write"));
    const writeLean = await sampleRounds(leanAgents, runs, (agent) => streamOnce(agent, true, "write"));

    const pick = (samples: Samples<StreamSample>, field: keyof StreamSample) => medians(samples, (sample) => sample[field]);
    const notLean = {
      ...Object.fromEntries(context.agents.filter((agent) => !agent.supportsLean).map((agent) => [agent.label, "has no lean form"])),
      ...lean.failures,
    };
    const ours = context.agents[0].label;
    const wall = pick(full, "ms");
    const leanWall = pick(lean, "ms");
    const withinBudget = (ms: number) => ms - serverMs <= STREAM_OVERHEAD_BUDGET_MS;
    const budgetText = `≤ ${formatMs(serverMs + STREAM_OVERHEAD_BUDGET_MS)} (server + ${STREAM_OVERHEAD_BUDGET_MS} ms)`;
    return [
      { workload: this.name, metric: "fake server alone (bare HTTP client)", kind: "time", values: { [ours]: serverMs } },
      {
        workload: this.name,
        metric: "prompt → agent_end",
        kind: "time",
        values: wall,
        notes: full.failures,
        budget: { text: budgetText, met: withinBudget(wall[ours]) },
      },
      {
        workload: this.name,
        metric: "prompt → agent_end, lean",
        kind: "time",
        values: leanWall,
        notes: notLean,
        budget: { text: budgetText, met: withinBudget(leanWall[ours]) },
      },
      { workload: this.name, metric: "stdout bytes", kind: "bytes", values: pick(full, "bytes"), notes: full.failures },
      { workload: this.name, metric: "stdout bytes, lean", kind: "bytes", values: pick(lean, "bytes"), notes: notLean },
      {
        workload: this.name,
        metric: "stdout bytes per byte of answer, lean",
        kind: "ratio",
        values: Object.fromEntries(Object.entries(pick(lean, "bytes")).map(([label, bytes]) => [label, bytes / ANSWER_CHARS])),
        notes: notLean,
        budget: { text: "≤ 4×", met: pick(lean, "bytes")[ours] / ANSWER_CHARS <= 4 },
      },
      { workload: this.name, metric: "message_update events", kind: "count", values: pick(full, "updates"), notes: full.failures },
      { workload: this.name, metric: "200 KB write call streamed in 2 500 deltas, prompt → agent_end", kind: "time", values: pick(writeFull, "ms"), notes: writeFull.failures },
      {
        workload: this.name,
        metric: "200 KB write call, lean",
        kind: "time",
        values: pick(writeLean, "ms"),
        notes: { ...Object.fromEntries(context.agents.filter((agent) => !agent.supportsLean).map((agent) => [agent.label, "has no lean form"])), ...writeLean.failures },
      },
      { workload: this.name, metric: "200 KB write call, stdout bytes", kind: "bytes", values: pick(writeFull, "bytes"), notes: writeFull.failures },
    ];
  },
};
