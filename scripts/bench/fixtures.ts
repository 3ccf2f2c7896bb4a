/**
 * Generated inputs for the heavy workloads, made once and kept in the fixtures
 * folder between runs (each is marked complete only after it is fully written):
 * a 100 MiB session file of 20 000 entries, a source tree of 100 000 files, and
 * a corpus of real installed packages (realCodeFixture).
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SESSION_ENTRIES = 20_000;
export const SESSION_BYTES = 100 * 1024 * 1024;

export const TREE_FILES = 100_000;
/** Files whose text contains NEEDLE: one in every 2 000. */
export const NEEDLE = "needle_4711";
export const NEEDLE_FILES = TREE_FILES / 2_000;
/** Files named *.md: one in every 200. */
export const MARKDOWN_FILES = TREE_FILES / 200;

const WORDS = (
  "const value = await read(path); if (!value) return undefined; export function parse(text: string) " +
  "the session tree keeps every branch while tools stream output back to the model and the host " +
  "renders each delta as it arrives; errors are values on the wire and nothing is lost on a crash"
).split(" ");

/** 256 KiB of code-and-prose-like text; fixtures take slices of it. */
const POOL = (() => {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < 256 * 1024; i++) {
    const word = WORDS[(i * 7 + (i >> 4)) % WORDS.length];
    const piece = i % 12 === 11 ? `${word}\n` : `${word} `;
    parts.push(piece);
    size += piece.length;
  }
  return parts.join("");
})();

/** Deterministic text of `length` characters (at most 200 KiB), different for each `seed`. */
function text(length: number, seed: number): string {
  const start = (seed * 7919) % (POOL.length - length);
  return POOL.slice(start, start + length);
}

const usage = {
  input: 1200,
  output: 300,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 1500,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/**
 * Entries cycle through a real session's rhythm: a user prompt, an assistant
 * turn calling bash, the (large) tool result, and the assistant's answer. Tool
 * results take whatever size brings the file to SESSION_BYTES.
 */
function writeSession(file: string, cwd: string, totalBytes = SESSION_BYTES, totalEntries = SESSION_ENTRIES): void {
  const cycles = totalEntries / 4;
  const started = Date.parse("2026-01-01T00:00:00.000Z");
  const lines: string[] = [];
  let bytes = 0;
  let parentId: string | null = null;
  let index = 0;
  const push = (value: unknown) => {
    const line = JSON.stringify(value) + "\n";
    lines.push(line);
    bytes += Buffer.byteLength(line);
  };
  const entry = (message: Record<string, unknown>) => {
    const id = (index + 1).toString(16).padStart(8, "0");
    const timestamp = started + index * 1000;
    push({ type: "message", id, parentId, timestamp: new Date(timestamp).toISOString(), message: { ...message, timestamp } });
    parentId = id;
    index++;
  };

  push({ type: "session", version: 3, id: "0190a000-0000-7000-8000-000000000001", timestamp: new Date(started).toISOString(), cwd });
  const perCycleTarget = (totalBytes - bytes) / cycles;
  for (let cycle = 0; cycle < cycles; cycle++) {
    const before = bytes;
    const callId = `call_${cycle}`;
    entry({ role: "user", content: `Step ${cycle}: ${text(200, cycle)}` });
    entry({
      role: "assistant",
      content: [
        { type: "text", text: text(150, cycle + 1) },
        { type: "toolCall", id: callId, name: "bash", arguments: { command: `grep -rn step_${cycle} src | head -200` } },
      ],
      api: "openai-completions",
      provider: "fake",
      model: "bench-model",
      usage,
      stopReason: "toolUse",
    });
    const answer = { role: "assistant", content: [{ type: "text", text: text(1200, cycle + 2) }], api: "openai-completions", provider: "fake", model: "bench-model", usage, stopReason: "stop" };
    // Size the tool result so this cycle lands on its share of the file (JSON escapes add a little).
    const answerBytes = JSON.stringify(answer).length + 120;
    const resultChars = Math.max(100, Math.floor((perCycleTarget - (bytes - before) - answerBytes - 260) / 1.015));
    entry({
      role: "toolResult",
      toolCallId: callId,
      toolName: "bash",
      content: [{ type: "text", text: text(resultChars, cycle + 3) }],
      isError: false,
    });
    entry(answer);
  }
  writeFileSync(file, lines.join(""));
}

/** The session file (generated on first use): path and size. */
export function sessionFixture(fixtures: string, log: (line: string) => void): string {
  const file = join(fixtures, "session-100mib-20k.jsonl");
  const marker = `${file}.complete`;
  if (!existsSync(marker)) {
    mkdirSync(fixtures, { recursive: true });
    log(`generating ${file} …`);
    writeSession(file, fixtures);
    writeFileSync(marker, "");
  }
  log(`session fixture: ${(statSync(file).size / 1024 / 1024).toFixed(1)} MiB, ${SESSION_ENTRIES} entries`);
  return file;
}

export const EXPORT_SESSION_ENTRIES = 10_000;
export const EXPORT_SESSION_BYTES = 50 * 1024 * 1024;

/** The session the export workload writes as HTML (generated on first use): 50 MiB, 10 000 entries. */
export function exportSessionFixture(fixtures: string, log: (line: string) => void): string {
  const file = join(fixtures, "session-50mib-10k.jsonl");
  const marker = `${file}.complete`;
  if (!existsSync(marker)) {
    mkdirSync(fixtures, { recursive: true });
    log(`generating ${file} …`);
    writeSession(file, fixtures, EXPORT_SESSION_BYTES, EXPORT_SESSION_ENTRIES);
    writeFileSync(marker, "");
  }
  return file;
}

/** 50 packages × 20 modules × 100 files of small source text (generated on first use). */
export function treeFixture(fixtures: string, log: (line: string) => void): string {
  const root = join(fixtures, "tree-100k");
  const marker = `${root}.complete`;
  if (!existsSync(marker)) {
    rmSync(root, { recursive: true, force: true });
    log(`generating ${TREE_FILES} files under ${root} …`);
    let n = 0;
    for (let pkg = 0; pkg < 50; pkg++) {
      for (let mod = 0; mod < 20; mod++) {
        const dir = join(root, `pkg_${pkg}`, `mod_${mod}`);
        mkdirSync(dir, { recursive: true });
        for (let file = 0; file < 100; file++, n++) {
          const name = n % 200 === 199 ? `notes_${file}.md` : `file_${file}.ts`;
          const body = text(300 + (n % 7) * 40, n) + (n % 2000 === 1999 ? `\n// ${NEEDLE} marks this file\n` : "\n");
          writeFileSync(join(dir, name), body);
        }
      }
    }
    writeFileSync(marker, "");
  }
  return root;
}

/**
 * Well-known packages installed into the real-code corpus at bench time, beside
 * a copy of this project's own node_modules: typescript's multi-MB bundles,
 * three's minified builds and source maps, babel's and eslint's thousands of
 * small modules, webpack's deep trees. Code no one here wrote or shaped.
 */
const REAL_CODE_PACKAGES = ["typescript@5", "@babel/core@7", "@babel/preset-env@7", "webpack@5", "eslint@8", "rollup@4", "prettier@3", "lodash@4", "rxjs@7", "three@0.170"];

/** Removes every symlink below `dir`: rg and fd do not follow them, xcsh follows links to files, so links would make the counts differ. */
function removeSymlinks(dir: string): number {
  let removed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) {
      unlinkSync(path);
      removed++;
    } else if (entry.isDirectory()) {
      removed += removeSymlinks(path);
    }
  }
  return removed;
}

