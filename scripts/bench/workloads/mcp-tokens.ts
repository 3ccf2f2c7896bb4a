/**
 * What MCP tools cost in input (issue #34): the prompt tokens of one request — a
 * print-mode `hi` — with three configured MCP servers of 40 tools between them
 * (../mcp-catalog-server-source.ts), under each exposure the servers can take:
 * `direct` (every tool declared), `codemode` (pi 1.6.0's default: reached from
 * codemode scripts, found with searchTools()) and `deferred` (found and loaded by
 * tool_search), beside the same request with no servers. Tokens are counted as the
 * tokens workload counts them: 4 characters of each block's JSON (a tool
 * definition, a message) to a token, over the request the fake server recorded.
 *
 * Measured on xcsh and, pointed at the same three servers through its own
 * mcp.json, on pi 1.6.0 (node_modules/pi-coding-agent-160, run with bun,
 * PI_OFFLINE=1) or the reference agent XCSH_BENCH_REFERENCE names. A run whose
 * request does not declare what its exposure promises (all 40 tools for `direct`,
 * none for the others) is reported as failed, not counted.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MODEL_ARG, withOwnConfig, type Agent } from "../agents.ts";
import { CATALOG_TOOL_COUNT, catalogServers, writeCatalogMcpServer } from "../mcp-catalog-server-source.ts";
import { blocksOf } from "../prompt-cache.ts";
import type { BenchContext, ResultRow, Workload } from "../types.ts";

const PI_160 = join(import.meta.dir, "..", "..", "..", "node_modules", "pi-coding-agent-160", "dist", "bundle", "cli.js");
const VARIANTS = ["none", "direct", "codemode", "deferred"] as const;
type Variant = (typeof VARIANTS)[number];

interface Measured {
  prompt: number;
  tools: number;
  declared: string[];
}

/** The agents to compare: xcsh, and the reference or else pi 1.6.0 from node_modules. */
function agentsOf(context: BenchContext): Agent[] {
  if (context.agents.length > 1) return context.agents;
  if (!existsSync(PI_160)) return context.agents;
  return [
    context.agents[0]!,
    context.prepare({ label: "pi 1.6.0", command: ["bun", PI_160], configDirVariable: "PI_CODING_AGENT_DIR", extraEnv: { PI_OFFLINE: "1" }, supportsLean: false }),
  ];
}

async function oneRequest(context: BenchContext, agent: Agent, variant: Variant, server: string): Promise<Measured> {
  const own = withOwnConfig(agent, `agent-config-mcp-tokens-${variant}`);
  const mcpServers = variant === "none" ? {} : catalogServers(server, process.execPath, variant);
  writeFileSync(join(own.configDir, "mcp.json"), JSON.stringify({ mcpServers }, null, 2));
  context.server.clearScript();
  context.server.enqueue({ content: [{ type: "text", text: "Hello." }] });
  const before = context.server.requests.length;
  const child = Bun.spawn([...own.command, "-p", "--no-session", "--model", MODEL_ARG, "hi"], { env: own.env, cwd: own.project, stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => child.kill(), 60_000);
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text(), new Response(child.stdout).text()]);
  clearTimeout(killer);
  const request = context.server.requests[before];
  if (code !== 0 || !request) throw new Error(`${agent.label} (${variant}) exited ${code} ${request ? "" : "without a request"}: ${stderr.slice(0, 200)}`);
  const blocks = blocksOf(request.api, request.body);
  const tools = (request.body?.tools ?? []) as { function?: { name: string }; name?: string }[];
  const declared = tools.map((tool) => tool.function?.name ?? tool.name ?? "");
  const mcpDeclared = declared.filter((name) => name.startsWith("mcp__")).length;
  const expected = variant === "direct" ? CATALOG_TOOL_COUNT : 0;
  if (mcpDeclared !== expected) throw new Error(`${agent.label} (${variant}) declared ${mcpDeclared} MCP tools, not ${expected}`);
  return {
    prompt: blocks.reduce((sum, block) => sum + block.tokens, 0),
    tools: blocks.slice(0, tools.length).reduce((sum, block) => sum + block.tokens, 0),
    declared,
  };
}

export const mcpTokens: Workload = {
  name: `Input tokens of one request with three MCP servers (${CATALOG_TOOL_COUNT} tools)`,
  id: "mcptokens",
  runs: 1,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const agents = agentsOf(context);
    const server = writeCatalogMcpServer(context.fixtures);
    const results = new Map<string, Measured>();
    const notes: Record<string, string> = {};
    for (const agent of agents) {
      for (const variant of VARIANTS) {
        try {
          const measured = await oneRequest(context, agent, variant, server);
          results.set(`${agent.label}/${variant}`, measured);
          context.log(`  ${agent.label} ${variant}: ${measured.prompt} prompt tokens, ${measured.declared.length} tools declared (${measured.declared.filter((n) => !n.startsWith("mcp__")).join(", ")})`);
        } catch (error) {
          notes[agent.label] = (error as Error).message.split("\n")[0]!.slice(0, 200);
          context.log(`  ${notes[agent.label]}`);
        }
      }
    }
    const pick = (variant: Variant, f: (m: Measured) => number) =>
      Object.fromEntries(agents.map((agent) => [agent.label, results.has(`${agent.label}/${variant}`) ? f(results.get(`${agent.label}/${variant}`)!) : Number.NaN]));
    const added = (variant: Variant) =>
      Object.fromEntries(agents.map((agent) => [agent.label, pick(variant, (m) => m.prompt)[agent.label]! - pick("none", (m) => m.prompt)[agent.label]!]));
    const row = (metric: string, values: Record<string, number>): ResultRow => ({ workload: this.name, metric, kind: "count", values, notes });
    return [
      row("no MCP servers: prompt tokens", pick("none", (m) => m.prompt)),
      ...VARIANTS.slice(1).flatMap((variant) => [
        row(`\`${variant}\` exposure: prompt tokens`, pick(variant, (m) => m.prompt)),
        row(`\`${variant}\` exposure: of which tool definitions`, pick(variant, (m) => m.tools)),
        row(`\`${variant}\` exposure: added by the three servers`, added(variant)),
      ]),
    ];
  },
};
