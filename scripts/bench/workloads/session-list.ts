/**
 * History at scale (#27): a folder of 3 000 session files totalling 5 GiB
 * (session-history-fixture.ts), given with `--session-dir`.
 *
 * - `--session <id prefix>` in RPC mode, then `get_state`: wall time from spawn to
 *   the answer and peak RSS. Finding the prefix must not read whole files. Both
 *   agents, run in the sessions' own project folder (the reference asks before
 *   opening another project's session).
 * - ACP `session/list` of the folder (xcsh; the reference has no ACP mode): time
 *   from request to answer, and the process's peak RSS, with the answer checked
 *   to hold every session and the target's name.
 *
 * XCSH_BENCH_HISTORY_MIB sets another total size (e.g. 512 for a quick run).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { MODEL_ARG, type Agent } from "../agents.ts";
import type { RssRun } from "../peak-rss.ts";
import { isResponse, RpcProcess } from "../rpc-process.ts";
import { medians, rssRounds, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";
import { HISTORY_BYTES, historyFixture, type HistoryFixture } from "./session-history-fixture.ts";

export const HISTORY_TIME_BUDGET_MS = 1000;
export const HISTORY_RSS_BUDGET = 100 * 1024 * 1024;
const HISTORY_RSS_RUNS = 3;

const identity = (command: string[]) => ({ command, read: () => Number.NaN });

async function openByPrefix(fixture: HistoryFixture, project: string, agent: Agent, wrap: (command: string[]) => RssRun = identity): Promise<{ ms: number; run: RssRun }> {
  const run = wrap([...agent.command, "--mode", "rpc", "--session-dir", fixture.dir, "--session", fixture.target.prefix, "--model", MODEL_ARG]);
  const rpc = new RpcProcess(run.command, { env: agent.env, cwd: project, keepLines: true, killAfterMs: 120_000 });
  try {
    rpc.send({ id: "state", type: "get_state" });
    const answer = await rpc.waitFor(isResponse("get_state"), 120_000);
    rpc.closeStdin();
    await rpc.exited;
    if (!answer.text?.includes(fixture.target.id)) throw new Error(`${agent.label}: get_state does not name ${fixture.target.id}: ${(answer.text ?? rpc.stderr).slice(0, 200)}`);
    return { ms: answer.at - rpc.startedAt, run };
  } catch (error) {
    rpc.kill();
    throw new Error(`${(error as Error).message} ${rpc.stderr.slice(0, 200)}`);
  }
}

async function acpList(fixture: HistoryFixture, project: string, agent: Agent, wrap: (command: string[]) => RssRun = identity): Promise<{ ms: number; run: RssRun }> {
  if (!agent.supportsLean) throw new Error("no ACP mode");
  const run = wrap([...agent.command, "--mode", "acp", "--session-dir", fixture.dir, "--model", MODEL_ARG]);
  const rpc = new RpcProcess(run.command, { env: agent.env, cwd: project, keepLines: true, killAfterMs: 120_000 });
  const answerTo = (id: number) => (frame: { text?: string }) => frame.text?.startsWith("{") === true && new RegExp(`"id":${id}[,}]`).test(frame.text.slice(0, 64));
  try {
    rpc.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await rpc.waitFor(answerTo(1), 60_000);
    const asked = performance.now();
    rpc.send({ jsonrpc: "2.0", id: 2, method: "session/list", params: { cwd: project } });
    const answer = await rpc.waitFor(answerTo(2), 120_000);
    rpc.closeStdin();
    await rpc.exited;
    const sessions = (JSON.parse(answer.text!) as { result?: { sessions?: Array<{ sessionId: string; title?: string }> } }).result?.sessions ?? [];
    if (sessions.length !== fixture.files) throw new Error(`${agent.label}: session/list gave ${sessions.length} sessions of ${fixture.files}`);
    const target = sessions.find((session) => session.sessionId === fixture.target.id);
    if (target?.title !== fixture.targetName) throw new Error(`${agent.label}: the target is listed as ${JSON.stringify(target?.title)}, not ${fixture.targetName}`);
    return { ms: answer.at - asked, run };
  } catch (error) {
    rpc.kill();
    throw error;
  }
}

export const sessionHistory: Workload = {
  name: "History: 3 000 session files, 5 GiB",
  id: "history",
  runs: 3,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const requested = Number(process.env.XCSH_BENCH_HISTORY_MIB ?? 0) * 1024 * 1024 || HISTORY_BYTES;
    const project = join(context.fixtures, "history-project");
    mkdirSync(project, { recursive: true });
    const fixture = historyFixture(context.fixtures, project, context.log, requested);
    const size = `${fixture.files} files, ${(fixture.totalBytes / 1024 ** 3).toFixed(2)} GiB${fixture.scaledNote ? ` (${fixture.scaledNote})` : ""}`;
    const name = `History: ${size}`;
    const runs = runsFor(context, this.runs);
    const ours = context.agents[0].label;

    const open = await sampleRounds(context.agents, runs, (agent) => openByPrefix(fixture, project, agent));
    const openRss = await rssRounds(context, context.agents, HISTORY_RSS_RUNS, async (agent, wrap) => (await openByPrefix(fixture, project, agent, wrap)).run);
    const list = await sampleRounds(context.agents, runs, (agent) => acpList(fixture, project, agent));
    const listRss = await rssRounds(context, context.agents, HISTORY_RSS_RUNS, async (agent, wrap) => (await acpList(fixture, project, agent, wrap)).run);

    const openMs = medians(open, (sample) => sample.ms);
    const openBytes = medians(openRss, (bytes) => bytes);
    const listMs = medians(list, (sample) => sample.ms);
    const listBytes = medians(listRss, (bytes) => bytes);
    const rssBudget = (values: Record<string, number>) => ({ text: `< ${HISTORY_RSS_BUDGET / 1024 ** 2} MiB`, met: values[ours] < HISTORY_RSS_BUDGET });
    return [
      { workload: name, metric: "--session <id prefix>: spawn → get_state answered", kind: "time", values: openMs, notes: open.failures, budget: { text: `< ${HISTORY_TIME_BUDGET_MS / 1000} s`, met: openMs[ours] < HISTORY_TIME_BUDGET_MS } },
      { workload: name, metric: `--session <id prefix>: peak RSS (${HISTORY_RSS_RUNS} runs)`, kind: "bytes", values: openBytes, notes: openRss.failures, budget: rssBudget(openBytes) },
      { workload: name, metric: "ACP session/list: request → answer", kind: "time", values: listMs, notes: list.failures, budget: { text: `< ${HISTORY_TIME_BUDGET_MS / 1000} s`, met: listMs[ours] < HISTORY_TIME_BUDGET_MS } },
      { workload: name, metric: `ACP session/list: process peak RSS (${HISTORY_RSS_RUNS} runs)`, kind: "bytes", values: listBytes, notes: listRss.failures, budget: rssBudget(listBytes) },
    ];
  },
};
