/**
 * What a codemode script costs over a direct call (issue #34). Each round is one
 * fresh agent process with `--tools codemode,read` and three prompts, each
 * answered by the fake server with one tool call and a closing text: first a
 * `codemode` script that calls `tools.read` on a small file and returns its
 * text (the first script in a process), then a direct `read` and a second
 * script, in alternating order (a script in a warm process). Timed from
 * `prompt` to `agent_end`; every result must hold the file's text. Each round
 * runs three times: with a model that answers at once, where work done in the
 * background (warming the next script's worker) still lands inside the timed
 * prompt on a busy machine; with one that takes 200 ms to answer, as a real
 * model does at least, which hides it; and with one that also streams its
 * answer (8 characters every 20 ms, ~100 tokens/s), as a real model writes a
 * script: the first script's worker starts when its call begins (src/core/
 * codemode-warmup.ts), so only the streaming hides that start. Measured on
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
/** The streaming model's pace: 8 characters (about two tokens) every 20 ms. */
const STREAM_CHUNK_MS = 20;

/** When the fake model starts answering, and how fast it streams. */
interface ModelPace {
  delayMs: number;
  chunkDelayMs?: number;
}

async function oneProcess(context: BenchContext, agent: Agent, directFirst: boolean, pace: ModelPace): Promise<Sample> {
  const rpc = new RpcProcess([...agent.command, "--mode", "rpc", "--no-session", "--tools", "codemode,read", "--model", MODEL_ARG], {
    env: agent.env,
    cwd: agent.project,
    killAfterMs: 120_000,
  });
  let prompts = 0;
  const prompt = async (tool: "read" | "codemode") => {
    const args = tool === "read" ? { path: "note.txt" } : { code: 'return await tools.read({ path: "note.txt" });' };
    context.server.clearScript();
    context.server.enqueue({ content: [{ type: "toolCall", name: tool, arguments: args }], ...pace }, { content: [{ type: "text", text: "Read it." }], ...pace });
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
      return {
        instant: await oneProcess(context, agent, directFirst, { delayMs: 0 }),
        slow: await oneProcess(context, agent, directFirst, { delayMs: MODEL_MS }),
        streamed: await oneProcess(context, agent, directFirst, { delayMs: MODEL_MS, chunkDelayMs: STREAM_CHUNK_MS }),
      };
    });
    const row = (metric: string, values: Record<string, number>): ResultRow => ({ workload: this.name, metric, kind: "time", values, notes: samples.failures });
    const rows = (model: "instant" | "slow" | "streamed", label: string): ResultRow[] => {
      const direct = medians(samples, (s) => s[model].direct);
      const first = medians(samples, (s) => s[model].first);
      const warm = medians(samples, (s) => s[model].warm);
      const minus = (from: Record<string, number>, base: Record<string, number>) => Object.fromEntries(Object.entries(from).map(([name, value]) => [name, value - base[name]]));
      if (model === "streamed") {
        // A script streams longer than a read's arguments, so only script against script is fair here.
        return [
          row(`${label}: first script in a process calling read`, first),
          row(`${label}: later script calling read`, warm),
          row(`${label}: first script over a later one (median − median)`, minus(first, warm)),
        ];
      }
      return [
        row(`${label}: direct read, prompt → agent_end`, direct),
        row(`${label}: first script in a process calling read`, first),
        row(`${label}: later script calling read`, warm),
        row(`${label}: added by the first script (median − median)`, minus(first, direct)),
        row(`${label}: added by a later script (median − median)`, minus(warm, direct)),
      ];
    };
    return [
      ...rows("instant", "model answers at once"),
      ...rows("slow", `model answers in ${MODEL_MS} ms`),
      ...rows("streamed", `model answers in ${MODEL_MS} ms, 8 characters every ${STREAM_CHUNK_MS} ms`),
    ];
  },
};
