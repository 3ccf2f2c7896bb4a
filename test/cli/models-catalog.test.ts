/**
 * The model catalog as a user meets it through the built binary: every chat model of pi
 * 1.6.0's catalog that xcsh serves is listed by `--list-models` with pi's limits; the new
 * defaults and models resolve and reach the server; `xcsh models update` refreshes the
 * catalog from a (local, fake) models.dev, keeps the old file when the download fails,
 * and `--list-models` says how old the catalog in use is.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalProvider } from "../../src/ai/provider-aliases.ts";
import { getCatalogProviders } from "../../src/ai/models.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";

const ROOT = join(import.meta.dir, "..", "..");
const PI_DATA = join(ROOT, "node_modules", "pi-coding-agent-160", "node_modules", "@earendil-works", "pi-ai", "dist", "providers", "data");
const SPOKEN = new Set(["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai", "azure-openai-responses", "google-vertex", "bedrock-converse-stream", "mistral-conversations"]);

let server: FakeLlmServer;
let home: TestHome;

beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  home = makeTestHome();
  server.clearScript();
});
afterEach(() => home.cleanup());

/** `--list-models`' rows as provider/id → the row's cells. */
function parseListing(stdout: string): Map<string, { context: string; maxOut: string; thinking: string; images: string }> {
  const rows = new Map<string, { context: string; maxOut: string; thinking: string; images: string }>();
  for (const line of stdout.split("\n")) {
    const cells = line.split(/\s{2,}/);
    if (cells.length < 7 || cells[0] === "provider") continue;
    rows.set(`${cells[0]}/${cells[1]}`, { context: cells[2], maxOut: cells[3], thinking: cells[4], images: cells[5] });
  }
  return rows;
}

/** The listing's way of writing a token count. */
function tokens(count: number): string {
  if (count >= 1_000_000) return `${+(count / 1_000_000).toFixed(1)}M`;
  if (count >= 1_000) return `${+(count / 1_000).toFixed(1)}K`;
  return String(count);
}

