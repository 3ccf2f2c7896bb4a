/**
 * What ten extensions add to a cold start: the start-up workload (`get_state`
 * answered, then stdin closed) with no extensions, with ten typical ones
 * auto-discovered from `<config dir>/extensions/`, and with the same ten where
 * one also imports pi-tui (its import is the difference between the two).
 * The three variants run back to back in every round, in rotating order, so a
 * busy patch of the machine hits them alike. Each run also asks `get_commands`
 * (after the timed answer) to prove the extensions really loaded.
 */
import { withOwnConfig, MODEL_ARG, type Agent } from "../agents.ts";
import { benchCommandName, EXTENSION_COUNT, writeBenchExtensions } from "../extension-sources.ts";
import type { RssRun } from "../peak-rss.ts";
import { isResponse, RpcProcess } from "../rpc-process.ts";
import { medians, rssRounds, runsFor, sampleRounds, type BenchContext, type ResultRow, type Samples, type Workload } from "../types.ts";
import { RSS_RUNS } from "./startup.ts";

/** The goal: ten extensions add at most this much to the first answer. */
export const TEN_EXTENSIONS_BUDGET_MS = 15;

type VariantName = "none" | "ten" | "tui";
const VARIANTS: VariantName[] = ["none", "ten", "tui"];

interface Variants {
  none: Agent;
  ten: Agent;
  tui: Agent;
}

const identity = (command: string[]) => ({ command, read: () => Number.NaN });

/** The agent in three config folders: without extensions, with ten, with ten where one imports pi-tui. */
function prepareVariants(agent: Agent): Variants {
  const ten = withOwnConfig(agent, "agent-config-ten-extensions");
  writeBenchExtensions(ten.configDir);
  const tui = withOwnConfig(agent, "agent-config-ten-extensions-tui");
  writeBenchExtensions(tui.configDir, 1);
  return { none: agent, ten, tui };
}

/** One cold start: ms to the get_state answer; then checks get_commands lists exactly `expected` bench commands. */
async function coldStartWith(agent: Agent, expected: number, wrap: (command: string[]) => RssRun = identity): Promise<{ ms: number; run: RssRun }> {
  const run = wrap([...agent.command, "--mode", "rpc", "--no-session", "--model", MODEL_ARG]);
  const rpc = new RpcProcess(run.command, { env: agent.env, cwd: agent.project, keepLines: true });
  rpc.send({ id: "cold", type: "get_state" });
  const state = await rpc.waitFor(isResponse("get_state"), 30_000);
  rpc.send({ id: "commands", type: "get_commands" });
  const commands = await rpc.waitFor(isResponse("get_commands"), 30_000);
  rpc.closeStdin();
  const code = await rpc.exited;
  if (code !== 0) throw new Error(`${agent.label} exited ${code}: ${rpc.stderr.slice(0, 300)}`);
  const names: string[] = (JSON.parse(commands.text!).data?.commands ?? []).map((command: { name: string }) => command.name);
  const loaded = Array.from({ length: EXTENSION_COUNT }, (_, i) => benchCommandName(i + 1)).filter((name) => names.includes(name)).length;
  if (loaded !== expected) throw new Error(`${agent.label} loaded ${loaded} of ${expected} bench extensions; stderr: ${rpc.stderr.slice(0, 300)}`);
  return { ms: state.at - rpc.startedAt, run };
}

const expectedCommands = (variant: VariantName) => (variant === "none" ? 0 : EXTENSION_COUNT);

function differences(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(a).map((label) => [label, a[label] - b[label]]));
}

function ratios(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.keys(a).map((label) => [label, a[label] / b[label]]));
}

export const extensionsColdStart: Workload = {
  name: "Cold start with ten extensions",
  id: "extensions",
  runs: 20,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const variants = new Map(context.agents.map((agent) => [agent.label, prepareVariants(agent)]));
    let round = 0;
    const samples = await sampleRounds(context.agents, runsFor(context, this.runs), async (agent) => {
      const times = {} as Record<VariantName, number>;
      const start = round++ % VARIANTS.length;
      for (let i = 0; i < VARIANTS.length; i++) {
        const variant = VARIANTS[(start + i) % VARIANTS.length];
        times[variant] = (await coldStartWith(variants.get(agent.label)![variant], expectedCommands(variant))).ms;
      }
      return times;
    });
    // Memory in runs of its own (after the timed ones), one variant after the other.
    const memory: Samples<number>[] = [];
    for (const variant of ["none", "ten"] as const) {
      memory.push(
        await rssRounds(context, context.agents, RSS_RUNS, async (agent, wrap) => (await coldStartWith(variants.get(agent.label)![variant], expectedCommands(variant), wrap)).run),
      );
    }
    const none = medians(samples, (s) => s.none);
    const ten = medians(samples, (s) => s.ten);
    const tui = medians(samples, (s) => s.tui);
    const added = differences(ten, none);
    const ours = context.agents[0].label;
    const row = (metric: string, kind: ResultRow["kind"], values: Record<string, number>, notes = samples.failures): ResultRow => ({ workload: this.name, metric, kind, values, notes });
    const [rssNone, rssTen] = memory;
    return [
      row("no extensions: spawn → get_state response", "time", none),
      row("ten extensions: spawn → get_state response", "time", ten),
      {
        ...row("added by ten extensions (median with − median without)", "time", added),
        budget: { text: `≤ ${TEN_EXTENSIONS_BUDGET_MS} ms`, met: added[ours] <= TEN_EXTENSIONS_BUDGET_MS },
      },
      row("ten ÷ none", "ratio", ratios(ten, none)),
      row("ten, one of them importing pi-tui: spawn → get_state response", "time", tui),
      row("added by that pi-tui import (median − ten's median)", "time", differences(tui, ten)),
      row(`no extensions: peak RSS (${RSS_RUNS} runs)`, "bytes", medians(rssNone, (b) => b), rssNone.failures),
      row(`ten extensions: peak RSS (${RSS_RUNS} runs)`, "bytes", medians(rssTen, (b) => b), rssTen.failures),
    ];
  },
};
