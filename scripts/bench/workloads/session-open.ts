/**
 * Opening a big session: a 100 MiB, 20 000-entry session file opened with
 * `--session`, then `get_messages` answered. Wall time from spawn to the last
 * byte of the answer, the answer's size, and peak RSS. Each run opens a fresh
 * copy, because an agent may append to the file it opens.
 */
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { MODEL_ARG, type Agent } from "../agents.ts";
import { sessionFixture } from "../fixtures.ts";
import type { RssRun } from "../peak-rss.ts";
import { isResponse, RpcProcess } from "../rpc-process.ts";
import { medians, rssRounds, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";

export const SESSION_OPEN_BUDGET_MS = 1000;
/** An answer smaller than this did not carry the session's messages. */
const MIN_ANSWER_BYTES = 50 * 1024 * 1024;
const SESSION_RSS_RUNS = 3;

interface OpenSample {
  ms: number;
  answerBytes: number;
  run: RssRun;
}

const identity = (command: string[]) => ({ command, read: () => Number.NaN });

async function openOnce(fixture: string, agent: Agent, wrap: (command: string[]) => RssRun = identity): Promise<OpenSample> {
  const file = join(agent.home, "bench-session.jsonl");
  copyFileSync(fixture, file);
  const run = wrap([...agent.command, "--mode", "rpc", "--session", file, "--model", MODEL_ARG]);
  const rpc = new RpcProcess(run.command, {
    env: agent.env,
    cwd: agent.project,
    killAfterMs: 120_000,
  });
  try {
    rpc.send({ id: "messages", type: "get_messages" });
    const answer = await rpc.waitFor(isResponse("get_messages"), 120_000);
    rpc.closeStdin();
    await rpc.exited;
    if (answer.bytes < MIN_ANSWER_BYTES) throw new Error(`${agent.label}: get_messages answered only ${answer.bytes} bytes`);
    return { ms: answer.at - rpc.startedAt, answerBytes: answer.bytes, run };
  } catch (error) {
    rpc.kill();
    throw error;
  } finally {
    rmSync(file, { force: true });
  }
}

export const sessionOpen: Workload = {
  name: "Open a 100 MiB / 20 000-entry session, answer get_messages",
  id: "session",
  runs: 5,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const fixture = sessionFixture(context.fixtures, context.log);
    const samples = await sampleRounds(context.agents, runsFor(context, this.runs), (agent) => openOnce(fixture, agent));
    const memory = await rssRounds(context, context.agents, SESSION_RSS_RUNS, async (agent, wrap) => (await openOnce(fixture, agent, wrap)).run);
    const pick = (field: "ms" | "answerBytes") => medians(samples, (sample) => sample[field]);
    const notes = samples.failures;
    const wall = pick("ms");
    const ours = context.agents[0].label;
    return [
      {
        workload: this.name,
        metric: "spawn → get_messages answered",
        kind: "time",
        values: wall,
        notes,
        budget: { text: `< ${SESSION_OPEN_BUDGET_MS / 1000} s`, met: wall[ours] < SESSION_OPEN_BUDGET_MS },
      },
      { workload: this.name, metric: "get_messages answer size", kind: "bytes", values: pick("answerBytes"), notes },
      { workload: this.name, metric: `peak RSS (${SESSION_RSS_RUNS} runs)`, kind: "bytes", values: medians(memory, (bytes) => bytes), notes: memory.failures },
    ];
  },
};
