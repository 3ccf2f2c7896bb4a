/**
 * Exporting a big session: `--export` of a 50 MiB, 10 000-entry session file to
 * HTML. Wall time from spawn to exit, the page's size, and peak RSS. The page
 * must hold the session (at least as many bytes as the file).
 */
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Agent } from "../agents.ts";
import { exportSessionFixture } from "../fixtures.ts";
import type { RssRun } from "../peak-rss.ts";
import { medians, rssRounds, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";

export const EXPORT_BUDGET_MS = 2000;
const EXPORT_RSS_RUNS = 3;

interface ExportSample {
  ms: number;
  pageBytes: number;
  run: RssRun;
}

const identity = (command: string[]) => ({ command, read: () => Number.NaN });

async function exportOnce(fixture: string, agent: Agent, wrap: (command: string[]) => RssRun = identity): Promise<ExportSample> {
  const out = join(agent.project, "bench-export.html");
  const run = wrap([...agent.command, "--export", fixture, out]);
  const started = performance.now();
  const proc = Bun.spawn(run.command, { env: agent.env, cwd: agent.project, stdout: "pipe", stderr: "pipe" });
  const [, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const ms = performance.now() - started;
  try {
    if (proc.exitCode !== 0) throw new Error(`${agent.label} --export exited ${proc.exitCode}: ${stderr.slice(0, 300)}`);
    const pageBytes = statSync(out).size;
    if (pageBytes < statSync(fixture).size) throw new Error(`${agent.label}: the page (${pageBytes} bytes) is smaller than the session`);
    return { ms, pageBytes, run };
  } finally {
    rmSync(out, { force: true });
  }
}

export const exportHtml: Workload = {
  name: "Export a 50 MiB / 10 000-entry session to HTML",
  id: "export",
  runs: 5,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const fixture = exportSessionFixture(context.fixtures, context.log);
    const samples = await sampleRounds(context.agents, runsFor(context, this.runs), (agent) => exportOnce(fixture, agent));
    const memory = await rssRounds(context, context.agents, EXPORT_RSS_RUNS, async (agent, wrap) => (await exportOnce(fixture, agent, wrap)).run);
    const wall = medians(samples, (sample) => sample.ms);
    const notes = samples.failures;
    const ours = context.agents[0].label;
    return [
      {
        workload: this.name,
        metric: "spawn → page written, exit",
        kind: "time",
        values: wall,
        notes,
        budget: { text: `< ${EXPORT_BUDGET_MS / 1000} s`, met: wall[ours] < EXPORT_BUDGET_MS },
      },
      { workload: this.name, metric: "page size", kind: "bytes", values: medians(samples, (sample) => sample.pageBytes), notes },
      { workload: this.name, metric: `peak RSS (${EXPORT_RSS_RUNS} runs)`, kind: "bytes", values: medians(memory, (bytes) => bytes), notes: memory.failures },
    ];
  },
};
