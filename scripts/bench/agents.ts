/**
 * The programs a benchmark runs: xcsh's binary and, when one is installed, the
 * reference agent. Each gets a private HOME whose config points its one model at
 * the fake LLM server, so both answer the same scripted replies offline.
 */
import { copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The model answered by the in-process fake server. */
export const MODEL_ARG = "fake/bench-model";
/** The model answered by the stream server, a process of its own (stream-server.ts). */
export const STREAM_MODEL_ARG = "fake-stream/bench-model";

export interface Agent {
  /** Column heading in the report. */
  label: string;
  command: string[];
  env: Record<string, string>;
  home: string;
  /** The config folder (models.json, extensions/) and the variable that names it. */
  configDir: string;
  configDirVariable: string;
  /** A project folder to run in. */
  project: string;
  /** Has `--rpc-lean` (xcsh only). */
  supportsLean: boolean;
}

export interface AgentSpec {
  label: string;
  command: string[];
  /** The environment variable naming the config folder. */
  configDirVariable: string;
  /** Extra environment, e.g. PI_OFFLINE=1 so the reference makes no network calls. */
  extraEnv?: Record<string, string>;
  supportsLean: boolean;
}

export function xcshSpec(binary: string, label = "xcsh"): AgentSpec {
  return { label, command: [binary], configDirVariable: "XCSH_CODING_AGENT_DIR", supportsLean: true };
}

export function referenceSpec(executable: string): AgentSpec {
  return {
    label: "reference",
    command: [executable],
    configDirVariable: "PI_CODING_AGENT_DIR",
    extraEnv: { PI_OFFLINE: "1" },
    supportsLean: false,
  };
}

/** Where the fake LLM servers listen: OpenAI Chat Completions base URLs, by provider name. */
export type FakeEndpoints = Record<string, string>;

/** Creates the agent's HOME, config and project folder under `root`; one provider per endpoint. */
export function prepareAgent(spec: AgentSpec, root: string, endpoints: FakeEndpoints): Agent {
  const home = join(root, spec.label.replace(/[^a-z0-9-]+/gi, "-"));
  const configDir = join(home, "agent-config");
  const project = join(home, "project");
  mkdirSync(configDir, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(configDir, "models.json"),
    JSON.stringify({
      providers: Object.fromEntries(
        Object.entries(endpoints).map(([name, baseUrl]) => [
          name,
          {
            baseUrl,
            api: "openai-completions",
            apiKey: "bench-key",
            models: [{ id: "bench-model", contextWindow: 1_000_000, maxTokens: 32_000 }],
          },
        ]),
      ),
    }),
  );
  // A fresh login's environment: no API keys, no settings of the caller's own.
  const env: Record<string, string> = {
    HOME: home,
    PATH: `${join(root, "bin")}:${process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"}`,
    LANG: "C.UTF-8",
    [spec.configDirVariable]: configDir,
    ...spec.extraEnv,
  };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  return { label: spec.label, command: spec.command, env, home, configDir, configDirVariable: spec.configDirVariable, project, supportsLean: spec.supportsLean };
}

/** The same agent with a config folder of its own under its HOME (models.json copied), e.g. to add extensions to. */
export function withOwnConfig(agent: Agent, name: string): Agent {
  const configDir = join(agent.home, name);
  mkdirSync(configDir, { recursive: true });
  copyFileSync(join(agent.configDir, "models.json"), join(configDir, "models.json"));
  return { ...agent, configDir, env: { ...agent.env, [agent.configDirVariable]: configDir } };
}

/**
 * The reference agent's grep and find tools run ripgrep (`rg`) and `fd` from PATH.
 * Debian installs fd as `fdfind`; a link named `fd` in `<root>/bin` (first on every
 * agent's PATH) lets the reference find it. Returns the tools that are missing.
 */
export function prepareSearchTools(root: string): string[] {
  mkdirSync(join(root, "bin"), { recursive: true });
  const fdfind = Bun.which("fdfind");
  if (!Bun.which("fd") && fdfind) symlinkSync(fdfind, join(root, "bin", "fd"));
  return ["rg", "fd"].filter((tool) => !Bun.which(tool, { PATH: `${join(root, "bin")}:${process.env.PATH ?? ""}` }));
}

/** The first line `--version` prints, for the report's header. */
export function versionOf(agent: Agent): string {
  // A reference that hangs on --version must not hang the whole bench.
  const result = Bun.spawnSync([...agent.command, "--version"], { env: agent.env, cwd: agent.project, stdout: "pipe", stderr: "pipe", timeout: 30_000 });
  const text = (result.stdout.toString() || result.stderr.toString()).trim().split("\n")[0];
  return text || `exit ${result.exitCode}`;
}
