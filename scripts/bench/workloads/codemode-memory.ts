/**
 * What codemode's warm worker costs in memory (issue #34). A session with codemode
 * keeps one QuickJS worker started ahead of the next script (src/codemode/warm-worker.ts):
 * from the moment the model begins its first codemode call (src/core/codemode-warmup.ts),
 * and again after each script; a session whose model never scripts starts none. Each round starts fresh RPC
 * processes and, after one prompt answered with one tool call, reads the agent's resident
 * memory (VmRSS from /proc, once it has stopped changing):
 *
 * - codemode off (`--tools read`), the turn a direct `read`;
 * - codemode on (`--tools codemode,read`) but unused: the turn a direct `read` (no worker);
 * - codemode on and used: the turn a `codemode` script that calls `tools.read`;
 * - the same, then idle past the spare worker's idle limit (it is then released),
 *   shortened for the bench with XCSH_CODEMODE_SPARE_IDLE_MS.
 *
 * xcsh only (Linux, /proc): the figures are the cost of the spare, not a comparison.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MODEL_ARG, type Agent } from "../agents.ts";
import { isEvent, isResponse, RpcProcess } from "../rpc-process.ts";
import { medians, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";

const MARKER = "codemode-memory-marker";
/** The idle limit the last variant runs with, so that a round does not wait the default. */
const IDLE_MS = 1500;

function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) * 1024;
}

/** VmRSS once three readings 200 ms apart agree within 1% (the worker's start is done), at most 10 s on. */
async function settledRss(pid: number): Promise<number> {
  const until = performance.now() + 10_000;
  let readings: number[] = [];
  for (;;) {
    readings = [...readings, rssBytes(pid)].slice(-3);
    const spread = Math.max(...readings) - Math.min(...readings);
    if ((readings.length === 3 && spread <= readings[2]! / 100) || performance.now() > until) return readings[2] ?? readings.at(-1)!;
    await Bun.sleep(200);
  }
}

type Variant = "off" | "unused" | "used" | "released";

async function oneProcess(context: BenchContext, agent: Agent, variant: Variant): Promise<number> {
  const tools = variant === "off" ? "read" : "codemode,read";
  const env = variant === "released" ? { ...agent.env, XCSH_CODEMODE_SPARE_IDLE_MS: String(IDLE_MS) } : agent.env;
  const rpc = new RpcProcess([...agent.command, "--mode", "rpc", "--no-session", "--tools", tools, "--model", MODEL_ARG], { env, cwd: agent.project, killAfterMs: 60_000 });
  try {
    rpc.send({ id: "ready", type: "get_state" });
    await rpc.waitFor(isResponse("get_state"));
    const script = variant === "used" || variant === "released";
    const call = script
      ? { type: "toolCall" as const, name: "codemode", arguments: { code: 'return await tools.read({ path: "note.txt" });' } }
      : { type: "toolCall" as const, name: "read", arguments: { path: "note.txt" } };
    context.server.clearScript();
    context.server.enqueue({ content: [call] }, { content: [{ type: "text", text: "Read it." }] });
    const at = performance.now();
    rpc.send({ id: "p1", type: "prompt", message: "Read note.txt." });
    await rpc.waitFor((frame) => frame.at >= at && isEvent("agent_end")(frame), 60_000);
    const sent = JSON.stringify(context.server.requests.at(-1)?.body?.messages ?? []);
    if (!sent.includes(MARKER)) throw new Error(`the ${variant} turn did not read the file`);
    if (variant === "released") await Bun.sleep(IDLE_MS + 500);
    const rss = await settledRss(rpc.process.pid);
    rpc.closeStdin();
    await rpc.exited;
    return rss;
  } catch (error) {
    rpc.kill();
    throw error;
  }
}

export const codemodeMemory: Workload = {
  name: "Memory of codemode's warm worker",
  id: "codemodemem",
  runs: 5,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const ours = context.agents[0]!;
    writeFileSync(join(ours.project, "note.txt"), `${MARKER}\n`);
    const variants: Variant[] = ["off", "unused", "used", "released"];
    const samples = await sampleRounds([ours], runsFor(context, this.runs), async (agent) => {
      const result = {} as Record<Variant, number>;
      for (const variant of variants) result[variant] = await oneProcess(context, agent, variant);
      return result;
    });
    const label = ours.label;
    const of = (variant: Variant) => medians(samples, (s) => s[variant]);
    const minus = (a: Variant, b: Variant) => ({ [label]: of(a)[label]! - of(b)[label]! });
    const row = (metric: string, values: Record<string, number>): ResultRow => ({ workload: this.name, metric, kind: "bytes", values, notes: samples.failures });
    return [
      row("codemode off, after a direct read: VmRSS", of("off")),
      row("codemode on, unused (a direct read): VmRSS", of("unused")),
      row("codemode on, after a script: VmRSS", of("used")),
      row(`codemode on, after a script and ${IDLE_MS + 500} ms idle (spare released at ${IDLE_MS} ms): VmRSS`, of("released")),
      row("added by codemode on but unused (no worker started)", minus("unused", "off")),
      row("added by a script run (spare worker, compiled QuickJS)", minus("used", "off")),
      row("left after the spare's release", minus("released", "off")),
    ];
  },
};
