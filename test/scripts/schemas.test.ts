/**
 * The published JSON Schemas (schemas/*.schema.json, pi 1.6.0's file names) are exactly
 * what scripts/generate-schemas.ts makes from the typebox schemas xcsh checks its files
 * with; they accept and refuse what the binary accepts and refuses; and the binary takes
 * a `"$schema"` key in settings.json, models.json and keybindings.json without a word.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020";
import { ensureBinary, makeTestHome, runXcsh } from "../support/cli.ts";
import { withPane } from "../modes/interactive/fixture.ts";

const ROOT = join(import.meta.dir, "..", "..");
const home = makeTestHome();
afterAll(() => home.cleanup());

const published = async (name: string) => Bun.file(join(ROOT, "schemas", `${name}.schema.json`)).json();

describe("schemas/", () => {
  test("the committed files are what the generator makes now", () => {
    const result = Bun.spawnSync([process.execPath, join(ROOT, "scripts", "generate-schemas.ts"), "--check"], { cwd: ROOT, stderr: "pipe" });
    expect(result.stderr.toString()).toBe("");
    expect(result.exitCode).toBe(0);
  });

  test("each is a valid JSON Schema that agrees with the binary on a good and a bad file", async () => {
    ensureBinary();
    const ajv = new Ajv2020({ strict: false });
    for (const name of ["settings", "models", "keybindings", "theme"]) ajv.compile(await published(name));
    const settings = ajv.compile(await published("settings"));
    const good = { $schema: "../schemas/settings.schema.json", defaultTools: ["+grep"], defaultThinkingLevel: "high" };
    const bad = { defaultThinkingLevel: "loud" };
    expect(settings(good)).toBe(true);
    expect(settings(bad)).toBe(false);
    home.writeSettings(good);
    const accepted = await runXcsh(["-p", "--provider", "faux", "--no-session", "hi"], { env: home.env });
    expect([accepted.stderr, accepted.exitCode]).toEqual(["", 0]);
    home.writeSettings(bad);
    const refused = await runXcsh(["-p", "--provider", "faux", "--no-session", "hi"], { env: home.env });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("defaultThinkingLevel");
    home.writeSettings({});

    const models = ajv.compile(await published("models"));
    const modelsFile = { $schema: "https://pi.dev/schemas/models.schema.json", providers: { local: { baseUrl: "http://127.0.0.1:1/v1", api: "openai-completions", apiKey: "k", models: [{ id: "m" }] } } };
    expect(models(modelsFile)).toBe(true);
    expect(models({ providers: { local: { api: "openai-chat" } } })).toBe(false);
    home.writeModelsJson(modelsFile);
    const withModels = await runXcsh(["-p", "--provider", "faux", "--no-session", "hi"], { env: home.env });
    expect([withModels.stderr, withModels.exitCode]).toEqual(["", 0]);

    const keybindings = ajv.compile(await published("keybindings"));
    expect(keybindings({ $schema: "x", "app.model.cycleForward": ["ctrl+p"] })).toBe(true);
    expect(keybindings({ "app.model.cycleForward": 7 })).toBe(false);
    const theme = ajv.compile(await published("theme"));
    expect(theme({ name: "x" })).toBe(false);
  }, 30_000);
});

describe("$schema in keybindings.json", () => {
  test("is no unknown action in the terminal UI", async () => {
    await withPane(
      async ({ pane }) => {
        await Bun.sleep(300);
        expect(pane.screen()).not.toContain("unknown action");
      },
      {
        before: (fake) =>
          writeFileSync(join(fake.home.agentDir, "keybindings.json"), JSON.stringify({ $schema: "https://pi.dev/schemas/keybindings.schema.json", "app.model.cycleForward": "ctrl+p" })),
      },
    );
  });
});
