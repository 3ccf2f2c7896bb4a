import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModelsJson } from "../../src/config/models-json.ts";
import { readSettingsFile } from "../../src/config/settings.ts";
import { takeConfigWarnings } from "../../src/config/unknown-keys.ts";

function withFile(name: string, content: unknown, check: (file: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "xcsh-keys-"));
  try {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(content));
    takeConfigWarnings();
    check(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("unknown keys in config files", () => {
  test("settings.json: each unknown key at any level is named with its path and the nearest known key, once", () => {
    withFile("settings.json", { defaultModle: "x", compaction: { reserveToken: 1, enabled: true }, theme: "dark", tuiMode: "fullscreen", outputPad: 0, terminal: { whatever: 1 } }, (file) => {
      readSettingsFile(file);
      readSettingsFile(file);
      expect(takeConfigWarnings()).toEqual([
        `${file}: unknown key "defaultModle" at defaultModle (did you mean "defaultModel"?); it is ignored`,
        `${file}: unknown key "reserveToken" at compaction.reserveToken (did you mean "reserveTokens"?); it is ignored`,
        // pi's "theme" and "tuiMode" are known and applied; "outputPad" is known and said to have no effect (settings-compat.ts).
        `${file}: settings xcsh accepts but does not apply: "outputPad" (the transcript's padding is fixed). See docs/settings.md.`,
      ]);
    });
  });

  test("models.json: keys inside providers, models and compat are checked; names under a record are free", () => {
    const config = {
      providers: {
        "any-name-works": {
          baseUrl: "http://localhost:1",
          api: "openai-completions",
          apiKey: "k",
          headers: { "X-Anything": "ok" },
          models: [{ id: "m", contextwindow: 1000, compat: { supportsStore: false, suportsDeveloperRole: true } }],
        },
      },
    };
    withFile("models.json", config, (file) => {
      loadModelsJson(file);
      const warnings = takeConfigWarnings();
      expect(warnings).toHaveLength(2);
      expect(warnings[0]).toContain('unknown key "contextwindow" at providers.any-name-works.models[0].contextwindow (did you mean "contextWindow"?)');
      expect(warnings[1]).toContain('"suportsDeveloperRole" at providers.any-name-works.models[0].compat.suportsDeveloperRole (did you mean "supportsDeveloperRole"?)');
    });
  });
});
