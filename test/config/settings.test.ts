import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { homedir } from "node:os";
import { ConfigError } from "../../src/config/errors.ts";
import {
  getAgentDir,
  getModelsJsonPath,
  getProjectConfigDir,
  getSessionsDir,
  getSettingsPath,
} from "../../src/config/paths.ts";
import { DEFAULT_SETTINGS, loadSettings } from "../../src/config/settings.ts";
import { createConfigSandbox, type ConfigSandbox } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(() => {
  sandbox = createConfigSandbox();
});
afterEach(() => sandbox.cleanup());

const globalSettings = () => join(sandbox.agentDir, "settings.json");
const projectSettings = () => join(sandbox.projectDir, ".xcsh", "settings.json");

function loadError(): ConfigError {
  try {
    loadSettings(sandbox.projectDir);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected loadSettings to throw");
}

describe("paths", () => {
  test("follow XCSH_CODING_AGENT_DIR, read at call time", () => {
    expect(getAgentDir()).toBe(sandbox.agentDir);
    expect(getModelsJsonPath()).toBe(join(sandbox.agentDir, "models.json"));
    expect(getSettingsPath()).toBe(join(sandbox.agentDir, "settings.json"));
    expect(getSessionsDir()).toBe(join(sandbox.agentDir, "sessions"));
    sandbox.setEnv("XCSH_CODING_AGENT_DIR", "/elsewhere/agent");
    expect(getSettingsPath()).toBe("/elsewhere/agent/settings.json");
  });

  test("expand ~ in XCSH_CODING_AGENT_DIR and default to ~/.xcsh/agent", () => {
    sandbox.setEnv("XCSH_CODING_AGENT_DIR", "~/custom-agent");
    expect(getAgentDir()).toBe(join(process.env.HOME || homedir(), "custom-agent"));
    sandbox.setEnv("XCSH_CODING_AGENT_DIR", undefined);
    expect(getAgentDir()).toBe(join(process.env.HOME || homedir(), ".xcsh", "agent"));
  });

  test("project config lives in <cwd>/.xcsh", () => {
    expect(getProjectConfigDir("/work/repo")).toBe("/work/repo/.xcsh");
  });
});

describe("loadSettings", () => {
  test("without any file, the documented defaults apply", () => {
    const settings = loadSettings(sandbox.projectDir);
    expect(settings.compaction).toEqual({ enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 });
    expect(settings.retry).toEqual({ enabled: true, maxRetries: 3, baseDelayMs: 2000, provider: { maxRetryDelayMs: 60000 } });
    expect(settings.defaultModel).toBeUndefined();
  });

  test("project settings override global ones, nested objects merge, unknown keys survive", () => {
    sandbox.write(globalSettings(), {
      theme: "dark",
      defaultProvider: "anthropic",
      defaultModel: "claude-sonnet-4-5",
      compaction: { enabled: false, reserveTokens: 16384 },
      retry: { provider: { timeoutMs: 1000 } },
      enabledModels: ["claude-*", "gpt-4o"],
      someExtension: { nested: { a: 1 } },
    });
    sandbox.write(projectSettings(), {
      defaultModel: "gpt-4o",
      compaction: { reserveTokens: 8192 },
      retry: { provider: { maxRetries: 0 } },
      enabledModels: ["gemini-*"],
      someExtension: { nested: { b: 2 } },
    });
    const settings = loadSettings(sandbox.projectDir);
    expect(settings.theme).toBe("dark");
    expect(settings.defaultProvider).toBe("anthropic");
    expect(settings.defaultModel).toBe("gpt-4o");
    expect(settings.compaction).toEqual({ enabled: false, reserveTokens: 8192, keepRecentTokens: 20000 });
    expect(settings.retry.provider).toEqual({ timeoutMs: 1000, maxRetries: 0, maxRetryDelayMs: 60000 });
    expect(settings.enabledModels).toEqual(["gemini-*"]); // arrays are replaced, not concatenated
    expect(settings.someExtension).toEqual({ nested: { a: 1, b: 2 } });
  });

  test("loading does not alter DEFAULT_SETTINGS", () => {
    sandbox.write(globalSettings(), { compaction: { reserveTokens: 1 } });
    loadSettings(sandbox.projectDir).retry.maxRetries = 99;
    expect(DEFAULT_SETTINGS.compaction.reserveTokens).toBe(16384);
    expect(DEFAULT_SETTINGS.retry.maxRetries).toBe(3);
  });

  test("an empty file counts as no settings", () => {
    sandbox.write(projectSettings(), "  \n");
    expect(loadSettings(sandbox.projectDir).compaction.enabled).toBe(true);
  });

  test("invalid JSON names the file, the line and column, and the problem", () => {
    const file = sandbox.write(globalSettings(), '{\n  "theme": "dark"\n  "quietStartup": true\n}\n');
    const error = loadError();
    expect(error.file).toBe(file);
    expect(error.message).toContain(file);
    expect(error.message).toContain("line 3, column 3");
    expect(error.message).toContain("expected ',' or '}'");
  });

  test("a trailing comma is reported where it is", () => {
    const file = sandbox.write(projectSettings(), '{ "theme": "dark", }');
    const error = loadError();
    expect(error.message).toContain(file);
    expect(error.message).toContain("line 1, column 18: trailing comma");
  });

  test("a JSON value that is not an object is rejected", () => {
    const file = sandbox.write(globalSettings(), '["theme"]');
    const error = loadError();
    expect(error.message).toContain(file);
    expect(error.message).toContain("expected a JSON object at the top level, found an array");
  });

  test("a wrong thinking level names the field and the allowed values", () => {
    const file = sandbox.write(projectSettings(), { defaultThinkingLevel: "huge" });
    const error = loadError();
    expect(error.file).toBe(file);
    expect(error.message).toContain(
      'defaultThinkingLevel: expected one of "off", "minimal", "low", "medium", "high", "xhigh", "max" (got "huge")',
    );
  });

  test("wrong types in nested known fields name the full path", () => {
    sandbox.write(globalSettings(), { compaction: { reserveTokens: "lots" }, retry: { provider: { maxRetries: -1 } } });
    const error = loadError();
    expect(error.message).toContain('compaction.reserveTokens: expected a number (got "lots")');
    expect(error.message).toContain("retry.provider.maxRetries: expected a number >= 0 (got -1)");
  });
});
