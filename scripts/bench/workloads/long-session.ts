/**
 * The long haul: one RPC session of 2 000 turns (each a prompt, a `bash` call printing
 * 7 KB, and an answer) against the fake server, which reports realistic input-token
 * usage so compaction runs whenever the 200 000-token window fills, as it would in months
 * of use. The agent's resident memory (VmRSS, read from /proc) after turn 200 and after
 * the last turn, and its peak (VmHWM): memory must not grow with history beyond what the
 * context needs. The same turns again in the interactive mode, typed into a tmux pane.
 * `--runs-scale` scales the number of turns (at least 400); XCSH_BENCH_LONG_MODES=rpc or
 * =interactive runs one mode only.
 * Linux only (/proc); each agent runs once per mode — the workload is long.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withOwnConfig, type Agent } from "../agents.ts";
import { isEvent, isResponse, RpcProcess } from "../rpc-process.ts";
import { quote, TmuxControl } from "../tmux-control.ts";
import type { RecordedRequest } from "../../../test/support/fake-llm/server.ts";
import type { BenchContext, ResultRow, Workload } from "../types.ts";

const TURNS = 2000;
const EARLY_TURN = 200;
const MODEL = "fake-long/long-model";
/** The context window compaction keeps each request under. */
const CONTEXT_WINDOW = 200_000;
/** Memory after the last turn may exceed memory after turn 200 by this much. */
export const LONG_SESSION_GROWTH_BUDGET_MIB = 40;

interface LongSample {
  earlyMiB: number;
  lateMiB: number;
  peakMiB: number;
  compactions: number;
  seconds: number;
}

function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kib("VmRSS") / 1024, hwm: kib("VmHWM") / 1024 };
}

/** Tool call first, then an answer naming the turn once the tool's result is back; usage ≈ request size ÷ 4. */
function reply(request: RecordedRequest) {
  const body = request.body as { messages?: { role?: string; content?: unknown }[]; tools?: unknown[] };
  const usage = { input: Math.round(JSON.stringify(body).length / 4), output: 20 };
  const last = body.messages?.at(-1)?.role;
  const turn = /turn (\d+)/.exec(JSON.stringify(body.messages?.findLast((message) => message.role === "user")?.content ?? ""))?.[1] ?? "?";
  if (last === "tool" || !body.tools?.length) return { content: [{ type: "text" as const, text: `done-${turn}.` }], usage };
  return { content: [{ type: "toolCall" as const, name: "bash", arguments: { command: "seq 1 1500" } }], usage };
}

function withLongModel(agent: Agent, baseUrl: string): Agent {
  const own = withOwnConfig(agent, "agent-config-long");
  writeFileSync(
    join(own.configDir, "models.json"),
    JSON.stringify({
      providers: {
        "fake-long": { baseUrl, api: "openai-completions", apiKey: "bench-key", models: [{ id: "long-model", contextWindow: CONTEXT_WINDOW, maxTokens: 8_000 }] },
      },
    }),
  );
  return own;
}

