/**
 * What the sandbox adds to one bash tool call (issue #24): the search workloads'
 * run (a fresh agent, the fake server answers the prompt with one tool call and
 * ends the turn after it) with `bash {"command":"echo hi"}` under
 * `--sandbox workspace-write` and under `--sandbox off`, back to back in every
 * round in alternating order. Timed from `prompt` to `agent_end` (the call as a
 * host sees it), from `tool_execution_start` to `tool_execution_end` (the
 * command's own run), the turns before and after the call (to tell the command's
 * share from the rest), and spawn → `get_state` (what the sandbox costs at start-up:
 * the one bwrap run that checks it can work). A third agent, with settings'
 * `sandbox.network` a list of hosts, times the same call through the relay that
 * each sandbox starts (src/sandbox/proxy-relay.ts), against network "deny".
 * The first command's sandbox is started at agent_start (src/sandbox/warm-sandbox.ts);
 * the fake server answers at once, so a slow start (the relay's) shows here, where a
 * real model's seconds would hide it.
 * The tool result must hold `hi`. Skipped, saying why, when bubblewrap cannot run.
 * xcsh only: the reference agent has no sandbox.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withOwnConfig, type Agent } from "../agents.ts";
import { runSearchThroughAgent } from "./search-run.ts";
import { medians, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";

/** The goal: the sandbox adds at most this much to one bash call. */
export const SANDBOX_BUDGET_MS = 10;
/** "host-list": workspace-write with sandbox.network a list of hosts (the relay and the proxy). */
type Mode = "off" | "workspace-write" | "host-list";

/** Why bubblewrap cannot start a sandbox here, or undefined when it can (Linux only: elsewhere xcsh uses other means). */
function bwrapProblem(): string | undefined {
  if (process.platform !== "linux") return undefined;
  const bwrap = Bun.which("bwrap");
  if (!bwrap) return "bwrap is not installed (Debian: apt-get install bubblewrap)";
  const probe = Bun.spawnSync([bwrap, "--die-with-parent", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"], { stderr: "pipe" });
  if (probe.exitCode !== 0) return `bwrap cannot start a sandbox here: ${probe.stderr.toString().trim().split("\n")[0]}`;
  return undefined;
}

interface CallTimes {
  /** prompt → agent_end. */
  runMs: number;
  /** tool_execution_start → tool_execution_end. */
  toolMs: number;
  /** spawn → get_state answer. */
  readyMs: number;
  /** prompt → tool_execution_start, and tool_execution_end → agent_end: the turns around the call. */
  beforeToolMs: number;
  afterToolMs: number;
}

async function bashCallOnce(context: BenchContext, agent: Agent, mode: Mode): Promise<CallTimes> {
  const sandbox = mode === "host-list" ? "workspace-write" : mode;
  const run = await runSearchThroughAgent(context, agent.project, agent, "bash", { command: "echo hi" }, { tools: "bash", extraArgs: ["--sandbox", sandbox] });
  if (!/\bhi\b/.test(run.resultText)) throw new Error(`bash under --sandbox ${mode} did not return "hi": ${run.resultText.slice(0, 200) || "(no tool result)"}`);
  return {
    runMs: run.agentEndAt - run.promptAt,
    toolMs: run.toolEndAt - run.toolStartAt,
    readyMs: run.readyAt - run.spawnedAt,
    beforeToolMs: run.toolStartAt - run.promptAt,
    afterToolMs: run.agentEndAt - run.toolEndAt,
  };
}

export const sandboxBash: Workload = {
  name: "One bash call under the sandbox",
  id: "sandbox",
  runs: 20,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const ours = context.agents[0];
    if (context.agents.length > 1) context.log("sandbox: measuring xcsh only (the reference agent has no sandbox)");
    const row = (metric: string, values: Record<string, number>, notes?: Record<string, string>): ResultRow => ({ workload: this.name, metric, kind: "time", values, notes });
    const problem = bwrapProblem();
    if (problem) {
      context.log(`sandbox: skipped: ${problem}`);
      return [row("workspace-write − off: prompt → agent_end", { [ours.label]: Number.NaN }, { [ours.label]: `skipped: ${problem}` })];
    }
    // xcsh's temp folder inside its home, as the sandbox tests do, so the sandbox's writable set is the same every run.
    const tmp = join(ours.home, "tmp");
    mkdirSync(tmp, { recursive: true });
    const agent: Agent = { ...ours, env: { ...ours.env, TMPDIR: tmp } };
    const listAgent = withOwnConfig(agent, "host-list-config");
    writeFileSync(join(listAgent.configDir, "settings.json"), JSON.stringify({ sandbox: { network: ["localhost"] } }));
    let round = 0;
    const samples = await sampleRounds([agent], runsFor(context, this.runs), async () => {
      const order: Mode[] = round++ % 2 === 0 ? ["off", "workspace-write", "host-list"] : ["host-list", "workspace-write", "off"];
      const times = {} as Record<Mode, CallTimes>;
      for (const mode of order) times[mode] = await bashCallOnce(context, mode === "host-list" ? listAgent : agent, mode);
      return times;
    });
    const label = ours.label;
    const pick = (mode: Mode, field: keyof CallTimes) => medians(samples, (s) => s[mode][field]);
    const added = (field: keyof CallTimes) => ({ [label]: pick("workspace-write", field)[label] - pick("off", field)[label] });
    const runAdded = added("runMs");
    return [
      row("off: prompt → agent_end", pick("off", "runMs"), samples.failures),
      row("workspace-write: prompt → agent_end", pick("workspace-write", "runMs"), samples.failures),
      { ...row("added by the sandbox: prompt → agent_end (median − median)", runAdded, samples.failures), budget: { text: `≤ ${SANDBOX_BUDGET_MS} ms`, met: runAdded[label] <= SANDBOX_BUDGET_MS } },
      row("off: tool_execution_start → end", pick("off", "toolMs"), samples.failures),
      row("workspace-write: tool_execution_start → end", pick("workspace-write", "toolMs"), samples.failures),
      row("added by the sandbox: tool_execution_start → end", added("toolMs"), samples.failures),
      row("added by the sandbox: prompt → tool_execution_start", added("beforeToolMs"), samples.failures),
      row("added by the sandbox: tool_execution_end → agent_end", added("afterToolMs"), samples.failures),
      row("added by the sandbox at start-up: spawn → get_state", added("readyMs"), samples.failures),
      row("network a list of hosts: tool_execution_start → end", pick("host-list", "toolMs"), samples.failures),
      row("added by the relay over network deny: tool_execution_start → end", { [label]: pick("host-list", "toolMs")[label] - pick("workspace-write", "toolMs")[label] }, samples.failures),
    ];
  },
};
