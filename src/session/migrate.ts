/**
 * Bringing old session files up to the current format (v3), in memory:
 *
 * - v1 → v2: v1 files are a plain sequence without ids. Each entry gets an
 *   8-hex id and points at the entry before it, so the sequence becomes a
 *   single-branch tree. A v1 compaction named its first kept entry by position
 *   (`firstKeptEntryIndex`, counting the file's lines from the header at 0);
 *   it now names it by id.
 * - v2 → v3: the `hookMessage` message role was renamed `custom`.
 *
 * Entry types this code does not know are kept as they are (v1 ones get ids
 * like any other), so a newer writer's entries survive a round trip.
 */
import { generateEntryId } from "./ids.ts";
import { CURRENT_SESSION_VERSION, type FileEntry, type SessionEntry, type SessionHeader } from "./types.ts";

/** A v1 compaction, before its first kept entry was named by id. */
interface LegacyCompactionFields {
  firstKeptEntryIndex?: unknown;
  firstKeptEntryId?: unknown;
}

function migrateV1ToV2(header: SessionHeader, entries: SessionEntry[], fileEntries: FileEntry[]): void {
  const taken = new Set<string>();
  let previousId: string | null = null;
  for (const entry of entries) {
    entry.id = generateEntryId(taken);
    taken.add(entry.id);
    entry.parentId = previousId;
    previousId = entry.id;
  }
  for (const entry of entries) {
    if (entry.type !== "compaction") continue;
    const legacy = entry as unknown as LegacyCompactionFields;
    if (typeof legacy.firstKeptEntryId !== "string") {
      const target = typeof legacy.firstKeptEntryIndex === "number" ? fileEntries[legacy.firstKeptEntryIndex] : undefined;
      // An index that points nowhere keeps everything before the compaction rather than losing it.
      legacy.firstKeptEntryId = target && target.type !== "session" ? target.id : entries[0].id;
    }
    delete legacy.firstKeptEntryIndex;
  }
  header.version = 2;
}

function migrateV2ToV3(header: SessionHeader, entries: SessionEntry[]): void {
  for (const entry of entries) {
    if (entry.type !== "message") continue;
    const message = entry.message as { role: string };
    if (message.role === "hookMessage") message.role = "custom";
  }
  header.version = 3;
}

/**
 * Migrates a session file's lines (header first) to v3, in place. Returns
 * whether anything changed, i.e. whether the file on disk is now out of date.
 * Files newer than v3 are left alone.
 */
export function migrateSessionEntries(fileEntries: FileEntry[]): boolean {
  const header = fileEntries[0];
  if (!header || header.type !== "session") return false;
  const version = header.version ?? 1;
  if (version >= CURRENT_SESSION_VERSION) return false;
  const entries = fileEntries.slice(1) as SessionEntry[];
  if (version < 2) migrateV1ToV2(header, entries, fileEntries);
  migrateV2ToV3(header, entries);
  return true;
}
