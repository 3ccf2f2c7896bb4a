/**
 * A history of many sessions for the `history` workload: by default 3 000 session
 * files totalling 5 GiB in one folder, made once and kept in the fixtures folder
 * (marked complete only when fully written). Each file is a realistic session — a
 * header, a model change, the user's task, then rounds of tool calls with large
 * results and the assistant's answers; every third one is named near its end.
 * Sizes vary from a tenth to two and a half times the average, as real ones do.
 * When the disk has less than twice the total free, the total is scaled down to
 * fit and the workload says so in its figures.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const HISTORY_FILES = 3_000;
export const HISTORY_BYTES = 5 * 1024 ** 3;
/** Sizes of consecutive files, as factors of the average (their mean is 1). */
const SIZE_FACTORS = [0.1, 0.4, 0.8, 1.2, 2.5];

export interface HistoryFixture {
  dir: string;
  files: number;
  totalBytes: number;
  /** Why the total is smaller than HISTORY_BYTES, when it is. */
  scaledNote?: string;
  /** A session to open by id prefix: its id's first 8 characters, unique in the folder. */
  target: { prefix: string; id: string; path: string };
  /** The name and first message a list must show for the target. */
  targetName: string;
  targetFirstMessage: string;
}

const WORDS = "the build failed because the parser read past the end of the buffer so we add a bound check and a test that feeds it a truncated file".split(" ");

/** 128 KiB of prose; texts are slices of it. */
const POOL = (() => {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < 128 * 1024; i++) {
    const word = WORDS[(i * 7 + (i >> 3)) % WORDS.length];
    parts.push(word);
    size += word.length + 1;
  }
  return parts.join(" ");
})();

function prose(length: number, seed: number): string {
  const start = (seed * 7919) % (POOL.length - 64 * 1024);
  return POOL.slice(start, start + length);
}

export function sessionId(index: number): string {
  const head = (0x10000000 + index * 4099).toString(16).padStart(8, "0").slice(-8);
  return `${head}-7000-4000-8000-${index.toString(16).padStart(12, "0")}`;
}

export function firstMessageOf(index: number): string {
  return `Task ${index}: fix the flaky history test in module ${index % 97}`;
}

export function nameOf(index: number): string | undefined {
  return index % 3 === 0 ? `history-session-${index}` : undefined;
}

/** One session file's text of about `bytes` bytes. */
export function sessionText(index: number, bytes: number, cwd: string): string {
  const lines: string[] = [];
  let size = 0;
  let parentId: string | null = null;
  let entryIndex = 0;
  const started = Date.parse("2026-01-01T00:00:00.000Z") + index * 3_600_000;
  const push = (value: unknown) => {
    const line = `${JSON.stringify(value)}\n`;
    lines.push(line);
    size += line.length;
  };
  const entry = (fields: Record<string, unknown>) => {
    const id = (entryIndex + 1).toString(16).padStart(8, "0");
    const at = started + entryIndex * 1_000;
    push({ ...fields, id, parentId, timestamp: new Date(at).toISOString() });
    parentId = id;
    entryIndex++;
    return at;
  };
  const usage = { input: 900, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 1100, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const assistant = (content: unknown[], stopReason: string) => ({ role: "assistant", content, api: "openai-completions", provider: "fake", model: "bench-model", usage, stopReason });

  push({ type: "session", version: 3, id: sessionId(index), timestamp: new Date(started).toISOString(), cwd });
  entry({ type: "model_change", provider: "fake", modelId: "bench-model" });
  const userAt = started + entryIndex * 1_000;
  entry({ type: "message", message: { role: "user", content: firstMessageOf(index), timestamp: userAt } });
  const name = nameOf(index);
  // Rounds until the file is about its size; the name and the last answer close it.
  for (let round = 0; size < bytes - 4_096; round++) {
    const callId = `call_${round}`;
    let at = started + entryIndex * 1_000;
    entry({ type: "message", message: { ...assistant([{ type: "text", text: prose(120, round) }, { type: "toolCall", id: callId, name: "bash", arguments: { command: `rg -n step_${round} src` } }], "toolUse"), timestamp: at } });
    const resultChars = Math.max(200, Math.min(64 * 1024, bytes - size - 2_048));
    at = started + entryIndex * 1_000;
    entry({ type: "message", message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [{ type: "text", text: prose(resultChars, round + index) }], isError: false, timestamp: at } });
  }
  if (name) entry({ type: "session_info", name });
  const lastAt = started + entryIndex * 1_000;
  entry({ type: "message", message: { ...assistant([{ type: "text", text: `Done with task ${index}.` }], "stop"), timestamp: lastAt } });
  return lines.join("");
}

function freeBytes(dir: string): number {
  try {
    const stats = statfsSync(dir);
    return Number(stats.bavail) * Number(stats.bsize);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The history folder (generated on first use, or when its size changed). */
export function historyFixture(fixtures: string, cwd: string, log: (line: string) => void, requestedBytes = HISTORY_BYTES): HistoryFixture {
  mkdirSync(fixtures, { recursive: true });
  let totalBytes = requestedBytes;
  let scaledNote: string | undefined;
  const dir = (bytes: number) => join(fixtures, `history-${HISTORY_FILES}-${Math.round(bytes / 1024 ** 2)}mib`);
  if (!existsSync(`${dir(totalBytes)}.complete`)) {
    const free = freeBytes(fixtures);
    if (free < 2 * totalBytes) {
      totalBytes = Math.max(HISTORY_FILES * 64 * 1024, Math.floor(free / 4));
      scaledNote = `scaled down to ${(totalBytes / 1024 ** 3).toFixed(2)} GiB: ${(free / 1024 ** 3).toFixed(1)} GiB free on ${fixtures}`;
      log(`history: ${scaledNote}`);
    }
  }
  const folder = dir(totalBytes);
  const marker = `${folder}.complete`;
  const average = totalBytes / HISTORY_FILES;
  if (!existsSync(marker)) {
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    log(`generating ${HISTORY_FILES} session files (${(totalBytes / 1024 ** 3).toFixed(2)} GiB) under ${folder} …`);
    for (let index = 0; index < HISTORY_FILES; index++) {
      const bytes = Math.round(average * SIZE_FACTORS[index % SIZE_FACTORS.length]);
      const stamp = new Date(Date.parse("2026-01-01T00:00:00.000Z") + index * 3_600_000).toISOString().replace(/[:.]/g, "-");
      writeFileSync(join(folder, `${stamp}_${sessionId(index)}.jsonl`), sessionText(index, bytes, cwd));
      if ((index + 1) % 500 === 0) log(`history: ${index + 1}/${HISTORY_FILES} files`);
    }
    writeFileSync(marker, "");
  }
  // The target: a named session of average size, in the middle of the folder.
  const targetIndex = 1_503;
  const id = sessionId(targetIndex);
  const path = join(folder, readdirSync(folder).find((name) => name.includes(id))!);
  return {
    dir: folder,
    files: HISTORY_FILES,
    totalBytes,
    ...(scaledNote ? { scaledNote } : {}),
    target: { prefix: id.slice(0, 8), id, path },
    targetName: nameOf(targetIndex)!,
    targetFirstMessage: firstMessageOf(targetIndex),
  };
}
