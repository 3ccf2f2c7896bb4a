/**
 * Keeping tool output within what a model can usefully read: at most
 * DEFAULT_MAX_LINES lines and DEFAULT_MAX_BYTES bytes, whichever comes first.
 * Head truncation (file reads, search results) keeps the start; tail truncation
 * (command output) keeps the end, where errors and results usually are.
 */

export const DEFAULT_MAX_LINES = 2000;
export const DEFAULT_MAX_BYTES = 50 * 1024;
/** Longest line grep shows before cutting it. */
export const GREP_MAX_LINE_LENGTH = 500;

export interface TruncationResult {
  content: string;
  truncated: boolean;
  truncatedBy: "lines" | "bytes" | null;
  totalLines: number;
  totalBytes: number;
  /** Complete lines kept. */
  outputLines: number;
  outputBytes: number;
  /** Tail truncation only: the kept first line is the end of a longer line. */
  lastLinePartial: boolean;
  /** Head truncation only: the very first line alone is over the byte limit. */
  firstLineExceedsLimit: boolean;
  maxLines: number;
  maxBytes: number;
}

export interface TruncationOptions {
  maxLines?: number;
  maxBytes?: number;
}

const byteLength = (text: string) => Buffer.byteLength(text, "utf8");

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes}B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)}KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)}MB`;
}

function splitLines(content: string): string[] {
  const lines = content.split("\n");
  // A trailing newline ends the last line; it does not start another.
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function result(
  content: string,
  fields: Partial<TruncationResult> & Pick<TruncationResult, "totalLines" | "totalBytes" | "maxLines" | "maxBytes">,
): TruncationResult {
  return {
    content,
    truncated: false,
    truncatedBy: null,
    outputLines: fields.totalLines,
    outputBytes: byteLength(content),
    lastLinePartial: false,
    firstLineExceedsLimit: false,
    ...fields,
  };
}

/** Keeps the first lines that fit. Never cuts a line: an oversize first line gives empty content. */
export function truncateHead(content: string, options: TruncationOptions = {}): TruncationResult {
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const totalBytes = byteLength(content);
  const lines = splitLines(content);
  const totals = { totalLines: lines.length, totalBytes, maxLines, maxBytes };
  if (lines.length <= maxLines && totalBytes <= maxBytes) return result(content, totals);

  const kept: string[] = [];
  let bytes = 0;
  let truncatedBy: "lines" | "bytes" = "lines";
  for (const line of lines) {
    if (kept.length >= maxLines) break;
    const cost = byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + cost > maxBytes) {
      truncatedBy = "bytes";
      break;
    }
    kept.push(line);
    bytes += cost;
  }
  const text = kept.join("\n");
  return result(text, {
    ...totals,
    truncated: true,
    truncatedBy,
    outputLines: kept.length,
    firstLineExceedsLimit: kept.length === 0 && lines.length > 0,
  });
}

/** Keeps the last lines that fit. If the last line alone is too big, keeps its end. */
export function truncateTail(content: string, options: TruncationOptions = {}): TruncationResult {
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const totalBytes = byteLength(content);
  const lines = splitLines(content);
  const totals = { totalLines: lines.length, totalBytes, maxLines, maxBytes };
  if (lines.length <= maxLines && totalBytes <= maxBytes) return result(content, totals);

  const kept: string[] = [];
  let bytes = 0;
  let truncatedBy: "lines" | "bytes" = "lines";
  let lastLinePartial = false;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (kept.length >= maxLines) break;
    const line = lines[i];
    const cost = byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + cost > maxBytes) {
      truncatedBy = "bytes";
      if (kept.length === 0) {
        // Keep the end of an oversize last line rather than nothing at all.
        const tail = Buffer.from(line, "utf8").subarray(-maxBytes).toString("utf8").replace(/^\uFFFD+/, "");
        kept.unshift(tail);
        lastLinePartial = true;
      }
      break;
    }
    kept.unshift(line);
    bytes += cost;
  }
  return result(kept.join("\n"), {
    ...totals,
    truncated: true,
    truncatedBy,
    outputLines: kept.length,
    lastLinePartial,
  });
}

/** Cuts one line to `maxChars`, marking the cut. */
export function truncateLine(line: string, maxChars = GREP_MAX_LINE_LENGTH): { text: string; wasTruncated: boolean } {
  if (line.length <= maxChars) return { text: line, wasTruncated: false };
  return { text: `${line.slice(0, maxChars)}... [truncated]`, wasTruncated: true };
}
