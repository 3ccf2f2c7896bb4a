/**
 * Docs that are wrong when pasted are worse than no docs (#26 item 6). Every shell
 * block in README.md, CONTRIBUTING.md and docs/*.md whose info string is
 * `sh runnable` (GitHub still highlights it as sh) is run here with bash, as a reader
 * would paste it: in a fresh HOME with no keys, with the built binary first on PATH as
 * `xcsh`, stdin closed, from an empty project folder (~/project). Attributes after the
 * marker:
 *   exit=<code>  the exit code the block ends with, when it is not 0
 *   cwd=clone    run from the root of the clone (for blocks naming its files, e.g.
 *                test/fixtures/weather.json); such a block must leave the clone unchanged
 *
 * Blocks run with `set -eo pipefail`, so the first failing line decides the code.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary, makeTestHome } from "../support/cli.ts";

const root = join(import.meta.dir, "..", "..");
const DOC_FILES = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => join("docs", name)),
];

/** Files that must keep at least one runnable block: losing the marker there loses the check. */
const MUST_HAVE_RUNNABLE = [
  "README.md",
  "CONTRIBUTING.md",
  "docs/cli.md",
  "docs/export.md",
  "docs/headless.md",
  "docs/interactive.md",
  "docs/mcp.md",
  "docs/packages.md",
  "docs/providers.md",
  "docs/rpc.md",
];
/** How many runnable blocks the docs held when this test was written; fewer means a marker vanished. */
const MIN_RUNNABLE_BLOCKS = 16;
/** A block is a few quick commands against the offline model; more than this is a hang. */
const BLOCK_TIMEOUT_MS = 15_000;

interface FencedBlock {
  file: string;
  line: number;
  info: string;
  body: string;
}

interface RunSettings {
  expectedExit: number;
  inClone: boolean;
}

interface RunnableBlock extends FencedBlock, RunSettings {}

/** Every fenced code block of a markdown file, indented ones (inside list items) included. */
function fencedBlocks(file: string, text: string): FencedBlock[] {
  const lines = text.split("\n");
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, info] = open as unknown as [string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]!);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length) break;
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
    }
    blocks.push({ file, line: i + 1, info: info.trim(), body: body.join("\n") });
    i = j;
  }
  return blocks;
}

/** The block's run settings, or null when it is not marked runnable; a malformed marker throws. */
function runnableSettings(block: FencedBlock): RunSettings | null {
  const words = block.info.split(/\s+/).filter(Boolean);
  if (!words.some((word) => /runn?able/i.test(word))) return null;
  const where = `${block.file}:${block.line}`;
  if (!["sh", "bash", "shell"].includes(words[0] ?? "")) throw new Error(`${where}: a runnable block must be sh, bash or shell, not "${words[0] ?? ""}"`);
  if (words[1] !== "runnable") throw new Error(`${where}: write the marker as "${words[0]} runnable", not "${block.info}"`);
  const settings: RunSettings = { expectedExit: 0, inClone: false };
  for (const attribute of words.slice(2)) {
    const exit = /^exit=(\d{1,3})$/.exec(attribute);
    if (exit) settings.expectedExit = Number(exit[1]);
    else if (attribute === "cwd=clone") settings.inClone = true;
    else throw new Error(`${where}: unknown runnable attribute "${attribute}" (known: exit=<code>, cwd=clone)`);
  }
  return settings;
}

function collectRunnable(): RunnableBlock[] {
  const runnable: RunnableBlock[] = [];
  for (const file of DOC_FILES) {
    for (const block of fencedBlocks(file, readFileSync(join(root, file), "utf8"))) {
      const settings = runnableSettings(block);
      if (settings) runnable.push({ ...block, ...settings });
    }
  }
  return runnable;
}

function gitStatus(): string {
  const result = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=all"], { cwd: root });
  return result.stdout.toString();
}

const blocks = collectRunnable();
const binDir = mkdtempSync(join(tmpdir(), "xcsh-docs-bin-"));
afterAll(() => rmSync(binDir, { recursive: true, force: true }));

describe("runnable doc blocks", () => {
  test("the markers are all still there", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(MIN_RUNNABLE_BLOCKS);
    const files = new Set(blocks.map((block) => block.file));
    for (const file of MUST_HAVE_RUNNABLE) expect({ file, hasRunnable: files.has(file) }).toEqual({ file, hasRunnable: true });
  });

  test("the extractor finds fences in lists and keeps a block's own lines", () => {
    const found = fencedBlocks("x.md", "- item\n\n  ```sh runnable exit=2\n  xcsh --bad\n  ```\n\n````md\n```sh runnable\nnot a block\n```\n````\n");
    expect(found.map((block) => [block.line, block.info, block.body])).toEqual([
      [3, "sh runnable exit=2", "xcsh --bad"],
      [7, "md", "```sh runnable\nnot a block\n```"],
    ]);
    expect(() => runnableSettings({ file: "x.md", line: 1, info: "sh runable", body: "" })).toThrow('write the marker as "sh runnable"');
    expect(() => runnableSettings({ file: "x.md", line: 1, info: "sh runnable exit=two", body: "" })).toThrow("unknown runnable attribute");
    expect(() => runnableSettings({ file: "x.md", line: 1, info: "json runnable", body: "" })).toThrow("must be sh, bash or shell");
  });

  for (const block of blocks) {
    const firstLine = block.body.split("\n").find((line) => line.trim()) ?? "";
    test(`${block.file}:${block.line} ${firstLine.slice(0, 60)}`, async () => {
      symlinkOnce();
      const home = makeTestHome();
      try {
        const env = { ...home.env, PATH: `${binDir}:${home.env.PATH ?? "/usr/bin:/bin"}` };
        const project = join(home.home, "project");
        mkdirSync(project);
        const before = gitStatus();
        // Its own process group, so a hung block and anything it left running (a server
        // started with &) are killed together.
        const proc = Bun.spawn(["bash", "-c", `set -eo pipefail\n${block.body}`], {
          cwd: block.inClone ? root : project,
          env,
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
          detached: true,
        });
        let timedOut = false;
        const timer = setTimeout(() => {
          timedOut = true;
          killGroup(proc.pid);
        }, BLOCK_TIMEOUT_MS);
        const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
        clearTimeout(timer);
        killGroup(proc.pid);
        const outcome = { exitCode, timedOut, commandNotFound: /command not found/.test(stderr) };
        if (outcome.exitCode !== block.expectedExit || outcome.timedOut || outcome.commandNotFound) {
          console.error(`--- ${block.file}:${block.line}\n${block.body}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`);
        }
        expect(outcome).toEqual({ exitCode: block.expectedExit, timedOut: false, commandNotFound: false });
        // A pasted block must not leave files in the reader's clone (nor one run from ~/project).
        expect(gitStatus()).toBe(before);
      } finally {
        home.cleanup();
      }
    });
  }
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already gone: nothing was left running.
  }
}

let linked = false;
/** `xcsh` on PATH is the freshly built binary, as after the README's install steps. */
function symlinkOnce(): void {
  if (linked) return;
  mkdirSync(binDir, { recursive: true });
  symlinkSync(ensureBinary(), join(binDir, "xcsh"));
  linked = true;
}