async function longRun(context: BenchContext, agent: Agent, turns: number): Promise<LongSample> {
  const started = performance.now();
  const rpc = new RpcProcess([...agent.command, "--mode", "rpc", "--model", MODEL], { env: agent.env, cwd: agent.project, killAfterMs: 3 * 60 * 60_000 });
  let early = { rss: Number.NaN, hwm: Number.NaN };
  try {
    rpc.send({ id: "ready", type: "get_state" });
    await rpc.waitFor(isResponse("get_state"));
    // Each turn waits for an agent_settled it has not counted yet (compaction runs after agent_end).
    const counted = new Set<object>();
    for (let turn = 1; turn <= turns; turn++) {
      // Two requests a turn, plus the summaries of any compaction: keep the script ahead of them.
      if (context.server.pending() < 8) context.server.enqueue(...Array.from({ length: 16 }, () => reply));
      rpc.send({ type: "prompt", message: `turn ${turn}: run the command` });
      const settled = await rpc.waitFor((frame) => isEvent("agent_settled")(frame) && !counted.has(frame), 120_000);
      counted.add(settled);
      if (turn === EARLY_TURN) early = memoryOf(rpc.process.pid);
      if (turn % 250 === 0) context.log(`  ${agent.label}: turn ${turn} of ${turns}, ${memoryOf(rpc.process.pid).rss.toFixed(0)} MiB`);
    }
    const late = memoryOf(rpc.process.pid);
    const compactions = rpc.frames.filter((frame) => frame.type === "compaction_end").length;
    rpc.closeStdin();
    await rpc.exited;
    return { earlyMiB: early.rss, lateMiB: late.rss, peakMiB: late.hwm, compactions, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    rpc.kill();
    throw error;
  } finally {
    context.server.clearScript();
  }
}

/** CPU time (utime + stime, in ticks) of a process, from /proc/<pid>/stat. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** Resolves once the process has used no CPU for 500 ms (at most 30 s). */
async function untilIdle(pid: number): Promise<void> {
  let last = cpuTicks(pid);
  let quiet = 0;
  for (let waited = 0; waited < 30_000 && quiet < 5; waited += 100) {
    await Bun.sleep(100);
    const now = cpuTicks(pid);
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}

/** The same turns typed into the interactive mode in a tmux pane; each waits for its answer on screen. */
async function longInteractiveRun(context: BenchContext, agent: Agent, turns: number): Promise<LongSample> {
  const started = performance.now();
  const script = join(agent.home, "long-interactive.sh");
  const env = Object.entries({ ...agent.env, TERM: "xterm-256color" }).map(([name, value]) => `${name}=${quote(value)}`);
  writeFileSync(script, `#!/bin/sh\ncd ${quote(agent.project)} || exit 1\nexec env -i ${env.join(" ")} ${[...agent.command, "--model", MODEL].map(quote).join(" ")}\n`);
  chmodSync(script, 0o755);
  const tmux = await TmuxControl.start(120, 40);
  let pid: number | undefined;
  let early = { rss: Number.NaN, hwm: Number.NaN };
  const describe = (what: string) => (screen: string, why: string) => `${agent.label}: waited for ${what}, ${why}\nthe screen:\n${screen.trimEnd()}`;
  try {
    const pane = await tmux.open(`exec ${script}`);
    pid = pane.pid;
    await tmux.waitFor(pane.pane, (screen) => screen.includes("long-model"), { timeoutMs: 30_000, describe: describe("the editor") });
    // pi draws its editor before its start-up is over and drops a prompt sent meanwhile: wait until the process idles.
    await untilIdle(pid);
    for (let turn = 1; turn <= turns; turn++) {
      if (context.server.pending() < 8) context.server.enqueue(...Array.from({ length: 16 }, () => reply));
      await tmux.type(pane.pane, `turn ${turn}: run the command`);
      await tmux.key(pane.pane, "Enter");
      await tmux.waitFor(pane.pane, (screen) => screen.includes(`done-${turn}.`), { timeoutMs: 120_000, minIntervalMs: 5, describe: describe(`the answer to turn ${turn}`) });
      if (turn === EARLY_TURN) early = memoryOf(pid);
      if (turn % 250 === 0) context.log(`  ${agent.label} (interactive): turn ${turn} of ${turns}, ${memoryOf(pid).rss.toFixed(0)} MiB`);
    }
    // A compaction may follow the last answer: let it finish before the last reading.
    await Bun.sleep(500);
    const late = memoryOf(pid);
    return { earlyMiB: early.rss, lateMiB: late.rss, peakMiB: late.hwm, compactions: Number.NaN, seconds: (performance.now() - started) / 1000 };
  } finally {
    tmux.close();
    context.server.clearScript();
    if (pid !== undefined) {
      for (let waited = 0; waited < 3_000 && existsSync(`/proc/${pid}`); waited += 50) await Bun.sleep(50);
      if (existsSync(`/proc/${pid}`)) process.kill(pid, "SIGKILL");
    }
  }
}

export const longSession: Workload = {
  name: "A 2 000-turn session with tool output, compacting as it goes",
  id: "long",
  runs: 1,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const turns = Math.max(2 * EARLY_TURN, Math.round(TURNS * context.runsScale));
    const baseUrl = context.server.baseUrl("openai-completions");
    const rows: ResultRow[] = [];
    const wanted = (process.env.XCSH_BENCH_LONG_MODES ?? "rpc,interactive").split(",");
    const modes = [
      ...(wanted.includes("rpc") ? [{ mode: "RPC", once: longRun }] : []),
      ...(wanted.includes("interactive") && Bun.which("tmux") ? [{ mode: "interactive", once: longInteractiveRun }] : []),
    ];
    for (const { mode, once } of modes) {
      const values = { early: {} as Record<string, number>, late: {} as Record<string, number>, peak: {} as Record<string, number>, compactions: {} as Record<string, number> };
      const notes: Record<string, string> = {};
      for (const agent of context.agents) {
        try {
          const sample = await once(context, withLongModel(agent, baseUrl), turns);
          context.log(`  ${agent.label} (${mode}): ${turns} turns in ${sample.seconds.toFixed(0)} s`);
          values.early[agent.label] = sample.earlyMiB * 1024 * 1024;
          values.late[agent.label] = sample.lateMiB * 1024 * 1024;
          values.peak[agent.label] = sample.peakMiB * 1024 * 1024;
          values.compactions[agent.label] = sample.compactions;
        } catch (error) {
          context.log(`  ${agent.label} (${mode}) failed: ${(error as Error).message}`);
          notes[agent.label] = (error as Error).message.split("\n")[0]!;
          for (const row of Object.values(values)) row[agent.label] = Number.NaN;
        }
      }
      const xcsh = context.agents[0]!.label;
      const growthMiB = (values.late[xcsh]! - values.early[xcsh]!) / (1024 * 1024);
      rows.push(
        { workload: this.name, metric: `${mode}: RSS after turn ${EARLY_TURN}`, kind: "bytes", values: values.early, notes },
        {
          workload: this.name,
          metric: `${mode}: RSS after turn ${turns}`,
          kind: "bytes",
          values: values.late,
          notes,
          budget: { text: `≤ turn ${EARLY_TURN} + ${LONG_SESSION_GROWTH_BUDGET_MIB} MiB (${growthMiB >= 0 ? "+" : ""}${growthMiB.toFixed(1)} MiB)`, met: growthMiB <= LONG_SESSION_GROWTH_BUDGET_MIB },
        },
        { workload: this.name, metric: `${mode}: peak RSS over the session`, kind: "bytes", values: values.peak, notes },
      );
      if (mode === "RPC") rows.push({ workload: this.name, metric: "RPC: compactions", kind: "count", values: values.compactions, notes });
    }
    return rows;
  },
};
