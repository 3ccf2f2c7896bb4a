/**
 * The diff helpers pi's coding-agent package exports, on xcsh's own line diff
 * (src/tools/edit-diff.ts, what the edit tool reports): `generateDiffString` (the
 * numbered diff the edit tool shows), `generateUnifiedPatch` (a standard unified
 * patch, as `git apply` and `patch` read it) and `renderDiff` (a numbered diff in
 * the theme's diff colours).
 */
import { diffLines, generateDiff, normalizeToLF, type DiffLine } from "../tools/edit-diff.ts";
import { helperTheme } from "./tui-helpers.ts";

function checkText(value: unknown, what: string): string {
  if (typeof value !== "string") throw new TypeError(`${what} must be a string`);
  return value;
}

/** Unchanged lines shown around each change unless told otherwise (as pi's helpers do). */
const DEFAULT_CONTEXT_LINES = 4;

function checkContext(contextLines: unknown): number {
  if (contextLines === undefined) return DEFAULT_CONTEXT_LINES;
  if (typeof contextLines !== "number" || !Number.isInteger(contextLines) || contextLines < 0) {
    throw new TypeError("contextLines must be a whole number of lines (0 or more)");
  }
  return contextLines;
}

/** The edit tool's numbered diff and the first changed line of the new text. */
export function generateDiffString(oldContent: string, newContent: string, contextLines?: number): { diff: string; firstChangedLine: number | undefined } {
  let oldText = normalizeToLF(checkText(oldContent, "oldContent"));
  let newText = normalizeToLF(checkText(newContent, "newContent"));
  // A final newline on both sides ends the last line; it is not an empty line to show.
  if (oldText.endsWith("\n") && newText.endsWith("\n")) {
    oldText = oldText.slice(0, -1);
    newText = newText.slice(0, -1);
  }
  const result = generateDiff(oldText, newText, checkContext(contextLines));
  return { diff: result.diff, firstChangedLine: result.firstChangedLine };
}

/** Lines of a text as a patch counts them: a final newline ends the last line rather than starting an empty one. */
function patchLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

const oldLineOf = (line: DiffLine): number => (line.kind === "insert" ? 0 : line.oldLine);

/** The hunk header's "start,count"; an empty side starts at the line before it. */
function range(start: number, count: number): string {
  return `${count === 0 ? Math.max(start - 1, 0) : start},${count}`;
}

const NO_NEWLINE = "\\ No newline at end of file";

/** A unified patch of one file: just the two file lines when nothing changed. */
export function generateUnifiedPatch(path: string, oldContent: string, newContent: string, contextLines?: number): string {
  checkText(path, "path");
  const context = checkContext(contextLines);
  const oldText = normalizeToLF(checkText(oldContent, "oldContent"));
  const newText = normalizeToLF(checkText(newContent, "newContent"));
  const oldLines = patchLines(oldText);
  const newLines = patchLines(newText);
  const lines = diffLines(oldLines, newLines);
  const changed = lines.flatMap((line, index) => (line.kind === "equal" ? [] : [index]));
  const out = [`--- ${path}`, `+++ ${path}`];
  if (changed.length === 0) return out.join("\n") + "\n";
  // The last line of a side without a final newline is marked, as patch(1) expects.
  const oldOpenEnd = oldText !== "" && !oldText.endsWith("\n");
  const newOpenEnd = newText !== "" && !newText.endsWith("\n");

  // Changes closer than twice the context share a hunk.
  const hunks: { from: number; to: number }[] = [];
  for (const index of changed) {
    const from = Math.max(0, index - context);
    const to = Math.min(lines.length - 1, index + context);
    const last = hunks[hunks.length - 1];
    if (last && from <= last.to + 1) last.to = to;
    else hunks.push({ from, to });
  }

  for (const { from, to } of hunks) {
    const slice = lines.slice(from, to + 1);
    const oldCount = slice.filter((line) => line.kind !== "insert").length;
    const newCount = slice.filter((line) => line.kind !== "delete").length;
    const oldStart = slice.find((line) => line.kind !== "insert") ? oldLineOf(slice.find((line) => line.kind !== "insert")!) : lines[from]!.newLine;
    const newStart = slice.find((line) => line.kind !== "delete")?.newLine ?? lines[from]!.newLine;
    out.push(`@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@`);
    for (const line of slice) {
      out.push(`${line.kind === "insert" ? "+" : line.kind === "delete" ? "-" : " "}${line.text}`);
      const lastOld = line.kind !== "insert" && line.oldLine === oldLines.length && oldOpenEnd;
      const lastNew = line.kind !== "delete" && line.newLine === newLines.length && newOpenEnd;
      if (lastOld || lastNew) out.push(NO_NEWLINE);
    }
  }
  return out.join("\n") + "\n";
}

/** A numbered diff (as generateDiffString makes) with added, removed and context lines in the theme's colours. */
export function renderDiff(diffText: string, _options?: unknown): string {
  const theme = helperTheme();
  return checkText(diffText, "diffText")
    .split("\n")
    .map((line) => {
      if (line.startsWith("+")) return theme.fg("toolDiffAdded", line);
      if (line.startsWith("-")) return theme.fg("toolDiffRemoved", line);
      return theme.fg("toolDiffContext", line);
    })
    .join("\n");
}