/**
 * Real JavaScript/TypeScript code (made on first use, then kept): `xcsh/` is a
 * copy of this project's node_modules, `npm/` the node_modules of an npm
 * install of REAL_CODE_PACKAGES — about 45 000 files, 450 MB. Laid out as
 * installed, with two changes that keep xcsh, rg and fd looking at the same
 * files: the top folders are not called `node_modules` (xcsh never enters a
 * folder of that name, so the searches pass rg and fd the same exclusion for
 * the nested ones), and symlinks (`.bin/`) are removed. Needs npm and the
 * network the first time.
 */
export function realCodeFixture(fixtures: string, log: (line: string) => void, projectRoot: string): string {
  const root = join(fixtures, "real-code");
  const marker = `${root}.complete`;
  if (existsSync(marker)) return root;
  const install = join(fixtures, "real-code-install");
  rmSync(root, { recursive: true, force: true });
  rmSync(install, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  mkdirSync(install, { recursive: true });
  log(`installing ${REAL_CODE_PACKAGES.length} packages for the real-code corpus under ${install} …`);
  const npm = Bun.spawnSync(["npm", "install", "--prefix", install, "--no-audit", "--no-fund", "--ignore-scripts", "--no-save", ...REAL_CODE_PACKAGES], {
    stdout: "ignore",
    stderr: "pipe",
  });
  if (npm.exitCode !== 0) throw new Error(`npm install for the real-code corpus failed: ${npm.stderr.toString().slice(-600)}`);
  renameSync(join(install, "node_modules"), join(root, "npm"));
  rmSync(install, { recursive: true, force: true });
  const copy = Bun.spawnSync(["cp", "-R", join(projectRoot, "node_modules"), join(root, "xcsh")], { stderr: "pipe" });
  if (copy.exitCode !== 0) throw new Error(`copying node_modules for the real-code corpus failed: ${copy.stderr.toString()}`);
  const links = removeSymlinks(root);
  log(`real-code corpus ready (${links} symlinks removed)`);
  writeFileSync(marker, "");
  return root;
}
