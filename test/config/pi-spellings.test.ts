/**
 * The spellings of a pi 0.87.1 config that xcsh reads: `$NAME`/`${NAME}` values beside
 * 0.73.1's bare names, "max" thinking, trust "always"/"never", and enabledModels
 * patterns; and the one warning for settings xcsh does not apply.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { isConfigValueConfigured, resolveConfigValue } from "../../src/config/resolve-value.ts";
import { scopeModels } from "../../src/config/model-resolver.ts";
import { loadSettings, readGlobalSettingsFile } from "../../src/config/settings.ts";
import { takeConfigWarnings } from "../../src/config/unknown-keys.ts";
import type { Model } from "../../src/ai/types.ts";
import { join } from "node:path";
import { createConfigSandbox, type ConfigSandbox } from "./helpers.ts";

let sandbox: ConfigSandbox;
beforeEach(() => {
  sandbox = createConfigSandbox();
  takeConfigWarnings();
});
afterEach(() => sandbox.cleanup());
const globalSettings = () => join(sandbox.agentDir, "settings.json");

describe("models.json values", () => {
  test("$NAME and ${NAME} are the variable, inside a longer text too; $$ and $! are literal", async () => {
    sandbox.setEnv("XCSH_T_KEY", "secret");
    expect(await resolveConfigValue("$XCSH_T_KEY")).toBe("secret");
    expect(await resolveConfigValue("${XCSH_T_KEY}")).toBe("secret");
    expect(await resolveConfigValue("Bearer ${XCSH_T_KEY}-$XCSH_T_KEY")).toBe("Bearer secret-secret");
    expect(await resolveConfigValue("cost$$5 $!bang")).toBe("cost$5 !bang");
  });

  test("a bare name of a set variable is its value (0.73.1); otherwise a bare value is sent as written", async () => {
    sandbox.setEnv("XCSH_T_KEY", "secret");
    expect(await resolveConfigValue("XCSH_T_KEY")).toBe("secret");
    expect(await resolveConfigValue("XCSH_T_UNSET_NAME")).toBe("XCSH_T_UNSET_NAME");
    expect(await resolveConfigValue("sk-literal")).toBe("sk-literal");
  });

  test("an unset or empty ${NAME} is an error naming the variable, never its text or a value", async () => {
    sandbox.setEnv("XCSH_T_EMPTY", "");
    await expect(resolveConfigValue("${XCSH_T_NOPE}")).rejects.toThrow("environment variable XCSH_T_NOPE is not set");
    await expect(resolveConfigValue("a$XCSH_T_EMPTY b${XCSH_T_NOPE}")).rejects.toThrow("environment variables XCSH_T_EMPTY, XCSH_T_NOPE are not set");
    expect(isConfigValueConfigured("${XCSH_T_NOPE}")).toBe(false);
    sandbox.setEnv("XCSH_T_KEY", "secret");
    expect(isConfigValueConfigured("${XCSH_T_KEY}")).toBe(true);
  });
});

describe("settings spellings", () => {
  test('"max" thinking is xcsh\'s highest level; "always"/"never" trust are trust/deny; ~ in shellPath is the home folder', () => {
    sandbox.write(globalSettings(), {
      defaultThinkingLevel: "max",
      modelThinkingLevels: { "a/b": "max", "c/d": "low" },
      defaultProjectTrust: "never",
      shellPath: "~/bin/zsh",
    });
    const settings = loadSettings(sandbox.projectDir);
    expect(settings.defaultThinkingLevel).toBe("xhigh");
    expect(settings.modelThinkingLevels).toEqual({ "a/b": "xhigh", "c/d": "low" });
    expect(settings.defaultProjectTrust).toBe("deny");
    expect(settings.shellPath).toBe(`${process.env.HOME}/bin/zsh`);
  });

  test("keys xcsh does not apply are listed once per file, only when their value asks for something", () => {
    const file = sandbox.write(globalSettings(), { theme: "light", tuiMode: "fullscreen", outputPad: 0, images: { blockImages: false, autoResize: false }, lastChangelogVersion: "0.87.1" });
    readGlobalSettingsFile();
    readGlobalSettingsFile();
    const warnings = takeConfigWarnings();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toStartWith(`${file}: settings xcsh accepts but does not apply: "outputPad" (the transcript's padding is fixed)`);
    // The fullscreen UI's keys are applied (src/modes/interactive/fullscreen/tui-mode.ts).
    expect(warnings[0]).not.toContain('"tuiMode"');
    // Themes are applied (the interactive mode's theme-controller.ts).
    expect(warnings[0]).not.toContain('"theme"');
    expect(warnings[0]).not.toContain("images.");
    expect(warnings[0]).not.toContain("lastChangelogVersion");
  });
});

describe("enabledModels patterns", () => {
  const model = (provider: string, id: string, name = id) => ({ provider, id, name }) as Model;
  const models = [model("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5"), model("anthropic", "claude-opus-4-1"), model("openai", "gpt-5"), model("openai", "gpt-5-mini")];
  const ids = (patterns: string[]) => scopeModels(models, patterns).scoped.map((entry) => `${entry.model.provider}/${entry.model.id}${entry.thinkingLevel ? `:${entry.thinkingLevel}` : ""}`);

  test("globs pick every match (case-insensitive, over provider/id and id); other patterns pick one model", () => {
    expect(ids(["anthropic/*"])).toEqual(["anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-1"]);
    expect(ids(["GPT-5*"])).toEqual(["openai/gpt-5", "openai/gpt-5-mini"]);
    expect(ids(["gpt-5"])).toEqual(["openai/gpt-5"]);
    expect(ids(["sonnet"])).toEqual(["anthropic/claude-sonnet-4-5"]);
  });

  test("a :level suffix (max included) is kept per model; each model comes once, in pattern order", () => {
    expect(ids(["gpt-5-mini:low", "openai/*:max", "opus"])).toEqual(["openai/gpt-5-mini:low", "openai/gpt-5:xhigh", "anthropic/claude-opus-4-1"]);
  });

  test("patterns that pick nothing are returned apart", () => {
    expect(scopeModels(models, ["gemini*", "gpt-5", "nothing-like-it"]).unmatched).toEqual(["gemini*", "nothing-like-it"]);
  });
});
