/**
 * What three configured stdio MCP servers add to a cold start (issue #23): the
 * start-up workload (`get_state` answered, then stdin closed) with no `mcp.json`
 * and with one declaring three servers (a tiny hand-written server run by the Bun
 * that runs the bench). Servers connect in the background, so the first answer
 * should not wait for them. After the timed answer every run polls `get_commands`
 * until each server's prompt is listed, which proves all three connected (and
 * gives the time to that point); the run without servers must list none.
 * A third variant declares three servers that are `sleep 30` (they never answer the
 * handshake and use no CPU): its added time is xcsh's own (loading the MCP client),
 * apart from what three starting server processes take from a shared CPU.
 * The variants run back to back in every round, in rotating order.
 *
 * Peak RSS is xcsh's, in runs of its own that also wait for the servers: the
 * Python launcher reads wait4's ru_maxrss, which on Linux is the larger of the
 * process's own peak and its reaped children's, never their sum.
 * xcsh only: the reference agent has no MCP client.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { withOwnConfig, MODEL_ARG, type Agent } from "../agents.ts";
import { BENCH_PROMPT, writeBenchMcpServer } from "../mcp-server-source.ts";
import type { RssRun } from "../peak-rss.ts";
import { isResponse, RpcProcess, type FrameInfo } from "../rpc-process.ts";
import { medians, rssRounds, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";
import { RSS_RUNS } from "./startup.ts";

/** The goal: three servers add at most this much before the first RPC answer. */
export const THREE_SERVERS_BUDGET_MS = 5;
const SERVER_NAMES = ["a", "b", "c"];
/** How long a run waits for the servers' prompts to be listed. */
const CONNECT_TIMEOUT_MS = 15_000;

type VariantName = "none" | "three" | "silent";
const VARIANTS: VariantName[] = ["none", "three", "silent"];

const identity = (command: string[]) => ({ command, read: () => Number.NaN });

/** The agent in a config folder of its own whose mcp.json declares three stdio servers running `command`. */
function withThreeServers(agent: Agent, folder: string, command: string[]): Agent {
  const three = withOwnConfig(agent, folder);
  const mcpServers = Object.fromEntries(SERVER_NAMES.map((name) => [name, { command: command[0], args: command.slice(1) }]));
  writeFileSync(join(three.configDir, "mcp.json"), JSON.stringify({ mcpServers }, null, 2));
  return three;
}

const byId = (id: string) => (frame: FrameInfo) => frame.type === "response" && frame.text!.includes(`"id":"${id}"`);

/** How many of the three servers' prompts `get_commands` lists now. */
async function connectedServers(rpc: RpcProcess, id: string): Promise<number> {
  rpc.send({ id, type: "get_commands" });
  const frame = await rpc.waitFor(byId(id), 30_000);
  const names: string[] = (JSON.parse(frame.text!).data?.commands ?? []).map((command: { name: string }) => command.name);
  return SERVER_NAMES.filter((server) => names.includes(`mcp__${server}__${BENCH_PROMPT}`)).length;
}

interface McpSample {
  /** spawn → get_state answer. */
  firstMs: number;
  /** spawn → the get_commands answer that first listed every server's prompt (NaN without servers). */
  connectedMs: number;
}

