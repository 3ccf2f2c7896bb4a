/**
 * How a session's file relates to its entries in memory, and the writes that keep it so:
 * the first entry creates the file (with the header), later ones are appended as one
 * complete line each, and a file that is out of date as a whole (migrated, empty, torn
 * first write) is replaced atomically. SessionManager owns the entries; this owns the file.
 */
import { appendEntryLine, createSessionFile, cutTornTail, makeSessionFilePrivate, sessionWriteProblem, writeSessionFileAtomically, type TornTail } from "./session-file.ts";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./types.ts";

/**
 * - memory: an in-memory session, nothing is written;
 * - unwritten: no file yet, created with the header and first entry;
 * - rewrite: the file is out of date as a whole and is replaced on the next append;
 * - append: the file holds every entry, new ones are appended.
 */
type DiskState = "memory" | "unwritten" | "rewrite" | "append";

export class SessionWriter {
  private constructor(
    readonly file: string | undefined,
    private state: DiskState,
    /** The loaded file does not end with a newline: the next append starts with one. */
    private needsNewline = false,
    /** A torn last line of the loaded file, cut off before the first append. */
    private tornTail?: TornTail,
    /** A file xcsh did not create in this run may be 0644 (earlier versions): made private before the first append. */
    private checkedMode = state !== "append",
  ) {}

  static inMemory(): SessionWriter {
    return new SessionWriter(undefined, "memory");
  }

  /** A file created with the first entry; `replace`: an existing empty or torn file is rewritten whole then. */
  static newFile(file: string, replace = false): SessionWriter {
    return new SessionWriter(file, replace ? "rewrite" : "unwritten");
  }

  /** A file loaded whole: new entries are appended to it. */
  static loaded(file: string, needsNewline: boolean, tornTail: TornTail | undefined): SessionWriter {
    return new SessionWriter(file, "append", needsNewline, tornTail);
  }

  /** Why the file could not be written (a read-only home), else undefined; in memory, undefined. */
  writeProblem(): string | undefined {
    return this.state === "memory" || this.file === undefined ? undefined : sessionWriteProblem(this.file);
  }

  /** Writes `entry`, appended after `before` (the entries already in memory). `warn` hears of a torn line moved aside. */
  write(header: SessionHeader, before: readonly SessionEntry[], entry: SessionEntry, warn: (warning: string) => void): void {
    const file = this.file;
    if (this.state === "memory" || file === undefined) return;
    if (this.tornTail && this.state !== "unwritten") this.cutTornTail(file, warn);
    if (this.state === "unwritten") createSessionFile(file, header, entry);
    else if (this.state === "rewrite") writeSessionFileAtomically(file, header, [...before, entry]);
    else {
      if (!this.checkedMode) makeSessionFilePrivate(file);
      appendEntryLine(file, entry, this.needsNewline);
    }
    this.checkedMode = true;
    this.state = "append";
    this.needsNewline = false;
  }

  /** Writes the whole session at once (fork, branch extraction). */
  writeAll(header: SessionHeader, entries: readonly SessionEntry[]): void {
    if (this.file === undefined || entries.length === 0) return;
    writeSessionFileAtomically(this.file, header, entries);
    this.state = "append";
  }

  /** A migrated file is rewritten as the current version at once; if that fails, with the next append. */
  rewriteAfterMigration(header: SessionHeader, entries: readonly SessionEntry[], warn: (warning: string) => void): void {
    const file = this.file;
    if (file === undefined) return;
    try {
      if (this.tornTail) this.cutTornTail(file, warn);
      writeSessionFileAtomically(file, header, entries);
      this.needsNewline = false;
    } catch (error) {
      this.state = "rewrite";
      warn(`${file}: migrated to v${CURRENT_SESSION_VERSION} but could not be rewritten (${(error as Error).message}); retrying with the next append`);
    }
  }

  /** The torn line was never acknowledged: moved aside, so the next entry follows the last complete one. */
  private cutTornTail(file: string, warn: (warning: string) => void): void {
    const tail = this.tornTail!;
    this.tornTail = undefined;
    warn(`${file}: the incomplete last line was moved to ${cutTornTail(file, tail)} before appending`);
  }
}
