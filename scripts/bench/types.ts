/** What every workload receives and what it reports. */
import type { FakeLlmServer } from "../../test/support/fake-llm/server.ts";
import type { Agent, AgentSpec } from "./agents.ts";
import type { PeakRssMeter, RssRun } from "./peak-rss.ts";
import { median } from "./stats.ts";

export interface BenchContext {
  /** xcsh first, then the reference agent when one is configured. */
  agents: Agent[];
  /** The in-process fake LLM server (provider `fake`). */
  server: FakeLlmServer;
  /** Base URL of the stream server, a separate process (provider `fake-stream`). */
  streamBaseUrl: string;
  /** Scratch space for generated fixtures (kept between runs to save regenerating them). */
  fixtures: string;
  /** Multiplies each workload's own run count (`--runs-scale`). */
  runsScale: number;
  log(line: string): void;
  /** Sets up another program to measure (its own HOME, pointed at the same fake server). */
  prepare(spec: AgentSpec): Agent;
  /** Measures peak RSS; undefined when it cannot (no python3). */
  rss: PeakRssMeter | undefined;
}

export interface Budget {
  text: string;
  met: boolean;
}

export interface ResultRow {
  workload: string;
  metric: string;
  /** `ratio`: a dimensionless factor such as "with ÷ without" (no xcsh ÷ reference column). */
  kind: "time" | "bytes" | "count" | "ratio";
  /** Median per agent label; NaN when that agent could not do the workload. */
  values: Record<string, number>;
  /** Why a value is missing, per agent label. */
  notes?: Record<string, string>;
  budget?: Budget;
}

export interface Workload {
  name: string;
  /** Short id for `--only`. */
  id: string;
  /** Runs per agent before `--runs-scale`. */
  runs: number;
  run(context: BenchContext): Promise<ResultRow[]>;
}

export function runsFor(context: BenchContext, base: number): number {
  return Math.max(1, Math.round(base * context.runsScale));
}

export interface Samples<T> {
  byAgent: Map<string, T[]>;
  /** Agents that failed the workload, with the first error; they are not run again. */
  failures: Record<string, string>;
}

/**
 * Runs `once` for every agent, `runs` rounds after one discarded warm-up round.
 * Agents alternate within a round, so a slow patch on a shared machine hits both.
 * An agent that fails is recorded and left out of later rounds; its medians are NaN.
 */
export async function sampleRounds<T>(agents: Agent[], runs: number, once: (agent: Agent) => Promise<T>): Promise<Samples<T>> {
  const byAgent = new Map<string, T[]>(agents.map((agent) => [agent.label, []]));
  const failures: Record<string, string> = {};
  for (let round = -1; round < runs; round++) {
    for (const agent of agents) {
      if (failures[agent.label]) continue;
      try {
        const sample = await once(agent);
        if (round >= 0) byAgent.get(agent.label)!.push(sample);
      } catch (error) {
        failures[agent.label] = (error as Error).message.split("\n")[0].slice(0, 200);
      }
    }
  }
  return { byAgent, failures };
}

/** The median of one field per agent (NaN for an agent without samples). */
export function medians<T>(samples: Samples<T>, pick: (sample: T) => number): Record<string, number> {
  return Object.fromEntries([...samples.byAgent].map(([label, list]) => [label, median(list.map(pick))]));
}

/**
 * Peak-RSS rounds, separate from the timed ones: `once` runs the workload with
 * the command `wrap` gives it and returns that run's RssRun.
 */
export async function rssRounds(
  context: BenchContext,
  agents: Agent[],
  runs: number,
  once: (agent: Agent, wrap: (command: string[]) => RssRun) => Promise<RssRun>,
): Promise<Samples<number>> {
  const meter = context.rss;
  if (!meter) {
    const failures = Object.fromEntries(agents.map((agent) => [agent.label, "python3 is needed to measure RSS"]));
    return { byAgent: new Map(agents.map((agent) => [agent.label, []])), failures };
  }
  return sampleRounds(agents, runs, async (agent) => {
    const rss = (await once(agent, (command) => meter.wrap(command))).read();
    if (!Number.isFinite(rss)) throw new Error("the RSS launcher reported nothing");
    return rss;
  });
}
