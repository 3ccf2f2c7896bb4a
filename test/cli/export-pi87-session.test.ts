/**
 * `xcsh --export` of sessions written by pi 0.87.1: the page keeps every entry
 * as written (context edits, usage entries, pi's system messages) and its
 * totals count the usage entry and the compaction's own usage, as
 * get_session_stats does. (How the page draws them is checked in a browser by
 * test/export/browser.test.ts where Chromium is installed.)
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { pageData } from "../export/page-data.ts";

const FIXTURES = join(import.meta.dir, "..", "session", "fixtures");

let home: TestHome;
beforeAll(() => {
  home = makeTestHome();
});
afterAll(() => home.cleanup());

async function exportFixture(name: string) {
  const file = join(home.home, name);
  writeFileSync(file, readFileSync(join(FIXTURES, name)));
  const out = join(home.home, `${name}.html`);
  const result = await runXcsh(["--export", file, out], { env: home.env, cwd: home.home });
  expect(result.stderr).toBe("");
  expect(result.exitCode).toBe(0);
  return { data: pageData(readFileSync(out, "utf8")), lines: readFileSync(file, "utf8").trim().split("\n") };
}

test("a session with context edits and a usage entry: every entry as written, the usage entry in the totals", async () => {
  const { data, lines } = await exportFixture("pi87-context-edits.jsonl");
  expect(data.entries).toEqual(lines.slice(1).map((line) => JSON.parse(line)));
  expect(data.leafId).toBe("ed170004");
  expect(data.totals.all).toMatchObject({ responses: 3, input: 30, output: 15, cacheRead: 50000 });
  expect(data.totals.all.cost).toBeCloseTo(0.015, 10);
  expect(data.totals.activeBranch.cacheRead).toBe(50000);
});

test("a compacted pi session: the compaction's usage counts", async () => {
  const { data } = await exportFixture("pi87-compacted.jsonl");
  expect(data.totals.all).toMatchObject({ responses: 4, input: 50, output: 25 });
  expect(data.entries.find((entry: any) => entry.type === "compaction").systemMessage.role).toBe("system");
});
