/** Renders benchmark results as the Markdown of bench/results.md. */
import { cpus, release, totalmem } from "node:os";
import { readFileSync } from "node:fs";
import { formatBytes, formatMs, formatRatio } from "./stats.ts";
import type { ResultRow } from "./types.ts";

export interface ReportInput {
  date: Date;
  versions: Record<string, string>;
  /** Per workload, its rows and base run count. */
  sections: { name: string; runs: number; rows: ResultRow[] }[];
  runsScale: number;
  referenceConfigured: boolean;
  durationMs: number;
  /** The label budgets apply to. */
  ours: string;
  /** 1-minute load averages when the run started and ended: a busy machine shows here. */
  load: { start: number; end: number };
}

export function describeMachine(): string {
  let cpu = cpus()[0]?.model?.trim() ?? "unknown CPU";
  try {
    const match = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (match) cpu = match[1].trim();
  } catch {
    // Not Linux: os.cpus() already named it.
  }
  let system = `${process.platform} ${release()}`;
  try {
    const match = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(readFileSync("/etc/os-release", "utf8"));
    if (match) system = `${match[1]}, kernel ${release()}`;
  } catch {
    // No os-release: the kernel release says enough.
  }
  return `${cpu}, ${cpus().length} cores, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB RAM, ${system}, ${process.arch}`;
}

function formatValue(row: ResultRow, value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return "n/a";
  if (row.kind === "time") return formatMs(value);
  if (row.kind === "ratio") return `${value.toFixed(2)}×`;
  if (row.kind === "bytes") return row.metric.includes("RSS") || value > 1024 * 1024 ? formatBytes(value) : `${Math.round(value).toLocaleString("en-US")} B`;
  return Math.round(value).toLocaleString("en-US");
}

function cell(row: ResultRow, label: string): string {
  const value = row.values[label];
  const note = row.notes?.[label];
  if ((value === undefined || !Number.isFinite(value)) && note) return `n/a (${note.replaceAll("|", "\\|")})`;
  return formatValue(row, value);
}

