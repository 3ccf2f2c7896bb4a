/**
 * Collects a command's streamed output with bounded memory. It keeps only a
 * rolling tail (enough for the tail-truncated view the model sees) plus
 * running totals; once the output outgrows the truncation limits, everything
 * is also written to a temp file so the model can still read all of it.
 *
 * Lines are kept as a terminal would end up showing them: a carriage return
 * moves back to the line's start and later text overwrites it, and "erase to
 * the end of the line" (CSI K) erases. A progress display (git clone, curl,
 * a download bar) that redraws one line a few hundred times leaves its last
 * state only — the model pays for what it needs to see, not for every frame.
 */
import { closeSync, writeSync } from "node:fs";
import { ESCAPE_SEQUENCE } from "./inert-text.ts";
import { MAX_FULL_OUTPUT_BYTES, newTempFilePath, openTempFile } from "./temp-files.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateTail, type TruncationResult } from "./truncate.ts";

export interface OutputCollectorOptions {
  maxLines?: number;
  maxBytes?: number;
  /** Start of the temp file's name; a random part and `.log` follow. */
  tempFilePrefix?: string;
  /** Most bytes the full-output file keeps (MAX_FULL_OUTPUT_BYTES by default). */
  maxFileBytes?: number;
}

export interface OutputSnapshot {
  /** The output's tail, within the limits. */
  text: string;
  /** Present only when the output was cut. */
  truncation?: TruncationResult;
  /** Where the complete output is, once it outgrew the limits. */
  fullOutputPath?: string;
}

