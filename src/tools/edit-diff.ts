/**
 * The text side of `edit`: encoding details (line endings, BOM), finding the
 * text an edit replaces, applying several edits at once, and the line diff
 * shown to users. Pure functions, no I/O.
 */

// ---------------------------------------------------------------------------
// Encoding details the model never sees

export type LineEnding = "\n" | "\r\n";

const BOM = "\uFEFF";

/** The file's line ending, judged by its first line break. */
export function detectLineEnding(text: string): LineEnding {
  const firstBreak = text.indexOf("\n");
  return firstBreak > 0 && text[firstBreak - 1] === "\r" ? "\r\n" : "\n";
}

export function normalizeToLF(text: string): string {
  return text.replaceAll("\r\n", "\n");
}

export function restoreLineEndings(lfText: string, ending: LineEnding): string {
  return ending === "\r\n" ? lfText.replaceAll("\n", "\r\n") : lfText;
}

export function stripBom(text: string): { bom: string; text: string } {
  return text.startsWith(BOM) ? { bom: BOM, text: text.slice(BOM.length) } : { bom: "", text };
}

// ---------------------------------------------------------------------------
// Finding the text an edit replaces

/**
 * Characters models routinely write differently from the file: typographic
 * quotes and dashes, and unusual spaces. Each maps to one ASCII character, so
 * positions stay aligned with the original text.
 */
const LOOSE_EQUIVALENTS: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u2032": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u2033": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
  "\u00A0": " ",
  "\u2000": " ",
  "\u2001": " ",
  "\u2002": " ",
  "\u2003": " ",
  "\u2004": " ",
  "\u2005": " ",
  "\u2006": " ",
  "\u2007": " ",
  "\u2008": " ",
  "\u2009": " ",
  "\u200A": " ",
  "\u202F": " ",
  "\u205F": " ",
  "\u3000": " ",
};

const TRAILING_WHITESPACE = /[ \t\u00A0\u2000-\u200A\u202F\u205F\u3000]+$/;

/**
 * The text with trailing whitespace dropped from every line and look-alike
 * characters replaced, plus, for each kept character, its index in `text`.
 */
function looseForm(text: string): { text: string; origin: number[] } {
  const origin: number[] = [];
  let loose = "";
  let lineStart = 0;
  for (const line of text.split("\n")) {
    const kept = line.replace(TRAILING_WHITESPACE, "");
    for (let i = 0; i < kept.length; i++) {
      loose += LOOSE_EQUIVALENTS[kept[i]] ?? kept[i];
      origin.push(lineStart + i);
    }
    const newlineAt = lineStart + line.length;
    if (newlineAt < text.length) {
      loose += "\n";
      origin.push(newlineAt);
    }
    lineStart = newlineAt + 1;
  }
  return { text: loose, origin };
}

/** Start indices of every occurrence, overlapping ones included (both make a match ambiguous). */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) found.push(at);
  return found;
}

export type MatchResult =
  | { kind: "unique"; start: number; end: number; loose: boolean }
  | { kind: "none" }
  | { kind: "ambiguous"; count: number };

/**
 * Where `needle` occurs exactly once in `haystack`. Exact matching comes first;
 * only when it finds nothing is a loose match (trailing whitespace, quote and
 * dash variants) tried, and it too must be unique.
 */
export function findUniqueMatch(haystack: string, needle: string): MatchResult {
  const exact = occurrences(haystack, needle);
  if (exact.length === 1) return { kind: "unique", start: exact[0], end: exact[0] + needle.length, loose: false };
  if (exact.length > 1) return { kind: "ambiguous", count: exact.length };

  const looseHaystack = looseForm(haystack);
  const looseNeedle = looseForm(needle).text;
  if (looseNeedle.length === 0) return { kind: "none" };
  const loose = occurrences(looseHaystack.text, looseNeedle);
  if (loose.length > 1) return { kind: "ambiguous", count: loose.length };
  if (loose.length === 0) return { kind: "none" };
  const start = looseHaystack.origin[loose[0]];
  const end = looseHaystack.origin[loose[0] + looseNeedle.length - 1] + 1;
  return { kind: "unique", start, end, loose: true };
}

