/**
 * What a codemode script costs over a direct call (issue #34). Each round is one
 * fresh agent process with `--tools codemode,read` and three prompts, each
 * answered by the fake server with one tool call and a closing text: first a
 * `codemode` script that calls `tools.read` on a small file and returns its
 * text (the first script in a process), then a direct `read` and a second
 * script, in alternating order (a script in a warm process). Timed from
 * `prompt` to `agent_end`; every result must hold the file's text. Each round
 * runs twice: with a model that answers at once, where work done in the
 * background (warming the next script's worker) still lands inside the timed
 * prompt on a busy machine, and with one that takes 200 ms to answer, as a
 * real model does at least, which hides it. Measured on
 * xcsh, and on pi 1.6.0 when XCSH_BENCH_REFERENCE names it or
 * node_modules/pi-coding-agent-160 is there (run with bun, PI_OFFLINE=1).
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MODEL_ARG, referenceSpec, type Agent } from "../agents.ts";
import { isEvent, isResponse, RpcProcess } from "../rpc-process.ts";
import { medians, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";

const MARKER = "codemode-bench-marker";
const PI_160 = join(import.meta.dir, "..", "..", "..", "node_modules", "pi-coding-agent-160", "dist", "bundle", "cli.js");

interface Sample {
  first: number;
  direct: number;
  warm: number;
}

/** The text of the last message the agent sent to the server: the tool's result. */
function lastToolResult(context: BenchContext): string {
  const messages = context.server.requests.at(-1)?.body?.messages as { role: string; content: unknown }[] | undefined;
  const last = messages?.at(-1);
  if (!last || last.role !== "tool") return "";
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}

/** How long the slow fake model takes to start each answer: work done meanwhile is off the prompt's path. */
const MODEL_MS = 200;

async function oneProcess(context: BenchContext, agent: Agent, directFirst: boolean, modelMs: number): Promise<Sample> {
  const rpc = new RpcProcess([...agent.command, "--mode", "rpc", "--no-session", "--tools", "codemode,read", "--model", MODEL_ARG], {
    env: agent.env,
    cwd: agent.project,
    killAfterMs: 120_000,
  });
  let prompts = 0;
  const prompt = async (tool: "read" | "codemode") => {
    const args = tool === "read" ? { path: "note.txt" } : { code: 'return await tools.read({ path: "note.txt" });' };
    context.server.clearScript();
    context.server.enqueue({ content: [{ type: "toolCall", name: tool, arguments: args }], delayMs: modelMs }, { content: [{ type: "text", text: "Read it." }], delayMs: modelMs });
    const at = performance.now();
    rpc.send({ id: `p${++prompts}`, type: "prompt", message: `Use ${tool} on note.txt.` });
    const end = await rpc.waitFor((frame) => frame.at >= at && isEvent("agent_end")(frame), 120_000);
    const text = lastToolResult(context);
    if (!text.includes(MARKER)) throw new Error(`${tool} did not return the file: ${text.slice(0, 200) || "(no tool result)"}`);
    return end.at - at;
  };
  try {
    rpc.send({ id: "ready", type: "get_state" });
    await rpc.waitFor(isResponse("get_state"));
    const first = await prompt("codemode");
    let direct: number;
    let warm: number;
    if (directFirst) {
      direct = await prompt("read");
      warm = await prompt("codemode");
    } else {
      warm = await prompt("codemode");
      direct = await prompt("read");
    }
    rpc.closeStdin();
    await rpc.exited;
    return { first, direct, warm };
  } catch (error) {
    rpc.kill();
    throw error;
  }
}

export const codemodeRead: Workload = {
  name: "One read through a codemode script",
  id: "codemode",
  runs: 12,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const agents = [context.agents[0]];
    const reference = context.agents[1] ?? (existsSync(PI_160) ? context.prepare({ ...referenceSpec("bun"), label: "pi 1.6.0", command: ["bun", PI_160] }) : undefined);
    if (reference) agents.push(reference);
    for (const agent of agents) writeFileSync(join(agent.project, "note.txt"), `${MARKER}\n`);
    let round = 0;
    const samples = await sampleRounds(agents, runsFor(context, this.runs), async (agent) => {
      const directFirst = round++ % 4 < 2;
      return { instant: await oneProcess(context, agent, directFirst, 0), slow: await oneProcess(context, agent, directFirst, MODEL_MS) };
    });
    const row = (metric: string, values: Record<string, number>): ResultRow => ({ workload: this.name, metric, kind: "time", values, notes: samples.failures });
    const rows = (model: "instant" | "slow", label: string): ResultRow[] => {
      const direct = medians(samples, (s) => s[model].direct);
      const first = medians(samples, (s) => s[model].first);
      const warm = medians(samples, (s) => s[model].warm);
      const difference = (from: Record<string, number>) => Object.fromEntries(Object.entries(from).map(([name, value]) => [name, value - direct[name]]));
      return [
        row(`${label}: direct read, prompt → agent_end`, direct),
        row(`${label}: first script in a process calling read`, first),
        row(`${label}: later script calling read`, warm),
        row(`${label}: added by the first script (median − median)`, difference(first)),
        row(`${label}: added by a later script (median − median)`, difference(warm)),
      ];
    };
    return [...rows("instant", "model answers at once"), ...rows("slow", `model answers in ${MODEL_MS} ms`)];
  },
};