// Escape sequences (colors, cursor moves, window titles) mean nothing to a model. Not
// inertText: output arrives in chunks, and an escape cut by a chunk boundary is held back
// until it is complete (holdBackUnfinishedEscape), so the same pattern is also needed
// anchored; and a `\r` is applied across chunks here, overwriting as a terminal does, where
// inertText (one whole text) keeps what follows the last one.
const COMPLETE_ESCAPE_AT_START = new RegExp(`^(?:${ESCAPE_SEQUENCE.source})`);
// Every control character but tab, newline, `\r` and the two erase marks below (the line
// renderer applies them); a lone ESC too, once the whole sequences are gone.
const CONTROL_CHARACTERS = /[\x00-\x08\x0b\x0c\x10-\x1f\x7f]/g;
// Erase in line: to the end (CSI K, CSI 0K) or the whole line (CSI 2K). Kept through
// sanitizing as one private character each, which the line renderer applies.
const ERASE_IN_LINE = /\x1b\[([02]?)K/g;
const ERASE_TO_END = "\x0e";
const ERASE_LINE = "\x0f";
// What makes a chunk need the line renderer rather than a plain append.
const REWRITES_LINE = /[\r\x0e\x0f]/;
const LINE_PIECES = /([\r\n\x0e\x0f])/;
/** An unfinished escape longer than this is garbage, not a sequence split across chunks. */
const MAX_PENDING_ESCAPE = 256;

export class OutputCollector {
  private readonly maxLines: number;
  private readonly maxBytes: number;
  private readonly tempFilePrefix: string;
  private readonly decoder = new TextDecoder("utf-8");
  /** The end of an escape sequence cut by a chunk boundary, completed by the next chunk. */
  private pendingEscape = "";
  /** Finished lines (each ends with a newline), the older ones trimmed away. */
  private tail = "";
  /** The line being written, not yet ended by a newline: a carriage return may still rewrite it. */
  private line = "";
  /** Where in `line` the next text goes; undefined at its end. */
  private column: number | undefined;
  /** Whether `tail` has lost the start of the output. */
  private tailTrimmed = false;
  /** Bytes of the finished lines (all of them, also those trimmed from `tail`). */
  private finishedBytes = 0;
  private newlineCount = 0;
  private fileDescriptor: number | undefined;
  private filePath: string | undefined;
  /** Bytes written to the full-output file; it stops at MAX_FULL_OUTPUT_BYTES. */
  private fileBytes = 0;
  private readonly maxFileBytes: number;
  private cachedSnapshot: OutputSnapshot | undefined;

  constructor(options: OutputCollectorOptions = {}) {
    this.maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.tempFilePrefix = options.tempFilePrefix ?? "xcsh-bash-";
    this.maxFileBytes = options.maxFileBytes ?? MAX_FULL_OUTPUT_BYTES;
  }

  /** Adds raw bytes as they arrive from the process. */
  push(chunk: Uint8Array): void {
    const decoded = this.pendingEscape + this.decoder.decode(chunk, { stream: true });
    this.pendingEscape = "";
    this.append(this.holdBackUnfinishedEscape(decoded));
  }

  /** Flushes what was held back and closes the full-output file. Call once, when the process is done. */
  finish(): void {
    const rest = this.pendingEscape + this.decoder.decode();
    this.pendingEscape = "";
    this.append(rest);
    if (this.fileDescriptor !== undefined && this.line.length > 0) this.writeToFile(this.line);
    if (this.fileDescriptor !== undefined) {
      closeSync(this.fileDescriptor);
      this.fileDescriptor = undefined;
    }
  }

  get fullOutputPath(): string | undefined {
    return this.filePath;
  }

  /** The tail-truncated view of everything collected so far. */
  snapshot(): OutputSnapshot {
    if (this.cachedSnapshot) return this.cachedSnapshot;
    const truncation = truncateTail(this.tail + this.line, { maxLines: this.maxLines, maxBytes: this.maxBytes });
    if (this.tailTrimmed) {
      // The view is computed on the tail only; the totals must describe the whole output.
      truncation.totalBytes = this.totalBytes();
      truncation.totalLines = this.totalLines();
    }
    this.cachedSnapshot = {
      text: truncation.content,
      ...(truncation.truncated ? { truncation } : {}),
      ...(this.filePath !== undefined ? { fullOutputPath: this.filePath } : {}),
    };
    return this.cachedSnapshot;
  }

  private append(raw: string): void {
    // A carriage return cut from its newline by a chunk boundary only moves to the line's
    // start: the newline after it then ends the line unchanged, as CRLF does.
    const text = sanitize(raw);
    if (text.length === 0) return;
    this.cachedSnapshot = undefined;
    const finished = REWRITES_LINE.test(text) || this.column !== undefined ? this.render(text) : this.appendPlain(text);
    if (finished.length > 0) {
      this.tail += finished;
      this.finishedBytes += Buffer.byteLength(finished, "utf8");
    }

    if (this.fileDescriptor !== undefined) {
      if (finished.length > 0) this.writeToFile(finished);
    } else if (this.exceedsLimits() && this.filePath === undefined) {
      // The tail is only ever trimmed after this point, so it still holds every finished line here.
      this.openFullOutputFile();
      this.writeToFile(this.tail);
    }
    this.trimTail();
  }

  /** Appends text that rewrites nothing; returns the lines it finished. */
  private appendPlain(text: string): string {
    const lastNewline = text.lastIndexOf("\n");
    if (lastNewline === -1) {
      this.line += text;
      return "";
    }
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.newlineCount++;
    const finished = this.line + text.slice(0, lastNewline + 1);
    this.line = text.slice(lastNewline + 1);
    return finished;
  }

  /** Applies carriage returns and line erases as a terminal does; returns the lines the text finished. */
  private render(text: string): string {
    let finished = "";
    let line = this.line;
    let column = this.column ?? line.length;
    for (const piece of text.split(LINE_PIECES)) {
      if (piece === "") continue;
      if (piece === "\n") {
        finished += line + "\n";
        this.newlineCount++;
        line = "";
        column = 0;
      } else if (piece === "\r") {
        column = 0;
      } else if (piece === ERASE_TO_END) {
        line = line.slice(0, column);
      } else if (piece === ERASE_LINE) {
        line = " ".repeat(column);
      } else {
        line = line.slice(0, column) + piece + line.slice(column + piece.length);
        column += piece.length;
      }
    }
    this.line = line;
    this.column = column === line.length ? undefined : column;
    return finished;
  }

  /**
   * Keeps back, for the next chunk, an escape sequence the chunk ends inside: the first escape
   * near the end that is not a whole sequence. Not just the last escape: an OSC ended by
   * `ESC \` and cut between the two has an escape of its own at the end.
   */
  private holdBackUnfinishedEscape(text: string): string {
    const windowStart = Math.max(0, text.length - MAX_PENDING_ESCAPE);
    for (let escapeStart = text.indexOf("\x1b", windowStart); escapeStart !== -1; ) {
      const whole = COMPLETE_ESCAPE_AT_START.exec(text.slice(escapeStart));
      if (!whole) {
        this.pendingEscape = text.slice(escapeStart);
        return text.slice(0, escapeStart);
      }
      escapeStart = text.indexOf("\x1b", escapeStart + whole[0].length);
    }
    return text;
  }

  private totalLines(): number {
    // Counted the way truncateTail counts: a final newline ends a line, it does not start one.
    return this.newlineCount + (this.newlineCount > 0 && this.line.length === 0 ? 0 : 1);
  }

  private totalBytes(): number {
    return this.finishedBytes + Buffer.byteLength(this.line, "utf8");
  }

  private exceedsLimits(): boolean {
    return this.totalBytes() > this.maxBytes || this.totalLines() > this.maxLines;
  }

  private openFullOutputFile(): void {
    this.filePath = newTempFilePath(this.tempFilePrefix);
    this.fileDescriptor = openTempFile(this.filePath);
  }

  /** Appends to the full-output file until it reaches its cap, then closes it with a note saying so. */
  private writeToFile(text: string): void {
    const size = Buffer.byteLength(text, "utf8");
    if (this.fileBytes + size <= this.maxFileBytes) {
      writeSync(this.fileDescriptor!, text);
      this.fileBytes += size;
      return;
    }
    writeSync(this.fileDescriptor!, `\n[xcsh: output beyond ${formatSize(this.maxFileBytes)} was not kept]\n`);
    closeSync(this.fileDescriptor!);
    this.fileDescriptor = undefined;
  }

  /**
   * Drops the start of the tail when it grows large. The kept part stays longer
   * than maxBytes (in characters, so also in bytes), which guarantees that
   * truncateTail stops before reaching the cut first line: the view of the tail
   * is the view of the whole output.
   */
  private trimTail(): void {
    const keep = this.maxBytes * 2;
    if (this.line.length > keep * 2) {
      // One endless line (a minified file, a progress bar without returns): what the view can
      // show of it is its end, so its start is finished here — written to the file, counted, let go.
      let cut = this.line.length - keep;
      // Do not cut a surrogate pair in two.
      const code = this.line.charCodeAt(cut);
      if (code >= 0xdc00 && code <= 0xdfff) cut++;
      const head = this.line.slice(0, cut);
      this.line = this.line.slice(head.length);
      if (this.column !== undefined) this.column = Math.max(0, this.column - head.length);
      this.finishedBytes += Buffer.byteLength(head, "utf8");
      if (this.fileDescriptor !== undefined) this.writeToFile(head);
      this.tail = "";
      this.tailTrimmed = true;
      return;
    }
    if (this.tail.length <= keep * 2) return;
    let start = this.tail.length - keep;
    // Do not start in the middle of a surrogate pair.
    const code = this.tail.charCodeAt(start);
    if (code >= 0xdc00 && code <= 0xdfff) start++;
    this.tail = this.tail.slice(start);
    this.tailTrimmed = true;
  }
}

function sanitize(text: string): string {
  return text
    .replace(/[\x0e\x0f]/g, "")
    .replace(ERASE_IN_LINE, (_, mode: string) => (mode === "2" ? ERASE_LINE : ERASE_TO_END))
    .replace(ESCAPE_SEQUENCE, "")
    .replace(CONTROL_CHARACTERS, "")
    .replace(/\r\n/g, "\n");
}
