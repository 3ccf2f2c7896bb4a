/**
 * xcsh's grep and find tools against ripgrep and fd run directly, on the same
 * 100 000-file tree with the same query. xcsh's figure is the tool's own run
 * inside the agent (`tool_execution_start` → `tool_execution_end`, the binary
 * started fresh for every sample, driven by the fake LLM server); rg's and fd's
 * is their whole process (spawn → exit, output read), which is what an agent
 * that shells out to them pays per search. Runs alternate between the two, so
 * a busy patch on a shared machine hits both. Needs `rg` and `fd`/`fdfind`.
 */
import { MARKDOWN_FILES, NEEDLE, NEEDLE_FILES, treeFixture } from "../fixtures.ts";
import { runSearchThroughAgent } from "./search-run.ts";
import { median } from "../stats.ts";
import { runsFor, type BenchContext, type ResultRow, type Workload } from "../types.ts";

const NATIVE = "rg / fd";

interface DirectCase {
  /** The row's name. */
  title: string;
  tool: "grep" | "find";
  arguments: Record<string, unknown>;
  /** The same query for rg or fd; its first word is looked up on PATH. */
  native: string[];
  expected: number;
  /** Results in xcsh's tool output. */
  countOurs(text: string): number;
  /** Results in the native tool's stdout. */
  countNative(stdout: string): number;
}

const lines = (text: string) => text.split("\n").filter((line) => line !== "").length;

const CASES: DirectCase[] = [
  {
    title: `grep "${NEEDLE}" (literal) vs \`rg -n --hidden\``,
    tool: "grep",
    arguments: { pattern: NEEDLE },
    native: ["rg", "--line-number", "--hidden", "--color=never", NEEDLE],
    expected: NEEDLE_FILES,
    countOurs: (text) => text.split(`${NEEDLE} marks`).length - 1,
    countNative: lines,
  },
  {
    title: `grep "needle_\\d+ marks" (regex) vs \`rg -n --hidden\``,
    tool: "grep",
    arguments: { pattern: "needle_\\d+ marks" },
    native: ["rg", "--line-number", "--hidden", "--color=never", "needle_\\d+ marks"],
    expected: NEEDLE_FILES,
    countOurs: (text) => text.split(`${NEEDLE} marks`).length - 1,
    countNative: lines,
  },
  {
    title: 'find "*.md" vs `fd --glob --hidden`',
    tool: "find",
    arguments: { pattern: "*.md" },
    native: ["fd", "--glob", "--hidden", "--color=never", "*.md"],
    expected: MARKDOWN_FILES,
    countOurs: (text) => text.split(".md").length - 1,
    countNative: lines,
  },
];

/** Debian installs fd as `fdfind`. */
function nativeCommand(command: string[]): string[] | undefined {
  const names = command[0] === "fd" ? ["fd", "fdfind"] : [command[0]];
  for (const name of names) {
    const path = Bun.which(name);
    if (path) return [path, ...command.slice(1)];
  }
  return undefined;
}

interface Sample {
  ms: number;
  results: number;
}

async function runNative(command: string[], tree: string): Promise<Sample> {
  const started = performance.now();
  const proc = Bun.spawn(command, { cwd: tree, stdout: "pipe", stderr: "ignore" });
  const stdout = await new Response(proc.stdout).text();
  await proc.exited;
  return { ms: performance.now() - started, results: lines(stdout) };
}

/** One fresh xcsh process, one tool call; the tool's own time. */
async function runOurs(context: BenchContext, tree: string, search: DirectCase): Promise<Sample> {
  const run = await runSearchThroughAgent(context, tree, context.agents[0], search.tool, search.arguments);
  return { ms: run.toolEndAt - run.toolStartAt, results: search.countOurs(run.resultText) };
}

export const searchDirect: Workload = {
  name: "grep / find against ripgrep and fd, run directly",
  id: "search",
  runs: 9,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const tree = treeFixture(context.fixtures, context.log);
    const runs = runsFor(context, this.runs);
    const ours = context.agents[0].label;
    const rows: ResultRow[] = [];
    for (const search of CASES) {
      const command = nativeCommand(search.native);
      const oursSamples: Sample[] = [];
      const nativeSamples: Sample[] = [];
      const notes: Record<string, string> = {};
      // One discarded warm-up round, then alternate.
      for (let round = -1; round < runs; round++) {
        const mine = await runOurs(context, tree, search);
        const theirs = command ? await runNative(command, tree) : undefined;
        if (round < 0) continue;
        oursSamples.push(mine);
        if (theirs) nativeSamples.push(theirs);
      }
      if (!command) notes[NATIVE] = `${search.native[0]} is not installed (Debian: apt-get install ripgrep fd-find)`;
      const call = search.title;
      rows.push(
        {
          workload: this.name,
          metric: `${call}: time`,
          kind: "time",
          values: { [ours]: median(oursSamples.map((s) => s.ms)), [NATIVE]: median(nativeSamples.map((s) => s.ms)) },
          notes,
        },
        {
          workload: this.name,
          metric: `${call}: results (${search.expected} exist)`,
          kind: "count",
          values: { [ours]: median(oursSamples.map((s) => s.results)), [NATIVE]: median(nativeSamples.map((s) => s.results)) },
          notes,
        },
      );
    }
    return rows;
  },
};