function section(name: string, runs: number, rows: ResultRow[]): string {
  const labels: string[] = [];
  for (const row of rows) for (const label of [...Object.keys(row.values), ...Object.keys(row.notes ?? {})]) if (!labels.includes(label)) labels.push(label);
  const ratio = labels.length === 2;
  const budgets = rows.some((row) => row.budget);
  const header = ["metric", ...labels, ...(ratio ? [`${labels[0]} ÷ ${labels[1]}`] : []), ...(budgets ? ["budget"] : [])];
  const lines = [`### ${name}`, "", `Median of ${runs} runs.`, "", `| ${header.join(" | ")} |`, `| ${header.map(() => "---").join(" | ")} |`];
  for (const row of rows) {
    const cells = [row.metric, ...labels.map((label) => cell(row, label))];
    if (ratio) cells.push(row.kind === "count" || row.kind === "ratio" ? "" : formatRatio(row.values[labels[0]], row.values[labels[1]]));
    if (budgets) cells.push(row.budget ? `${row.budget.text} ${row.budget.met ? "✅" : "❌"}` : "");
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

export function renderReport(input: ReportInput): string {
  const budgetRows = input.sections.flatMap((s) => s.rows.filter((row) => row.budget));
  const versions = Object.entries(input.versions).map(([label, version]) => `- ${label}: \`${version}\``);
  if (!input.referenceConfigured) versions.push("- reference: not measured (set `XCSH_BENCH_REFERENCE` to its executable)");
  return [
    "# Benchmarks",
    "",
    `Measured ${input.date.toISOString().slice(0, 16).replace("T", " ")} UTC by \`bun run bench\` (${(input.durationMs / 1000).toFixed(0)} s).`,
    "",
    `Machine: ${describeMachine()}; Bun ${Bun.version}. Load average ${input.load.start.toFixed(2)} at the start, ${input.load.end.toFixed(2)} at the end.`,
    "",
    ...versions,
    "",
    "Every figure is the median of whole-process runs (after one discarded warm-up run), with the agents",
    "alternating run by run. Times are wall-clock as the host sees them; RSS is the process's peak resident",
    "memory. Ratios are xcsh ÷ the other column: below 1 means xcsh is faster or smaller.",
    "",
    "## Budgets",
    "",
    "| budget | xcsh | met |",
    "| --- | --- | --- |",
    ...budgetRows.map((row) => `| ${row.workload}: ${row.metric} ${row.budget!.text} | ${formatValue(row, row.values[input.ours])} | ${row.budget!.met ? "✅ yes" : "❌ no"} |`),
    "",
    "## Results",
    "",
    ...input.sections.flatMap((s) => [section(s.name, Math.max(1, Math.round(s.runs * input.runsScale)), s.rows), ""]),
    "## Workloads",
    "",
    "- **Cold start**: `--mode rpc --no-session`, one `get_state` written at spawn, stdin closed once it is answered.",
    "- **Ten extensions**: the cold start above with ten pi-style extensions auto-discovered from the config",
    "  folder's `extensions/` (each imports `@mariozechner/pi-coding-agent` and `typebox`, registers a tool and a",
    "  command, handles `session_start` and `tool_call`), against the same agent with none; the pi-tui line makes",
    "  one of the ten also import `@mariozechner/pi-tui`. Added time is median with − median without.",
    "- **Streamed answer**: the fake LLM server (OpenAI Chat Completions wire format, loopback, a process of its",
    "  own) streams 20 000 characters in 2 500 deltas; timed from writing `prompt` to reading `agent_end`, the",
    "  agent already started. The budget is the server's own time to a bare HTTP client plus 150 ms. Default",
    "  events repeat the whole message in every `message_update` (pi: 50 MB here, which the host must read",
    "  too); `--rpc-lean` sends only the delta. xcsh merges the deltas that arrive in one event-loop turn, in",
    "  both forms: on loopback the answer arrives in a burst, so few frames go out (a model streaming at",
    "  reading speed gets a frame per delta). The 200 KB `write` call streams its arguments in 2 500 deltas;",
    "  parsing the arguments so far at every delta makes it quadratic.",
    "- **Session**: a generated v3 session file (100 MiB, 20 000 entries: prompts, tool calls, large tool",
    "  results, answers) opened with `--session`, `get_messages` written at spawn; timed to the answer's last byte.",
    "- **Export**: the same kind of session, 50 MiB and 10 000 entries, written as HTML with `--export <file> <out.html>`;",
    "  timed from spawn to exit. The page must be at least as large as the session (it embeds all of it).",
    "- **grep / find**: a tree of 100 000 small files (50 contain the needle, 500 are `*.md`); the fake server",
    "  calls the tool once and ends the turn; the count column checks what the tool returned. The reference's",
    "  grep and find run `rg` and `fd` from PATH (the bench links Debian's `fdfind` as `fd`); where those are",
    "  missing or too old, its cells say so.",
    "- **grep / find against ripgrep and fd**: the same tree and query; xcsh's figure is its tool's run inside a",
    "  freshly started binary (`tool_execution_start` → `tool_execution_end`), rg's and fd's their whole process",
    "  (spawn → exit, stdout read), as an agent that shells out to them pays it. Runs alternate between the two.",
    "- **--bytecode**: the same build without `--bytecode`, on the start-up workloads.",
    "- **Interactive mode**: each agent in a tmux pane (120×40, `TERM=xterm-256color`, a private tmux server per",
    "  run), `--no-session --no-tools` on the stream server's model, timed through a tmux control client",
    "  (`tmux -C`: a capture costs ~0.6 ms there against ~8 ms for a spawned `capture-pane`, and the pane's",
    "  `%output` says when to look again). First frame: a key typed the moment the pane opens, timed to the",
    "  editor drawn (the line between the last two full-width rules) and to the key echoed in it. Keystroke",
    "  → echo: 20 letters, 40 ms apart, each timed from `send-keys` to the editor holding it; the `cat` row is",
    "  the same timing against the terminal's own echo, tmux's share of every figure. Streaming: Enter sends",
    "  the typed line, the server streams the 20 KB answer; wall time to its last three lines above the editor",
    "  with the footer's output tokens (shown once the message is complete), CPU time as utime + stime of the",
    "  pane's process (the agent, `exec`ed) from `/proc/<pid>/stat` over the same span (10 ms ticks).",
    "- **Long session**: one RPC session of 2 000 turns (× `--runs-scale`, at least 400), each a prompt, a `bash`",
    "  call printing 7 KB and an answer; the fake server reports input tokens as the request's size ÷ 4, so",
    "  compaction runs each time the 200 000-token window fills. Each turn waits for `agent_settled`. VmRSS",
    "  from `/proc` after turn 200 and after the last turn, and VmHWM (the peak) at the end; one run per agent.",
    "  Then the same turns typed into the interactive mode in a tmux pane (each waits for its answer on",
    "  screen; the first waits until the agent idles, as pi drops a prompt sent before its start-up ends).",
    "- **Codemode**: a fresh agent per round with `--tools codemode,read` and three prompts, each answered with one",
    "  call: a `codemode` script that calls `tools.read` on a small file and returns the text (the first script in",
    "  the process), then a direct `read` and a second script in alternating order; prompt → `agent_end`. The",
    "  differences from the direct read are what a first and a later script add. pi 1.6.0 too when",
    "  node_modules/pi-coding-agent-160 is there (bun, PI_OFFLINE=1).",
    "- **Token cost**: one scripted session per agent, API and pace: six prompts with read/bash/edit/write calls on",
    "  a copy of the semver package from node_modules, `compact` after the fourth (both agents keep 8 000 recent",
    "  tokens); every agent gets the same tool calls and texts. The fake server reports usage from a simulation",
    "  of each provider's prompt cache (scripts/bench/prompt-cache.ts: Anthropic breakpoints with 20-block",
    "  lookback, 1 024-token minimum, 5 min / 1 h; OpenAI automatic prefix caching in 128-token steps keyed by",
    "  prompt_cache_key, 5 min / 24 h; Gemini implicit) on a simulated clock: 8 s a request, 30 s or 400 s between",
    "  prompts. Tokens: 4 characters of each block's JSON to a token, for every agent. Cost at Sonnet-class list",
    "  prices ($3 input, $0.30 cache read, $3.75 / $6 cache write, $15 output per million). The reference is",
    "  pi 1.6.0 (node_modules/pi-coding-agent-160) unless XCSH_BENCH_TOKEN_REFERENCE names another program.",
    "- **Token cost on a real tree**: the token-cost simulation (Anthropic, 30 s between prompts) on a copy of",
    "  node_modules/typebox made a git repository, both agents with all seven built-in tools: ls -R, find, grep,",
    "  reads (one file twice, twelve files in one turn of parallel calls), a failing `bun test` run twice and fixed,",
    "  `git log`, `git clone --progress`, a loop of reads and greps. Each request is broken down by what its tokens",
    "  carry (system prompt, tool definitions, prompts, the model's text and calls, each tool's results, results",
    "  repeating an earlier one word for word), summed over the session's requests.",
    "- **MCP tokens**: one print-mode request (`-p hi`, default tools) per agent with three stdio MCP servers of",
    "  40 tools between them (files, issue tracker, database; scripts/bench/mcp-catalog-server-source.ts) in its",
    "  mcp.json, under `direct`, `codemode` and `deferred` exposure, and with no servers. Prompt tokens of the",
    "  request the fake server recorded, 4 characters of each block's JSON to a token (as for token cost). pi 1.6.0",
    "  from node_modules when no reference is set. A run that does not declare what its exposure promises fails.",
    "",
  ].join("\n");
}
