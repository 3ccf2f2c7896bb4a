/**
 * Full-output files: capped in size and number, and gone from TMPDIR when xcsh
 * exits — checked on the collector directly and through the built binary.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OutputCollector } from "../../src/tools/output-collector.ts";
import { MAX_KEPT_FILES, newTempFilePath } from "../../src/tools/temp-files.ts";
import { makeFakeModelHome, runXcsh } from "../support/cli.ts";

describe("the full-output file", () => {
  test("stops growing at its cap and says so at the end", () => {
    const collector = new OutputCollector({ maxBytes: 1000, maxFileBytes: 20_000 });
    for (let i = 0; i < 100; i++) collector.push(Buffer.from(`${"x".repeat(499)}\n`));
    collector.finish();
    const path = collector.snapshot().fullOutputPath!;
    const text = readFileSync(path, "utf8");
    expect(text.length).toBeLessThan(20_200);
    expect(text.trimEnd().endsWith("[xcsh: output beyond 19.5KB was not kept]")).toBe(true);
    // The view the model gets still ends with the real end of the output.
    expect(collector.snapshot().truncation?.totalLines).toBe(100);
  });

  test("only the newest files are kept", () => {
    const paths: string[] = [];
    for (let i = 0; i < MAX_KEPT_FILES + 3; i++) {
      paths.push(newTempFilePath("keep-"));
      writeFileSync(paths.at(-1)!, "x");
    }
    const folder = join(paths[0], "..");
    expect(readdirSync(folder).filter((name) => name.startsWith("keep-")).length).toBeLessThanOrEqual(MAX_KEPT_FILES);
    expect(existsSync(paths[0])).toBe(false);
    expect(existsSync(paths.at(-1)!)).toBe(true);
  });
});

const fixture = await makeFakeModelHome();

describe("TMPDIR after a run", () => {
  const { home, server } = fixture;
  const tmp = join(home.home, "tmp");
  mkdirSync(tmp);
  afterAll(() => fixture.cleanup());

  test("holds nothing of xcsh's once it exits, though a tool's long output went to a file", async () => {
    server.enqueue(
      { content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "seq 1 100000" } }] },
      { content: [{ type: "text", text: "done" }] },
    );
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "count"], { env: { ...home.env, TMPDIR: tmp } });
    expect(result.exitCode).toBe(0);
    const toolResult = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(toolResult).toContain(`Full output: ${tmp}`);
    expect(readdirSync(tmp)).toEqual([]);
    rmSync(tmp, { recursive: true, force: true });
  });
});
