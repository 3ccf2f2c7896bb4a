/**
 * A session: its header, its tree of entries, the current leaf, and the file
 * it lives in (seed 002's SessionManager API, which extensions call).
 *
 * Appending makes the new entry a child of the leaf and moves the leaf to it.
 * Each append is written at once as one complete line, so a crash loses
 * nothing that an append had returned. The file itself is created with the
 * first entry: a run that never appends leaves no empty session file behind.
 *
 * Old files (v1, v2) are migrated on load and rewritten as v3 at once,
 * atomically (temp file + rename): appending v3 entries to a file that still
 * reads as v1 would make it unreadable as either. If the rewrite fails (a
 * read-only file), the session loads anyway and the rewrite is retried with
 * the next append.
 */
import { dirname, join, resolve } from "node:path";
import { keepFromCommands } from "../sandbox/kept-folders.ts";
import type { ImageContent, TextContent, Usage } from "../ai/types.ts";
import type { AgentMessage } from "../agent/types.ts";
import { buildContextProjection, buildDisplayItems, type ContextMessage } from "./build-context.ts";
import { newContextEdit } from "./context-edits.ts";
import { writeOpeningEntries, type OpeningState } from "./opening-entries.ts";
import { buildContextEntries, buildSessionProjection, type SessionProjection } from "./projection.ts";
import { LiveContextEdits } from "./live-context-edits.ts";
import { isUsage } from "./entry-shapes.ts";
import { EntryIndex } from "./entry-index.ts";
import { generateEntryId, generateSessionId } from "./ids.ts";
import { loadSessionFile } from "./load-session.ts";
import { SessionFileError } from "./session-file.ts";
import { SessionWriter } from "./session-writer.ts";
import { findMostRecentSession, listAllSessions, listSessions } from "./session-list.ts";
import { getDefaultSessionDir, sessionFileName } from "./session-paths.ts";
import {
  CURRENT_SESSION_VERSION,
  type BranchSummaryEntry,
  type CompactionEntry,
  type ContextEditEntry,
  type CustomEntry,
  type CustomMessageEntry,
  type LabelEntry,
  type ModelChangeEntry,
  type NewSessionOptions,
  type SessionContext,
  type SessionEntry,
  type SessionHeader,
  type SessionInfo,
  type SessionInfoEntry,
  type SessionListProgress,
  type SessionMessageEntry,
  type SessionTreeNode,
  type ThinkingLevelChangeEntry,
  type UsageEntry,
} from "./types.ts";

/** Roles that have their own entry types and must not be appended as plain messages. */
const ROLES_WITH_OWN_ENTRIES = new Map([
  ["compactionSummary", "appendCompaction()"],
  ["branchSummary", "branchWithSummary()"],
]);

/** Drops keys whose value is undefined, so in-memory entries equal what a reload gives. */
function withoutUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as Array<keyof T>) if (value[key] === undefined) delete value[key];
  return value;
}

export class SessionManager {
  private cwd: string;
  private sessionDir: string;
  private persisted: boolean;
  private header!: SessionHeader;
  private index = new EntryIndex();
  private leafId: string | null = null;
  /** The session's file, and how it relates to the entries in memory. */
  private writer = SessionWriter.inMemory();
  private loadWarnings: string[] = [];
  /** Which entry each message of a live transcript comes from, to apply later context edits to it. */
  private liveEdits = new LiveContextEdits();

  private constructor(cwd: string, sessionDir: string, persisted: boolean) {
    this.cwd = resolve(cwd);
    this.sessionDir = sessionDir;
    this.persisted = persisted;
    // xcsh appends to files here all session long: no sandboxed command may swap them for symlinks.
    if (persisted) keepFromCommands(sessionDir);
  }

  // ---- creating and opening -------------------------------------------------

  /** A new session for `cwd`, stored in `sessionDir` (default: the project's folder under the config root). */
  static create(cwd: string, sessionDir?: string): SessionManager {
    const manager = new SessionManager(cwd, resolve(sessionDir ?? getDefaultSessionDir(cwd)), true);
    manager.newSession();
    return manager;
  }

