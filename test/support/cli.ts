/**
 * Runs the real xcsh binary as a user would. The binary is dist/xcsh, rebuilt
 * when any source file is newer than it, so tests never run a stale build.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CATALOG_PROVIDERS } from "../../src/ai/catalog/providers.ts";
import { AMBIENT_CREDENTIAL_VARIABLES, findEnvKeys } from "../../src/ai/env-api-keys.ts";

const root = join(import.meta.dir, "..", "..");
export const BINARY = join(root, "dist", process.platform === "win32" ? "xcsh.exe" : "xcsh");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

let built = false;
/** Builds dist/xcsh unless it is newer than every file under src/ and package.json. */
export function ensureBinary(): string {
  if (built) return BINARY;
  const sourceTime = Math.max(newestMtime(join(root, "src")), statSync(join(root, "package.json")).mtimeMs);
  if (!existsSync(BINARY) || statSync(BINARY).mtimeMs < sourceTime) {
    const result = Bun.spawnSync([process.execPath, "run", "build"], { cwd: root, stdout: "inherit", stderr: "inherit" });
    if (result.exitCode !== 0) throw new Error("bun run build failed");
  }
  built = true;
  return BINARY;
}

/** A private HOME and config root, so tests never see the developer's own config or keys. */
export interface TestHome {
  home: string;
  agentDir: string;
  env: Record<string, string>;
  writeModelsJson(config: unknown): void;
  writeSettings(settings: unknown): void;
  cleanup(): void;
}

/** Every provider key variable xcsh reads, and the clouds' own: a developer's GROQ_API_KEY or AWS_PROFILE must not change what a test sees. */
const KEY_VARS = [...new Set([...CATALOG_PROVIDERS.flatMap((provider) => findEnvKeys(provider.id) ?? provider.envKeys), ...AMBIENT_CREDENTIAL_VARIABLES])];

export function makeTestHome(): TestHome {
  const home = mkdtempSync(join(tmpdir(), "xcsh-test-"));
  const agentDir = join(home, ".xcsh", "agent");
  mkdirSync(agentDir, { recursive: true });
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !KEY_VARS.includes(name) && !name.startsWith("XCSH_")) env[name] = value;
  }
  env.HOME = home;
  env.XCSH_CODING_AGENT_DIR = agentDir;
  return {
    home,
    agentDir,
    env,
    writeModelsJson: (config) => writeFileSync(join(agentDir, "models.json"), JSON.stringify(config, null, 2)),
    writeSettings: (settings) => writeFileSync(join(agentDir, "settings.json"), JSON.stringify(settings, null, 2)),
    cleanup: () => rmSync(home, { recursive: true, force: true }),
  };
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs the binary to completion. `stdin` text is piped in; without it stdin is /dev/null. */
export async function runXcsh(
  args: string[],
  options: { env: Record<string, string>; stdin?: string; cwd?: string; timeoutMs?: number },
): Promise<RunResult> {
  const proc = Bun.spawn([ensureBinary(), ...args], {
    env: options.env,
    cwd: options.cwd ?? options.env.HOME,
    stdin: options.stdin !== undefined ? new Blob([options.stdin]) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  return { exitCode, stdout, stderr };
}

/** A private home whose models.json has one provider, `fake`, served by a fresh fake LLM server. */
export interface FakeModelHome {
  home: TestHome;
  server: import("./fake-llm/server.ts").FakeLlmServer;
  cleanup(): Promise<void>;
}

/** `--model fake/<id>` then talks to the server (OpenAI Chat Completions). */
export async function makeFakeModelHome(models: Record<string, unknown>[] = [{ id: "m" }]): Promise<FakeModelHome> {
  const { startFakeLlm } = await import("./fake-llm/server.ts");
  const home = makeTestHome();
  const server = startFakeLlm();
  home.writeModelsJson({ providers: { fake: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "k", models } } });
  return {
    home,
    server,
    async cleanup() {
      await server.close();
      home.cleanup();
    },
  };
}
