/**
 * One search the way a model drives it, shared by the search workloads: a fresh
 * agent process in the tree, the fake server answers the prompt with one grep or
 * find call and ends the turn after it. Returns when each step happened and the
 * text the tool returned (what the agent sent back to the server).
 */
import type { ScriptStep } from "../../../test/support/fake-llm/server.ts";
import { MODEL_ARG, type Agent } from "../agents.ts";
import { isEvent, isResponse, RpcProcess } from "../rpc-process.ts";
import type { BenchContext } from "../types.ts";

export interface SearchRun {
  /** When the process was spawned, and when its get_state answer arrived. */
  spawnedAt: number;
  readyAt: number;
  /** When the prompt was sent (performance.now()). */
  promptAt: number;
  toolStartAt: number;
  toolEndAt: number;
  agentEndAt: number;
  /** The tool result's text. */
  resultText: string;
}

/** The text of the last message the agent sent to the server: the tool's result. */
function lastToolResult(context: BenchContext): string {
  const messages = context.server.requests.at(-1)?.body?.messages as { role: string; content: unknown }[] | undefined;
  const last = messages?.at(-1);
  if (!last || last.role !== "tool") return "";
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}

/** For other tools than the searches (the sandbox workload's bash): the active tools and extra flags. */
export interface ToolRunOptions {
  /** `--tools` (default grep,find). */
  tools?: string;
  extraArgs?: string[];
}

export async function runSearchThroughAgent(
  context: BenchContext,
  tree: string,
  agent: Agent,
  tool: string,
  args: Record<string, unknown>,
  options: ToolRunOptions = {},
): Promise<SearchRun> {
  const steps: ScriptStep[] = [
    { content: [{ type: "toolCall", name: tool, arguments: args }] },
    { content: [{ type: "text", text: "Found them." }] },
  ];
  context.server.clearScript();
  context.server.enqueue(...steps);
  const rpc = new RpcProcess([...agent.command, "--mode", "rpc", "--no-session", "--tools", options.tools ?? "grep,find", "--model", MODEL_ARG, ...(options.extraArgs ?? [])], {
    env: agent.env,
    cwd: tree,
    killAfterMs: 120_000,
  });
  try {
    rpc.send({ id: "ready", type: "get_state" });
    const ready = await rpc.waitFor(isResponse("get_state"));
    const promptAt = performance.now();
    rpc.send({ id: "go", type: "prompt", message: `Use ${tool} to search this tree.` });
    const start = await rpc.waitFor(isEvent("tool_execution_start"), 120_000);
    const end = await rpc.waitFor(isEvent("tool_execution_end"), 120_000);
    const agentEnd = await rpc.waitFor(isEvent("agent_end"), 120_000);
    rpc.closeStdin();
    await rpc.exited;
    return { spawnedAt: rpc.startedAt, readyAt: ready.at, promptAt, toolStartAt: start.at, toolEndAt: end.at, agentEndAt: agentEnd.at, resultText: lastToolResult(context) };
  } catch (error) {
    rpc.kill();
    throw error;
  }
}
