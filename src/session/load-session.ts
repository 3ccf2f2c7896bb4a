/**
 * Loading a session file for use: read it, migrate it to the current version
 * in memory, and keep only entries that can sit in the tree. Whether the file
 * on disk must be rewritten afterwards is the caller's decision (`migrated`).
 * The entries array read from the file is the one returned: a 20 000-entry
 * session is not copied into a second and third array on the way.
 */
import { problemWithEntry } from "./entry-shapes.ts";
import { migrateSessionEntries } from "./migrate.ts";
import { readSessionFile, type TornTail } from "./parse-session.ts";
import { CURRENT_SESSION_VERSION, type FileEntry, type SessionEntry, type SessionHeader } from "./types.ts";

export type LoadedSessionFile =
  /** No file at that path. */
  | { kind: "missing" }
  /** A file with no session in it yet (empty, or its first write was torn): start afresh there. */
  | { kind: "fresh"; warnings: string[] }
  | {
      kind: "loaded";
      header: SessionHeader;
      entries: SessionEntry[];
      warnings: string[];
      /** The file ends mid-line: the next append must start a fresh line. */
      needsNewline: boolean;
      /** A line torn by a crash at the end, to cut off before the next append. */
      tornTail?: TornTail;
      /** Migrated from an older version: the file on disk is out of date. */
      migrated: boolean;
    };

/** Throws SessionFileError for a file that is not a readable session. */
export function loadSessionFile(file: string): LoadedSessionFile {
  const parsed = readSessionFile(file);
  if (!parsed) return { kind: "missing" };
  const header = parsed.header;
  if (!header) return { kind: "fresh", warnings: parsed.warnings };

  const warnings = parsed.warnings;
  if ((header.version ?? 1) > CURRENT_SESSION_VERSION) {
    warnings.push(`${file}: written by a newer version (v${header.version}); entries of unknown types are kept as they are`);
  }
  const entries = parsed.entries;
  // Migration takes the lines header first and changes entries in place; only old files need the copy.
  const migrated = (header.version ?? 1) < CURRENT_SESSION_VERSION && migrateSessionEntries([header, ...entries] as FileEntry[]);
  // Entries without an id cannot sit in the tree: compacted out in place.
  let kept = 0;
  for (const entry of entries) {
    if (typeof entry.id !== "string") {
      warnings.push(`${file}: an entry of type "${entry.type}" has no id and was skipped`);
      continue;
    }
    // Kept in the tree (entries below it stay reachable), but without effect.
    const problem = problemWithEntry(entry);
    if (problem) warnings.push(`${file}: the ${entry.type} entry ${entry.id} ${problem}`);
    entries[kept++] = entry;
  }
  entries.length = kept;
  return { kind: "loaded", header, entries, warnings, needsNewline: parsed.needsNewline, migrated, ...(parsed.tornTail ? { tornTail: parsed.tornTail } : {}) };
}
