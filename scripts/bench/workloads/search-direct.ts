/**
 * xcsh's grep and find tools against ripgrep and fd run directly, on the same
 * 100 000-file tree with the same query. xcsh's figure is the tool's own run
 * inside the agent (`tool_execution_start` → `tool_execution_end`, the binary
 * started fresh for every sample, driven by the fake LLM server); rg's and fd's
 * is their whole process (spawn → exit, output read), which is what an agent
 * that shells out to them pays per search. Runs alternate between the two, so
 * a busy patch on a shared machine hits both. Needs `rg` and `fd`/`fdfind`.
 */
import type { ScriptStep } from "../../../test/support/fake-llm/server.ts";
import { MODEL_ARG } from "../agents.ts";
import { MARKDOWN_FILES, NEEDLE, NEEDLE_FILES, treeFixture } from "../fixtures.ts";
import { isEvent, isResponse, RpcProcess } from "../rpc-process.ts";
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

function lastToolResult(context: BenchContext): string {
  const messages = context.server.requests.at(-1)?.body?.messages as { role: string; content: unknown }[] | undefined;
  const last = messages?.at(-1);
  if (!last || last.role !== "tool") return "";
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}

/** One fresh xcsh process, one tool call; the tool's own time. */
async function runOurs(context: BenchContext, tree: string, search: DirectCase): Promise<Sample> {
  const agent = context.agents[0];
  const steps: ScriptStep[] = [
    { content: [{ type: "toolCall", name: search.tool, arguments: search.arguments }] },
    { content: [{ type: "text", text: "Found them." }] },
  ];
  context.server.clearScript();
  context.server.enqueue(...steps);
  const rpc = new RpcProcess([...agent.command, "--mode", "rpc", "--no-session", "--tools", "grep,find", "--model", MODEL_ARG], {
    env: agent.env,
    cwd: tree,
    killAfterMs: 120_000,
  });
  try {
    rpc.send({ id: "ready", type: "get_state" });
    await rpc.waitFor(isResponse("get_state"));
    rpc.send({ id: "go", type: "prompt", message: `Use ${search.tool} to search this tree.` });
    const start = await rpc.waitFor(isEvent("tool_execution_start"), 120_000);
    const end = await rpc.waitFor(isEvent("tool_execution_end"), 120_000);
    await rpc.waitFor(isEvent("agent_end"), 120_000);
    rpc.closeStdin();
    await rpc.exited;
    return { ms: end.at - start.at, results: search.countOurs(lastToolResult(context)) };
  } catch (error) {
    rpc.kill();
    throw error;
  }
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
