/**
 * grep's fast paths over a whole file, for searches without context lines:
 * the lines holding a required literal are found in the file's bytes and only
 * they are decoded and tested; without such a literal, the regex is run once
 * over the whole text, and only the lines that hold a match are cut out. Splitting a file
 * into lines and testing each one costs an allocation per line and a regex
 * call per line, however few lines match — most of a search's time on real
 * code, where candidate files are long and matches are few.
 *
 * Each path gives exactly the lines the per-line test would (grep-search.ts
 * decides when a path applies): a line holds a match when the line alone
 * matches, with its trailing `\r` left off.
 */
import type { FileMatches } from "./grep-search.ts";

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Skips a UTF-8 byte order mark at the start of the file: it is not text. */
function textStart(bytes: Uint8Array): number {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

/**
 * The lines that hold `needle` — bytes every matching line contains, with no
 * line terminator — found in the file's bytes; each is decoded alone and, when
 * `matchesLine` is given (a regex), tested. Lines without the needle cannot
 * match, so for a rare needle almost nothing of the file is ever decoded.
 * Decoding a line alone gives the same text as decoding the file: `\n` is
 * never part of a multi-byte UTF-8 sequence.
 */
export function scanNeedleLines(
  bytes: Buffer,
  needle: Buffer,
  matchesLine: ((line: string) => boolean) | undefined,
  displayPath: string,
  maxMatches: number,
): FileMatches | undefined {
  const start = textStart(bytes);
  let hit = bytes.indexOf(needle, start);
  if (hit === -1) return undefined;
  const matchIndexes: number[] = [];
  const lines: Record<number, string> = {};
  let line = 0;
  let lineStart = start;
  while (hit !== -1 && matchIndexes.length < maxMatches) {
    // Count the lines passed on the way to the hit.
    let newline = bytes.indexOf(NEWLINE, lineStart);
    while (newline !== -1 && newline < hit) {
      line++;
      lineStart = newline + 1;
      newline = bytes.indexOf(NEWLINE, lineStart);
    }
    const lineEnd = newline === -1 ? bytes.length : newline;
    const textEnd = lineEnd > lineStart && bytes[lineEnd - 1] === CARRIAGE_RETURN ? lineEnd - 1 : lineEnd;
    const text = bytes.toString("utf8", lineStart, textEnd);
    if (!matchesLine || matchesLine(text)) {
      matchIndexes.push(line);
      lines[line] = text;
    }
    if (newline === -1) break;
    line++;
    lineStart = newline + 1;
    hit = bytes.indexOf(needle, lineStart);
  }
  if (matchIndexes.length === 0) return undefined;
  return { displayPath, lineCount: line + 1, matchIndexes, lines };
}

/**
 * A regex run over the whole text with flags `g` and `m` (so `^`/`$` still
 * mean line boundaries). A match that spans a newline (`\s+` can) is checked
 * against its first line alone; a line found this way is the same as testing
 * each line, provided the pattern has no lookaround (which could look past a
 * line's end) and the text holds no `\r` (which the per-line test strips).
 */
export function scanText(body: string, scan: RegExp, matchesLine: (line: string) => boolean, displayPath: string, maxMatches: number): FileMatches | undefined {
  const matchIndexes: number[] = [];
  const lines: Record<number, string> = {};
  let line = 0;
  let lineStart = 0;
  scan.lastIndex = 0;
  while (matchIndexes.length < maxMatches) {
    const match = scan.exec(body);
    // An empty match after a final newline is past the last line.
    if (match === null || (match.index === body.length && body.endsWith("\n"))) break;
    let newline = body.indexOf("\n", lineStart);
    while (newline !== -1 && newline < match.index) {
      line++;
      lineStart = newline + 1;
      newline = body.indexOf("\n", lineStart);
    }
    const lineEnd = newline === -1 ? body.length : newline;
    const text = body.slice(lineStart, lineEnd);
    if (!match[0].includes("\n") || matchesLine(text)) {
      matchIndexes.push(line);
      lines[line] = text;
    }
    // One match per line: go on from the next line, which a final newline does not start.
    if (newline === -1 || newline + 1 === body.length) break;
    line++;
    lineStart = newline + 1;
    scan.lastIndex = lineStart;
  }
  if (matchIndexes.length === 0) return undefined;
  return { displayPath, lineCount: line + 1, matchIndexes, lines };
}
