/**
 * `bun run bench`: whole-process benchmarks of the built xcsh binary, and of the
 * reference agent in the same run when XCSH_BENCH_REFERENCE names its executable.
 * Prints the report and writes it to bench/results.md.
 *
 *   bun run bench [--only cold,version,extensions,stream,session,export,tools,search,bytecode,interactive,mcp,sandbox,long,history,codemode,codemodemem,tokens,tokensreal,mcptokens] [--runs-scale 0.5]
 *                 [--binary PATH] [--out FILE | --no-write]
 *
 * XCSH_BENCH_REFERENCE  the reference agent's executable (e.g. /tmp/ref/node_modules/.bin/pi)
 * XCSH_BENCH_REFERENCE_RUNTIME  what runs it, for the report (default: "Node <version>"; pi 1.6.0
 *                       needs Node ≥ 22, so a wrapper script may run it with bun instead)
 * XCSH_BENCH_FIXTURES   where generated inputs are kept (default: $TMPDIR/xcsh-bench-fixtures)
 * XCSH_BENCH_HISTORY_MIB  total size of the `history` workload's sessions (default 5 GiB)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startFakeLlm } from "../../test/support/fake-llm/server.ts";
import { ensureBinary } from "../../test/support/cli.ts";
import { prepareAgent, prepareSearchTools, referenceSpec, versionOf, xcshSpec, type Agent } from "./agents.ts";
import { PeakRssMeter } from "./peak-rss.ts";
import { renderReport } from "./report.ts";
import type { BenchContext, Workload } from "./types.ts";
import { bytecode } from "./workloads/bytecode.ts";
import { codemodeRead } from "./workloads/codemode.ts";
import { codemodeMemory } from "./workloads/codemode-memory.ts";
import { exportHtml } from "./workloads/export.ts";
import { interactive } from "./workloads/interactive.ts";
import { mcpColdStart } from "./workloads/mcp.ts";
import { mcpTokens } from "./workloads/mcp-tokens.ts";
import { tokenReal } from "./workloads/token-real.ts";
import { sandboxBash } from "./workloads/sandbox.ts";
import { extensionsColdStart } from "./workloads/extensions.ts";
import { longSession } from "./workloads/long-session.ts";
import { searchDirect } from "./workloads/search-direct.ts";
import { searchTools } from "./workloads/search-tools.ts";
import { sessionOpen } from "./workloads/session-open.ts";
import { sessionHistory } from "./workloads/session-list.ts";
import { coldStart, version } from "./workloads/startup.ts";
import { stream } from "./workloads/stream.ts";
import { tokenCost } from "./workloads/token-cost.ts";
import { startStreamServer } from "./stream-server-process.ts";

const ROOT = join(import.meta.dir, "..", "..");
const WORKLOADS: Workload[] = [coldStart, version, extensionsColdStart, stream, sessionOpen, exportHtml, searchTools, searchDirect, bytecode, interactive, mcpColdStart, sandboxBash, longSession, sessionHistory, codemodeRead, codemodeMemory, tokenCost, tokenReal, mcpTokens];

function option(argv: string[], name: string): string | undefined {
  const index = argv.indexOf(name);
  if (index !== -1) return argv[index + 1];
  return argv.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
}

function nodeVersion(): string {
  const result = Bun.spawnSync(["node", "--version"], { stdout: "pipe", stderr: "ignore" });
  return result.exitCode === 0 ? result.stdout.toString().trim() : "unknown";
}

async function main(argv: string[]): Promise<number> {
  const only = option(argv, "--only")?.split(",").map((id) => id.trim());
  const unknown = only?.filter((id) => !WORKLOADS.some((workload) => workload.id === id));
  if (unknown?.length) {
    console.error(`bench: unknown workload ${unknown.join(", ")}; known: ${WORKLOADS.map((w) => w.id).join(", ")}`);
    return 2;
  }
  const workloads = only ? WORKLOADS.filter((workload) => only.includes(workload.id)) : WORKLOADS;
  const runsScale = Number(option(argv, "--runs-scale") ?? 1);
  const out = option(argv, "--out") ?? join(ROOT, "bench", "results.md");
  const binary = resolve(option(argv, "--binary") ?? ensureBinary());
  const reference = process.env.XCSH_BENCH_REFERENCE;
  const fixtures = process.env.XCSH_BENCH_FIXTURES ?? join(tmpdir(), "xcsh-bench-fixtures");
  mkdirSync(fixtures, { recursive: true });

  const log = (line: string) => console.error(`bench: ${line}`);
  const homes = mkdtempSync(join(tmpdir(), "xcsh-bench-homes-"));
  const server = startFakeLlm();
  const streamServer = await startStreamServer();
  const endpoints = { fake: server.baseUrl("openai-completions"), "fake-stream": streamServer.baseUrl };
  const prepare = (spec: Parameters<typeof prepareAgent>[0]) => prepareAgent(spec, homes, endpoints);
  const agents: Agent[] = [prepare(xcshSpec(binary))];
  if (reference) {
    agents.push(prepare(referenceSpec(resolve(reference))));
    const missing = prepareSearchTools(homes);
    if (missing.length) log(`the reference's grep/find need ${missing.join(" and ")} on PATH (Debian: apt-get install ripgrep fd-find)`);
  } else {
    log("XCSH_BENCH_REFERENCE is not set: measuring xcsh alone");
  }

  const rss = PeakRssMeter.create(fixtures);
  if (!rss) log("python3 is not installed: peak RSS will not be measured");
  const context: BenchContext = { agents, server, streamBaseUrl: streamServer.baseUrl, fixtures, runsScale, log, prepare, rss };
  const versions = Object.fromEntries(agents.map((agent) => [agent.label, versionOf(agent)]));
  if (reference) versions.reference = `${versions.reference} (${resolve(reference)}, ${process.env.XCSH_BENCH_REFERENCE_RUNTIME ?? `Node ${nodeVersion()}`})`;
  const started = performance.now();
  const loadAtStart = loadavg()[0];
  const sections = [];
  try {
    for (const workload of workloads) {
      log(`${workload.name} …`);
      const rows = await workload.run(context);
      sections.push({ name: workload.name, runs: workload.runs, rows });
    }
  } finally {
    await server.close();
    await streamServer.close();
    rmSync(homes, { recursive: true, force: true });
  }

  const report = renderReport({
    date: new Date(),
    versions,
    sections,
    runsScale,
    referenceConfigured: reference !== undefined,
    durationMs: performance.now() - started,
    ours: agents[0].label,
    load: { start: loadAtStart, end: loadavg()[0] },
  });
  console.log(report);
  if (!argv.includes("--no-write")) {
    mkdirSync(join(out, ".."), { recursive: true });
    writeFileSync(out, report);
    log(`wrote ${out}`);
  }
  return 0;
}

process.exit(await main(process.argv.slice(2)));