  /**
   * An existing session file. A path that does not exist yet becomes a new
   * session written there. New sessions started later (`newSession`) go to
   * `sessionDir`, by default the folder of `path`. `cwdOverride` replaces the
   * working directory recorded in the file. Throws SessionFileError for a file
   * that is not a readable session.
   */
  static open(path: string, sessionDir?: string, cwdOverride?: string): SessionManager {
    const file = resolve(path);
    const manager = new SessionManager(cwdOverride ?? process.cwd(), resolve(sessionDir ?? dirname(file)), true);
    keepFromCommands(dirname(file));
    manager.setSessionFile(file);
    if (cwdOverride !== undefined) manager.cwd = resolve(cwdOverride);
    return manager;
  }

  /** The most recently modified session of `cwd`, or a new one when there is none. */
  static continueRecent(cwd: string, sessionDir?: string): SessionManager {
    const dir = resolve(sessionDir ?? getDefaultSessionDir(cwd));
    const recent = findMostRecentSession(dir);
    return recent ? SessionManager.open(recent, dir) : SessionManager.create(cwd, dir);
  }

  /** A session that is never written to disk. */
  static inMemory(cwd: string = process.cwd()): SessionManager {
    const manager = new SessionManager(cwd, "", false);
    manager.newSession();
    return manager;
  }

  /**
   * A copy of another session (all of its tree) as a new session of
   * `targetCwd`, recording the source as its parent session. Written at once.
   * `id`: the new session's id (--fork with --session-id); a fresh one otherwise.
   */
  static forkFrom(sourcePath: string, targetCwd: string, sessionDir?: string, id?: string): SessionManager {
    const source = resolve(sourcePath);
    const loaded = loadSessionFile(source);
    if (loaded.kind === "missing") throw new SessionFileError(source, "no such file");
    const entries = loaded.kind === "loaded" ? loaded.entries : [];
    const manager = new SessionManager(targetCwd, resolve(sessionDir ?? getDefaultSessionDir(targetCwd)), true);
    manager.newSession({ parentSession: source, ...(id !== undefined ? { id } : {}) });
    manager.adoptEntries(entries.map((entry) => ({ ...entry })));
    return manager;
  }

  static list(cwd: string, sessionDir?: string, onProgress?: SessionListProgress): Promise<SessionInfo[]> {
    return listSessions(resolve(sessionDir ?? getDefaultSessionDir(cwd)), onProgress);
  }

  static listAll(onProgress?: SessionListProgress): Promise<SessionInfo[]> {
    return listAllSessions(onProgress);
  }

  // ---- switching sessions ---------------------------------------------------

  /** Starts an empty session (same cwd and folder). Returns its file path; undefined in memory. */
  newSession(options?: NewSessionOptions): string | undefined {
    const id = options?.id ?? generateSessionId();
    const timestamp = new Date().toISOString();
    this.header = withoutUndefined({
      type: "session",
      version: CURRENT_SESSION_VERSION,
      id,
      timestamp,
      cwd: this.cwd,
      parentSession: options?.parentSession,
    });
    this.adoptTree([]);
    this.loadWarnings = [];
    if (!this.persisted) {
      this.writer = SessionWriter.inMemory();
      return undefined;
    }
    this.writer = SessionWriter.newFile(join(this.sessionDir, sessionFileName(timestamp, id)));
    return this.sessionFile;
  }

  /**
   * Switches to the session in `path` (its cwd becomes this manager's). A
   * missing file becomes a new session written there; an empty file or one
   * whose first write was torn is started afresh (with a load warning). Throws
   * SessionFileError when the file is not a readable session.
   */
  setSessionFile(path: string): void {
    const file = resolve(path);
    const loaded = loadSessionFile(file);
    if (!this.persisted) {
      this.persisted = true;
      this.sessionDir = dirname(file);
    }
    if (loaded.kind !== "loaded") {
      this.newSession();
      this.writer = SessionWriter.newFile(file, loaded.kind === "fresh");
      this.loadWarnings = loaded.kind === "fresh" ? loaded.warnings : [];
      return;
    }
    this.header = loaded.header;
    if (typeof this.header.cwd === "string") this.cwd = this.header.cwd;
    this.writer = SessionWriter.loaded(file, loaded.needsNewline, loaded.tornTail);
    this.adoptTree(loaded.entries);
    this.loadWarnings = loaded.warnings;
    if (loaded.migrated) this.writer.rewriteAfterMigration(this.header, this.index.entries, this.warn);
  }

