/**
 * grep and find as the built binary runs them, through the fake LLM server: a
 * tree large enough that grep shares it out to its search threads, whose
 * script must be built into the executable.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
const tree = mkdtempSync(join(tmpdir(), "xcsh-search-bin-"));
afterAll(async () => {
  rmSync(tree, { recursive: true, force: true });
  await fixture.cleanup();
});

const expected: string[] = [];
/** Files enough for grep to start its search workers and still be walking once they are ready. */
const LARGE_TREE_FILES = 6000;
for (let i = 0; i < LARGE_TREE_FILES; i++) {
  const dir = join(tree, `pkg${String(i % 25).padStart(2, "0")}`);
  mkdirSync(dir, { recursive: true });
  const name = `file${String(i).padStart(5, "0")}.ts`;
  const hit = i % 500 === 7;
  writeFileSync(join(dir, name), hit ? `export const x = 1;\n// marker_${i}\n` : "export const y = 2;\n");
  if (hit) expected.push(`pkg${String(i % 25).padStart(2, "0")}/${name}:2: // marker_${i}`);
}
expected.sort();
writeFileSync(join(tree, ".gitignore"), "pkg00/\n");
const visible = expected.filter((line) => !line.startsWith("pkg00/"));

/** Runs one tool call in print mode; the text the tool returned. */
async function toolResult(name: string, args: Record<string, unknown>, cwd = tree): Promise<string> {
  server.enqueue({ content: [{ type: "toolCall", id: "t1", name, arguments: args }] }, { content: [{ type: "text", text: "done" }] });
  const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "--tools", "grep,find", "search"], { env: home.env, cwd, timeoutMs: 30_000 });
  expect(result.exitCode).toBe(0);
  const messages = server.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
  const last = messages.at(-1)!;
  expect(last.role).toBe("tool");
  return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
}

describe("search tools in the built binary", () => {
  test("grep over a large tree finds every match in path order, honouring .gitignore", async () => {
    expect(await toolResult("grep", { pattern: "marker_\\d+" })).toBe(visible.join("\n"));
    expect(await toolResult("grep", { pattern: "// marker_", literal: true })).toBe(visible.join("\n"));
  }, 60_000);

  test("find over the same tree lists matching names sorted", async () => {
    const text = await toolResult("find", { pattern: "file0000*.ts" });
    expect(text).toBe(["pkg01/file00001.ts", "pkg02/file00002.ts", "pkg03/file00003.ts", "pkg04/file00004.ts", "pkg05/file00005.ts", "pkg06/file00006.ts", "pkg07/file00007.ts", "pkg08/file00008.ts", "pkg09/file00009.ts"].join("\n"));
  }, 60_000);

  test("a repository's .gitignore built to make pattern matching take hours does not stall grep or find", async () => {
    const hostile = join(tree, "..", `${tree.split("/").at(-1)}-hostile`);
    mkdirSync(hostile, { recursive: true });
    try {
      writeFileSync(join(hostile, ".gitignore"), "*a*a*a*a*a*a*a*a*a*a*a*a*b\n");
      const name = `${"a".repeat(60)}.txt`;
      writeFileSync(join(hostile, name), "needle\n");
      expect(await toolResult("find", { pattern: "*.txt" }, hostile)).toBe(name);
      expect(await toolResult("grep", { pattern: "needle", literal: true }, hostile)).toBe(`${name}:1: needle`);
    } finally {
      rmSync(hostile, { recursive: true, force: true });
    }
  }, 60_000);
});