describe("the built-in catalog is pi 1.6.0's", () => {
  test("--list-models lists every chat model pi 1.6.0 ships for xcsh's providers, with pi's limits and flags", async () => {
    const result = await runXcsh(["--list-models"], { env: home.env });
    expect(result.exitCode).toBe(0);
    const listed = parseListing(result.stdout);
    const providers = new Set(getCatalogProviders().map((provider) => provider.id));
    let compared = 0;
    for (const file of readdirSync(PI_DATA).filter((name) => name.endsWith(".json"))) {
      const provider = canonicalProvider(file.slice(0, -5));
      if (!providers.has(provider)) continue;
      const groups = JSON.parse(readFileSync(join(PI_DATA, file), "utf8")) as Record<string, Record<string, Record<string, any>>>;
      for (const model of Object.values(groups).flatMap((group) => Object.values(group))) {
        if (model.type !== "chat" || !SPOKEN.has(model.api)) continue;
        const row = listed.get(`${provider}/${model.id}`);
        expect(row, `${provider}/${model.id}`).toEqual({
          context: tokens(model.contextWindow),
          maxOut: tokens(model.maxTokens),
          thinking: model.reasoning ? "yes" : "no",
          images: model.input.includes("image") ? "yes" : "no",
        });
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1_500);
    expect(listed.has("anthropic/claude-opus-5-5")).toBe(true);
    expect(listed.has("openai/gpt-6.2-sol")).toBe(true);
    expect(listed.has("google/gemini-4-argon")).toBe(true);
  });

  test("--model gpt-6.2-sol and --model claude-opus-5-5 reach the server with the key set; a bare key picks pi's default", async () => {
    home.writeModelsJson({ providers: { openai: { baseUrl: server.baseUrl("openai-responses") }, anthropic: { baseUrl: server.baseUrl("anthropic-messages") } } });
    server.enqueue({ content: [{ type: "text", text: "sol" }] }, { content: [{ type: "text", text: "opus" }] }, { content: [{ type: "text", text: "default" }] });
    const env = { ...home.env, OPENAI_API_KEY: "sk-openai", ANTHROPIC_API_KEY: "sk-ant" };
    const sol = await runXcsh(["-p", "hi", "--no-session", "--model", "gpt-6.2-sol"], { env });
    expect(sol.stderr).toBe("");
    expect(sol.stdout).toBe("sol\n");
    const opus = await runXcsh(["-p", "hi", "--no-session", "--model", "claude-opus-5-5"], { env });
    expect(opus.stderr).toBe("");
    expect(opus.stdout).toBe("opus\n");
    const byDefault = await runXcsh(["-p", "hi", "--no-session", "--provider", "anthropic"], { env });
    expect(byDefault.stdout).toBe("default\n");
    expect(server.requests.slice(-3).map((request) => request.body.model)).toEqual(["gpt-6.2-sol", "claude-opus-5-5", "claude-opus-5-5"]);
  });

  test("--list-models ends with the built-in catalog's source and date", async () => {
    const result = await runXcsh(["--list-models", "claude-opus-5-5"], { env: home.env });
    expect(result.stdout.trimEnd().split("\n").at(-1)).toMatch(/^Model catalog: built-in, @earendil-works\/pi-ai 1\.6\.0 .*, of \d{4}-\d{2}-\d{2} \((today|\d+ days? old)\)/);
  });
});

/** A models.dev api.json with one new OpenAI model and a changed price for gpt-6.2-sol. */
const MODELS_DEV = {
  openai: {
    id: "openai",
    models: {
      "gpt-7-test": {
        id: "gpt-7-test",
        name: "GPT-7 Test",
        tool_call: true,
        reasoning: true,
        release_date: "2027-01-01",
        modalities: { input: ["text", "image"], output: ["text"] },
        cost: { input: 3, output: 30, cache_read: 0.3 },
        limit: { context: 2_000_000, output: 200_000 },
      },
      "gpt-6.2-sol": {
        id: "gpt-6.2-sol",
        name: "GPT-6.2 Sol",
        tool_call: true,
        reasoning: true,
        modalities: { input: ["text", "image"], output: ["text"] },
        cost: { input: 1.5, output: 9, cache_read: 0.15 },
        limit: { context: 1_500_000, output: 150_000 },
      },
    },
  },
};

/** A local stand-in for models.dev: each request gets the next answer. */
function fakeModelsDev(answers: (() => Response)[]): { url: string; stop(): void } {
  const served = Bun.serve({ port: 0, fetch: () => (answers.shift() ?? (() => new Response("gone", { status: 500 })))() });
  return { url: `http://127.0.0.1:${served.port}/api.json`, stop: () => served.stop(true) };
}

describe("xcsh models update", () => {
  test("fetches models.dev into the agent dir; later runs list its new models and prices, and say it is fetched", async () => {
    const site = fakeModelsDev([() => Response.json(MODELS_DEV)]);
    try {
      const update = await runXcsh(["models", "update"], { env: { ...home.env, XCSH_MODELS_DEV_URL: site.url } });
      expect(update.stderr).toBe("");
      expect(update.exitCode).toBe(0);
      expect(update.stdout).toContain(`2 models of 1 providers from ${site.url}`);
      const cache = join(home.agentDir, "models-catalog.json");
      expect(existsSync(cache)).toBe(true);

      const listing = await runXcsh(["--list-models", "openai/gpt-"], { env: home.env });
      const rows = parseListing(listing.stdout);
      expect(rows.get("openai/gpt-7-test")).toEqual({ context: "2M", maxOut: "200K", thinking: "yes", images: "yes" });
      expect(rows.get("openai/gpt-6.2-sol")).toEqual({ context: "1.5M", maxOut: "150K", thinking: "yes", images: "yes" });
      // Models the refresh does not name stay as built in.
      expect(rows.has("openai/gpt-5")).toBe(true);
      expect(listing.stdout.trimEnd().split("\n").at(-1)).toMatch(new RegExp(`^Model catalog: fetched from ${site.url.replace(/[.]/g, "\\.")} on \\d{4}-\\d{2}-\\d{2} \\(today\\), .*models-catalog\\.json`));
    } finally {
      site.stop();
    }
  });

  test("pi 1.6.0's `update --models` is the same refresh", async () => {
    const site = fakeModelsDev([() => Response.json(MODELS_DEV)]);
    try {
      const update = await runXcsh(["update", "--models"], { env: { ...home.env, XCSH_MODELS_DEV_URL: site.url } });
      expect(update.stderr).toBe("");
      expect(update.exitCode).toBe(0);
      expect(update.stdout).toContain(`2 models of 1 providers from ${site.url}`);
      expect(existsSync(join(home.agentDir, "models-catalog.json"))).toBe(true);
    } finally {
      site.stop();
    }
  });

  test("a malformed body keeps the old file and says why", async () => {
    const site = fakeModelsDev([() => Response.json(MODELS_DEV), () => new Response("{not json", { headers: { "content-type": "application/json" } }), () => Response.json({ openai: { models: {} } })]);
    try {
      const env = { ...home.env, XCSH_MODELS_DEV_URL: site.url };
      expect((await runXcsh(["models", "update"], { env })).exitCode).toBe(0);
      const cache = join(home.agentDir, "models-catalog.json");
      const before = readFileSync(cache, "utf8");
      const broken = await runXcsh(["models", "update"], { env });
      expect(broken.exitCode).toBe(1);
      expect(broken.stderr).toContain("models update failed");
      expect(broken.stderr).toContain("did not send JSON");
      expect(broken.stderr).toContain(`kept ${cache}`);
      const empty = await runXcsh(["models", "update"], { env });
      expect(empty.exitCode).toBe(1);
      expect(empty.stderr).toContain("lists no usable model");
      expect(readFileSync(cache, "utf8")).toBe(before);
      expect(readdirSync(home.agentDir).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    } finally {
      site.stop();
    }
  });

  test("an unreachable server keeps the built-in catalog with a clear message", async () => {
    const site = fakeModelsDev([]);
    site.stop();
    const result = await runXcsh(["models", "update", "--url", site.url], { env: home.env });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`could not reach ${site.url}`);
    expect(result.stderr).toContain("kept the built-in catalog");
    expect(existsSync(join(home.agentDir, "models-catalog.json"))).toBe(false);
  });

  test("a damaged cache file is ignored with one line on stderr; the built-in catalog serves", async () => {
    writeFileSync(join(home.agentDir, "models-catalog.json"), JSON.stringify({ version: 1, source: "x", fetchedAt: "2026-01-01T00:00:00Z", providers: { openai: [{ id: "bad" }] } }));
    const result = await runXcsh(["--list-models", "gpt-6.2-sol"], { env: home.env });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("ignoring");
    expect(result.stderr).toContain("models-catalog.json");
    expect(parseListing(result.stdout).get("openai/gpt-6.2-sol")?.context).toBe("272K");
    expect(result.stdout).toContain("Model catalog: built-in");
  });
});
