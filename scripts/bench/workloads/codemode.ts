/**
 * What a codemode script costs over a direct call (issue #34): the search
 * workloads' run (a fresh agent; the fake server answers the prompt with one
 * tool call and ends the turn after it), once as a direct `read` of a small
 * file and once as a `codemode` script that calls `tools.read` on it and
 * returns the text, back to back in every round in alternating order. Timed
 * from `prompt` to `agent_end`; the difference is the script's own cost: the
 * runner's first import, the QuickJS worker's start, and the round trip of the
 * call. Both results must hold the file's text. xcsh only: the reference agent
 * 1.6.0 has codemode, but is not the reference this bench is set up for.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runSearchThroughAgent } from "./search-run.ts";
import { medians, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";

type Way = "direct" | "codemode";
const MARKER = "codemode-bench-marker";

export const codemodeRead: Workload = {
  name: "One read through a codemode script",
  id: "codemode",
  runs: 20,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const agent = context.agents[0];
    if (context.agents.length > 1) context.log("codemode: measuring xcsh only");
    writeFileSync(join(agent.project, "note.txt"), `${MARKER}\n`);
    const once = async (way: Way) => {
      const run =
        way === "direct"
          ? await runSearchThroughAgent(context, agent.project, agent, "read", { path: "note.txt" }, { tools: "read" })
          : await runSearchThroughAgent(context, agent.project, agent, "codemode", { code: 'return await tools.read({ path: "note.txt" });' }, { tools: "codemode,read" });
      if (!run.resultText.includes(MARKER)) throw new Error(`${way} read did not return the file: ${run.resultText.slice(0, 200) || "(no tool result)"}`);
      return run.agentEndAt - run.promptAt;
    };
    let round = 0;
    const samples = await sampleRounds([agent], runsFor(context, this.runs), async () => {
      const order: Way[] = round++ % 2 === 0 ? ["direct", "codemode"] : ["codemode", "direct"];
      const times = {} as Record<Way, number>;
      for (const way of order) times[way] = await once(way);
      return times;
    });
    const row = (metric: string, values: Record<string, number>): ResultRow => ({ workload: this.name, metric, kind: "time", values, notes: samples.failures });
    const direct = medians(samples, (s) => s.direct);
    const script = medians(samples, (s) => s.codemode);
    return [
      row("direct read: prompt → agent_end", direct),
      row("codemode script calling read: prompt → agent_end", script),
      row("added by codemode (median − median)", { [agent.label]: script[agent.label] - direct[agent.label] }),
    ];
  },
};