  /**
   * Copies the path from the root to `leafId` into a new session whose parent
   * is this one, and switches to it. Labels on copied entries come along (as
   * label entries after the path). Returns the new file; undefined in memory.
   */
  createBranchedSession(leafId: string): string | undefined {
    const copied = this.index.copyPathWithLabels(leafId);
    if (copied.length === 0) throw new Error(`Entry ${leafId} not found in this session`);
    const file = this.newSession({ parentSession: this.sessionFile });
    this.adoptEntries(copied);
    return file;
  }

  // ---- appending ------------------------------------------------------------

  /** Appends a conversation message. Compaction and branch summaries have their own methods. */
  appendMessage(message: AgentMessage): string {
    const dedicated = ROLES_WITH_OWN_ENTRIES.get(message.role);
    if (dedicated) throw new Error(`appendMessage() does not take "${message.role}" messages; use ${dedicated}`);
    return this.commit<SessionMessageEntry>({ ...this.entryBase("message"), message });
  }

  appendThinkingLevelChange(thinkingLevel: string): string {
    return this.commit<ThinkingLevelChangeEntry>({ ...this.entryBase("thinking_level_change"), thinkingLevel });
  }

  appendModelChange(provider: string, modelId: string): string {
    return this.commit<ModelChangeEntry>({ ...this.entryBase("model_change"), provider, modelId });
  }

  appendCompaction<T = unknown>(
    summary: string,
    firstKeptEntryId: string,
    tokensBefore: number,
    details?: T,
    fromHook?: boolean,
    usage?: Usage,
  ): string {
    return this.commit<CompactionEntry<T>>(
      withoutUndefined({ ...this.entryBase("compaction"), summary, firstKeptEntryId, tokensBefore, details, fromHook, usage }),
    );
  }

  /**
   * Model usage outside the conversation (cache warming, an extension's own
   * calls): counted in the session's totals, never sent to the model.
   */
  appendUsage(kind: string, provider: string, model: string, usage: Usage, note?: string): UsageEntry {
    if (!isUsage(usage)) throw new Error("appendUsage(): usage needs numeric input, output, cacheRead, cacheWrite and cost.total");
    const entry = withoutUndefined<UsageEntry>({ ...this.entryBase("usage"), kind, provider, model, usage, note });
    this.commit(entry);
    return entry;
  }

  /**
   * Changes what an earlier entry on the active branch contributes to the
   * model's context from here on: `null` leaves it out, `{ content }` replaces
   * its content (a string becomes one text block for assistant and tool-result
   * messages). The entry itself is never changed. Targets: user, assistant
   * and tool-result messages, and custom_message entries. Returns the id of the
   * context_edit entry.
   */
  appendContextEdit(targetId: string, replacement: ContextEditEntry["replacement"]): string {
    const fields = newContextEdit(this.index.byId, this.getBranch(), targetId, replacement);
    return this.commit<ContextEditEntry>({ ...this.entryBase("context_edit"), ...fields });
  }

  /** Extension state: kept in the session, never sent to the LLM. */
  appendCustomEntry(customType: string, data?: unknown): string {
    return this.commit<CustomEntry>(withoutUndefined({ ...this.entryBase("custom"), customType, data }));
  }

  /** Sets the session's display name. */
  appendSessionInfo(name: string): string {
    return this.commit<SessionInfoEntry>({ ...this.entryBase("session_info"), name: name.trim() });
  }

  /** An extension's message that is part of the LLM context. */
  appendCustomMessageEntry<T = unknown>(
    customType: string,
    content: string | (TextContent | ImageContent)[],
    display: boolean,
    details?: T,
  ): string {
    return this.commit<CustomMessageEntry<T>>(
      withoutUndefined({ ...this.entryBase("custom_message"), customType, content, display, details }),
    );
  }

