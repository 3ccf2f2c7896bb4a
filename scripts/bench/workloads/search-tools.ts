/**
 * The grep and find tools over a generated tree of 100 000 files, driven the
 * way a model drives them: the fake server answers the prompt with one tool
 * call, the agent runs it, and the server's second answer ends the run. Wall
 * time from `prompt` to `agent_end`; what the tool returned is checked through
 * the request the agent sent back to the server.
 */
import type { Agent } from "../agents.ts";
import { MARKDOWN_FILES, NEEDLE, NEEDLE_FILES, treeFixture } from "../fixtures.ts";
import { runSearchThroughAgent } from "./search-run.ts";
import { medians, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";

interface SearchCase {
  tool: "grep" | "find";
  arguments: Record<string, unknown>;
  /** How many results a correct answer holds, counted in the tool result's text. */
  expected: number;
  count(resultText: string): number;
}

const CASES: SearchCase[] = [
  {
    tool: "grep",
    arguments: { pattern: NEEDLE },
    expected: NEEDLE_FILES,
    count: (text) => text.split(`${NEEDLE} marks`).length - 1,
  },
  {
    tool: "find",
    arguments: { pattern: "*.md" },
    expected: MARKDOWN_FILES,
    count: (text) => text.split(".md").length - 1,
  },
];

interface SearchSample {
  ms: number;
  results: number;
}

async function searchOnce(context: BenchContext, tree: string, agent: Agent, search: SearchCase): Promise<SearchSample> {
  const run = await runSearchThroughAgent(context, tree, agent, search.tool, search.arguments);
  const results = search.count(run.resultText);
  if (results === 0) throw new Error(`${search.tool} returned no results: ${run.resultText.slice(0, 160) || "(no tool result)"}`);
  return { ms: run.agentEndAt - run.promptAt, results };
}

export const searchTools: Workload = {
  name: "grep / find tools over 100 000 files",
  id: "tools",
  runs: 5,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const tree = treeFixture(context.fixtures, context.log);
    const rows: ResultRow[] = [];
    for (const search of CASES) {
      const samples = await sampleRounds(context.agents, runsFor(context, this.runs), (agent) => searchOnce(context, tree, agent, search));
      const call = `${search.tool} ${JSON.stringify(search.arguments)}`;
      rows.push(
        { workload: this.name, metric: `${call}: prompt → agent_end`, kind: "time", values: medians(samples, (s) => s.ms), notes: samples.failures },
        {
          workload: this.name,
          metric: `${call}: results returned (${search.expected} exist)`,
          kind: "count",
          values: medians(samples, (s) => s.results),
          notes: samples.failures,
        },
      );
    }
    return rows;
  },
};
