/**
 * The grep and find tools over a generated tree of 100 000 files and over real
 * code (realCodeFixture: installed npm packages, ~44 000 files), driven the
 * way a model drives them: the fake server answers the prompt with one tool
 * call, the agent runs it, and the server's second answer ends the run. Wall
 * time from `prompt` to `agent_end`; what the tool returned is checked through
 * the request the agent sent back to the server.
 */
import type { Agent } from "../agents.ts";
import { MARKDOWN_FILES, NEEDLE, NEEDLE_FILES, realCodeFixture, treeFixture } from "../fixtures.ts";
import { runSearchThroughAgent } from "./search-run.ts";
import { medians, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";

interface SearchCase {
  /** Which corpus it searches. */
  corpus: "generated" | "real";
  tool: "grep" | "find";
  arguments: Record<string, unknown>;
  /** How many results a correct answer holds, counted in the tool result's text. */
  /** What a correct answer shows, as the row's label says it. */
  expected: string;
  count(resultText: string): number;
}

/** Lines of grep output that are matches (`path:LINE: text`). */
const grepMatches = (text: string) => text.split("\n").filter((line) => /^.+?:\d+: /.test(line)).length;

const ROOT = new URL("../../..", import.meta.url).pathname;

const CASES: SearchCase[] = [
  {
    corpus: "generated",
    tool: "grep",
    arguments: { pattern: NEEDLE },
    expected: `${NEEDLE_FILES} exist`,
    count: (text) => text.split(`${NEEDLE} marks`).length - 1,
  },
  {
    corpus: "generated",
    tool: "find",
    arguments: { pattern: "*.md" },
    expected: `${MARKDOWN_FILES} exist`,
    count: (text) => text.split(".md").length - 1,
  },
  // Real code: more matches than the default limit of 100 shows; both agents stop at it.
  { corpus: "real", tool: "grep", arguments: { pattern: "createServer" }, expected: "the first 100 of 281", count: grepMatches },
  { corpus: "real", tool: "grep", arguments: { pattern: "function\\s+\\w+Stream\\(" }, expected: "the first 100 of 357", count: grepMatches },
  { corpus: "real", tool: "find", arguments: { pattern: "*.md" }, expected: "every .md file outside nested node_modules", count: (text) => text.split("\n").filter((line) => line.endsWith(".md")).length },
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
  name: "grep / find tools over 100 000 generated files and 44 000 real ones",
  id: "tools",
  runs: 5,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const trees = { generated: treeFixture(context.fixtures, context.log), real: realCodeFixture(context.fixtures, context.log, ROOT) };
    const rows: ResultRow[] = [];
    for (const search of CASES) {
      const tree = trees[search.corpus];
      const samples = await sampleRounds(context.agents, runsFor(context, this.runs), (agent) => searchOnce(context, tree, agent, search));
      const call = `${search.corpus === "real" ? "real code: " : ""}${search.tool} ${JSON.stringify(search.arguments)}`;
      rows.push(
        { workload: this.name, metric: `${call}: prompt → agent_end`, kind: "time", values: medians(samples, (s) => s.ms), notes: samples.failures },
        {
          workload: this.name,
          metric: `${call}: results returned (${search.expected})`,
          kind: "count",
          values: medians(samples, (s) => s.results),
          notes: samples.failures,
        },
      );
    }
    return rows;
  },
};
