/**
 * The long haul: one RPC session of 2 000 turns (each a prompt, a `bash` call printing
 * 7 KB, and an answer) against the fake server, which reports realistic input-token
 * usage so compaction runs whenever the 200 000-token window fills, as it would in months
 * of use. The agent's resident memory (VmRSS, read from /proc) after turn 200 and after
 * the last turn, and its peak (VmHWM): memory must not grow with history beyond what the
 * context needs. `--runs-scale` scales the number of turns (at least 400).
 * Linux only (/proc); each agent runs once — the workload is long.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withOwnConfig, type Agent } from "../agents.ts";
import { isEvent, isResponse, RpcProcess } from "../rpc-process.ts";
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

/** Tool call first, then an answer once the tool's result is back; usage ≈ request size ÷ 4. */
function reply(request: RecordedRequest) {
  const body = request.body as { messages?: { role?: string }[]; tools?: unknown[] };
  const usage = { input: Math.round(JSON.stringify(body).length / 4), output: 20 };
  const last = body.messages?.at(-1)?.role;
  if (last === "tool" || !body.tools?.length) return { content: [{ type: "text" as const, text: "done" }], usage };
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

export const longSession: Workload = {
  name: "A 2 000-turn session with tool output, compacting as it goes",
  id: "long",
  runs: 1,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const turns = Math.max(2 * EARLY_TURN, Math.round(TURNS * context.runsScale));
    const baseUrl = context.server.baseUrl("openai-completions");
    const values = { early: {} as Record<string, number>, late: {} as Record<string, number>, peak: {} as Record<string, number>, compactions: {} as Record<string, number> };
    const notes: Record<string, string> = {};
    for (const agent of context.agents) {
      try {
        const sample = await longRun(context, withLongModel(agent, baseUrl), turns);
        context.log(`  ${agent.label}: ${turns} turns in ${sample.seconds.toFixed(0)} s, ${sample.compactions} compactions`);
        values.early[agent.label] = sample.earlyMiB * 1024 * 1024;
        values.late[agent.label] = sample.lateMiB * 1024 * 1024;
        values.peak[agent.label] = sample.peakMiB * 1024 * 1024;
        values.compactions[agent.label] = sample.compactions;
      } catch (error) {
        notes[agent.label] = (error as Error).message.split("\n")[0]!;
        for (const row of Object.values(values)) row[agent.label] = Number.NaN;
      }
    }
    const xcsh = context.agents[0]!.label;
    const growthMiB = (values.late[xcsh]! - values.early[xcsh]!) / (1024 * 1024);
    return [
      { workload: this.name, metric: `RSS after turn ${EARLY_TURN}`, kind: "bytes", values: values.early, notes },
      {
        workload: this.name,
        metric: `RSS after turn ${turns}`,
        kind: "bytes",
        values: values.late,
        notes,
        budget: { text: `≤ turn ${EARLY_TURN} + ${LONG_SESSION_GROWTH_BUDGET_MIB} MiB (${growthMiB >= 0 ? "+" : ""}${growthMiB.toFixed(1)} MiB)`, met: growthMiB <= LONG_SESSION_GROWTH_BUDGET_MIB },
      },
      { workload: this.name, metric: "peak RSS over the session", kind: "bytes", values: values.peak, notes },
      { workload: this.name, metric: "compactions", kind: "count", values: values.compactions, notes },
    ];
  },
};
