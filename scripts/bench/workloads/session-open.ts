/**
 * Opening a big session: a 100 MiB, 20 000-entry session file opened with
 * `--session`, then `get_messages` answered. Wall time from spawn to the last
 * byte of the answer, the answer's size, and peak RSS — of the open alone
 * (answering `get_state`) and with `get_messages`, each also as a multiple of
 * the file's size (#25: at most 2× and 2.5×). Each run opens a fresh copy,
 * because an agent may append to the file it opens.
 */
import { copyFileSync, rmSync, statSync } from "node:fs";
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

/** Peak RSS of the open alone and with get_messages, as multiples of the file's size. */
const OPEN_RSS_FACTOR = 2;
const MESSAGES_RSS_FACTOR = 2.5;

type Question = "get_state" | "get_messages";

async function openOnce(fixture: string, agent: Agent, wrap: (command: string[]) => RssRun = identity, question: Question = "get_messages"): Promise<OpenSample> {
  const file = join(agent.home, "bench-session.jsonl");
  copyFileSync(fixture, file);
  const run = wrap([...agent.command, "--mode", "rpc", "--session", file, "--model", MODEL_ARG]);
  const rpc = new RpcProcess(run.command, {
    env: agent.env,
    cwd: agent.project,
    killAfterMs: 120_000,
  });
  try {
    rpc.send({ id: "question", type: question });
    const answer = await rpc.waitFor(isResponse(question), 120_000);
    rpc.closeStdin();
    await rpc.exited;
    if (question === "get_messages" && answer.bytes < MIN_ANSWER_BYTES) throw new Error(`${agent.label}: get_messages answered only ${answer.bytes} bytes`);
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
    const openMemory = await rssRounds(context, context.agents, SESSION_RSS_RUNS, async (agent, wrap) => (await openOnce(fixture, agent, wrap, "get_state")).run);
    const fileBytes = statSync(fixture).size;
    const messagesRss = medians(memory, (bytes) => bytes);
    const openRss = medians(openMemory, (bytes) => bytes);
    const perFile = (values: Record<string, number>) => Object.fromEntries(Object.entries(values).map(([label, bytes]) => [label, bytes / fileBytes]));
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
      { workload: this.name, metric: `peak RSS (${SESSION_RSS_RUNS} runs)`, kind: "bytes", values: messagesRss, notes: memory.failures },
      {
        workload: this.name,
        metric: "peak RSS with get_messages ÷ file size",
        kind: "ratio",
        values: perFile(messagesRss),
        notes: memory.failures,
        budget: { text: `≤ ${MESSAGES_RSS_FACTOR}×`, met: messagesRss[ours] / fileBytes <= MESSAGES_RSS_FACTOR },
      },
      { workload: this.name, metric: `open → get_state: peak RSS (${SESSION_RSS_RUNS} runs)`, kind: "bytes", values: openRss, notes: openMemory.failures },
      {
        workload: this.name,
        metric: "open → get_state: peak RSS ÷ file size",
        kind: "ratio",
        values: perFile(openRss),
        notes: openMemory.failures,
        budget: { text: `≤ ${OPEN_RSS_FACTOR}×`, met: openRss[ours] / fileBytes <= OPEN_RSS_FACTOR },
      },
    ];
  },
};