// ---------------------------------------------------------------------------
// Applying several edits at once

export interface TextEdit {
  oldText: string;
  newText: string;
}

export interface AppliedEdits {
  content: string;
  /** 0-based indices of edits found only by loose matching. */
  looseMatches: number[];
}

/**
 * Applies every edit to `content` (LF text), each located in the original, or
 * throws without applying any. `fileLabel` names the file in error messages.
 */
export function applyEdits(content: string, edits: readonly TextEdit[], fileLabel: string): AppliedEdits {
  if (edits.length === 0) throw new Error("No edits given: edits must contain at least one {oldText, newText}.");
  const label = (i: number) => (edits.length > 1 ? `Edit ${i + 1} of ${edits.length}: ` : "");

  const ranges: { index: number; start: number; end: number; newText: string }[] = [];
  const looseMatches: number[] = [];
  edits.forEach((edit, index) => {
    if (typeof edit?.oldText !== "string" || typeof edit?.newText !== "string") {
      throw new Error(`${label(index)}each edit needs string oldText and newText fields.`);
    }
    const oldText = normalizeToLF(edit.oldText);
    if (oldText.length === 0) {
      throw new Error(`${label(index)}oldText is empty. Give the exact text to replace; to create or rewrite a whole file, use write.`);
    }
    const match = findUniqueMatch(content, oldText);
    if (match.kind === "none") {
      throw new Error(
        `${label(index)}Could not find oldText in ${fileLabel}. It must match the file exactly, including whitespace and indentation. Re-read the file and try again.`,
      );
    }
    if (match.kind === "ambiguous") {
      throw new Error(
        `${label(index)}Found ${match.count} occurrences of oldText in ${fileLabel}. Each oldText must match exactly one place; include more surrounding lines to make it unique.`,
      );
    }
    if (match.loose) looseMatches.push(index);
    ranges.push({ index, start: match.start, end: match.end, newText: normalizeToLF(edit.newText) });
  });

  const ordered = [...ranges].sort((a, b) => a.start - b.start);
  for (let i = 1; i < ordered.length; i++) {
    if (ordered[i].start < ordered[i - 1].end) {
      const [first, second] = [ordered[i - 1].index + 1, ordered[i].index + 1].sort((a, b) => a - b);
      throw new Error(
        `Edits ${first} and ${second} overlap in ${fileLabel}. Merge them into one edit, or make each oldText cover separate text.`,
      );
    }
  }

  // Splice from the end so earlier offsets stay valid.
  let result = content;
  for (const range of ordered.reverse()) {
    result = result.slice(0, range.start) + range.newText + result.slice(range.end);
  }
  return { content: result, looseMatches };
}

// ---------------------------------------------------------------------------
// Line diff (Myers) for showing what changed

export type DiffLine =
  | { kind: "equal"; text: string; oldLine: number; newLine: number }
  | { kind: "delete"; text: string; oldLine: number; newLine: number }
  | { kind: "insert"; text: string; newLine: number };

/**
 * Beyond this many differing lines the Myers trace costs too much memory; the
 * changed block is then shown as removed and re-added wholesale.
 */
const MAX_EDIT_DISTANCE = 1000;

type Step = "=" | "-" | "+";

/**
 * Myers' shortest edit script from `a` to `b`: "=" keeps a line, "-" removes
 * one of `a`, "+" adds one of `b`. Null when more than MAX_EDIT_DISTANCE
 * lines differ.
 */
function myers(a: readonly string[], b: readonly string[]): Step[] | null {
  const n = a.length;
  const m = b.length;
  const maxDistance = Math.min(n + m, MAX_EDIT_DISTANCE);
  // v[offset + k]: furthest x reached on diagonal k (k = x - y).
  const offset = n + m + 1;
  const v = new Int32Array(2 * offset + 1);
  // trace[d] keeps diagonals -d-1..d+1 of v as they were before round d: all backtracking needs.
  const trace: Int32Array[] = [];

  for (let d = 0; d <= maxDistance; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]);
      let x = down ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, n, m);
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], n: number, m: number): Step[] {
  const steps: Step[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const before = trace[d];
    const at = (k: number) => before[k + d + 1];
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      steps.push("=");
      x--;
      y--;
    }
    if (d > 0) steps.push(down ? "+" : "-");
    x = prevX;
    y = prevY;
  }
  return steps.reverse();
}

