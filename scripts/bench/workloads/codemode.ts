/**
 * What a codemode script costs over a direct call (issue #34). Each round is one
 * fresh agent process with `--tools codemode,read` and three prompts, each
 * answered by the fake server with one tool call and a closing text: first a
 * `codemode` script that calls `tools.read` on a small file and returns its
 * text (the first script in a process), then a direct `read` and a second
 * script, in alternating order (a script in a warm process). Timed from
 * `prompt` to `agent_end`; every result must hold the file's text. Measured on
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

async function oneProcess(context: BenchContext, agent: Agent, directFirst: boolean): Promise<Sample> {
  const rpc = new RpcProcess([...agent.command, "--mode", "rpc", "--no-session", "--tools", "codemode,read", "--model", MODEL_ARG], {
    env: agent.env,
    cwd: agent.project,
    killAfterMs: 120_000,
  });
  let prompts = 0;
  const prompt = async (tool: "read" | "codemode") => {
    const args = tool === "read" ? { path: "note.txt" } : { code: 'return await tools.read({ path: "note.txt" });' };
    context.server.clearScript();
    context.server.enqueue({ content: [{ type: "toolCall", name: tool, arguments: args }] }, { content: [{ type: "text", text: "Read it." }] });
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
  runs: 20,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const agents = [context.agents[0]];
    const reference = context.agents[1] ?? (existsSync(PI_160) ? context.prepare({ ...referenceSpec("bun"), label: "pi 1.6.0", command: ["bun", PI_160] }) : undefined);
    if (reference) agents.push(reference);
    for (const agent of agents) writeFileSync(join(agent.project, "note.txt"), `${MARKER}\n`);
    let round = 0;
    const samples = await sampleRounds(agents, runsFor(context, this.runs), (agent) => oneProcess(context, agent, round++ % 4 < 2));
    const row = (metric: string, values: Record<string, number>): ResultRow => ({ workload: this.name, metric, kind: "time", values, notes: samples.failures });
    const direct = medians(samples, (s) => s.direct);
    const first = medians(samples, (s) => s.first);
    const warm = medians(samples, (s) => s.warm);
    const difference = (from: Record<string, number>) => Object.fromEntries(Object.entries(from).map(([label, value]) => [label, value - direct[label]]));
    return [
      row("direct read: prompt → agent_end", direct),
      row("first script in a process calling read: prompt → agent_end", first),
      row("later script calling read: prompt → agent_end", warm),
      row("added by the first script (median − median)", difference(first)),
      row("added by a later script (median − median)", difference(warm)),
    ];
  },
};