  /** Sets (or with undefined/empty, clears) the label of an existing entry. */
  appendLabelChange(targetId: string, label: string | undefined): string {
    if (!this.index.byId.has(targetId)) throw new Error(`Entry ${targetId} not found in this session`);
    return this.commit<LabelEntry>(withoutUndefined({ ...this.entryBase("label"), targetId, label: label || undefined }));
  }

  // ---- moving in the tree ---------------------------------------------------

  /** Moves the leaf to an existing entry; the next append starts a branch there. */
  branch(entryId: string): void {
    if (!this.index.byId.has(entryId)) throw new Error(`Entry ${entryId} not found in this session`);
    this.leafId = entryId;
  }

  /** Moves the leaf before the first entry: the next append starts a new root. */
  resetLeaf(): void {
    this.leafId = null;
  }

  /**
   * Moves the leaf to `entryId` (null: before the first entry) and appends a
   * summary of the branch being left there. The entry's `fromId` is the leaf
   * that was left ("root" when it was already at the start).
   */
  branchWithSummary<T = unknown>(entryId: string | null, summary: string, details?: T, fromHook?: boolean, usage?: Usage): string {
    if (entryId !== null && !this.index.byId.has(entryId)) throw new Error(`Entry ${entryId} not found in this session`);
    const fromId = this.leafId ?? "root";
    this.leafId = entryId;
    return this.commit<BranchSummaryEntry<T>>(
      withoutUndefined({ ...this.entryBase("branch_summary"), fromId, summary, details, fromHook, usage }),
    );
  }

  // ---- reading --------------------------------------------------------------

  getLeafId(): string | null {
    return this.leafId;
  }

  getLeafEntry(): SessionEntry | undefined {
    return this.leafId === null ? undefined : this.index.byId.get(this.leafId);
  }

  getEntry(id: string): SessionEntry | undefined {
    return this.index.byId.get(id);
  }

  /** The entries from the root to `fromId` (default: the leaf), root first. */
  getBranch(fromId?: string): SessionEntry[] {
    const id = fromId ?? this.leafId;
    return id === null ? [] : this.index.pathTo(id);
  }

  getTree(): SessionTreeNode[] {
    return this.index.tree();
  }

  getChildren(parentId: string): SessionEntry[] {
    return this.index.childrenOf(parentId);
  }

  getLabel(id: string): string | undefined {
    return this.index.labelOf(id);
  }

  /** The context's messages with the extensions' `custom` entries where they stand (interactive mode draws both). */
  buildDisplayItems(): (AgentMessage | CustomEntry)[] {
    return buildDisplayItems(this.index.entries, this.leafId, this.index.byId);
  }

  /** The entries that make up the context at the leaf: the latest compaction, the entries it kept, then the rest. */
  buildContextEntries(): SessionEntry[] {
    return buildContextEntries(this.index.entries, this.leafId, this.index.byId);
  }

  /** The context at the leaf with the entry each message came from, as pi 1.6.0's extensions read it. */
  buildSessionProjection(): SessionProjection {
    return buildSessionProjection(this.index.entries, this.leafId, this.index.byId);
  }

  /** How many entries there are (header left out), without copying them as getEntries() does. */
  getEntryCount(): number {
    return this.index.entries.length;
  }

  /** What the model is given at the leaf: context edits applied, pi's system messages kept (never sent). */
  buildSessionContext(): SessionContext {
    const projection = buildContextProjection(this.index.entries, this.leafId, this.index.byId);
    this.liveEdits.remember(projection.messages);
    return { messages: projection.messages.map((item: ContextMessage) => item.message), thinkingLevel: projection.thinkingLevel, model: projection.model };
  }

  /**
   * Brings a transcript built from this session (`buildSessionContext`, then
   * grown by appends) up to date with the context edits on the active branch,
   * in place, and returns it: an edit appended while the session runs applies
   * from the next model request, as when the session is loaded again. A
   * no-op for sessions without context edits.
   */
  applyContextEdits(messages: AgentMessage[]): AgentMessage[] {
    if (this.index.contextEditCount === 0) return messages;
    return this.liveEdits.apply(messages, this.getBranch());
  }