/** The line-by-line diff of two texts' lines (equal, deleted, inserted), in order; also what unified patches are built from. */
export function diffLines(oldLines: readonly string[], newLines: readonly string[]): DiffLine[] {
  // Edits touch a small part of a file: diff only what lies between the common start and end.
  let prefix = 0;
  while (prefix < oldLines.length && prefix < newLines.length && oldLines[prefix] === newLines[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < oldLines.length - prefix &&
    suffix < newLines.length - prefix &&
    oldLines[oldLines.length - 1 - suffix] === newLines[newLines.length - 1 - suffix]
  ) {
    suffix++;
  }
  const oldMiddle = oldLines.slice(prefix, oldLines.length - suffix);
  const newMiddle = newLines.slice(prefix, newLines.length - suffix);
  const middle = myers(oldMiddle, newMiddle) ?? [
    ...oldMiddle.map((): Step => "-"),
    ...newMiddle.map((): Step => "+"),
  ];
  const steps: Step[] = [...Array<Step>(prefix).fill("="), ...middle, ...Array<Step>(suffix).fill("=")];

  const lines: DiffLine[] = [];
  let oldIndex = 0;
  let newIndex = 0;
  for (const step of steps) {
    if (step === "=") {
      lines.push({ kind: "equal", text: oldLines[oldIndex], oldLine: oldIndex + 1, newLine: newIndex + 1 });
      oldIndex++;
      newIndex++;
    } else if (step === "-") {
      lines.push({ kind: "delete", text: oldLines[oldIndex], oldLine: oldIndex + 1, newLine: newIndex + 1 });
      oldIndex++;
    } else {
      lines.push({ kind: "insert", text: newLines[newIndex], newLine: newIndex + 1 });
      newIndex++;
    }
  }
  return lines;
}

export interface TextDiff {
  /**
   * One line per shown line: `+` added, `-` removed, ` ` context, then the
   * line number (new file for added and context lines, old file for removed
   * ones), a space and the text. A `...` line marks skipped unchanged lines.
   */
  diff: string;
  /** 1-based line in the new text where the first change is; undefined when nothing changed. */
  firstChangedLine?: number;
}

/** A diff of two LF texts showing each change with `contextLines` unchanged lines around it. */
export function generateDiff(oldText: string, newText: string, contextLines = 3): TextDiff {
  const oldLines = oldText.split("\n");
  const newLines = newText.split("\n");
  const lines = diffLines(oldLines, newLines);
  const changed = lines.flatMap((line, i) => (line.kind === "equal" ? [] : [i]));
  if (changed.length === 0) return { diff: "" };

  // Mark which lines are within reach of a change.
  const shown = new Array<boolean>(lines.length).fill(false);
  for (const i of changed) {
    for (let j = Math.max(0, i - contextLines); j <= Math.min(lines.length - 1, i + contextLines); j++) shown[j] = true;
  }

  const width = String(Math.max(oldLines.length, newLines.length)).length;
  const gap = ` ${" ".repeat(width)} ...`;
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!shown[i]) {
      if (out[out.length - 1] !== gap) out.push(gap);
      continue;
    }
    const line = lines[i];
    const sign = line.kind === "insert" ? "+" : line.kind === "delete" ? "-" : " ";
    const number = line.kind === "delete" ? line.oldLine : line.newLine;
    out.push(`${sign}${String(number).padStart(width)} ${line.text}`);
  }
  // A deletion at the very end has no line after it; point at the last line instead.
  const firstChangedLine = Math.min(lines[changed[0]].newLine, newLines.length);
  return { diff: out.join("\n"), firstChangedLine };
}
