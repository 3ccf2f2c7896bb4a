import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { isConfigValueConfigured, resolveConfigValue } from "../../src/config/resolve-value.ts";
import { createConfigSandbox, type ConfigSandbox } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(() => {
  sandbox = createConfigSandbox();
});
afterEach(() => sandbox.cleanup());

describe("resolveConfigValue", () => {
  test("!command runs through the shell and yields its trimmed stdout", async () => {
    expect(await resolveConfigValue("!printf '  sk-from-command\\n\\n'")).toBe("sk-from-command");
    // Shell features work: pipes and variables.
    sandbox.setEnv("XCSH_TEST_PART", "abc");
    expect(await resolveConfigValue("!echo $XCSH_TEST_PART | tr a-z A-Z")).toBe("ABC");
  });

  test("the command runs on every resolution (no caching)", async () => {
    const counter = sandbox.write(`${sandbox.agentDir}/count`, "");
    const command = `!echo x >> '${counter}'; wc -l < '${counter}'`;
    expect(await resolveConfigValue(command)).toBe("1");
    expect(await resolveConfigValue(command)).toBe("2");
  });

  test("a failing command is an error naming the command and its stderr", async () => {
    const attempt = resolveConfigValue("!echo 'vault is locked' >&2; exit 3");
    await expect(attempt).rejects.toThrow(/Command "echo 'vault is locked' >&2; exit 3" failed with exit code 3: vault is locked/);
  });

  test("a command that prints nothing is an error", async () => {
    await expect(resolveConfigValue("!true")).rejects.toThrow('Command "true" printed nothing on stdout.');
  });

  test("a set environment variable's value is used, otherwise the literal", async () => {
    sandbox.setEnv("XCSH_TEST_KEY", "sk-from-env");
    expect(await resolveConfigValue("XCSH_TEST_KEY")).toBe("sk-from-env");
    expect(await resolveConfigValue("XCSH_TEST_UNSET_KEY")).toBe("XCSH_TEST_UNSET_KEY");
    expect(await resolveConfigValue("sk-literal-123")).toBe("sk-literal-123");
  });
});

describe("isConfigValueConfigured", () => {
  test("counts commands, env names and literals without running anything", () => {
    const marker = `${sandbox.agentDir}/ran`;
    expect(isConfigValueConfigured(`!touch '${marker}'`)).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(isConfigValueConfigured("ollama")).toBe(true);
    expect(isConfigValueConfigured("SOME_ENV_NAME")).toBe(true);
  });

  test("missing or blank values are not configured", () => {
    expect(isConfigValueConfigured(undefined)).toBe(false);
    expect(isConfigValueConfigured("")).toBe(false);
    expect(isConfigValueConfigured("!  ")).toBe(false);
  });
});
