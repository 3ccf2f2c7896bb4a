/**
 * xcsh's grep and find tools against ripgrep and fd run directly, with the same
 * query, on two corpora: the generated 100 000-file tree, and real code no one
 * here wrote (realCodeFixture: installed npm packages, ~44 000 files, with
 * multi-MB minified bundles, source maps and native binaries). xcsh's figure is
 * the tool's own run inside the agent (`tool_execution_start` →
 * `tool_execution_end`, the binary started fresh for every sample, driven by
 * the fake LLM server); rg's and fd's is their whole process (spawn → exit,
 * output read), which is what an agent that shells out to them pays per search.
 * Runs alternate between the two, so a busy patch on a shared machine hits both.
 * Needs `rg` and `fd`/`fdfind`.
 *
 * rg and fd are given xcsh's rules: hidden files searched, `.git` and
 * `node_modules` folders skipped, .gitignore honoured in or out of a git
 * repository, files over 10 MB skipped. Results are checked, not just counted:
 * xcsh shows its first `limit` matches in path order, so those must be rg's
 * first ones once rg's output is put in the same order.
 */
import { MARKDOWN_FILES, NEEDLE, NEEDLE_FILES, realCodeFixture, treeFixture } from "../fixtures.ts";
import { runSearchThroughAgent } from "./search-run.ts";
import { median } from "../stats.ts";
import { runsFor, type BenchContext, type ResultRow, type Workload } from "../types.ts";

const NATIVE = "rg / fd";
const ROOT = new URL("../../..", import.meta.url).pathname;

/** xcsh's walk rules, spelled for rg. */
const RG = ["rg", "--line-number", "--hidden", "--no-require-git", "--max-filesize", "10M", "--glob=!.git/", "--glob=!node_modules/", "--color=never", "--no-messages"];
/** And for fd (8.x honours .gitignore only inside a git repository; neither corpus holds one). */
const FD = ["fd", "--glob", "--hidden", "--exclude", ".git", "--exclude", "node_modules", "--color=never"];

interface DirectCase {
  /** The row's name. */
  title: string;
  tool: "grep" | "find";
  arguments: Record<string, unknown>;
  /** The same query for rg or fd; its first word is looked up on PATH. */
  native: string[];
}

interface Corpus {
  name: string;
  root(context: BenchContext): string;
  cases: DirectCase[];
}

const grepCase = (title: string, pattern: string): DirectCase => ({ title, tool: "grep", arguments: { pattern }, native: [...RG, "--regexp", pattern] });
const findCase = (pattern: string): DirectCase => ({ title: `find "${pattern}" vs \`fd --glob --hidden\``, tool: "find", arguments: { pattern }, native: [...FD, pattern] });

