/**
 * Does `--bytecode` pay for itself? The same build without it, measured on the
 * start-up workloads beside the real binary. (The bytecode makes the file ~8 MB
 * larger; this shows what the start-up gets for it.)
 */
import { join } from "node:path";
import { compileFlags, currentBuildInfo, ROOT } from "../../build-flags.ts";
import { xcshSpec } from "../agents.ts";
import { medians, rssRounds, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";
import { coldStartOnce, RSS_RUNS, versionOnce } from "./startup.ts";

async function buildWithoutBytecode(outfile: string): Promise<void> {
  const flags = compileFlags(await currentBuildInfo()).filter((flag) => flag !== "--bytecode");
  const proc = Bun.spawn([process.execPath, ...flags, "--outfile", outfile], { cwd: ROOT, stdout: "ignore", stderr: "pipe" });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`build without --bytecode failed: ${stderr}`);
}

export const bytecode: Workload = {
  name: "Build option: --bytecode",
  id: "bytecode",
  runs: 15,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const outfile = join(context.fixtures, "xcsh-without-bytecode");
    context.log("building xcsh without --bytecode …");
    await buildWithoutBytecode(outfile);
    const agents = [context.agents[0], context.prepare(xcshSpec(outfile, "without --bytecode"))];
    const runs = runsFor(context, this.runs);
    const cold = await sampleRounds(agents, runs, (agent) => coldStartOnce(agent));
    const memory = await rssRounds(context, agents, RSS_RUNS, async (agent, wrap) => (await coldStartOnce(agent, wrap)).run);
    const version = await sampleRounds(agents, runs, (agent) => versionOnce(agent));
    const sizes = Object.fromEntries(agents.map((agent) => [agent.label, Bun.file(agent.command[0]).size]));
    return [
      { workload: this.name, metric: "cold start: spawn → get_state response", kind: "time", values: medians(cold, (s) => s.firstResponseMs), notes: cold.failures },
      { workload: this.name, metric: `cold start: peak RSS (${RSS_RUNS} runs)`, kind: "bytes", values: medians(memory, (bytes) => bytes), notes: memory.failures },
      { workload: this.name, metric: "--version: wall time", kind: "time", values: medians(version, (s) => s.ms), notes: version.failures },
      { workload: this.name, metric: "executable size", kind: "bytes", values: sizes },
    ];
  },
};