/** `servers`: how many prompts must be listed before the run ends (0: none may be). */
async function coldStartWith(agent: Agent, servers: number, wrap: (command: string[]) => RssRun = identity): Promise<McpSample & { run: RssRun }> {
  const run = wrap([...agent.command, "--mode", "rpc", "--no-session", "--model", MODEL_ARG]);
  const rpc = new RpcProcess(run.command, { env: agent.env, cwd: agent.project, keepLines: true });
  try {
    rpc.send({ id: "cold", type: "get_state" });
    const state = await rpc.waitFor(isResponse("get_state"), 30_000);
    let connectedMs = Number.NaN;
    if (servers === 0) {
      const listed = await connectedServers(rpc, "commands-0");
      if (listed !== 0) throw new Error(`${agent.label} listed ${listed} bench MCP prompts with no servers configured`);
    } else {
      const until = performance.now() + CONNECT_TIMEOUT_MS;
      for (let poll = 0; ; poll++) {
        if ((await connectedServers(rpc, `commands-${poll}`)) === servers) {
          connectedMs = rpc.frames.at(-1)!.at - rpc.startedAt;
          break;
        }
        if (performance.now() > until) throw new Error(`${agent.label}: the MCP servers did not all connect within ${CONNECT_TIMEOUT_MS} ms; stderr: ${rpc.stderr.slice(0, 300)}`);
        await Bun.sleep(2);
      }
    }
    rpc.closeStdin();
    const code = await rpc.exited;
    if (code !== 0) throw new Error(`${agent.label} exited ${code}: ${rpc.stderr.slice(0, 300)}`);
    return { firstMs: state.at - rpc.startedAt, connectedMs, run };
  } catch (error) {
    rpc.kill();
    throw error;
  }
}

export const mcpColdStart: Workload = {
  name: "Cold start with three MCP servers",
  id: "mcp",
  runs: 20,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const ours = context.agents[0];
    if (context.agents.length > 1) context.log("mcp: measuring xcsh only (the reference agent has no MCP client)");
    const server = writeBenchMcpServer(context.fixtures);
    const variants: Record<VariantName, Agent> = {
      none: ours,
      three: withThreeServers(ours, "agent-config-three-mcp-servers", [process.execPath, server]),
      silent: withThreeServers(ours, "agent-config-three-silent-mcp-servers", ["sleep", "30"]),
    };
    const count = (variant: VariantName) => (variant === "three" ? SERVER_NAMES.length : 0);
    let round = 0;
    const samples = await sampleRounds([ours], runsFor(context, this.runs), async () => {
      const start = round++ % VARIANTS.length;
      const result = {} as Record<VariantName, McpSample>;
      for (let i = 0; i < VARIANTS.length; i++) {
        const variant = VARIANTS[(start + i) % VARIANTS.length];
        result[variant] = await coldStartWith(variants[variant], count(variant));
      }
      return result;
    });
    const memoryNone = await rssRounds(context, [ours], RSS_RUNS, async (_agent, wrap) => (await coldStartWith(variants.none, 0, wrap)).run);
    const memoryThree = await rssRounds(context, [ours], RSS_RUNS, async (_agent, wrap) => (await coldStartWith(variants.three, 3, wrap)).run);

    const label = ours.label;
    const none = medians(samples, (s) => s.none.firstMs);
    const three = medians(samples, (s) => s.three.firstMs);
    const added = { [label]: three[label] - none[label] };
    const rssNone = medians(memoryNone, (b) => b);
    const rssThree = medians(memoryThree, (b) => b);
    const row = (metric: string, kind: ResultRow["kind"], values: Record<string, number>, notes = samples.failures): ResultRow => ({ workload: this.name, metric, kind, values, notes });
    return [
      row("no servers: spawn → get_state response", "time", none),
      row("three servers: spawn → get_state response", "time", three),
      {
        ...row("added by three servers (median with − median without)", "time", added),
        budget: { text: `≤ ${THREE_SERVERS_BUDGET_MS} ms`, met: added[label] <= THREE_SERVERS_BUDGET_MS },
      },
      row("three servers: spawn → all three prompts in get_commands", "time", medians(samples, (s) => s.three.connectedMs)),
      row("three servers that never answer (`sleep 30`): added to spawn → get_state", "time", { [label]: medians(samples, (s) => s.silent.firstMs)[label] - none[label] }),
      row(`no servers: peak RSS (${RSS_RUNS} runs)`, "bytes", rssNone, memoryNone.failures),
      row(`three servers, connected: peak RSS (${RSS_RUNS} runs)`, "bytes", rssThree, memoryThree.failures),
      row("added by three servers: peak RSS", "bytes", { [label]: rssThree[label] - rssNone[label] }, memoryThree.failures),
    ];
  },
};
