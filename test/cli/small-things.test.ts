/**
 * Small things a user notices on the command line, through the built binary:
 * a near miss of an option, model or provider gets "did you mean"; a bad
 * thinking level after `--model x:` is named as the level; a faux script that
 * is not there stops the run at start; extension notices reach stderr in -p;
 * costs come out as the amounts they are, without floating-point noise.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestHome, runXcsh } from "../support/cli.ts";
import { startFakeLlm } from "../support/fake-llm/server.ts";

const home = makeTestHome();
afterAll(() => home.cleanup());

describe("did you mean", () => {
  test("an unknown option names the nearest one", async () => {
    const result = await runXcsh(["--promt", "hi"], { env: home.env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("Unknown option --promt (did you mean --print?)");
  });

  test("a mistyped model names the word it most likely meant", async () => {
    const result = await runXcsh(["--provider", "faux", "--model", "fau-1", "-p", "hi"], { env: home.env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Unknown model "fau-1" (did you mean "faux-1"?)');
    const sonnet = await runXcsh(["--model", "sonet", "-p", "hi"], { env: { ...home.env, ANTHROPIC_API_KEY: "unused" } });
    expect(sonnet.exitCode).toBe(2);
    expect(sonnet.stderr).toContain('(did you mean "sonnet"?)');
  });

  test("a mistyped provider names the provider", async () => {
    const result = await runXcsh(["--provider", "antropic", "-p", "hi"], { env: home.env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('Unknown provider "antropic" (did you mean "anthropic"?)');
  });

  test("`--model faux-1:ultra` names the thinking level, not the model", async () => {
    const result = await runXcsh(["--provider", "faux", "--model", "faux-1:ultra", "-p", "hi"], { env: home.env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('"ultra" is not a thinking level');
    expect(result.stderr).toContain("off, minimal, low, medium, high, xhigh");
    expect(result.stderr).not.toContain("Unknown model");
  });
});

describe("at start", () => {
  test("a --faux-script that is not there is a usage error before any run", async () => {
    const result = await runXcsh(["--provider", "faux", "--faux-script", "nope.json", "--mode", "json", "hi"], { env: home.env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`Faux script ${join(home.home, "nope.json")}: file not found`);
    // Stopped before the session began: no event, only the envelope.
    const lines = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(lines.map((line) => line.type)).toEqual(["result"]);
    expect(lines[0].error.kind).toBe("usage");
  });
});

describe("-p output", () => {
  test("an extension's notify goes to stderr; stdout keeps only the answer", async () => {
    writeFileSync(
      join(home.home, "notifier.ts"),
      `export default function (pi) {
  pi.on("before_agent_start", (_event, ctx) => { ctx.ui.notify("plain notice"); ctx.ui.notify("careful now", "warning"); });
}`,
    );
    const result = await runXcsh(["--provider", "faux", "-e", "notifier.ts", "-p", "hi"], { env: home.env });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("plain notice\n");
    expect(result.stderr).toContain("warning: careful now\n");
    expect(result.stdout).not.toContain("notice");
  });

  test("costs are the amounts they are: 5,000 tokens at $3 per million is 0.015", async () => {
    const server = startFakeLlm();
    try {
      home.writeModelsJson({
        providers: { fake: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "k", models: [{ id: "m", cost: { input: 3, output: 0, cacheRead: 0, cacheWrite: 0 } }] } },
      });
      server.enqueue({ content: [{ type: "text", text: "priced" }], usage: { input: 5000, output: 0 } });
      const result = await runXcsh(["--model", "fake/m", "--no-session", "--mode", "json", "hi"], { env: home.env });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).not.toMatch(/0\.0150000000/);
      const envelope = JSON.parse(result.stdout.trim().split("\n").at(-1)!);
      expect(envelope.costUsd).toBe(0.015);
      expect(envelope.usage.cost.input).toBe(0.015);
    } finally {
      await server.close();
      home.writeModelsJson({});
    }
  });
});
