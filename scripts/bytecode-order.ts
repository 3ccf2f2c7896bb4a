/**
 * Profile-guided bytecode layout (`bun build --bytecode-order`). A first build is
 * run the ways xcsh most often starts, with BUN_BYTECODE_ORDER_OUT naming a file
 * for each: an RPC host's cold start (get_state, then EOF), then a print-mode
 * answer from the offline faux model. The final build then places the bytecode
 * those runs used together at the front of the executable, so start-up touches
 * fewer of its pages. Peak RSS on the 2-core dev machine (/usr/bin/time, medians):
 * the RPC cold start 42.9 → 40.6 MiB with the JIT policy of build-flags.ts
 * (47.2 → 44.6 MiB without it), a print-mode answer 45.5 → 41.6 MiB (49.2 → 45.4).
 *
 * The profiles are made afresh by every build, so none is kept in the repository
 * to go stale. The runs happen in a scratch HOME with no keys and a models.json
 * whose one provider is never contacted. A run that fails costs only the layout:
 * the build goes on without that profile, saying so.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bunBuildHas, runBunBuild, type BuildInfo } from "./build-flags.ts";

interface ProfileRun {
  name: string;
  args: string[];
  stdin?: string;
}

/** Most common start first: Bun lays the first profile's functions out first. */
const RUNS: ProfileRun[] = [
  { name: "rpc-cold-start", args: ["--mode", "rpc", "--no-session", "--model", "profile/profile-model"], stdin: '{"id":"profile","type":"get_state"}\n' },
  { name: "print-answer", args: ["--provider", "faux", "--no-session", "-p", "hi"] },
];

/** A scratch HOME and project like a fresh install's, with one configured model. */
function prepareHome(dir: string): { env: Record<string, string>; cwd: string } {
  const agentDir = join(dir, "agent");
  const cwd = join(dir, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  // Port 9 (discard): nothing is ever sent, the runs only start and answer locally.
  const provider = { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "profile-key", models: [{ id: "profile-model" }] };
  writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { profile: provider } }));
  return { env: { HOME: dir, PATH: process.env.PATH ?? "/usr/bin:/bin", XCSH_CODING_AGENT_DIR: agentDir }, cwd };
}

/** Runs `binary` as each profile run, in `dir`; resolves to the profiles written, most common first. */
export async function recordBytecodeOrder(binary: string, dir: string): Promise<string[]> {
  const { env, cwd } = prepareHome(dir);
  const profiles: string[] = [];
  for (const run of RUNS) {
    const profile = join(dir, `${run.name}.order`);
    const proc = Bun.spawn([binary, ...run.args], {
      cwd,
      env: { ...env, BUN_BYTECODE_ORDER_OUT: profile },
      stdin: run.stdin === undefined ? "ignore" : new Blob([run.stdin]),
      stdout: "ignore",
      stderr: "pipe",
    });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    clearTimeout(timer);
    if (code === 0 && existsSync(profile)) profiles.push(profile);
    else console.error(`bytecode order: the ${run.name} run failed (exit ${code}); building without its profile. ${stderr.slice(0, 500)}`);
  }
  return profiles;
}

/** The build flag for `profiles`; none when there are none. */
export function bytecodeOrderFlags(profiles: string[]): string[] {
  return profiles.length > 0 ? [`--bytecode-order=${profiles.join(",")}`] : [];
}

/**
 * Builds an executable for this machine in `dir`, runs it to record the profiles, and
 * resolves to the flags that lay out the real build (for any target) by them; no flags
 * when the profiling build or every run fails, or when this Bun cannot lay bytecode out.
 */
export async function bytecodeOrderFor(info: BuildInfo, dir: string): Promise<string[]> {
  if (!bunBuildHas("--bytecode-order")) return [];
  const binary = join(dir, process.platform === "win32" ? "xcsh-profile.exe" : "xcsh-profile");
  if ((await runBunBuild(info, ["--outfile", binary])) !== 0 || !existsSync(binary)) {
    console.error("bytecode order: the profiling build failed; building without a profile.");
    return [];
  }
  return bytecodeOrderFlags(await recordBytecodeOrder(binary, dir));
}
