/**
 * Generated inputs for the heavy workloads, made once and kept in the fixtures
 * folder between runs (each is marked complete only after it is fully written):
 * a 100 MiB session file of 20 000 entries, and a source tree of 100 000 files.
 */
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
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
