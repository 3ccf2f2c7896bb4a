/**
 * Isolation for config tests: a temp agent dir (via XCSH_CODING_AGENT_DIR), a temp
 * project dir, and no provider API keys from the developer's own environment.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { CATALOG_PROVIDERS } from "../../src/ai/catalog/providers.ts";
import { AMBIENT_CREDENTIAL_VARIABLES, findEnvKeys } from "../../src/ai/env-api-keys.ts";

/** The config root, and every provider key variable xcsh reads (Anthropic's bearer tokens included). */
const ISOLATED_ENV = ["XCSH_CODING_AGENT_DIR", ...new Set([...CATALOG_PROVIDERS.flatMap((provider) => findEnvKeys(provider.id) ?? provider.envKeys), ...AMBIENT_CREDENTIAL_VARIABLES])];

export interface ConfigSandbox {
  agentDir: string;
  projectDir: string;
  /** Writes a file (creating folders); objects are written as JSON. */
  write(path: string, content: string | object): string;
  /** Sets an env var for the rest of the test; restored by cleanup. */
  setEnv(name: string, value: string | undefined): void;
  cleanup(): void;
}

export function createConfigSandbox(): ConfigSandbox {
  const root = mkdtempSync(join(tmpdir(), "xcsh-config-"));
  const agentDir = join(root, "agent");
  const projectDir = join(root, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(projectDir, { recursive: true });

  const saved = new Map<string, string | undefined>();
  const setEnv = (name: string, value: string | undefined) => {
    if (!saved.has(name)) saved.set(name, process.env[name]);
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  for (const name of ISOLATED_ENV) setEnv(name, undefined);
  setEnv("XCSH_CODING_AGENT_DIR", agentDir);

  return {
    agentDir,
    projectDir,
    write(path, content) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
      return path;
    },
    setEnv,
    cleanup() {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
