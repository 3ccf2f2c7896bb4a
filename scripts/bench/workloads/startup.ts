/**
 * Start-up: the cold start an editor pays before its first RPC answer
 * (`get_state`, then stdin closed), and `--version`. Wall time and peak RSS of
 * the whole process, medians of many runs.
 */
import { MODEL_ARG, type Agent } from "../agents.ts";
import type { RssRun } from "../peak-rss.ts";
import { isResponse, RpcProcess } from "../rpc-process.ts";
import { medians, rssRounds, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";

const MIB = 1024 * 1024;
/** Issue #10's goals for the cold start to the first RPC answer. */
export const COLD_START_BUDGET_MS = 20;
export const COLD_START_BUDGET_RSS = 42 * MIB;
/** Memory varies far less than time: a few runs give a stable median. */
export const RSS_RUNS = 5;

export interface ColdSample {
  firstResponseMs: number;
  exitMs: number;
}

const identity = (command: string[]) => ({ command, read: () => Number.NaN });

/** One cold start; `wrap` (for RSS runs) rewrites the command. */
export async function coldStartOnce(agent: Agent, wrap: (command: string[]) => RssRun = identity): Promise<ColdSample & { run: RssRun }> {
  const run = wrap([...agent.command, "--mode", "rpc", "--no-session", "--model", MODEL_ARG]);
  const rpc = new RpcProcess(run.command, { env: agent.env, cwd: agent.project });
  rpc.send({ id: "cold", type: "get_state" });
  const frame = await rpc.waitFor(isResponse("get_state"), 30_000);
  rpc.closeStdin();
  const code = await rpc.exited;
  if (code !== 0) throw new Error(`${agent.label} exited ${code}: ${rpc.stderr.slice(0, 300)}`);
  return { firstResponseMs: frame.at - rpc.startedAt, exitMs: rpc.exitedAt - rpc.startedAt, run };
}

export async function versionOnce(agent: Agent, wrap: (command: string[]) => RssRun = identity): Promise<{ ms: number; run: RssRun }> {
  const run = wrap([...agent.command, "--version"]);
  const started = performance.now();
  const proc = Bun.spawn(run.command, { env: agent.env, cwd: agent.project, stdout: "pipe", stderr: "pipe" });
  await Promise.all([new Response(proc.stdout).arrayBuffer(), new Response(proc.stderr).arrayBuffer(), proc.exited]);
  const ms = performance.now() - started;
  if (proc.exitCode !== 0) throw new Error(`${agent.label} --version exited ${proc.exitCode}`);
  return { ms, run };
}

export const coldStart: Workload = {
  name: "Cold start to the first RPC response",
  id: "cold",
  runs: 20,
  async run(context: BenchContext): Promise<ResultRow[]> {
    // --version in the same rounds: the part of the cold start that is xcsh's own, apart from the runtime's.
    const samples = await sampleRounds(context.agents, runsFor(context, this.runs), async (agent) => ({ ...(await coldStartOnce(agent)), versionMs: (await versionOnce(agent)).ms }));
    const memory = await rssRounds(context, context.agents, RSS_RUNS, async (agent, wrap) => (await coldStartOnce(agent, wrap)).run);
    const first = medians(samples, (sample) => sample.firstResponseMs);
    const rss = medians(memory, (bytes) => bytes);
    const ours = context.agents[0].label;
    return [
      {
        workload: this.name,
        metric: "spawn → get_state response",
        kind: "time",
        values: first,
        notes: samples.failures,
        budget: { text: `≤ ${COLD_START_BUDGET_MS} ms`, met: first[ours] <= COLD_START_BUDGET_MS },
      },
      { workload: this.name, metric: "spawn → exit (stdin closed)", kind: "time", values: medians(samples, (s) => s.exitMs), notes: samples.failures },
      { workload: this.name, metric: "`--version` in the same rounds", kind: "time", values: medians(samples, (s) => s.versionMs), notes: samples.failures },
      {
        workload: this.name,
        metric: `peak RSS (${RSS_RUNS} runs)`,
        kind: "bytes",
        values: rss,
        notes: memory.failures,
        budget: { text: `≤ ${COLD_START_BUDGET_RSS / MIB} MiB`, met: rss[ours] <= COLD_START_BUDGET_RSS },
      },
    ];
  },
};

export const version: Workload = {
  name: "`--version`",
  id: "version",
  runs: 20,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const samples = await sampleRounds(context.agents, runsFor(context, this.runs), (agent) => versionOnce(agent));
    const memory = await rssRounds(context, context.agents, RSS_RUNS, async (agent, wrap) => (await versionOnce(agent, wrap)).run);
    return [
      { workload: this.name, metric: "wall time", kind: "time", values: medians(samples, (s) => s.ms), notes: samples.failures },
      { workload: this.name, metric: `peak RSS (${RSS_RUNS} runs)`, kind: "bytes", values: medians(memory, (bytes) => bytes), notes: memory.failures },
    ];
  },
};