  /** Every entry, in file order, without the header. */
  getEntries(): SessionEntry[] {
    return [...this.index.entries];
  }

  getHeader(): SessionHeader {
    return { ...this.header };
  }

  getSessionName(): string | undefined {
    return this.index.sessionName;
  }

  getCwd(): string {
    return this.cwd;
  }

  getSessionDir(): string {
    return this.sessionDir;
  }

  getSessionId(): string {
    return this.header.id;
  }

  /** The session's file (it may not exist until the first append); undefined in memory. */
  getSessionFile(): string | undefined {
    return this.sessionFile;
  }

  /**
   * Shows the session in `path` while keeping nothing on disk: its entries come into
   * memory, and neither that file nor any other is written from here on (--no-session's
   * /import). Throws SessionFileError as setSessionFile does.
   */
  openInMemory(path: string): void {
    const sessionDir = this.sessionDir;
    this.setSessionFile(path);
    this.persisted = false;
    this.sessionDir = sessionDir;
    this.writer = SessionWriter.inMemory();
  }

  private get sessionFile(): string | undefined {
    return this.writer.file;
  }

  /** Whether this session is kept in a file (false for `inMemory`). */
  isPersisted(): boolean {
    return this.persisted;
  }

  /** Why this session's file could not be written (a read-only home), else undefined; in memory, undefined. */
  writeProblem(): string | undefined {
    return this.writer.writeProblem();
  }

  /**
   * Keeps the session in memory from here on (its entries stay; new sessions
   * too), with `warning` among the load warnings every mode shows.
   */
  keepInMemory(warning: string): void {
    this.persisted = false;
    this.writer = SessionWriter.inMemory();
    this.loadWarnings.push(warning);
  }

  /** Problems met loading the file (skipped lines, a failed rewrite), for the user to see. */
  getLoadWarnings(): string[] {
    return [...this.loadWarnings];
  }

  // ---- internals ------------------------------------------------------------

  private entryBase<K extends string>(type: K): { type: K; id: string; parentId: string | null; timestamp: string } {
    return { type, id: generateEntryId(this.index.byId), parentId: this.leafId, timestamp: new Date().toISOString() };
  }

  /** The model and thinking level a fresh session file opens with (opening-entries.ts); set by whoever knows the model. */
  private opening?: () => OpeningState | undefined;

  setOpening(opening: () => OpeningState | undefined): void {
    this.opening = opening;
  }

  /** Writes the entry, then adds it to the tree as the new leaf (memory never runs ahead of the file). */
  private commit<T extends SessionEntry>(entry: T): string {
    if (this.index.entries.length === 0 && this.opening) this.writeOpening(entry);
    this.persist(entry);
    this.index.add(entry);
    if (entry.type === "message") this.liveEdits.rememberOne(entry.message, entry.id);
    this.leafId = entry.id;
    return entry.id;
  }

  /** The opening entries, then `entry` chained after them. */
  private writeOpening(entry: SessionEntry): void {
    const state = this.opening?.();
    if (!state) return;
    const add = (opening: SessionEntry) => {
      this.persist(opening);
      this.index.add(opening);
    };
    this.leafId = writeOpeningEntries(state, entry, (type, parentId) => ({ ...this.entryBase(type), parentId }), add);
  }

  private persist(entry: SessionEntry): void {
    this.writer.write(this.header, this.index.entries, entry, this.warn);
  }

  private readonly warn = (warning: string): void => {
    this.loadWarnings.push(warning);
  };

  /** Replaces this session's entries (fork, branch extraction) and writes them out at once. */
  private adoptEntries(entries: SessionEntry[]): void {
    this.adoptTree(entries);
    this.writer.writeAll(this.header, entries);
  }

  /** These entries become the tree, its last entry the leaf. */
  private adoptTree(entries: SessionEntry[]): void {
    this.index = new EntryIndex(entries);
    this.liveEdits = new LiveContextEdits();
    this.leafId = this.index.lastEntry?.id ?? null;
  }
}
