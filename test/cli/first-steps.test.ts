/**
 * A new contributor's first steps, as the repository gives them: the license
 * package.json promises is there, the pages link to files that exist, README's
 * first command after building works as written, and the two sample scripts
 * (faux provider, fake LLM server) drive the built binary.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeTestHome, runXcsh } from "../support/cli.ts";
import { startFakeLlm } from "../support/fake-llm/server.ts";

const root = join(import.meta.dir, "..", "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const pages = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", ...readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];

const home = makeTestHome();
afterAll(() => home.cleanup());

describe("the repository's first steps", () => {
  test("LICENSE is the MIT license package.json names", () => {
    expect(JSON.parse(read("package.json")).license).toBe("MIT");
    const license = read("LICENSE");
    expect(license).toStartWith("MIT License");
    expect(license).toContain("Copyright (c) 2026 the xcsh authors");
  });

  test("every relative link in README, CONTRIBUTING, CHANGELOG and docs/ names a file that exists", () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const [, target] of read(page).matchAll(/\]\(([^)\s]+)\)/g)) {
        const path = target!.split("#")[0]!;
        if (!path || /^[a-z]+:/i.test(path)) continue;
        // The repository's release pages, as GitHub resolves a README's relative link (test/scripts/install.test.ts).
        if (page === "README.md" && path.startsWith("../../releases/")) continue;
        if (!existsSync(join(root, dirname(page), path))) broken.push(`${page} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
    expect(read("README.md")).toContain("(docs/architecture.md)");
    expect(read("README.md")).toContain("(CONTRIBUTING.md)");
  });

  test("README's first command after a build, ./dist/xcsh --provider faux -p \"hello\", answers from an empty home", async () => {
    expect(read("README.md")).toContain('./dist/xcsh --provider faux -p "hello"');
    const result = await runXcsh(["--provider", "faux", "-p", "hello"], { env: home.env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim().length).toBeGreaterThan(0);
  });

  test("the faux sample script, test/fixtures/weather.json, answers as docs/rpc.md shows", async () => {
    const result = await runXcsh(["--provider", "faux", "--faux-script", join(root, "test/fixtures/weather.json"), "--no-session", "-p", "what is the weather"], { env: home.env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("It is sunny in Oslo.\n");
  });

  test("the fake server's sample script, test/fixtures/fake-llm-replies.json, drives a tool call and an answer", async () => {
    const script = JSON.parse(read("test/fixtures/fake-llm-replies.json"));
    const server = startFakeLlm({ script });
    try {
      home.writeModelsJson({ providers: { local: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "k", models: [{ id: "m" }] } } });
      const result = await runXcsh(["--model", "local/m", "--no-session", "-p", "list the folder"], { env: home.env });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe("The folder is listed above.\n");
      expect(server.requests.length).toBe(2);
      // The tool's result went back to the model with the second request.
      expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("call_1");
    } finally {
      await server.close();
      home.writeModelsJson({});
    }
  });
});