const CORPORA: Corpus[] = [
  {
    name: `generated tree (${NEEDLE_FILES} needle files, ${MARKDOWN_FILES} .md files in 100 000)`,
    root: (context) => treeFixture(context.fixtures, context.log),
    cases: [grepCase(`grep "${NEEDLE}" (literal) vs \`rg -n\``, NEEDLE), grepCase(`grep "needle_\\d+ marks" (regex) vs \`rg -n\``, "needle_\\d+ marks"), findCase("*.md")],
  },
  {
    name: "real code (installed npm packages, ~44 000 files)",
    root: (context) => realCodeFixture(context.fixtures, context.log, ROOT),
    cases: [
      // Past the default limit of 100: xcsh stops at its 100th match in path order, rg reads everything.
      grepCase('grep "createServer" (literal, 281 matches) vs `rg -n`', "createServer"),
      grepCase('grep "function\\s+\\w+Stream\\(" (regex, 357 matches) vs `rg -n`', "function\\s+\\w+Stream\\("),
      // Under the limit: both read every file.
      grepCase('grep "XMLHttpRequestUpload" (literal, every file) vs `rg -n`', "XMLHttpRequestUpload"),
      grepCase('grep "new\\s+Worker\\(" (regex, every file) vs `rg -n`', "new\\s+Worker\\("),
      findCase("*.md"),
    ],
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

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A search's results as comparable keys, in xcsh's order: `path:LINE` for grep, the path for find. */
function nativeResults(tool: DirectCase["tool"], stdout: string): string[] {
  const lines = stdout.split("\n").filter((line) => line !== "");
  if (tool === "find") return lines.map((line) => line.replace(/^\.\//, "").replace(/\/$/, "")).sort(byCodeUnit);
  const hits = lines.flatMap((line) => {
    const match = /^(.*?):(\d+):/.exec(line);
    return match ? [{ path: match[1], line: Number(match[2]) }] : [];
  });
  hits.sort((a, b) => byCodeUnit(a.path, b.path) || a.line - b.line);
  return hits.map((hit) => `${hit.path}:${hit.line}`);
}

function ourResults(tool: DirectCase["tool"], text: string): string[] {
  const lines = text.split("\n");
  // find shows directories with a trailing `/`, fd without.
  if (tool === "find") return lines.filter((line) => line !== "" && !line.startsWith("[") && !line.startsWith("No files")).map((line) => line.replace(/\/$/, "")).sort(byCodeUnit);
  return lines.flatMap((line) => {
    const match = /^(.*?):(\d+): /.exec(line);
    return match ? [`${match[1]}:${match[2]}`] : [];
  });
}

interface Sample {
  ms: number;
  results: string[];
}

async function runNative(command: string[], tree: string, tool: DirectCase["tool"]): Promise<Sample> {
  const started = performance.now();
  const proc = Bun.spawn(command, { cwd: tree, stdout: "pipe", stderr: "ignore" });
  const stdout = await new Response(proc.stdout).text();
  await proc.exited;
  return { ms: performance.now() - started, results: nativeResults(tool, stdout) };
}

/** One fresh xcsh process, one tool call; the tool's own time. */
async function runOurs(context: BenchContext, tree: string, search: DirectCase): Promise<Sample> {
  const run = await runSearchThroughAgent(context, tree, context.agents[0], search.tool, search.arguments);
  return { ms: run.toolEndAt - run.toolStartAt, results: ourResults(search.tool, run.resultText) };
}

/** How many of xcsh's results differ from the native tool's first ones (0 when they are the same). */
function differences(ours: string[], theirs: string[]): number {
  let differing = 0;
  for (let i = 0; i < ours.length; i++) if (ours[i] !== theirs[i]) differing++;
  return differing;
}

export const searchDirect: Workload = {
  name: "grep / find against ripgrep and fd, run directly",
  id: "search",
  runs: 9,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const runs = runsFor(context, this.runs);
    const ours = context.agents[0].label;
    const rows: ResultRow[] = [];
    for (const corpus of CORPORA) {
      const tree = corpus.root(context);
      for (const search of corpus.cases) {
        const command = nativeCommand(search.native);
        const oursSamples: Sample[] = [];
        const nativeSamples: Sample[] = [];
        const notes: Record<string, string> = {};
        // One discarded warm-up round, then alternate.
        for (let round = -1; round < runs; round++) {
          const mine = await runOurs(context, tree, search);
          const theirs = command ? await runNative(command, tree, search.tool) : undefined;
          if (round < 0) continue;
          oursSamples.push(mine);
          if (theirs) nativeSamples.push(theirs);
        }
        if (!command) notes[NATIVE] = `${search.native[0]} is not installed (Debian: apt-get install ripgrep fd-find)`;
        const call = `${corpus.name}: ${search.title}`;
        const mine = oursSamples.at(-1)?.results ?? [];
        const theirs = nativeSamples.at(-1)?.results;
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
            metric: `${call}: results shown (xcsh) / found (${NATIVE})`,
            kind: "count",
            values: { [ours]: mine.length, [NATIVE]: theirs?.length ?? Number.NaN },
            notes,
          },
          {
            workload: this.name,
            metric: `${call}: xcsh's results that differ from ${NATIVE}'s first ones in path order`,
            kind: "count",
            values: { [ours]: theirs ? differences(mine, theirs) : Number.NaN },
            notes,
          },
        );
      }
    }
    return rows;
  },
};
